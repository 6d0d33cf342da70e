import { useMemo } from 'react';
import { toMapCrs } from './basemap';
import { useMapContext } from './context';
import type { LonLat } from './geo';
import { useGeoJsonLayers } from './useGeoJsonLayers';
import { webglLayer } from './webglGate';

export interface MapPoint {
  id: string;
  position: LonLat;
  label: string;
}

/** Labelled dots (WGS-84, converted to the basemap's CRS), e.g. where the vehicles are; renders nothing itself. */
export const PointsLayer = webglLayer(function PointsLayer({ points, color = '#fa8c16' }: { points: MapPoint[]; color?: string }) {
  const { basemap } = useMapContext();
  const features = useMemo(
    () =>
      points.map(
        (p): GeoJSON.Feature => ({
          type: 'Feature',
          id: p.id,
          properties: { label: p.label },
          geometry: { type: 'Point', coordinates: toMapCrs(p.position, basemap.crs) },
        }),
      ),
    [points, basemap],
  );
  useGeoJsonLayers(
    'points',
    [{ id: 'dot', type: 'circle', paint: { 'circle-radius': 5, 'circle-color': color, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 } }],
    features,
    color,
  );
  return null;
});
