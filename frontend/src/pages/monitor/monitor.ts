import type { LiveEvent, LiveVehicle } from '../../live/types';
import { formatZoned } from '../../data/serverTime';

/** The filter tabs of the vehicle list, in order. */
export const FILTERS = ['all', 'moving', 'loaded', 'idle', 'off', 'offline', 'alarm'] as const;
export type Filter = (typeof FILTERS)[number];

export function matches(v: LiveVehicle, filter: Filter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'offline':
      return !v.online;
    case 'alarm':
      return v.alarms.length > 0;
    default:
      return v.online && v.state === filter;
  }
}

/** How many vehicles each tab would show. */
export function countByFilter(vehicles: Iterable<LiveVehicle>): Record<Filter, number> {
  const counts = Object.fromEntries(FILTERS.map((f) => [f, 0])) as Record<Filter, number>;
  for (const v of vehicles) for (const f of FILTERS) if (matches(v, f)) counts[f] += 1;
  return counts;
}

/** Vehicles of a tab whose car number or device number contains `text` (any case), sorted by car number. */
export function visibleVehicles(vehicles: Iterable<LiveVehicle>, filter: Filter, text: string): LiveVehicle[] {
  return filterVehicles([...vehicles].sort(byCarNo), filter, text);
}

/** The vehicles of an already sorted list that a tab and a search text show, in the same order. */
export function filterVehicles(sorted: readonly LiveVehicle[], filter: Filter, text: string): LiveVehicle[] {
  const needle = text.trim().toLowerCase();
  if (filter === 'all' && !needle) return sorted as LiveVehicle[];
  return sorted.filter(
    (v) => matches(v, filter) && (!needle || (v.carNo ?? '').toLowerCase().includes(needle) || (v.deviceNumber ?? '').includes(needle)),
  );
}

/**
 * Every vehicle sorted by car number. An update rarely adds, removes or renames one: then the previous order is
 * kept with the current objects (linear), and only otherwise is the fleet sorted again.
 */
export class FleetOrder {
  private previous: LiveVehicle[] | null = null;

  /** The vehicles sorted, by `sortedFleet` from the order of the previous call. */
  sort(vehicles: ReadonlyMap<string, LiveVehicle>): LiveVehicle[] {
    this.previous = sortedFleet(vehicles, this.previous);
    return this.previous;
  }
}

export function sortedFleet(vehicles: ReadonlyMap<string, LiveVehicle>, previous: readonly LiveVehicle[] | null): LiveVehicle[] {
  if (previous && previous.length === vehicles.size) {
    const next: LiveVehicle[] = new Array<LiveVehicle>(previous.length);
    let same = true;
    for (let i = 0; i < previous.length; i += 1) {
      const v = vehicles.get(previous[i].carId);
      if (!v || v.carNo !== previous[i].carNo) {
        same = false;
        break;
      }
      next[i] = v;
    }
    if (same) return next;
  }
  return [...vehicles.values()].sort(byCarNo);
}

/** What the page shows of one live snapshot, derived once per batch (not per component). */
export interface Fleet {
  /** Every vehicle sorted by car number. */
  all: LiveVehicle[];
  /** How many vehicles each tab shows: the same object as long as no count changed. */
  counts: Record<Filter, number>;
  /** The 实时报警 list, each event named by its vehicle's car number. */
  alarms: AlarmEntry[];
}

/**
 * Derives the page's view of each live snapshot: the sorted fleet (see `FleetOrder`), the counts by tab (kept when
 * they are the same, so the tabs do not re-render) and the alarm list, in one pass per batch.
 */
export class FleetView {
  private order = new FleetOrder();
  private counts: Record<Filter, number> | null = null;

  derive(vehicles: ReadonlyMap<string, LiveVehicle>, events: readonly LiveEvent[]): Fleet {
    const all = this.order.sort(vehicles);
    const counts = countByFilter(all);
    if (!this.counts || FILTERS.some((f) => counts[f] !== this.counts?.[f])) this.counts = counts;
    const alarms = alarmEntries(all, events).map((e) => (e.carNo ? e : { ...e, carNo: vehicles.get(e.carId)?.carNo }));
    return { all, counts: this.counts, alarms };
  }
}

/** One collator for every comparison: `localeCompare` with options builds one per call (2,000 vehicles: ~22,000). */
const collator = new Intl.Collator(undefined, { numeric: true });

/** By car number (numbers in it compared as numbers), then by id. */
export function byCarNo(a: LiveVehicle, b: LiveVehicle): number {
  return collator.compare(a.carNo ?? '', b.carNo ?? '') || (a.carId < b.carId ? -1 : a.carId > b.carId ? 1 : 0);
}

/** Where a vehicle can be drawn: it has a position. */
export function hasPosition(v: LiveVehicle): v is LiveVehicle & { lat: number; lon: number } {
  return typeof v.lat === 'number' && typeof v.lon === 'number' && Number.isFinite(v.lat) && Number.isFinite(v.lon);
}

/** Milliseconds since the epoch of a `YYYY-MM-DD HH:mm:ss` time in a zone `offsetMinutes` east of UTC (the
 * server's answers and the live feed), or null when it is none. */
export function zonedMs(text: string | null | undefined, offsetMinutes: number): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text ?? '');
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  return Date.UTC(y, mo - 1, d, h, mi, s) - offsetMinutes * 60_000;
}

/** Seconds from a tenant-zone time to `nowMs` (never negative), or null without a time. */
export function ageSeconds(text: string | null | undefined, nowMs: number, offsetMinutes: number): number | null {
  const ms = zonedMs(text, offsetMinutes);
  return ms === null ? null : Math.max(0, Math.round((nowMs - ms) / 1000));
}

/** "12 s", "5 min", "3 h", "2 d": how long ago, in the largest unit that fits. */
export function ageParts(seconds: number): { value: number; unit: 's' | 'min' | 'h' | 'd' } {
  if (seconds < 60) return { value: seconds, unit: 's' };
  if (seconds < 3600) return { value: Math.floor(seconds / 60), unit: 'min' };
  if (seconds < 86_400) return { value: Math.floor(seconds / 3600), unit: 'h' };
  return { value: Math.floor(seconds / 86_400), unit: 'd' };
}

/** `YYYY-MM-DD HH:mm:ss` of local midnight (tenant zone) of the day `nowMs` falls in, and of now: today's period. */
export function todayPeriod(nowMs: number, offsetMinutes: number): { beginTime: string; endTime: string } {
  const { date, time } = formatZoned(nowMs, offsetMinutes);
  return { beginTime: `${date} 00:00:00`, endTime: `${date} ${time}` };
}

/** A line of the 实时报警 list: an alarm that came while the page was open, or one a vehicle has now. */
export interface AlarmEntry {
  key: string;
  carId: string;
  carNo?: string | null;
  kind: string;
  time: string | null;
  /** In progress when the page opened (from the vehicle's state) rather than an event that came since. */
  current: boolean;
}

/**
 * The 实时报警 list: the events that came since the page opened (newest first), then the alarms the vehicles have
 * now that no such event repeats (latest report first), so the list opens with every vehicle in alarm.
 */
export function alarmEntries(vehicles: Iterable<LiveVehicle>, events: readonly LiveEvent[]): AlarmEntry[] {
  const fromEvents: AlarmEntry[] = events.map((e, i) => ({
    key: `event-${e.id ?? i}`,
    carId: e.carId,
    carNo: e.carNo,
    kind: e.kind,
    time: e.time,
    current: false,
  }));
  const told = new Set(events.map((e) => `${e.carId}|${e.kind}`));
  const now: AlarmEntry[] = [...vehicles]
    .flatMap((v) =>
      v.alarms
        .filter((kind) => !told.has(`${v.carId}|${kind}`))
        .map((kind) => ({ key: `now-${v.carId}-${kind}`, carId: v.carId, carNo: v.carNo, kind, time: v.gpsTime ?? null, current: true })),
    )
    .sort((a, b) => (b.time ?? '').localeCompare(a.time ?? '') || a.key.localeCompare(b.key));
  return [...fromEvents, ...now];
}

/** The rows of `count` that a window of `height` px scrolled to `scrollTop` shows, with `overscan` beyond each edge. */
export function visibleRange(count: number, scrollTop: number, height: number, rowHeight: number, overscan = 6): [number, number] {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  return [first, Math.max(first, last)];
}
