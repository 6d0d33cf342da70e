import { useEffect, useMemo, useRef } from 'react';
import type { ExpressionSpecification, MapLayerMouseEvent } from 'maplibre-gl';
import { toMapCrs } from './basemap';
import { useMapContext } from './context';
import type { LonLat } from './geo';
import { useGeoJsonLayers, type SourceLayer } from './useGeoJsonLayers';
import { ALARM_COLOR, OFFLINE_COLOR, STATE_COLORS } from './vehicleStyle';

/** One vehicle on the map (WGS-84). */
export interface MapVehicle {
  id: string;
  position: LonLat;
  /** off | idle | moving | loaded: the dot's colour. */
  state: string;
  online: boolean;
  alarm: boolean;
  /** Heading in degrees (0 north, clockwise): the arrow's direction. */
  direction: number;
}

const ARROW = 'vehicle-arrow';

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

const colorByState: ExpressionSpecification = [
  'case',
  ['!', ['get', 'online']],
  OFFLINE_COLOR,
  ['match', ['get', 'state'], 'moving', STATE_COLORS.moving, 'loaded', STATE_COLORS.loaded, 'idle', STATE_COLORS.idle, STATE_COLORS.off],
];

/** The dot (first: clicks select) and, on moving vehicles, the heading arrow. */
const LAYERS: SourceLayer[] = [
  {
    id: 'dot',
    type: 'circle',
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
    filter: ['all', ['get', 'online'], ['==', ['get', 'state'], 'moving']],
    layout: {
      'icon-image': ARROW,
      'icon-rotate': ['get', 'direction'],
      'icon-rotation-alignment': 'map',
      'icon-allow-overlap': true,
      'icon-ignore-placement': true,
    },
  },
];

export interface VehiclesLayerProps {
  vehicles: MapVehicle[];
  selected?: string | null;
  onSelect?: (id: string) => void;
}

/**
 * The fleet as dots coloured by state, with a heading arrow on those that move, a red ring on those with an alarm
 * in progress and a larger dot for the selected one; a click selects. Renders nothing itself.
 */
export function VehiclesLayer({ vehicles, selected = null, onSelect }: VehiclesLayerProps) {
  const { map, basemap } = useMapContext();
  const select = useRef(onSelect);
  useEffect(() => {
    select.current = onSelect;
  });
  useEffect(() => {
    if (!map.hasImage(ARROW)) map.addImage(ARROW, arrowImage(), { pixelRatio: 2 });
  }, [map]);
  const features = useMemo(
    () =>
      vehicles.map(
        (v): GeoJSON.Feature => ({
          type: 'Feature',
          properties: {
            id: v.id,
            state: v.state,
            online: v.online,
            alarm: v.alarm,
            direction: v.direction,
            selected: v.id === selected,
          },
          geometry: { type: 'Point', coordinates: toMapCrs(v.position, basemap.crs) },
        }),
      ),
    [vehicles, selected, basemap],
  );
  const [dot] = useGeoJsonLayers('vehicles', LAYERS, features);

  useEffect(() => {
    const click = (e: MapLayerMouseEvent) => {
      const id = e.features?.[0]?.properties?.id as string | undefined;
      if (id) select.current?.(String(id));
    };
    const enter = () => {
      map.getCanvas().style.cursor = 'pointer';
    };
    const leave = () => {
      map.getCanvas().style.cursor = '';
    };
    map.on('click', dot, click);
    map.on('mouseenter', dot, enter);
    map.on('mouseleave', dot, leave);
    return () => {
      map.off('click', dot, click);
      map.off('mouseenter', dot, enter);
      map.off('mouseleave', dot, leave);
    };
  }, [map, dot]);
  return null;
}
