import { createContext, useContext } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { SitePlan } from '../config/website';
import { queryClient } from '../data/queryClient';
import { getMapSetting, MAP_SETTING_KEY, planImage, planImageKey, type MapSetting } from './api';
import { tenantBasemap, tenantSitePlan, type Basemap } from './basemap';
import type { MapCamera } from './camera';
import type { DrawnMarker } from './vehicleOverlay';

/** What every layer of a MapView gets: its camera, its basemap, and a way to ask for WebGL. */
export interface CameraContextValue {
  /** The plain camera while the map has nothing WebGL must draw, else the MapLibre map. */
  camera: MapCamera;
  basemap: Basemap;
  /**
   * A layer that MapLibre must draw (a shape, a track) says so for as long as it is on the map (call the returned
   * function when it goes; `WebGLLayer` does it): the first one makes the MapLibre map. Without one, and without
   * basemap tiles or a site plan, the map is a `PlainCamera` (no WebGL context at all), or, once MapLibre has been
   * made, its WebGL canvas is hidden and its background drawn in 2D (`PlainGrid`).
   */
  needsWebGL: () => () => void;
}

/** What the layers that MapLibre draws get (inside `WebGLLayer`): the MapLibre map, loaded. */
export interface MapContextValue extends CameraContextValue {
  map: MapLibreMap;
}

export const CameraContext = createContext<CameraContextValue | null>(null);
export const MapContext = createContext<MapContextValue | null>(null);

/** What a map's element offers the browser tests and the console besides its MapLibre map. */
export interface MapElementHooks {
  /** The map's camera (the plain one, or the MapLibre map). */
  mapCamera?: MapCamera;
  /** The vehicles and clusters the vehicle overlay drew last, where it drew them. */
  vehicleMarkers?: () => DrawnMarker[];
}

/** The camera of the enclosing MapView (for layers that draw in 2D, fit or fly). */
export function useCamera(): CameraContextValue {
  const value = useContext(CameraContext);
  if (!value) throw new Error('useCamera outside a MapView');
  return value;
}

/** The MapLibre map of the enclosing MapView: only inside a `WebGLLayer` (which waits for it). */
export function useMapContext(): MapContextValue {
  const value = useContext(MapContext);
  if (!value) throw new Error('useMapContext outside a WebGLLayer of a MapView');
  return value;
}

/** The tenant's map setting, fetched once for every map (a save puts the new one in the cache). */
export const mapSettingQuery = { queryKey: MAP_SETTING_KEY, queryFn: getMapSetting, staleTime: 5 * 60_000 };

export interface TenantMap {
  /** The setting has been read (or could not be: then the defaults). */
  ready: boolean;
  setting: MapSetting | undefined;
  basemap: Basemap;
  siteplan: SitePlan | null;
}

/** The tenant's basemap and site plan, or the configured defaults when it has set nothing (`config/website.ts`). */
export function useTenantMap(): TenantMap {
  const { data, isPending } = useQuery(mapSettingQuery);
  return { ready: !isPending, setting: data, basemap: tenantBasemap(data), siteplan: tenantSitePlan(data) };
}

/** The bytes of the site plan image of that hash, fetched once (MapLibre's `liftdeskplan://` scheme reads them). */
export async function planImageBytes(hash: string): Promise<ArrayBuffer> {
  const blob = await queryClient.query({ queryKey: planImageKey(hash), queryFn: () => planImage(hash), staleTime: Infinity });
  return blob.arrayBuffer();
}
