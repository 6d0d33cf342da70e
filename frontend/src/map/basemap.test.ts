import { validateStyleMin } from '@maplibre/maplibre-gl-style-spec';
import { describe, expect, it } from 'vitest';
import { BASEMAP_SOURCE, basemapStyle, BLANK, SITEPLAN_SOURCE, sitePlanCorners, toMapCrs, type Basemap } from './basemap';

const OSM: Basemap = { ...BLANK, name: 'osm', tiles: ['https://tile.example/{z}/{x}/{y}.png'] };
const PLAN = { url: '/files/yard.png', topLeft: [121.59, 31.36] as const, bottomRight: [121.6, 31.35] as const };

describe('basemapStyle', () => {
  it('is a valid style (the map takes it without validating it again)', () => {
    for (const style of [basemapStyle(BLANK), basemapStyle(OSM), basemapStyle(OSM, PLAN)]) expect(validateStyleMin(style)).toEqual([]);
    // the background waits for something WebGL must draw (PlainGrid shows it)
    expect(basemapStyle(BLANK).layers[0]).toMatchObject({ id: 'background', layout: { visibility: 'none' } });
    const broken = basemapStyle(OSM);
    broken.layers.push({ id: 'x', type: 'raster', source: 'missing' });
    expect(validateStyleMin(broken)).not.toEqual([]);
  });

  it('is a background under the raster tiles', () => {
    const style = basemapStyle(OSM);
    expect(style.layers.map((l) => l.id)).toEqual(['background', BASEMAP_SOURCE]);
    expect(Object.keys(style.sources)).toEqual([BASEMAP_SOURCE]);
  });

  it('lays the site plan over the basemap (so under every layer added later), by its four corners', () => {
    const style = basemapStyle(OSM, PLAN);
    expect(style.layers.map((l) => l.id)).toEqual(['background', BASEMAP_SOURCE, SITEPLAN_SOURCE]);
    expect(style.sources[SITEPLAN_SOURCE]).toEqual({
      type: 'image',
      url: '/files/yard.png',
      coordinates: [
        [121.59, 31.36],
        [121.6, 31.36],
        [121.6, 31.35],
        [121.59, 31.35],
      ],
    });
    // without a basemap, on the background alone
    expect(basemapStyle(BLANK, PLAN).layers.map((l) => l.id)).toEqual(['background', SITEPLAN_SOURCE]);
  });

  it('places the plan in the basemap’s coordinate system', () => {
    const corners = sitePlanCorners(PLAN, 'GCJ02');
    expect(corners[0]).toEqual(toMapCrs([121.59, 31.36], 'GCJ02'));
    expect(corners[0]).not.toEqual([121.59, 31.36]);
  });
});
