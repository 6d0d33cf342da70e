import { describe, expect, it } from 'vitest';
import {
  boundsOf,
  circleOfRing,
  circleRing,
  distance,
  fromMercator,
  gcj02ToWgs84,
  openRing,
  selfIntersects,
  toMercator,
  wgs84ToGcj02,
  type LonLat,
} from './geo';

describe('distances and projections', () => {
  it('measures great-circle distances in metres', () => {
    // one degree of latitude is about 111.2 km
    expect(distance([120, 30], [120, 31])).toBeCloseTo(111_195, -1);
    expect(distance([0, 0], [0, 0])).toBe(0);
  });

  it('round-trips Web Mercator', () => {
    const p: LonLat = [121.4737, 31.2304];
    const back = fromMercator(toMercator(p));
    expect(back[0]).toBeCloseTo(p[0], 9);
    expect(back[1]).toBeCloseTo(p[1], 9);
  });
});

describe('circles as rings', () => {
  it.each([
    [[116.397, 39.909], 500],
    [[121.5, 31.2], 10],
    [[113.26, 23.13], 100_000],
    [[10.75, 59.91], 2_000],
  ] as [LonLat, number][])('draws a closed ring around %j whose points lie %d m from the centre', (center, radius) => {
    const ring = circleRing(center, radius);
    expect(ring).toHaveLength(65);
    expect(ring[0]).toEqual(ring[64]);
    for (const p of ring) expect(Math.abs(distance(center, p) - radius) / radius).toBeLessThan(0.01);
    // and the ring gives its circle back
    const circle = circleOfRing(ring);
    expect(distance(circle.center, center)).toBeLessThan(Math.max(0.5, radius * 1e-4));
    expect(Math.abs(circle.radius - radius) / radius).toBeLessThan(0.005);
  });

  it('opens a closed ring once', () => {
    expect(openRing([[0, 0], [1, 0], [1, 1], [0, 0]])).toEqual([[0, 0], [1, 0], [1, 1]]);
    expect(openRing([[0, 0], [1, 0], [1, 1]])).toEqual([[0, 0], [1, 0], [1, 1]]);
  });

  it('bounds points', () => {
    expect(boundsOf([[1, 2], [-3, 5], [4, -1]])).toEqual([[-3, -1], [4, 5]]);
    expect(boundsOf([])).toBeNull();
  });
});

describe('self-intersection', () => {
  it('accepts simple polygons and refuses a bow tie', () => {
    expect(selfIntersects([[0, 0], [1, 0], [1, 1], [0, 1]])).toBe(false);
    expect(selfIntersects([[0, 0], [2, 0], [1, 1]])).toBe(false);
    expect(selfIntersects([[0, 0], [1, 1], [1, 0], [0, 1]])).toBe(true);
    // a concave one is fine
    expect(selfIntersects([[0, 0], [4, 0], [4, 4], [2, 1], [0, 4]])).toBe(false);
  });
});

describe('GCJ-02', () => {
  it('matches the published pair (coord-convert wgs2gcj(120, 40))', () => {
    const [lon, lat] = wgs84ToGcj02([120, 40]);
    expect(lon).toBeCloseTo(120.0056757, 6);
    expect(lat).toBeCloseTo(40.0013048, 6);
  });

  it('inverts to well under a metre', () => {
    for (const p of [[116.397, 39.909], [121.4737, 31.2304], [87.6, 43.8]] as LonLat[]) {
      expect(distance(gcj02ToWgs84(wgs84ToGcj02(p)), p)).toBeLessThan(0.5);
    }
  });

  it('leaves positions outside China alone', () => {
    expect(wgs84ToGcj02([2.35, 48.85])).toEqual([2.35, 48.85]);
    expect(gcj02ToWgs84([-74, 40.7])).toEqual([-74, 40.7]);
  });
});
