import type { LonLat } from '../../map/geo';

/** The speeds of playback: 1× plays one minute of the track per second. */
export const SPEEDS = [1, 2, 4, 8, 16] as const;
export type Speed = (typeof SPEEDS)[number];
/** Track milliseconds played per wall-clock millisecond at 1×. */
export const BASE_RATE = 60;

export interface TimedPoint {
  /** Epoch milliseconds (from the tenant-zone time the server gave). */
  t: number;
  position: LonLat;
  speed: number;
  direction: number;
}

/** The index of the last point at or before `t` (-1 before the first). Points are oldest first. */
export function indexAt(points: readonly TimedPoint[], t: number): number {
  let lo = 0;
  let hi = points.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid].t <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Where the vehicle was at `t`: between the two points around it, in proportion to the time (the track is
 * simplified, so the line between two kept points is what the map shows too); clamped to the ends.
 */
export function positionAt(points: readonly TimedPoint[], t: number): TimedPoint | null {
  if (points.length === 0) return null;
  const i = indexAt(points, t);
  if (i < 0) return points[0];
  if (i >= points.length - 1) return points[points.length - 1];
  const a = points[i];
  const b = points[i + 1];
  const f = b.t === a.t ? 0 : (t - a.t) / (b.t - a.t);
  return {
    t,
    position: [a.position[0] + (b.position[0] - a.position[0]) * f, a.position[1] + (b.position[1] - a.position[1]) * f],
    speed: a.speed,
    direction: a.direction,
  };
}

/** The next cursor after `elapsedMs` of wall-clock time at `speed`, and whether the end was reached. */
export function advance(cursor: number, elapsedMs: number, speed: Speed, end: number): { cursor: number; ended: boolean } {
  const next = cursor + elapsedMs * BASE_RATE * speed;
  return next >= end ? { cursor: end, ended: true } : { cursor: next, ended: false };
}

/** "1h 05m", "3m 20s", "45s": a duration for people. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(rest).padStart(2, '0')}s`;
  return `${rest}s`;
}

/** Each span's share of the period in percent (for the timeline), the smallest shown at least `min` wide. */
export function shares(spans: readonly { durationS: number }[], min = 0): number[] {
  const total = spans.reduce((sum, s) => sum + s.durationS, 0);
  if (total <= 0) return spans.map(() => 0);
  return spans.map((s) => Math.max(min, (100 * s.durationS) / total));
}
