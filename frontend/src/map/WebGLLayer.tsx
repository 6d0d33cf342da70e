import { useContext, useEffect, type ReactNode } from 'react';
import { MapContext, useCamera } from './context';

/**
 * Children that MapLibre must draw: while they are on the map it draws with WebGL (the first such layer makes the
 * MapLibre map), and they render once that map has loaded (their `useMapContext` has a map from then on).
 */
export function WebGLLayer({ children }: { children: ReactNode }) {
  const { needsWebGL } = useCamera();
  useEffect(needsWebGL, [needsWebGL]);
  return useContext(MapContext) ? children : null;
}
