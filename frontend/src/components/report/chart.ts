/** Pure helpers of the report charts: the API's daily rows as chart series, and the ECharts option of them. */
import type { EChartOption } from '../chart/option';

/** One day of a fleet's hours, as the report's daily call answers it (FleetDay). */
export interface DailyHours {
  searchTime: string;
  bootTime: number;
  workTime: number;
  mobileTime: number;
  freeTime: number;
  workingVehicles: number;
}

/** The days of a range as series: one value per day, hours to 2 decimals; work + idle (stacked) = boot. */
export interface DailySeries {
  days: string[];
  work: number[];
  idle: number[];
  boot: number[];
  move: number[];
  vehicles: number[];
}

/** A figure to 2 decimals (the precision the report shows), 0 for no number. */
export const round2 = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 100) / 100 : 0);

/** The API's rows (in day order) as series. */
export function dailySeries(rows: DailyHours[]): DailySeries {
  const sorted = [...rows].sort((a, b) => a.searchTime.localeCompare(b.searchTime));
  return {
    days: sorted.map((r) => r.searchTime),
    work: sorted.map((r) => round2(r.workTime)),
    idle: sorted.map((r) => round2(r.freeTime)),
    boot: sorted.map((r) => round2(r.bootTime)),
    move: sorted.map((r) => round2(r.mobileTime)),
    vehicles: sorted.map((r) => Math.max(0, Math.round(r.workingVehicles || 0))),
  };
}

/** Nothing to draw: no day with hours or a vehicle that worked. */
export const isEmpty = (s: DailySeries): boolean =>
  s.days.length === 0 || [s.work, s.idle, s.boot, s.vehicles].every((values) => values.every((v) => v === 0));

/** The texts and colours of the chart (translated by the caller). */
export interface DailyHoursLabels {
  work: string;
  idle: string;
  boot: string;
  vehicles: string;
  hoursAxis: string;
  vehiclesAxis: string;
  colors: { work: string; idle: string; vehicles: string };
  /** Hours as shown (2 decimals). */
  hours: (value: number) => string;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The tooltip of a day: its date, work, idle and boot hours and the vehicles that worked. */
export function dayTooltip(s: DailySeries, index: number, labels: DailyHoursLabels): string {
  const dot = (color: string) =>
    `<span style="display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;background:${color}"></span>`;
  const line = (mark: string, name: string, value: string) =>
    `<div style="display:flex;gap:16px;justify-content:space-between"><span>${mark}${escapeHtml(name)}</span><b>${escapeHtml(value)}</b></div>`;
  return [
    `<div style="margin-bottom:4px">${escapeHtml(s.days[index] ?? '')}</div>`,
    line(dot(labels.colors.work), labels.work, labels.hours(s.work[index] ?? 0)),
    line(dot(labels.colors.idle), labels.idle, labels.hours(s.idle[index] ?? 0)),
    line(dot('transparent'), labels.boot, labels.hours(s.boot[index] ?? 0)),
    line(dot(labels.colors.vehicles), labels.vehicles, String(s.vehicles[index] ?? 0)),
  ].join('');
}

/** The top of the vehicles axis: a whole number with room above the highest count (so 1 → 2, 8 → 10). */
export function vehiclesAxisTop(max: number): number {
  if (!(max > 0)) return 1;
  return Math.max(max + 1, Math.ceil((max * 1.25) / 2) * 2);
}

/** Which day the axis tooltip is about (ECharts passes one entry per series, or one entry). */
function tooltipIndex(params: unknown): number {
  const first = (Array.isArray(params) ? params[0] : params) as { dataIndex?: number } | undefined;
  return first?.dataIndex ?? 0;
}

/**
 * The ECharts option of a fleet's days: work and idle hours stacked (their top is the boot time) on the left axis,
 * the vehicles that worked as a line on the right one, day labels as MM-DD.
 */
export function dailyHoursOption(s: DailySeries, labels: DailyHoursLabels): EChartOption {
  const muted = { color: '#8c8c8c' };
  return {
    animationDuration: 300,
    grid: { left: 8, right: 8, top: 48, bottom: 4 },
    legend: { top: 0, itemWidth: 12, itemHeight: 12, data: [labels.work, labels.idle, labels.vehicles] },
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      confine: true,
      formatter: (params: unknown) => dayTooltip(s, tooltipIndex(params), labels),
    },
    xAxis: {
      type: 'category',
      data: s.days,
      axisTick: { alignWithLabel: true },
      axisLabel: { formatter: (day: string) => day.slice(5), hideOverlap: true },
    },
    yAxis: [
      {
        type: 'value',
        name: labels.hoursAxis,
        nameTextStyle: { ...muted, align: 'left' },
        min: 0,
        splitNumber: 4,
        axisLabel: { formatter: (v: number) => String(Number(v.toFixed(2))) },
      },
      {
        // in the line's colour, with headroom: the count reads apart from the hours of the bars
        type: 'value',
        name: labels.vehiclesAxis,
        nameTextStyle: { color: labels.colors.vehicles, align: 'right' },
        min: 0,
        max: ({ max }: { max: number }) => vehiclesAxisTop(max),
        minInterval: 1,
        splitNumber: 4,
        splitLine: { show: false },
        axisLabel: { color: labels.colors.vehicles },
      },
    ],
    series: [
      {
        type: 'bar',
        name: labels.work,
        stack: 'boot',
        barMaxWidth: 36,
        itemStyle: { color: labels.colors.work },
        data: s.work,
      },
      {
        type: 'bar',
        name: labels.idle,
        stack: 'boot',
        barMaxWidth: 36,
        itemStyle: { color: labels.colors.idle, borderRadius: [2, 2, 0, 0] },
        data: s.idle,
      },
      {
        type: 'line',
        name: labels.vehicles,
        yAxisIndex: 1,
        symbol: 'circle',
        symbolSize: 7,
        z: 3,
        itemStyle: { color: labels.colors.vehicles },
        lineStyle: { width: 2, type: 'dashed' },
        // the count on each point (not the zeros) while the days are few enough to leave room for it
        label: {
          show: s.days.length <= 14,
          position: 'top',
          color: labels.colors.vehicles,
          fontSize: 11,
          // readable over a bar (the report's cards are always light)
          backgroundColor: 'rgba(255, 255, 255, 0.85)',
          padding: [1, 4],
          borderRadius: 2,
          formatter: (p) => (p.value ? String(p.value) : ''),
        },
        data: s.vehicles,
      },
    ],
  };
}

/** The text description of the chart: its title, then each day's figures. */
export function dailyHoursDescription(title: string, s: DailySeries, day: (index: number) => string): string {
  return `${title}: ${s.days.map((_, i) => day(i)).join('; ')}`;
}
