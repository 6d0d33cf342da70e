import { describe, expect, it } from 'vitest';
import {
  dailyHoursDescription,
  dailyHoursOption,
  dailySeries,
  dayTooltip,
  isEmpty,
  round2,
  vehiclesAxisTop,
  type DailyHoursLabels,
} from './chart';

const rows = [
  { searchTime: '2026-11-22', bootTime: 4, workTime: 2, mobileTime: 1, freeTime: 2, workingVehicles: 1 },
  { searchTime: '2026-11-20', bootTime: 8, workTime: 6.666666, mobileTime: 4, freeTime: 1.333334, workingVehicles: 1 },
  { searchTime: '2026-11-21', bootTime: 0, workTime: 0, mobileTime: 0, freeTime: 0, workingVehicles: 0 },
];

const labels: DailyHoursLabels = {
  work: 'Work <h>',
  idle: 'Idle',
  boot: 'Boot',
  vehicles: 'Vehicles worked',
  hoursAxis: 'Hours (h)',
  vehiclesAxis: 'Vehicles',
  colors: { work: 'green', idle: 'orange', vehicles: 'blue' },
  hours: (v) => v.toFixed(2),
};

describe('report chart helpers', () => {
  it('turns the rows into series in day order, hours to 2 decimals', () => {
    expect(dailySeries(rows)).toEqual({
      days: ['2026-11-20', '2026-11-21', '2026-11-22'],
      work: [6.67, 0, 2],
      idle: [1.33, 0, 2],
      boot: [8, 0, 4],
      move: [4, 0, 1],
      vehicles: [1, 0, 1],
    });
    expect(round2(1.005 + 1e-9)).toBe(1.01);
    expect(round2(undefined)).toBe(0);
    expect(round2(Number.NaN)).toBe(0);
  });

  it('is empty with no day or only zero days', () => {
    expect(isEmpty(dailySeries([]))).toBe(true);
    expect(isEmpty(dailySeries([rows[2]]))).toBe(true);
    expect(isEmpty(dailySeries(rows))).toBe(false);
  });

  it('stacks work and idle on the hours axis, the vehicles as a line on the other', () => {
    const s = dailySeries(rows);
    const option = dailyHoursOption(s, labels);
    const series = option.series as { type: string; name: string; stack?: string; yAxisIndex?: number; data: number[] }[];
    expect(series.map((x) => [x.type, x.name, x.stack, x.yAxisIndex ?? 0])).toEqual([
      ['bar', 'Work <h>', 'boot', 0],
      ['bar', 'Idle', 'boot', 0],
      ['line', 'Vehicles worked', undefined, 1],
    ]);
    expect(series[0].data).toEqual([6.67, 0, 2]);
    expect(series[1].data).toEqual([1.33, 0, 2]);
    expect(series[2].data).toEqual([1, 0, 1]);
    expect((option.xAxis as { data: string[] }).data).toEqual(s.days);
    expect((option.yAxis as { name: string }[]).map((a) => a.name)).toEqual(['Hours (h)', 'Vehicles']);
  });

  it('leaves room above the highest vehicle count', () => {
    expect([0, 1, 2, 3, 8, 10, 37].map(vehiclesAxisTop)).toEqual([1, 2, 4, 4, 10, 14, 48]);
  });

  it('tells a day in the tooltip with hours to 2 decimals, escaped', () => {
    const s = dailySeries(rows);
    const tip = dayTooltip(s, 0, labels);
    expect(tip).toContain('2026-11-20');
    expect(tip).toContain('Work &lt;h&gt;');
    for (const text of ['6.67', '1.33', '8.00']) expect(tip).toContain(`<b>${text}</b>`);
    const option = dailyHoursOption(s, labels);
    const formatter = (option.tooltip as { formatter: (p: unknown) => string }).formatter;
    expect(formatter([{ dataIndex: 2 }])).toContain('<b>4.00</b>');
  });

  it('describes every day after the title', () => {
    const s = dailySeries(rows);
    expect(dailyHoursDescription('Hours per day', s, (i) => `${s.days[i]} boot ${s.boot[i]}`)).toBe(
      'Hours per day: 2026-11-20 boot 8; 2026-11-21 boot 0; 2026-11-22 boot 4',
    );
  });
});
