import { useEffect, useId, useRef } from 'react';
import type {
  ExpressionSpecification,
  GeoJSONSource,
  LayerSpecification,
  MapLayerMouseEvent,
  MapStyleImageMissingEvent,
} from 'maplibre-gl';
import { useTranslation } from 'react-i18next';
import { toMapCrs } from './basemap';
import { useMapContext } from './context';
import { boundsOf, type LonLat } from './geo';
import { MapFeed, type MapVehicle } from './vehicleFeed';
import type { SourceLayer, SourceOptions } from './useGeoJsonLayers';
import {
  ALARM_COLOR,
  categoryColor,
  categoryLabelKey,
  OFFLINE_COLOR,
  STATE_COLORS,
  VEHICLE_CATEGORIES,
} from './vehicleStyle';

export type { MapVehicle } from './vehicleFeed';

const ARROW = 'vehicle-arrow';
/** The images of the clusters' counts are drawn when the map first asks for them: `vehicle-count-12`. */
const COUNT_IMAGE = 'vehicle-count-';
/** Beyond this zoom vehicles are never clustered (FlyTo zooms to 16: a vehicle flown to is on its own). */
export const CLUSTER_MAX_ZOOM = 15;

/** A white chevron on transparent pixels, drawn once per map (no sprite sheet needed). */
function arrowImage(size = 32): ImageData {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  const ctx = canvas.getContext('2d');
  if (!ctx) return new ImageData(size, size);
  ctx.fillStyle = '#ffffff';
  ctx.beginPath();
  ctx.moveTo(size / 2, size * 0.18);
  ctx.lineTo(size * 0.78, size * 0.74);
  ctx.lineTo(size / 2, size * 0.6);
  ctx.lineTo(size * 0.22, size * 0.74);
  ctx.closePath();
  ctx.fill();
  return ctx.getImageData(0, 0, size, size);
}

/** A cluster's count in white on transparent pixels, at twice the size it shows (the style has no fonts). */
function countImage(text: string): ImageData | null {
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  const font = '600 24px -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
  ctx.font = font;
  canvas.width = Math.ceil(ctx.measureText(text).width) + 4;
  canvas.height = 32;
  ctx.font = font; // resizing the canvas reset it
  ctx.fillStyle = '#ffffff';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, canvas.width / 2, canvas.height / 2 + 1);
  return ctx.getImageData(0, 0, canvas.width, canvas.height);
}

const colorByState: ExpressionSpecification = [
  'case',
  ['!', ['get', 'online']],
  OFFLINE_COLOR,
  ['match', ['get', 'state'], 'moving', STATE_COLORS.moving, 'loaded', STATE_COLORS.loaded, 'idle', STATE_COLORS.idle, STATE_COLORS.off],
];

/** Each cluster counts its vehicles of each category, and whether one has an alarm in progress. */
const CLUSTER_OPTIONS: SourceOptions = {
  cluster: true,
  clusterRadius: 44,
  clusterMaxZoom: CLUSTER_MAX_ZOOM,
  clusterProperties: {
    ...Object.fromEntries(VEHICLE_CATEGORIES.map((c) => [c, ['+', ['case', ['==', ['get', 'category'], c], 1, 0]]])),
    alarm: ['max', ['case', ['get', 'alarm'], 1, 0]],
  },
};

/** The colour of the category most of a cluster's vehicles are in (ties: the first of the legend's order). */
const dominantColor: ExpressionSpecification = (() => {
  const cases: unknown[] = ['case'];
  VEHICLE_CATEGORIES.forEach((c, i) => {
    const rest = VEHICLE_CATEGORIES.slice(i + 1);
    if (rest.length === 0) return;
    cases.push(['all', ...rest.map((other) => ['>=', ['get', c], ['get', other]])], categoryColor(c));
  });
  cases.push(categoryColor(VEHICLE_CATEGORIES[VEHICLE_CATEGORIES.length - 1]));
  return cases as ExpressionSpecification;
})();

const IS_CLUSTER: ExpressionSpecification = ['has', 'point_count'];

/**
 * Clusters (a circle in the colour of most of their vehicles, their count, a red ring when one has an alarm), then
 * single vehicles: the dot (clicks select) and, on moving vehicles, the heading arrow.
 */
const LAYERS: SourceLayer[] = [
  {
    id: 'cluster',
    type: 'circle',
    filter: IS_CLUSTER,
    paint: {
      'circle-radius': ['step', ['get', 'point_count'], 14, 10, 17, 50, 21, 200, 25],
      'circle-color': dominantColor,
      'circle-opacity': 0.92,
      'circle-stroke-color': ['case', ['>', ['get', 'alarm'], 0], ALARM_COLOR, '#ffffff'],
      'circle-stroke-width': ['case', ['>', ['get', 'alarm'], 0], 3, 2],
    },
  },
  {
    id: 'count',
    type: 'symbol',
    filter: IS_CLUSTER,
    layout: {
      'icon-image': ['concat', COUNT_IMAGE, ['get', 'point_count_abbreviated']],
      'icon-allow-overlap': true,
      'icon-ignore-placement': true,
    },
  },
  {
    id: 'dot',
    type: 'circle',
    filter: ['!', IS_CLUSTER],
    paint: {
      'circle-radius': ['case', ['get', 'selected'], 11, 8],
      'circle-color': colorByState,
      'circle-stroke-color': ['case', ['get', 'alarm'], ALARM_COLOR, '#ffffff'],
      'circle-stroke-width': ['case', ['get', 'alarm'], 3, ['get', 'selected'], 3, 1.5],
    },
  },
  {
    id: 'arrow',
    type: 'symbol',
    filter: ['all', ['!', IS_CLUSTER], ['get', 'online'], ['==', ['get', 'state'], 'moving']],
    layout: {
      'icon-image': ARROW,
      'icon-rotate': ['get', 'direction'],
      'icon-rotation-alignment': 'map',
      'icon-allow-overlap': true,
      'icon-ignore-placement': true,
    },
  },
];

/** The colours of the map's vehicles and what they mean (the monitor's words for the states). */
export function VehicleLegend() {
  const { t } = useTranslation();
  return (
    <div className="map-legend" data-testid="vehicle-legend" title={t('map.legend.cluster')}>
      {VEHICLE_CATEGORIES.map((c) => (
        <div className="map-legend-item" key={c} data-category={c}>
          <span className="map-legend-dot" style={{ background: categoryColor(c) }} />
          {t(categoryLabelKey(c))}
        </div>
      ))}
      <div className="map-legend-item" data-category="alarm">
        <span className="map-legend-dot map-legend-alarm" style={{ borderColor: ALARM_COLOR }} />
        {t('monitor.filter.alarm')}
      </div>
    </div>
  );
}

export interface VehiclesLayerProps {
  vehicles: MapVehicle[];
  selected?: string | null;
  onSelect?: (id: string) => void;
  /** Fit the view to the vehicles when they first arrive (default: yes). Later the user's own moves are left alone. */
  fitOnArrival?: boolean;
  /** Show the legend of the colours (default: yes). */
  legend?: boolean;
}

/**
 * The fleet as dots coloured by state, with a heading arrow on those that move, a red ring on those with an alarm
 * in progress and a larger dot for the selected one; vehicles close together on screen are drawn as one cluster
 * with their count (a click zooms into it). A click on a vehicle selects it. Renders the legend.
 */
export function VehiclesLayer({ vehicles, selected = null, onSelect, fitOnArrival = true, legend = true }: VehiclesLayerProps) {
  const { map, basemap } = useMapContext();
  const select = useRef(onSelect);
  useEffect(() => {
    select.current = onSelect;
  });
  useEffect(() => {
    if (!map.hasImage(ARROW)) map.addImage(ARROW, arrowImage(), { pixelRatio: 2 });
    const missing = (e: MapStyleImageMissingEvent) => {
      if (!e.id.startsWith(COUNT_IMAGE) || map.hasImage(e.id)) return;
      const image = countImage(e.id.slice(COUNT_IMAGE.length));
      if (image) map.addImage(e.id, image, { pixelRatio: 2 });
    };
    map.on('styleimagemissing', missing);
    return () => {
      map.off('styleimagemissing', missing);
    };
  }, [map]);

  const source = `vehicles-${useId().replace(/:/g, '')}`;
  const [cluster, , dot] = LAYERS.map((layer) => `${source}-${layer.id}`);
  // What the map should show (read when the next update goes out) and the feed to the source (see MapFeed).
  const wanted = useRef({ vehicles, selected, crs: basemap.crs });
  useEffect(() => {
    wanted.current = { vehicles, selected, crs: basemap.crs };
  });
  const feed = useRef<MapFeed | null>(null);
  useEffect(() => {
    map.addSource(source, { ...CLUSTER_OPTIONS, promoteId: 'id', type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    for (const layer of LAYERS) map.addLayer({ ...layer, id: `${source}-${layer.id}`, source } as LayerSpecification);
    const f = new MapFeed(() => map.getSource(source) as GeoJSONSource | undefined, () => wanted.current);
    feed.current = f;
    f.schedule();
    return () => {
      f.stop();
      feed.current = null;
      for (const layer of [...LAYERS].reverse()) if (map.getLayer(`${source}-${layer.id}`)) map.removeLayer(`${source}-${layer.id}`);
      if (map.getSource(source)) map.removeSource(source);
    };
  }, [map, source]);
  // a new fleet, selection or basemap: the map follows within MAP_UPDATE_MS
  useEffect(() => feed.current?.schedule(), [vehicles, selected, basemap]);

  // The fleet's extent when the first positions arrive; fitted again when the map changes size (a window resized,
  // a phone turned) as long as the view is where that fit left it: once moved (by the user, or by another layer
  // flying to a vehicle) it is left alone. A resize keeps the centre and zoom, so a changed view is a moved one.
  const fit = useRef<{ bounds: [LonLat, LonLat] | null; follow: boolean; view: { lng: number; lat: number; zoom: number } | null }>({
    bounds: null,
    follow: fitOnArrival,
    view: null,
  });
  useEffect(() => {
    const state = fit.current;
    const apply = () => {
      if (!state.bounds) return;
      const { clientWidth: width, clientHeight: height } = map.getContainer();
      const padding = Math.max(16, Math.min(96, Math.floor(Math.min(width, height) / 5)));
      map.fitBounds(state.bounds, { padding, maxZoom: 17, animate: false });
      const { lng, lat } = map.getCenter();
      state.view = { lng, lat, zoom: map.getZoom() };
    };
    const resized = () => {
      const { view } = state;
      if (!state.follow || !view) return;
      const { lng, lat } = map.getCenter();
      const moved = Math.abs(lng - view.lng) > 1e-9 || Math.abs(lat - view.lat) > 1e-9 || Math.abs(map.getZoom() - view.zoom) > 1e-9;
      if (moved) state.follow = false;
      else apply();
    };
    if (!state.bounds && state.follow && vehicles.length > 0) {
      state.bounds = boundsOf(vehicles.map((v) => toMapCrs(v.position, basemap.crs)));
      apply();
    }
    map.on('resize', resized);
    return () => {
      map.off('resize', resized);
    };
  }, [vehicles, map, basemap]);

  useEffect(() => {
    const click = (e: MapLayerMouseEvent) => {
      const id = e.features?.[0]?.properties?.id as string | undefined;
      if (id) select.current?.(String(id));
    };
    const zoomIn = (e: MapLayerMouseEvent) => {
      const feature = e.features?.[0];
      const clusterId = feature?.properties?.cluster_id as number | undefined;
      if (!feature || clusterId === undefined || feature.geometry.type !== 'Point') return;
      const center = feature.geometry.coordinates as LonLat;
      const source = map.getSource(feature.source) as GeoJSONSource | undefined;
      void source?.getClusterExpansionZoom(clusterId).then(
        (zoom) => map.easeTo({ center, zoom: Math.min(zoom, 18), duration: 500 }),
        () => undefined, // the cluster has gone (new positions): nothing to zoom into
      );
    };
    const enter = () => {
      map.getCanvas().style.cursor = 'pointer';
    };
    const leave = () => {
      map.getCanvas().style.cursor = '';
    };
    map.on('click', dot, click);
    map.on('click', cluster, zoomIn);
    for (const layer of [dot, cluster]) {
      map.on('mouseenter', layer, enter);
      map.on('mouseleave', layer, leave);
    }
    return () => {
      map.off('click', dot, click);
      map.off('click', cluster, zoomIn);
      for (const layer of [dot, cluster]) {
        map.off('mouseenter', layer, enter);
        map.off('mouseleave', layer, leave);
      }
    };
  }, [map, dot, cluster]);
  return legend ? <VehicleLegend /> : null;
}
