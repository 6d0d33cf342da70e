import { describe, expect, it } from 'vitest';
import { basemapByName, expandTemplate, placedPlan, planUrl, syncSitePlan, tenantBasemap, tenantSitePlan, validCorners } from '../../map/basemap';
import { probeTile, tileAt, tileUrl } from '../../map/basemapHealth';
import { formatSize, inputOf, validTemplate, valuesOf } from './mapSetting';

const SETTING = {
  tileUrl: 'https://{s}.tiles.example.com/{z}/{x}/{y}.png',
  attribution: '© Example',
  maxZoom: 20,
  hasPlan: true,
  planHash: 'ab'.repeat(32),
  planSouth: 31.2,
  planWest: 121.4,
  planNorth: 31.21,
  planEast: 121.42,
  planOpacity: 0.5,
};

describe('the tile URL template', () => {
  it('is checked as the server checks it', () => {
    expect(validTemplate('https://tile.openstreetmap.org/{z}/{x}/{y}.png')).toBe(true);
    expect(validTemplate('http://{s}.tile.example.org/{z}/{x}/{y}.png')).toBe(true);
    for (const bad of [
      '',
      'https://tiles.example.com/{z}/{x}.png',
      'ftp://tiles.example.com/{z}/{x}/{y}.png',
      'https:///{z}/{x}/{y}.png',
      'https://tiles.example.com/{z}/{x}/{y}.png?k={key}',
      'https://tiles.example.com/{z}/{x}/{y} .png',
      `https://x.example.com/{z}/{x}/{y}/${'a'.repeat(500)}`,
    ])
      expect(validTemplate(bad), bad).toBe(false);
  });

  it('gives one URL per subdomain and the tile of a place', () => {
    expect(expandTemplate(SETTING.tileUrl)).toEqual([
      'https://a.tiles.example.com/{z}/{x}/{y}.png',
      'https://b.tiles.example.com/{z}/{x}/{y}.png',
      'https://c.tiles.example.com/{z}/{x}/{y}.png',
    ]);
    expect(tileAt([0, 0], 1)).toEqual({ z: 1, x: 1, y: 1 });
    expect(tileAt([116.397, 39.909], 10)).toEqual({ z: 10, x: 843, y: 388 });
    expect(tileUrl(SETTING.tileUrl, { z: 3, x: 6, y: 2 })).toBe('https://a.tiles.example.com/3/6/2.png');
  });

  it('is tested by loading one tile', async () => {
    const answer = (status: number, type: string) => async () => new Response('x', { status, headers: { 'Content-Type': type } });
    const at = [116.4, 39.9] as const;
    expect(await probeTile(SETTING.tileUrl, { at, zoom: 10, fetcher: answer(200, 'image/png') })).toEqual({ state: 'ok' });
    expect(await probeTile(SETTING.tileUrl, { at, zoom: 10, fetcher: answer(404, 'text/html') })).toMatchObject({
      state: 'failed',
      reason: 'error',
      host: 'a.tiles.example.com',
      detail: 'HTTP 404',
    });
    expect(await probeTile(SETTING.tileUrl, { at, zoom: 10, fetcher: answer(200, 'text/html') })).toMatchObject({ state: 'failed', detail: 'text/html' });
    const refused = async () => {
      throw new TypeError('Failed to fetch');
    };
    expect(await probeTile(SETTING.tileUrl, { at, zoom: 10, fetcher: refused })).toMatchObject({ state: 'failed', reason: 'error', detail: '' });
    const never = (_: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    expect(await probeTile(SETTING.tileUrl, { at, zoom: 10, fetcher: never, timeoutMs: 10 })).toMatchObject({ state: 'failed', reason: 'timeout' });
  });
});

describe('the tenant’s map', () => {
  it('is the configured default until the tenant sets one', () => {
    expect(tenantBasemap(undefined)).toEqual(basemapByName());
    expect(tenantBasemap({ ...SETTING, tileUrl: '' })).toEqual(basemapByName());
    expect(tenantSitePlan(undefined)).toBeNull();
    expect(tenantSitePlan({ ...SETTING, hasPlan: false, planHash: null })).toBeNull();
  });

  it('draws the tenant’s template and plan', () => {
    const basemap = tenantBasemap(SETTING);
    expect(basemap.tiles).toHaveLength(3);
    expect(basemap).toMatchObject({ maxzoom: 20, attribution: '© Example', crs: 'WGS84', tileSize: 256 });
    expect(tenantSitePlan(SETTING)).toEqual({
      url: planUrl(SETTING.planHash),
      topLeft: [121.4, 31.21],
      bottomRight: [121.42, 31.2],
      opacity: 0.5,
    });
  });

  it('shows the attribution as text, never as HTML', () => {
    const basemap = tenantBasemap({ ...SETTING, attribution: '<img src=x onerror="alert(1)"> © A&B' });
    expect(basemap.attribution).toBe('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; © A&amp;B');
  });

  it('places a plan only by four corners, south-west of north-east', () => {
    expect(validCorners(31.2, 121.4, 31.21, 121.42)).toBe(true);
    expect(validCorners(31.21, 121.4, 31.2, 121.42)).toBe(false);
    expect(validCorners(31.2, 121.42, 31.21, 121.4)).toBe(false);
    expect(validCorners(31.2, 121.4, null, 121.42)).toBe(false);
    expect(placedPlan('x', { planSouth: 1, planWest: 2, planNorth: 3 })).toBeNull();
    expect(placedPlan(null, SETTING)).toBeNull();
  });

  it('lays the plan right over the basemap, and takes it off', () => {
    const calls: string[] = [];
    const sources: Record<string, unknown> = {};
    const layers = ['background', 'basemap', 'vehicles'];
    const map = {
      getSource: (id: string) => sources[id],
      addSource: (id: string, source: unknown) => {
        sources[id] = { ...(source as object), setCoordinates: () => calls.push('move') };
        calls.push(`add ${id}`);
      },
      removeSource: (id: string) => {
        delete sources[id];
        calls.push(`remove ${id}`);
      },
      getLayer: (id: string) => (layers.includes(id) ? { id } : undefined),
      addLayer: (layer: { id: string }, before?: string) => {
        layers.splice(before ? layers.indexOf(before) : layers.length, 0, layer.id);
      },
      removeLayer: (id: string) => layers.splice(layers.indexOf(id), 1),
      getStyle: () => ({ layers: layers.map((id) => ({ id })) }),
      setPaintProperty: (_: string, name: string, value: unknown) => calls.push(`${name}=${String(value)}`),
    };
    const plan = tenantSitePlan(SETTING);
    syncSitePlan(map as never, plan, 'WGS84');
    expect(layers).toEqual(['background', 'basemap', 'siteplan', 'vehicles']);
    syncSitePlan(map as never, plan && { ...plan, opacity: 0.9 }, 'WGS84');
    expect(calls).toEqual(['add siteplan', 'move', 'raster-opacity=0.9']);
    syncSitePlan(map as never, null, 'WGS84');
    expect(layers).toEqual(['background', 'basemap', 'vehicles']);
    expect(sources).toEqual({});
  });
});

describe('the settings form', () => {
  it('saves trimmed texts and absent numbers as null', () => {
    const values = { ...valuesOf(undefined), tileUrl: '  https://t.example.com/{z}/{x}/{y}.png ', maxZoom: null };
    expect(inputOf(values)).toEqual({
      tileUrl: 'https://t.example.com/{z}/{x}/{y}.png',
      attribution: '',
      maxZoom: null,
      planSouth: null,
      planWest: null,
      planNorth: null,
      planEast: null,
      planOpacity: 0.8,
    });
    expect(formatSize(300)).toBe('1 KB');
    expect(formatSize(2.5 * 1024 * 1024)).toBe('2.5 MB');
  });
});
