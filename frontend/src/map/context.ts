import { createContext, useContext } from 'react';
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { Basemap } from './basemap';

export interface MapContextValue {
  map: MapLibreMap;
  basemap: Basemap;
}

export const MapContext = createContext<MapContextValue | null>(null);

/** The map of the enclosing MapView (its layers render only once the map has loaded). */
export function useMapContext(): MapContextValue {
  const value = useContext(MapContext);
  if (!value) throw new Error('useMapContext outside a MapView');
  return value;
}
