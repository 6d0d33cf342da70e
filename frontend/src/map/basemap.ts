import type { ImageSource, Map as MapLibreMap, RasterSourceSpecification, StyleSpecification } from 'maplibre-gl';
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

/** The configured site plan (null: none): the default of a tenant that has set none. */
export function configuredSitePlan(): SitePlan | null {
  return website.map.siteplan;
}

/** What a tenant sets of its map (`/api/liftdesk/map/setting`; the fields the maps read). */
export interface TenantMapSetting {
  tileUrl: string;
  attribution: string;
  maxZoom?: number | null;
  hasPlan: boolean;
  planHash?: string | null;
  planSouth?: number | null;
  planWest?: number | null;
  planNorth?: number | null;
  planEast?: number | null;
  planOpacity: number;
}

/** The URL scheme of a tenant's site plan image (`liftdeskplan://<hash>`): `MapView` loads it with the token. */
export const PLAN_PROTOCOL = 'liftdeskplan';

export function planUrl(hash: string): string {
  return `${PLAN_PROTOCOL}://${hash}`;
}

/** The tile URLs of a template: `{s}` gives one URL per subdomain (a, b, c), as Leaflet reads it. */
export function expandTemplate(template: string): string[] {
  return template.includes('{s}') ? ['a', 'b', 'c'].map((s) => template.replace('{s}', s)) : [template];
}

/** Text as HTML that shows it as it is (MapLibre writes attributions into the page as HTML). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/**
 * A basemap of a tile URL template (WGS-84 web-mercator tiles, 256 px). The attribution is a tenant's text, shown
 * as text: never as HTML of the page.
 */
export function templateBasemap(template: string, attribution = '', maxZoom?: number | null): Basemap {
  return {
    name: 'tenant',
    tiles: expandTemplate(template),
    tileSize: 256,
    maxzoom: maxZoom ?? 19,
    attribution: escapeHtml(attribution),
    crs: 'WGS84',
  };
}

/** The tenant's basemap: its template when it set one, else the configured default. */
export function tenantBasemap(setting: TenantMapSetting | null | undefined): Basemap {
  if (!setting?.tileUrl) return basemapByName();
  return templateBasemap(setting.tileUrl, setting.attribution, setting.maxZoom);
}

/** Are these corners a plan's place: all four given, south-west strictly south-west of north-east? */
export function validCorners(south?: number | null, west?: number | null, north?: number | null, east?: number | null): boolean {
  const all = [south, west, north, east];
  if (all.some((v) => v === null || v === undefined || !Number.isFinite(v))) return false;
  return (south as number) < (north as number) && (west as number) < (east as number);
}

/** The site plan of corners and an image URL (null when they do not place one). */
export function placedPlan(
  url: string | null | undefined,
  corners: { planSouth?: number | null; planWest?: number | null; planNorth?: number | null; planEast?: number | null },
  opacity = 1,
): SitePlan | null {
  const { planSouth: s, planWest: w, planNorth: n, planEast: e } = corners;
  if (!url || !validCorners(s, w, n, e)) return null;
  return { url, topLeft: [w as number, n as number], bottomRight: [e as number, s as number], opacity };
}

/** The tenant's site plan (its image and corners), else the configured default. */
export function tenantSitePlan(setting: TenantMapSetting | null | undefined): SitePlan | null {
  if (!setting?.hasPlan || !setting.planHash) return configuredSitePlan();
  return placedPlan(planUrl(setting.planHash), setting, setting.planOpacity);
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
    // hidden until the map has something WebGL must draw: then PlainGrid shows it
    layers: [{ id: BACKGROUND_LAYER, type: 'background', layout: { visibility: 'none' }, paint: { 'background-color': BACKGROUND_COLOR } }],
  };
  if (basemap.tiles.length) {
    style.sources[BASEMAP_SOURCE] = basemapSource(basemap);
    style.layers.push({ id: BASEMAP_SOURCE, type: 'raster', source: BASEMAP_SOURCE });
  }
  if (siteplan) {
    style.sources[SITEPLAN_SOURCE] = { type: 'image', url: siteplan.url, coordinates: sitePlanCorners(siteplan, basemap.crs) };
    style.layers.push({ id: SITEPLAN_SOURCE, type: 'raster', source: SITEPLAN_SOURCE, paint: sitePlanPaint(siteplan) });
  }
  return style;
}

function basemapSource(basemap: Basemap): RasterSourceSpecification {
  return {
    type: 'raster',
    tiles: [...basemap.tiles],
    tileSize: basemap.tileSize,
    maxzoom: basemap.maxzoom,
    attribution: basemap.attribution,
  };
}

/**
 * Adds the basemap's tiles to a loaded map that was made without them (MapView asks for one tile first, and adds
 * them only when it loads): right over the background, under everything else. Nothing when they are there already.
 */
export function addBasemap(map: Pick<MapLibreMap, 'getSource' | 'addSource' | 'addLayer' | 'getStyle'>, basemap: Basemap): void {
  if (!basemap.tiles.length || map.getSource(BASEMAP_SOURCE)) return;
  map.addSource(BASEMAP_SOURCE, basemapSource(basemap));
  const above = map.getStyle().layers.find((l) => l.id !== BACKGROUND_LAYER);
  map.addLayer({ id: BASEMAP_SOURCE, type: 'raster', source: BASEMAP_SOURCE }, above?.id);
}

function sitePlanPaint(plan: SitePlan): { 'raster-fade-duration': number; 'raster-opacity': number } {
  return { 'raster-fade-duration': 0, 'raster-opacity': plan.opacity ?? 1 };
}

/** The part of a MapLibre map `syncSitePlan` uses. */
type PlanMap = Pick<MapLibreMap, 'getSource' | 'addSource' | 'removeSource' | 'getLayer' | 'addLayer' | 'removeLayer' | 'getStyle' | 'setPaintProperty'>;

/**
 * Puts the site plan on a loaded map, moves it or changes its image or opacity, or takes it off (null): right over
 * the basemap, under every layer the pages add (vehicles, fences, tracks).
 */
export function syncSitePlan(map: PlanMap, plan: SitePlan | null, crs: Crs): void {
  const source = map.getSource(SITEPLAN_SOURCE) as ImageSource | undefined;
  if (!plan) {
    if (map.getLayer(SITEPLAN_SOURCE)) map.removeLayer(SITEPLAN_SOURCE);
    if (source) map.removeSource(SITEPLAN_SOURCE);
    return;
  }
  const coordinates = sitePlanCorners(plan, crs);
  if (source && source.url === plan.url) {
    source.setCoordinates(coordinates);
  } else if (source) {
    source.updateImage({ url: plan.url, coordinates });
  } else {
    map.addSource(SITEPLAN_SOURCE, { type: 'image', url: plan.url, coordinates });
  }
  if (!map.getLayer(SITEPLAN_SOURCE)) {
    const above = map.getStyle().layers.find((l) => l.id !== BACKGROUND_LAYER && l.id !== BASEMAP_SOURCE);
    map.addLayer({ id: SITEPLAN_SOURCE, type: 'raster', source: SITEPLAN_SOURCE, paint: sitePlanPaint(plan) }, above?.id);
  } else {
    map.setPaintProperty(SITEPLAN_SOURCE, 'raster-opacity', plan.opacity ?? 1);
  }
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
