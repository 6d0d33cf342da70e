import { useEffect } from 'react';
import { toMapCrs } from './basemap';
import { useCamera } from './context';
import type { LonLat } from './geo';

/**
 * Flies the enclosing map to `target` (WGS-84) each time `token` changes, zooming in to at least `minZoom`
 * (renders nothing). The token lets the same place be flown to twice.
 */
export function FlyTo({ target, token, minZoom = 16 }: { target: LonLat | null; token: number; minZoom?: number }) {
  const { camera: map, basemap } = useCamera();
  const key = target ? `${target[0]},${target[1]},${token}` : '';
  useEffect(() => {
    if (!key) return;
    const [lon, lat] = key.split(',').map(Number);
    map.flyTo({ center: toMapCrs([lon, lat], basemap.crs), zoom: Math.max(map.getZoom(), minZoom), duration: 800 });
  }, [key, map, basemap, minZoom]);
  return null;
}
