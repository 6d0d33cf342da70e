import { useEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import * as maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import { Button, Result } from 'antd';
import { WarningOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { website, type SitePlan } from '../config/website';
import {
  addBasemap,
  BACKGROUND_LAYER,
  BASEMAP_SOURCE,
  basemapStyle,
  FALLBACK_BACKGROUND,
  gridImage,
  PLAN_PROTOCOL,
  syncSitePlan,
  type Basemap,
} from './basemap';
import { probeTile, tileHost, watchBasemap, type BasemapStatus } from './basemapHealth';
import { MapContext, planImageBytes, useTenantMap, type MapContextValue } from './context';
import { PlainGrid } from './plainGrid';
import type { LonLat } from './geo';

// Vite serves the worker as its own file; without it GeoJSON layers never draw.
maplibregl.setWorkerUrl(workerUrl);
// Its workers start in a task of their own as soon as a page with a map loads, not inside the task that makes the map.
setTimeout(() => maplibregl.prewarm(), 0);
// The tenant's site plan image needs the token, which MapLibre's own requests would not send: `liftdeskplan://<hash>`
// is loaded by the app (once per image) and handed to MapLibre as bytes.
maplibregl.addProtocol(PLAN_PROTOCOL, async (params) => ({
  data: await planImageBytes(params.url.slice(PLAN_PROTOCOL.length + 3)),
}));

/** The map's element, which carries its MapLibre map (for the browser tests and for debugging from the console). */
export type MapElement = HTMLDivElement & { maplibreMap?: maplibregl.Map };

/**
 * Without its tiles, the basemap's layer is hidden (no more requests) and the background becomes a light grid that
 * moves with the map; `false` puts the basemap back.
 */
function showFallback(map: maplibregl.Map, on: boolean): void {
  if (map.getLayer(BASEMAP_SOURCE)) map.setLayoutProperty(BASEMAP_SOURCE, 'visibility', on ? 'none' : 'visible');
  if (!map.getLayer(BACKGROUND_LAYER)) return;
  if (on && !map.hasImage(FALLBACK_BACKGROUND.image)) {
    const grid = gridImage();
    if (grid) map.addImage(FALLBACK_BACKGROUND.image, grid, { pixelRatio: 2 });
  }
  map.setPaintProperty(
    BACKGROUND_LAYER,
    'background-pattern',
    on && map.hasImage(FALLBACK_BACKGROUND.image) ? FALLBACK_BACKGROUND.image : undefined,
  );
}

function reasonText(t: TFunction, status: Extract<BasemapStatus, { state: 'failed' }>): string {
  if (status.reason === 'timeout') return t('map.basemapTimeout', { host: status.host, seconds: status.seconds });
  return t('map.basemapError', { host: status.host, detail: status.detail || t('map.basemapUnreachable') });
}

export interface MapViewProps {
  /** The basemap (default: the tenant's, else the configured one). A change rebuilds the map where it stands. */
  basemap?: Basemap;
  /** The site plan under the layers (default: the tenant's, else the configured one; null: none). Follows changes. */
  siteplan?: SitePlan | null;
  /** Where the map opens; layers may move it later (e.g. to fit a shape). */
  center?: LonLat;
  zoom?: number;
  className?: string;
  style?: CSSProperties;
  /** Layers: components that add their sources and layers to the map and remove them when they unmount. */
  children?: ReactNode;
  /**
   * How long symbols fade in and out (ms; MapLibre's default 300). A map whose data changes every second (the live
   * fleet) passes 0: every fade would redraw the map for its length, and without a GPU each redraw is costly.
   */
  fadeDuration?: number;
}

/**
 * One MapLibre map. The style is a background under the basemap's raster tiles and the site plan (the tenant's
 * setting, else the configured one), so the map and its layers still work when tiles cannot load (offline, a plant
 * network, tests): then the basemap is hidden, the background shows a grid and a note says why. Children render
 * once the map has loaded. The map is made once the tenant's setting has been read (once for every map).
 */
export default function MapView({ basemap, siteplan, center, zoom, className, style, children, fadeDuration }: MapViewProps) {
  const { t } = useTranslation();
  const container = useRef<MapElement>(null);
  // no WebGL: MapLibre cannot make its context (found when the map is made, not by a context made to find out)
  const [supported, setSupported] = useState(true);
  const [value, setValue] = useState<MapContextValue | null>(null);
  const tenant = useTenantMap();
  const chosen = basemap ?? tenant.basemap;
  const ready = basemap !== undefined || tenant.ready;
  const basemapKey = JSON.stringify(chosen);
  const plan = siteplan === undefined ? tenant.siteplan : siteplan;
  const planKey = JSON.stringify(plan);
  // where the map opens: the first values, then where it stood before a rebuild (later moves go through the map's
  // own API: layers fit their shapes)
  const view = useRef({ center: center ?? website.map.center, zoom: zoom ?? website.map.zoom });
  const [status, setStatus] = useState<BasemapStatus>({ state: 'loading' });
  const retry = useRef<() => void>(() => undefined);
  // the layers that MapLibre must draw (see MapContextValue.needsWebGL), and the 2D background drawn without them
  const [webglLayers, setWebglLayers] = useState(0);
  const [grid, setGrid] = useState<PlainGrid | null>(null);
  const plain = status.state !== 'ok' && !plan && webglLayers === 0;

  useEffect(() => {
    const target = container.current;
    if (!target || !supported || !ready) return;
    /** Makes the map in `element`; returns what removes it. */
    function make(element: MapElement): () => void {
      const first = JSON.parse(basemapKey) as Basemap;
      const { center: at, zoom: level } = view.current;
      setStatus({ state: first.tiles.length ? 'loading' : 'none' });
      // The map starts on its background alone; the basemap's tiles are added once one of them has loaded (probed at
      // the map's centre). Where tiles cannot load (a plant network without internet) the map never asks for them,
      // the note says why at once, and the map draws nothing WebGL must draw (see PlainGrid).
      let map: maplibregl.Map;
      try {
        // its controls come in the next task (below); the style is ours (basemap.ts, checked against the style
        // specification by its tests): not validated again at each map
        map = new maplibregl.Map({
          container: element,
          style: basemapStyle({ ...first, tiles: [] }),
          validateStyle: false,
          center: [at[0], at[1]],
          zoom: level,
          dragRotate: false,
          pitchWithRotate: false,
          touchPitch: false,
          attributionControl: false,
          ...(fadeDuration === undefined ? {} : { fadeDuration }),
        });
      } catch {
        // no WebGL context could be made (MapLibre's "Failed to initialize WebGL")
        setSupported(false);
        return () => undefined;
      }
      map.touchZoomRotate.disableRotation();
      map.keyboard.disableRotation();
      const controls = setTimeout(() => {
        map.addControl(new maplibregl.AttributionControl({ compact: true }));
        map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
        map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left');
      }, 0);
      // Tiles that cannot load are the watcher's business; a listener keeps them (and a site plan image that cannot
      // load) off the console.
      map.on('error', () => undefined);
      const needsWebGL = () => {
        setWebglLayers((n) => n + 1);
        return () => setWebglLayers((n) => n - 1);
      };
      map.once('load', () => setValue({ map, basemap: first, needsWebGL }));
      element.maplibreMap = map;
      const background = new PlainGrid(map);
      setGrid(background);

      let stopWatching: () => void = () => undefined;
      const watch = () => {
        stopWatching();
        stopWatching = watchBasemap(map, BASEMAP_SOURCE, tileHost(first), (next) => {
          if (next.state === 'failed') showFallback(map, true);
          setStatus(next);
        });
      };
      let stopped = false;
      const loaded = new Promise<void>((resolve) => (map.loaded() ? resolve() : map.once('load', () => resolve())));
      /** One tile at the map's centre; when it loads, the basemap's tiles go on the map and are watched from then. */
      const probe = () => {
        setStatus({ state: 'loading' });
        const c = map.getCenter();
        void probeTile(first.tiles[0], { at: [c.lng, c.lat], zoom: map.getZoom() }).then(async (result) => {
          await loaded;
          if (stopped) return;
          if (result.state !== 'ok') {
            setStatus(result);
            return;
          }
          if (map.getSource(BASEMAP_SOURCE)) {
            // ask for the tiles again (the failed ones are not retried by themselves)
            showFallback(map, false);
            (map.getSource(BASEMAP_SOURCE) as maplibregl.RasterTileSource).setTiles([...first.tiles]);
          } else {
            addBasemap(map, first);
          }
          watch();
        });
      };
      retry.current = probe;
      if (first.tiles.length) probe();

      const observer = new ResizeObserver(() => map.resize());
      observer.observe(element);
      return () => {
        stopped = true;
        clearTimeout(controls);
        stopWatching();
        observer.disconnect();
        const c = map.getCenter();
        view.current = { center: [c.lng, c.lat], zoom: map.getZoom() };
        setValue(null);
        setGrid(null);
        background.destroy();
        delete element.maplibreMap;
        map.remove();
      };
    }
    // The map is made after the next frame, in a task of its own, and its controls in the task after: making a map
    // (its WebGL context, its painter, reading its container's size) is the longest piece of script of a page that
    // shows one; inside the commit that mounts the page it made one long task of the page's first render, the
    // layout the commit left to do, and the map. Made after the frame, the page shows at once and the container's
    // size is read from a layout already done.
    let unmake: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => (unmake = make(target)), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      unmake?.();
    };
  }, [supported, ready, basemapKey, fadeDuration]);

  useEffect(() => grid?.show(plain), [grid, plain]);

  useEffect(() => {
    if (!value) return;
    syncSitePlan(value.map, JSON.parse(planKey) as SitePlan | null, value.basemap.crs);
  }, [value, planKey]);

  return (
    <div className={`map-view ${className ?? ''}`} style={style} data-basemap={status.state} data-siteplan={plan ? 'on' : 'off'} data-render={plain ? 'plain' : 'webgl'}>
      <div ref={container} className="map-view-canvas" data-testid="map" />
      {!supported && (
        <div className="map-view-overlay">
          <Result status="warning" title={t('map.unsupported')} />
        </div>
      )}
      {supported && status.state === 'failed' && (
        <div className="map-view-note" role="status" data-testid="basemap-note">
          <WarningOutlined className="map-view-note-icon" />
          <div className="map-view-note-text">
            <strong>{t('map.basemapUnavailable')}</strong>
            <span>{reasonText(t, status)}</span>
          </div>
          <Button size="small" type="link" onClick={() => retry.current()}>
            {t('map.basemapRetry')}
          </Button>
        </div>
      )}
      {value && <MapContext.Provider value={value}>{children}</MapContext.Provider>}
    </div>
  );
}
