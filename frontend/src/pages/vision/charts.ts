import type { EChartOption } from '../../components/chart/option';
import type { DayCounts, TypeCount } from './api';

/** One colour per behaviour alarm type, in the server's order of types. */
export const TYPE_COLORS: Record<string, string> = {
  fatigue: '#fa541c',
  phone: '#1677ff',
  smoking: '#722ed1',
  distraction: '#faad14',
  no_face: '#13c2c2',
  camera_blocked: '#8c8c8c',
  face_mismatch: '#eb2f96',
};

/** Counts by type: one horizontal bar per type (the largest on top). */
export function countsOption(counts: TypeCount[]): EChartOption {
  const rows = [...counts].reverse();
  return {
    grid: { left: 8, right: 32, top: 8, bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: { type: 'value', minInterval: 1 },
    yAxis: { type: 'category', data: rows.map((c) => c.typeName) },
    series: [
      {
        type: 'bar',
        data: rows.map((c) => ({ value: c.count, itemStyle: { color: TYPE_COLORS[c.type] ?? '#1677ff' } })),
        label: { show: true, position: 'right' },
        barMaxWidth: 22,
      },
    ],
  };
}

/** The daily trend: one stacked bar series per type over the range's days. */
export function trendOption(days: DayCounts[]): EChartOption {
  const types = days[0]?.counts ?? [];
  return {
    grid: { left: 8, right: 16, top: 40, bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis' },
    legend: { type: 'scroll', top: 0 },
    xAxis: { type: 'category', data: days.map((d) => d.day) },
    yAxis: { type: 'value', minInterval: 1 },
    series: types.map((type, i) => ({
      type: 'bar' as const,
      name: type.typeName,
      stack: 'alarms',
      itemStyle: { color: TYPE_COLORS[type.type] ?? undefined },
      data: days.map((d) => d.counts[i]?.count ?? 0),
    })),
  };
}

/** A text description of the counts for assistive technology. */
export function countsDescription(title: string, counts: TypeCount[]): string {
  return `${title}: ${counts.map((c) => `${c.typeName} ${c.count}`).join(', ')}`;
}
