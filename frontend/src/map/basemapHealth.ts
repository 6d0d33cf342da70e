import type { Map as MapLibreMap } from 'maplibre-gl';
import type { Basemap } from './basemap';

/** Whether the basemap's tiles load: `none` when it has no tiles (a plain background by choice). */
export type BasemapStatus =
  | { state: 'none' }
  | { state: 'loading' }
  | { state: 'ok' }
  | { state: 'failed'; reason: 'error' | 'timeout'; host: string; detail: string; seconds: number };

/** The part of a MapLibre map the watcher uses (a fake one in tests). */
export type EventedMap = Pick<MapLibreMap, 'on' | 'off'>;

interface SourceEvent {
  sourceId?: string;
  tile?: unknown;
  error?: { message?: string; status?: number };
}

export interface WatchOptions {
  /** No tile within this long (ms) from the start: failed (a network that drops requests answers nothing). */
  timeoutMs?: number;
  /** After a tile error, how long (ms) another tile may still load before the basemap counts as failed. */
  settleMs?: number;
}

/** The host of a basemap's tiles (what the note names), or '' when it has none. */
export function tileHost(basemap: Pick<Basemap, 'tiles'>): string {
  const template = basemap.tiles[0];
  if (!template) return '';
  try {
    return new URL(template.replace(/\{[^}]*\}/g, '0')).host;
  } catch {
    return template;
  }
}

/**
 * What went wrong, shortly: `HTTP 403` when the server answered, '' when it could not be reached (no network, no
 * such host: the note says so in its own words), else the error's message without MapLibre's prefix and the URL.
 */
export function describeError(error: { message?: string; status?: number } | undefined): string {
  const status = error?.status;
  if (status) return `HTTP ${status}`;
  const message = error?.message ?? '';
  if (status === 0 || /failed to fetch|networkerror|load failed|network error/i.test(message)) return '';
  return message.replace(/^AJAXError:\s*/, '').replace(/:?\s*https?:\/\/\S+$/, '');
}

/**
 * Watches the first tiles of the raster source `sourceId`: `ok` at the first tile that loads; `failed` when tiles
 * fail to load (MapLibre `error` events of the source) and none has loaded `settleMs` later, or when none has
 * loaded within `timeoutMs`. Calls `onChange` once with the verdict, then stops listening. Returns a stop function.
 */
export function watchBasemap(
  map: EventedMap,
  sourceId: string,
  host: string,
  onChange: (status: BasemapStatus) => void,
  { timeoutMs = 8000, settleMs = 1500 }: WatchOptions = {},
): () => void {
  let done = false;
  let settle: ReturnType<typeof setTimeout> | undefined;
  let firstError: string | null = null;
  const stop = () => {
    done = true;
    clearTimeout(timer);
    clearTimeout(settle);
    map.off('sourcedata', onData);
    map.off('error', onError);
  };
  const finish = (status: BasemapStatus) => {
    if (done) return;
    stop();
    onChange(status);
  };
  const failed = (reason: 'error' | 'timeout') =>
    finish({ state: 'failed', reason, host, detail: firstError ?? '', seconds: Math.round(timeoutMs / 1000) });
  const onData = (e: SourceEvent) => {
    if (e.sourceId === sourceId && e.tile) finish({ state: 'ok' });
  };
  const onError = (e: SourceEvent) => {
    if (e.sourceId !== sourceId) return;
    firstError ??= describeError(e.error);
    settle ??= setTimeout(() => failed('error'), settleMs);
  };
  const timer = setTimeout(() => failed('timeout'), timeoutMs);
  map.on('sourcedata', onData);
  map.on('error', onError);
  return stop;
}

/** The XYZ tile (web mercator) holding [lon, lat] at zoom `z`. */
export function tileAt([lon, lat]: readonly [number, number], z: number): { z: number; x: number; y: number } {
  const n = 2 ** z;
  const clampedLat = Math.max(-85.0511, Math.min(85.0511, lat));
  const rad = (clampedLat * Math.PI) / 180;
  const x = Math.floor(((lon + 180) / 360) * n);
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n);
  return { z, x: Math.min(n - 1, Math.max(0, x)), y: Math.min(n - 1, Math.max(0, y)) };
}

/** The URL of one tile of a template (`{s}` → a). */
export function tileUrl(template: string, tile: { z: number; x: number; y: number }): string {
  return template
    .replace('{s}', 'a')
    .replace('{z}', String(tile.z))
    .replace('{x}', String(tile.x))
    .replace('{y}', String(tile.y));
}

export interface ProbeOptions {
  /** Where the tile is taken: the map's centre and zoom (a plant's own tile server may serve its site only). */
  at: readonly [number, number];
  zoom: number;
  timeoutMs?: number;
  /** The fetch used (a fake one in tests). */
  fetcher?: typeof fetch;
}

/**
 * Loads one tile of a template as the map would (a CORS request) and says whether it works: `ok` when an image
 * comes back, else `failed` with the host and the reason, in the words of the map's own note.
 */
export async function probeTile(
  template: string,
  { at, zoom, timeoutMs = 8000, fetcher = (...args) => fetch(...args) }: ProbeOptions,
): Promise<Extract<BasemapStatus, { state: 'ok' } | { state: 'failed' }>> {
  const url = tileUrl(template, tileAt(at, Math.max(0, Math.round(zoom))));
  const host = tileHost({ tiles: [url] });
  const seconds = Math.round(timeoutMs / 1000);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetcher(url, { mode: 'cors', signal: controller.signal });
    const type = response.headers.get('Content-Type') ?? '';
    if (!response.ok) return { state: 'failed', reason: 'error', host, detail: `HTTP ${response.status}`, seconds };
    if (type && !type.startsWith('image/')) return { state: 'failed', reason: 'error', host, detail: type, seconds };
    return { state: 'ok' };
  } catch (error) {
    if (controller.signal.aborted) return { state: 'failed', reason: 'timeout', host, detail: '', seconds };
    return { state: 'failed', reason: 'error', host, detail: describeError({ message: String((error as Error)?.message ?? error) }), seconds };
  } finally {
    clearTimeout(timer);
  }
}
