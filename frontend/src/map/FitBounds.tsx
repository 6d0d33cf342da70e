import { useEffect } from 'react';
import { toMapCrs } from './basemap';
import { useCamera } from './context';
import type { LonLat } from './geo';

/** Moves the enclosing map to show those WGS-84 bounds, each time they change (renders nothing). */
export function FitBounds({ bounds, padding = 48, maxZoom = 17 }: { bounds: [LonLat, LonLat] | null; padding?: number; maxZoom?: number }) {
  const { camera: map, basemap } = useCamera();
  const key = bounds ? JSON.stringify(bounds) : '';
  useEffect(() => {
    if (!key) return;
    const [sw, ne] = (JSON.parse(key) as [LonLat, LonLat]).map((p) => toMapCrs(p, basemap.crs));
    map.fitBounds([sw, ne], { padding, maxZoom, animate: false });
  }, [key, map, basemap, padding, maxZoom]);
  return null;
}
