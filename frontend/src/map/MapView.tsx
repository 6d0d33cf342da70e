import { useEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import * as maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { website } from '../config/website';
import { basemapByName, basemapStyle, type Basemap } from './basemap';
import { MapContext, type MapContextValue } from './context';
import type { LonLat } from './geo';

// Vite serves the worker as its own file; without it GeoJSON layers never draw.
maplibregl.setWorkerUrl(workerUrl);

function webglSupported(): boolean {
  try {
    const canvas = document.createElement('canvas');
    return !!(canvas.getContext('webgl2') ?? canvas.getContext('webgl'));
  } catch {
    return false;
  }
}

export interface MapViewProps {
  /** The basemap (default: the configured one). It is read once: give the MapView a new `key` to change it. */
  basemap?: Basemap;
  /** Where the map opens; layers may move it later (e.g. to fit a shape). */
  center?: LonLat;
  zoom?: number;
  className?: string;
  style?: CSSProperties;
  /** Layers: components that add their sources and layers to the map and remove them when they unmount. */
  children?: ReactNode;
}

/**
 * One MapLibre map. The style is a background under the basemap's raster tiles, so the map and its layers still
 * work when tiles cannot load (offline, tests). Children render once the map has loaded.
 */
export default function MapView({ basemap, center, zoom, className, style, children }: MapViewProps) {
  const { t } = useTranslation();
  const container = useRef<HTMLDivElement>(null);
  const [supported] = useState(webglSupported);
  const [value, setValue] = useState<MapContextValue | null>(null);
  // the first values only: later moves go through the map's own API (layers fit their shapes)
  const initial = useRef({ basemap: basemap ?? basemapByName(), center: center ?? website.map.center, zoom: zoom ?? website.map.zoom });

  useEffect(() => {
    const element = container.current;
    if (!element || !supported) return;
    const { basemap: first, center: at, zoom: level } = initial.current;
    const map = new maplibregl.Map({
      container: element,
      style: basemapStyle(first),
      center: [at[0], at[1]],
      zoom: level,
      dragRotate: false,
      pitchWithRotate: false,
      touchPitch: false,
      attributionControl: { compact: true },
    });
    map.touchZoomRotate.disableRotation();
    map.keyboard.disableRotation();
    map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
    map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left');
    // Tiles that cannot load leave the background; nothing else to do (a listener keeps them off the console).
    map.on('error', () => undefined);
    map.once('load', () => setValue({ map, basemap: first }));
    const observer = new ResizeObserver(() => map.resize());
    observer.observe(element);
    return () => {
      observer.disconnect();
      setValue(null);
      map.remove();
    };
  }, [supported]);

  return (
    <div className={`map-view ${className ?? ''}`} style={style}>
      <div ref={container} className="map-view-canvas" data-testid="map" />
      {!supported && (
        <div className="map-view-overlay">
          <Result status="warning" title={t('map.unsupported')} />
        </div>
      )}
      {value && <MapContext.Provider value={value}>{children}</MapContext.Provider>}
    </div>
  );
}
