import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Map as MapLibreMap } from 'maplibre-gl';
import { BLANK, type Basemap } from './basemap';
import { describeError, tileHost, watchBasemap, type BasemapStatus } from './basemapHealth';
import { vehicleCategory } from './vehicleStyle';

/** Just the events of a map: `fire` plays what MapLibre would send. */
function fakeMap() {
  const listeners = new Map<string, Set<(e: unknown) => void>>();
  const map = {
    on(type: string, listener: (e: unknown) => void) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type)!.add(listener);
      return map;
    },
    off(type: string, listener: (e: unknown) => void) {
      listeners.get(type)?.delete(listener);
      return map;
    },
    fire(type: string, e: unknown) {
      for (const listener of [...(listeners.get(type) ?? [])]) listener(e);
    },
    count: () => [...listeners.values()].reduce((n, set) => n + set.size, 0),
  };
  return map;
}

function watch(options = {}) {
  const map = fakeMap();
  const seen: BasemapStatus[] = [];
  const stop = watchBasemap(map as unknown as MapLibreMap, 'basemap', 'tiles.example', (s) => seen.push(s), options);
  return { map, seen, stop };
}

describe('watchBasemap', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is ok at the first tile of the basemap, and then stops listening', () => {
    const { map, seen } = watch();
    map.fire('sourcedata', { sourceId: 'vehicles-1', tile: {} }); // another source's tile
    map.fire('sourcedata', { sourceId: 'basemap' }); // the source itself, not a tile
    expect(seen).toEqual([]);
    map.fire('sourcedata', { sourceId: 'basemap', tile: {} });
    expect(seen).toEqual([{ state: 'ok' }]);
    expect(map.count()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(seen).toHaveLength(1);
  });

  it('fails when its tiles fail and none loads soon after, naming the first error', () => {
    const { map, seen } = watch({ settleMs: 1500 });
    map.fire('error', { sourceId: 'siteplan', error: { message: 'image' } }); // not the basemap's
    map.fire('error', { sourceId: 'basemap', error: { message: 'Failed to fetch' } });
    map.fire('error', { sourceId: 'basemap', error: { message: 'later' } });
    vi.advanceTimersByTime(1400);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(seen).toEqual([{ state: 'failed', reason: 'error', host: 'tiles.example', detail: '', seconds: 8 }]);
    expect(map.count()).toBe(0);
  });

  it('is ok when a tile loads after some failed (one bad tile is not a dead server)', () => {
    const { map, seen } = watch();
    map.fire('error', { sourceId: 'basemap', error: { message: 'AJAXError', status: 500 } });
    map.fire('sourcedata', { sourceId: 'basemap', tile: {} });
    vi.advanceTimersByTime(60_000);
    expect(seen).toEqual([{ state: 'ok' }]);
  });

  it('fails when no tile loads in time (a network that drops requests answers nothing)', () => {
    const { seen } = watch({ timeoutMs: 6000 });
    vi.advanceTimersByTime(5999);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual([{ state: 'failed', reason: 'timeout', host: 'tiles.example', detail: '', seconds: 6 }]);
  });

  it('says an HTTP status rather than a message', () => {
    const { map, seen } = watch();
    map.fire('error', { sourceId: 'basemap', error: { message: 'AJAXError: Forbidden (403)', status: 403 } });
    vi.advanceTimersByTime(2000);
    expect(seen[0]).toMatchObject({ state: 'failed', reason: 'error', detail: 'HTTP 403' });
  });

  it('says nothing once stopped', () => {
    const { map, seen, stop } = watch();
    stop();
    expect(map.count()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(seen).toEqual([]);
  });
});

describe('tileHost', () => {
  it('is the host of the first tile template', () => {
    const osm: Basemap = { ...BLANK, tiles: ['https://tile.openstreetmap.org/{z}/{x}/{y}.png'] };
    expect(tileHost(osm)).toBe('tile.openstreetmap.org');
    expect(tileHost({ ...BLANK, tiles: ['https://{s}.tiles.example:8443/{z}/{x}/{y}.png'] })).toBe('0.tiles.example:8443');
    expect(tileHost(BLANK)).toBe('');
  });
});

describe('describeError', () => {
  it('is short: an HTTP status, nothing for a server out of reach, else the message without the URL', () => {
    expect(describeError({ message: 'AJAXError: Forbidden (403): https://t.example/1/2/3.png', status: 403 })).toBe('HTTP 403');
    expect(describeError({ message: 'AJAXError: Failed to fetch (0): https://t.example/1/2/3.png', status: 0 })).toBe('');
    expect(describeError({ message: 'Failed to fetch' })).toBe('');
    expect(describeError({ message: 'AJAXError: Could not decode image: https://t.example/1/2/3.png' })).toBe('Could not decode image');
    expect(describeError(undefined)).toBe('');
  });
});

describe('vehicleCategory', () => {
  it('is the state when online (unknown states count as off), else offline', () => {
    expect(vehicleCategory({ online: true, state: 'moving' })).toBe('moving');
    expect(vehicleCategory({ online: true, state: 'loaded' })).toBe('loaded');
    expect(vehicleCategory({ online: true, state: 'idle' })).toBe('idle');
    expect(vehicleCategory({ online: true, state: 'off' })).toBe('off');
    expect(vehicleCategory({ online: true, state: 'charging' })).toBe('off');
    expect(vehicleCategory({ online: false, state: 'moving' })).toBe('offline');
  });
});
