import dayjs, { type Dayjs } from 'dayjs';

/**
 * The range rules of the reports (spec 001 §5 "Time range"), as the server checks them (backend core/report.py):
 * whole local days, the start not after the end, at most `maxDays` days both included; by default the last 7 days up
 * to today. "Today" is the tenant zone's (the server's clock and zone), not the browser's.
 */

export const DEFAULT_DAYS = 7;
export const DAY_FORMAT = 'YYYY-MM-DD';

export type DayRange = [Dayjs, Dayjs];

/** Today in the tenant's zone: `nowMs` (the server's clock) shifted by the zone's offset east of UTC. */
export function zonedToday(nowMs: number, offsetMinutes: number): Dayjs {
  const shifted = new Date(nowMs + offsetMinutes * 60_000);
  return dayjs(`${shifted.toISOString().slice(0, 10)}`, DAY_FORMAT);
}

/** The default range: the last `days` days, today included. */
export function defaultRange(today: Dayjs, days = DEFAULT_DAYS): DayRange {
  return [today.subtract(days - 1, 'day').startOf('day'), today.startOf('day')];
}

/** Days from `start` to `end`, both included (0 or less when the end comes first). */
export function spanDays(start: Dayjs, end: Dayjs): number {
  return end.startOf('day').diff(start.startOf('day'), 'day') + 1;
}

/** Why a range is refused (an i18n key and its values), or null when the server will take it. */
export function rangeProblem(range: readonly [Dayjs | null, Dayjs | null] | null, maxDays: number): { key: string; days?: number } | null {
  if (!range || !range[0] || !range[1]) return { key: 'report.rangeRequired' };
  const [start, end] = range;
  if (start.isAfter(end, 'day')) return { key: 'report.rangeOrder' };
  if (spanDays(start, end) > maxDays) return { key: 'report.rangeTooLong', days: maxDays };
  return null;
}

/**
 * The RangePicker's `disabledDate`: days after today, and, once one end is picked (`from`), the days that would make
 * the range longer than `maxDays`.
 */
export function disabledDay(current: Dayjs, from: Dayjs | undefined, today: Dayjs, maxDays: number): boolean {
  if (current.isAfter(today, 'day')) return true;
  if (!from) return false;
  return Math.abs(current.startOf('day').diff(from.startOf('day'), 'day')) >= maxDays;
}

/** The range as the reports take it: `startTime` / `endTime`, `yyyy-MM-dd`. */
export function rangeParams(range: DayRange): { startTime: string; endTime: string } {
  return { startTime: range[0].format(DAY_FORMAT), endTime: range[1].format(DAY_FORMAT) };
}

/** Every day of the range, in order (the chart's axis). */
export function daysOf(range: DayRange): string[] {
  const out: string[] = [];
  for (let d = range[0].startOf('day'); !d.isAfter(range[1], 'day'); d = d.add(1, 'day')) out.push(d.format(DAY_FORMAT));
  return out;
}
