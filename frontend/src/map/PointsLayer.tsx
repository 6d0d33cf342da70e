import { useEffect, useId } from 'react';
import type { GeoJSONSource } from 'maplibre-gl';
import { toMapCrs } from './basemap';
import { useMapContext } from './context';
import type { LonLat } from './geo';

export interface MapPoint {
  id: string;
  position: LonLat;
  label: string;
}

/** Labelled dots (WGS-84, converted to the basemap's CRS), e.g. where the vehicles are; renders nothing itself. */
export function PointsLayer({ points, color = '#fa8c16' }: { points: MapPoint[]; color?: string }) {
  const { map, basemap } = useMapContext();
  const source = `points-${useId().replace(/:/g, '')}`;

  useEffect(() => {
    map.addSource(source, { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    map.addLayer({
      id: `${source}-dot`,
      type: 'circle',
      source,
      paint: { 'circle-radius': 5, 'circle-color': color, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 },
    });
    return () => {
      if (map.getLayer(`${source}-dot`)) map.removeLayer(`${source}-dot`);
      if (map.getSource(source)) map.removeSource(source);
    };
  }, [map, source, color]);

  useEffect(() => {
    const src = map.getSource(source) as GeoJSONSource | undefined;
    void src?.setData({
      type: 'FeatureCollection',
      features: points.map((p) => ({
        type: 'Feature',
        id: p.id,
        properties: { label: p.label },
        geometry: { type: 'Point', coordinates: toMapCrs(p.position, basemap.crs) },
      })),
    });
  }, [map, source, basemap, points]);
  return null;
}
