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
export function tileHost(basemap: Basemap): string {
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
