import type { StyleSpecification } from 'maplibre-gl';
import { website, type SitePlan } from '../config/website';
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
export const BACKGROUND_LAYER = 'background';
export const BASEMAP_SOURCE = 'basemap';
export const SITEPLAN_SOURCE = 'siteplan';

/** The configured site plan (null: none). */
export function configuredSitePlan(): SitePlan | null {
  return website.map.siteplan;
}

/** The four corners of an image source (top-left, top-right, bottom-right, bottom-left) in the basemap's CRS. */
export function sitePlanCorners(plan: SitePlan, crs: Crs): [LonLat, LonLat, LonLat, LonLat] {
  const [west, north] = plan.topLeft;
  const [east, south] = plan.bottomRight;
  const corners: LonLat[] = [
    [west, north],
    [east, north],
    [east, south],
    [west, south],
  ];
  return corners.map((p) => toMapCrs(p, crs)) as [LonLat, LonLat, LonLat, LonLat];
}

/**
 * The style of a map: a background (so shapes still show when tiles cannot load, e.g. offline) under the
 * basemap's raster tiles, and over them the site plan when there is one. No glyphs or sprites: layers on top use
 * fills, lines, circles and images the code draws.
 */
export function basemapStyle(basemap: Basemap, siteplan: SitePlan | null = null): StyleSpecification {
  const style: StyleSpecification = {
    version: 8,
    sources: {},
    layers: [{ id: BACKGROUND_LAYER, type: 'background', paint: { 'background-color': BACKGROUND_COLOR } }],
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
  if (siteplan) {
    style.sources[SITEPLAN_SOURCE] = { type: 'image', url: siteplan.url, coordinates: sitePlanCorners(siteplan, basemap.crs) };
    style.layers.push({ id: SITEPLAN_SOURCE, type: 'raster', source: SITEPLAN_SOURCE, paint: { 'raster-fade-duration': 0 } });
  }
  return style;
}

/** The plain background drawn when the basemap cannot load: a light colour and a grid that moves with the map. */
export const FALLBACK_BACKGROUND = { color: '#f5f7fa', line: '#dde3ea', cell: 32, image: 'basemap-fallback-grid' };

/** One cell of the fallback grid (a line on its top and left edges), as a pattern image. */
export function gridImage(cell = FALLBACK_BACKGROUND.cell, pixelRatio = 2): ImageData | null {
  const size = cell * pixelRatio;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  ctx.fillStyle = FALLBACK_BACKGROUND.color;
  ctx.fillRect(0, 0, size, size);
  ctx.fillStyle = FALLBACK_BACKGROUND.line;
  ctx.fillRect(0, 0, size, pixelRatio);
  ctx.fillRect(0, 0, pixelRatio, size);
  return ctx.getImageData(0, 0, size, size);
}

/** WGS-84 → the basemap's CRS (for drawing). */
export function toMapCrs(p: LonLat, crs: Crs): LonLat {
  return crs === 'GCJ02' ? wgs84ToGcj02(p) : p;
}

/** The basemap's CRS → WGS-84 (for storing what a user drew). */
export function fromMapCrs(p: LonLat, crs: Crs): LonLat {
  return crs === 'GCJ02' ? gcj02ToWgs84(p) : p;
}
