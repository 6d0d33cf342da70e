import { describe, expect, it } from 'vitest';
import { advance, formatDuration, indexAt, positionAt, shares, type TimedPoint } from './playback';

const pts: TimedPoint[] = [
  { t: 0, position: [121, 31], speed: 5, direction: 0 },
  { t: 10_000, position: [121.001, 31], speed: 6, direction: 90 },
  { t: 30_000, position: [121.001, 31.002], speed: 0, direction: 0 },
];

describe('playback', () => {
  it('finds the point at or before a time', () => {
    expect(indexAt(pts, -1)).toBe(-1);
    expect(indexAt(pts, 0)).toBe(0);
    expect(indexAt(pts, 9_999)).toBe(0);
    expect(indexAt(pts, 10_000)).toBe(1);
    expect(indexAt(pts, 99_000)).toBe(2);
  });

  it('interpolates between the points around a time and clamps to the ends', () => {
    const mid = positionAt(pts, 20_000)!;
    expect(mid.position[0]).toBeCloseTo(121.001, 9);
    expect(mid.position[1]).toBeCloseTo(31.001, 9);
    expect(mid.speed).toBe(6);
    expect(positionAt(pts, -5)!.position).toEqual([121, 31]);
    expect(positionAt(pts, 1e9)!.position).toEqual([121.001, 31.002]);
    expect(positionAt([], 0)).toBeNull();
  });

  it('plays a minute of track per second at 1×, sixteen at 16×, and stops at the end', () => {
    expect(advance(0, 1000, 1, 1e9)).toEqual({ cursor: 60_000, ended: false });
    expect(advance(0, 1000, 16, 1e9)).toEqual({ cursor: 960_000, ended: false });
    expect(advance(0, 1000, 16, 500_000)).toEqual({ cursor: 500_000, ended: true });
  });

  it('formats durations and shares of a timeline', () => {
    expect(formatDuration(45)).toBe('45s');
    expect(formatDuration(200)).toBe('3m 20s');
    expect(formatDuration(3900)).toBe('1h 05m');
    expect(shares([{ durationS: 30 }, { durationS: 90 }])).toEqual([25, 75]);
    expect(shares([{ durationS: 1 }, { durationS: 999 }], 0.5)[0]).toBe(0.5);
    expect(shares([])).toEqual([]);
  });
});
