import { useEffect, useId } from 'react';
import type { GeoJSONSource } from 'maplibre-gl';
import { toMapCrs } from './basemap';
import { useMapContext } from './context';
import type { LonLat } from './geo';

/** A vehicle's track as a line with its start and end marked (WGS-84 points, oldest first); renders nothing. */
export function TrackLayer({ points, color = '#722ed1' }: { points: LonLat[]; color?: string }) {
  const { map, basemap } = useMapContext();
  const source = `track-${useId().replace(/:/g, '')}`;

  useEffect(() => {
    map.addSource(source, { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    map.addLayer({
      id: `${source}-line`,
      type: 'line',
      source,
      filter: ['==', ['geometry-type'], 'LineString'],
      layout: { 'line-join': 'round', 'line-cap': 'round' },
      paint: { 'line-color': color, 'line-width': 3, 'line-opacity': 0.85 },
    });
    map.addLayer({
      id: `${source}-ends`,
      type: 'circle',
      source,
      filter: ['==', ['geometry-type'], 'Point'],
      paint: {
        'circle-radius': 5,
        'circle-color': ['match', ['get', 'end'], 'start', '#52c41a', '#f5222d'],
        'circle-stroke-color': '#fff',
        'circle-stroke-width': 1.5,
      },
    });
    return () => {
      for (const layer of [`${source}-ends`, `${source}-line`]) if (map.getLayer(layer)) map.removeLayer(layer);
      if (map.getSource(source)) map.removeSource(source);
    };
  }, [map, source, color]);

  useEffect(() => {
    const src = map.getSource(source) as GeoJSONSource | undefined;
    const coords = points.map((p) => toMapCrs(p, basemap.crs));
    const features: GeoJSON.Feature[] = [];
    if (coords.length > 1) features.push({ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: coords } });
    if (coords.length > 0) {
      features.push({ type: 'Feature', properties: { end: 'start' }, geometry: { type: 'Point', coordinates: coords[0] } });
      if (coords.length > 1) {
        features.push({ type: 'Feature', properties: { end: 'end' }, geometry: { type: 'Point', coordinates: coords[coords.length - 1] } });
      }
    }
    void src?.setData({ type: 'FeatureCollection', features });
  }, [map, source, basemap, points]);
  return null;
}
