import type { StyleSpecification } from 'maplibre-gl';
import { website } from '../config/website';
import { gcj02ToWgs84, wgs84ToGcj02, type LonLat } from './geo';

/** The coordinate system a basemap's tiles are drawn in (jt808.md §5): positions are converted to it for display. */
export type Crs = 'WGS84' | 'GCJ02';

/** A raster basemap. Its CRS is a property of the basemap, not of the data: stored positions are always WGS-84. */
export interface Basemap {
  name: string;
  /** XYZ tile URL templates; none gives a plain background. */
  tiles: readonly string[];
  tileSize: number;
  maxzoom: number;
  attribution: string;
  crs: Crs;
}

const BASEMAPS: Record<string, Basemap> = website.map.basemaps;

/** A background only: what the map shows when no basemap is wanted. */
export const BLANK: Basemap = { name: 'blank', tiles: [], tileSize: 256, maxzoom: 19, attribution: '', crs: 'WGS84' };

/** The configured basemap of that name (the default one when the name is unknown or missing). */
export function basemapByName(name: string = website.map.basemap): Basemap {
  return BASEMAPS[name] ?? BASEMAPS[website.map.basemap] ?? BLANK;
}

export const BACKGROUND_COLOR = '#eef1f5';
export const BASEMAP_SOURCE = 'basemap';

/**
 * The style of a map: a background (so shapes still show when tiles cannot load, e.g. offline) under the
 * basemap's raster tiles. No glyphs or sprites: layers on top use fills, lines and circles only.
 */
export function basemapStyle(basemap: Basemap): StyleSpecification {
  const style: StyleSpecification = {
    version: 8,
    sources: {},
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': BACKGROUND_COLOR } }],
  };
  if (basemap.tiles.length) {
    style.sources[BASEMAP_SOURCE] = {
      type: 'raster',
      tiles: [...basemap.tiles],
      tileSize: basemap.tileSize,
      maxzoom: basemap.maxzoom,
      attribution: basemap.attribution,
    };
    style.layers.push({ id: BASEMAP_SOURCE, type: 'raster', source: BASEMAP_SOURCE });
  }
  return style;
}

/** WGS-84 → the basemap's CRS (for drawing). */
export function toMapCrs(p: LonLat, crs: Crs): LonLat {
  return crs === 'GCJ02' ? wgs84ToGcj02(p) : p;
}

/** The basemap's CRS → WGS-84 (for storing what a user drew). */
export function fromMapCrs(p: LonLat, crs: Crs): LonLat {
  return crs === 'GCJ02' ? gcj02ToWgs84(p) : p;
}
