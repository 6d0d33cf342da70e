import { useMemo } from 'react';
import { toMapCrs } from './basemap';
import { useMapContext } from './context';
import type { LonLat } from './geo';
import { useGeoJsonLayers } from './useGeoJsonLayers';
import { webglLayer } from './webglGate';

/** A vehicle's track as a line with its start and end marked (WGS-84 points, oldest first); renders nothing. */
export const TrackLayer = webglLayer(function TrackLayer({ points, color = '#722ed1' }: { points: LonLat[]; color?: string }) {
  const { basemap } = useMapContext();
  const features = useMemo(() => {
    const coords = points.map((p) => toMapCrs(p, basemap.crs));
    const out: GeoJSON.Feature[] = [];
    if (coords.length > 1) out.push({ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: coords } });
    if (coords.length > 0) {
      out.push({ type: 'Feature', properties: { end: 'start' }, geometry: { type: 'Point', coordinates: coords[0] } });
      if (coords.length > 1) {
        out.push({ type: 'Feature', properties: { end: 'end' }, geometry: { type: 'Point', coordinates: coords[coords.length - 1] } });
      }
    }
    return out;
  }, [points, basemap]);
  useGeoJsonLayers(
    'track',
    [
      {
        id: 'line',
        type: 'line',
        filter: ['==', ['geometry-type'], 'LineString'],
        layout: { 'line-join': 'round', 'line-cap': 'round' },
        paint: { 'line-color': color, 'line-width': 3, 'line-opacity': 0.85 },
      },
      {
        id: 'ends',
        type: 'circle',
        filter: ['==', ['geometry-type'], 'Point'],
        paint: {
          'circle-radius': 5,
          'circle-color': ['match', ['get', 'end'], 'start', '#52c41a', '#f5222d'],
          'circle-stroke-color': '#fff',
          'circle-stroke-width': 1.5,
        },
      },
    ],
    features,
    color,
  );
  return null;
});
