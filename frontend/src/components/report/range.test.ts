import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { daysOf, defaultRange, disabledDay, rangeParams, rangeProblem, spanDays, zonedToday } from './range';

const d = (text: string) => dayjs(text, 'YYYY-MM-DD');

describe('report ranges', () => {
  it('takes today in the tenant zone, not the browser one', () => {
    // 2026-11-24 20:30 UTC is already 2026-11-25 in UTC+8, still the 24th in UTC-5
    const now = Date.UTC(2026, 10, 24, 20, 30);
    expect(zonedToday(now, 480).format('YYYY-MM-DD')).toBe('2026-11-25');
    expect(zonedToday(now, -300).format('YYYY-MM-DD')).toBe('2026-11-24');
  });

  it('defaults to the last 7 days, today included', () => {
    const range = defaultRange(d('2026-11-25'));
    expect(rangeParams(range)).toEqual({ startTime: '2026-11-19', endTime: '2026-11-25' });
    expect(spanDays(...range)).toBe(7);
  });

  it('refuses a start after the end, a span over the cap and a missing end', () => {
    expect(rangeProblem([d('2026-11-08'), d('2026-11-02')], 31)).toEqual({ key: 'report.rangeOrder' });
    expect(rangeProblem([d('2026-10-01'), d('2026-11-01')], 31)).toEqual({ key: 'report.rangeTooLong', days: 31 });
    expect(rangeProblem([d('2026-10-02'), d('2026-11-01')], 31)).toBeNull();
    expect(rangeProblem([d('2026-11-02'), d('2026-11-02')], 31)).toBeNull();
    expect(rangeProblem([d('2026-11-02'), null], 31)).toEqual({ key: 'report.rangeRequired' });
    expect(rangeProblem(null, 31)).toEqual({ key: 'report.rangeRequired' });
  });

  it('greys out the future and the days beyond the cap from the first pick', () => {
    const today = d('2026-11-25');
    expect(disabledDay(d('2026-11-26'), undefined, today, 31)).toBe(true);
    expect(disabledDay(d('2026-11-25'), undefined, today, 31)).toBe(false);
    const from = d('2026-11-01');
    expect(disabledDay(d('2026-10-02'), from, today, 31)).toBe(false); // 31 days with the first
    expect(disabledDay(d('2026-10-01'), from, today, 31)).toBe(true); // 32
    expect(disabledDay(d('2026-11-25'), from, today, 31)).toBe(false);
    expect(disabledDay(d('2026-11-10'), d('2026-11-10').subtract(40, 'day'), today, 31)).toBe(true);
  });

  it('lists every day of the range', () => {
    expect(daysOf([d('2026-10-30'), d('2026-11-02')])).toEqual(['2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02']);
  });
});
