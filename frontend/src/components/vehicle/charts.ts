import type { EChartOption } from '../chart/option';
import type { Calendar, Mileage, RunCondition, Temperatures, Thermal, Waterfall } from './api';

/** The texts of the charts, in the user's language. */
export interface ChartLabels {
  km: string;
  hours: string;
  maxC: string;
  minC: string;
  utilisation: string;
  speed: string;
  load: string;
  steps: { boot: string; emptyMove: string; loaded: string; liftOnly: string; idle: string };
}

const HEAT = ['#f0f5ff', '#91caff', '#1677ff', '#003eb3'];
/** The colour scale of a heat map, upright on the right. */
const SCALE = { min: 0, calculable: true, orient: 'vertical', right: 0, top: 'middle', itemHeight: 120, inRange: { color: HEAT } } as const;

/** Distance per day (bars). */
export function mileageOption(m: Mileage, l: ChartLabels): EChartOption {
  return {
    tooltip: { trigger: 'axis' },
    grid: { left: 48, right: 16, top: 24, bottom: 32 },
    xAxis: { type: 'category', data: m.days.map((d) => d.day.slice(5)) },
    yAxis: { type: 'value', name: l.km },
    series: [{ type: 'bar', name: l.km, data: m.days.map((d) => d.distanceKm), itemStyle: { color: '#1677ff' } }],
  };
}

/** Hours worked per hour of the day (x) and day (y). */
export function thermalOption(th: Thermal, l: ChartLabels): EChartOption {
  const max = Math.max(1, ...th.cells.map((c) => c[2]));
  return {
    tooltip: { position: 'top' },
    grid: { left: 56, right: 72, top: 16, bottom: 32 },
    xAxis: { type: 'category', data: th.hours.map(String), splitArea: { show: true } },
    yAxis: { type: 'category', data: th.days.map((d) => d.slice(5)), splitArea: { show: true } },
    visualMap: { ...SCALE, max },
    // a cell is [day, hour, hours]: the x axis is the hour, the y axis the day
    series: [{ type: 'heatmap', name: l.hours, data: th.cells.map(([day, hour, hours]) => [hour, day, hours]), label: { show: false } }],
  };
}

/** Utilisation (work / boot, %) on each day of a month, as a calendar. */
export function calendarOption(cal: Calendar, l: ChartLabels, narrow: boolean): EChartOption {
  return {
    tooltip: { formatter: '{c}' },
    visualMap: { min: 0, max: 100, orient: 'horizontal', left: 'center', bottom: 0, inRange: { color: HEAT }, text: ['100%', '0%'] },
    calendar: {
      range: cal.month,
      top: 40,
      left: narrow ? 24 : 48,
      right: 16,
      cellSize: ['auto', narrow ? 22 : 32],
      orient: 'horizontal',
      yearLabel: { show: false },
    },
    series: [{ type: 'heatmap', coordinateSystem: 'calendar', name: l.utilisation, data: cal.days.map((d) => [d.day, d.utilisation]) }],
  };
}

/** Hours on broken down, as a waterfall: boot, then each part of it stepping down to 0. */
export function waterfallOption(w: Waterfall, l: ChartLabels): EChartOption {
  const t = w.total;
  const parts = [t.emptyMoveHours, t.loadedHours, t.liftOnlyHours, t.idleHours];
  const bases: number[] = [];
  let left = t.bootHours;
  for (const p of parts) {
    left = Math.max(0, Math.round((left - p) * 100) / 100);
    bases.push(left);
  }
  const names = [l.steps.boot, l.steps.emptyMove, l.steps.loaded, l.steps.liftOnly, l.steps.idle];
  return {
    tooltip: { trigger: 'axis' },
    grid: { left: 48, right: 16, top: 24, bottom: 48 },
    xAxis: { type: 'category', data: names, axisLabel: { interval: 0, rotate: names.some((n) => n.length > 8) ? 20 : 0 } },
    yAxis: { type: 'value', name: l.hours },
    series: [
      { type: 'bar', stack: 'w', silent: true, itemStyle: { color: 'transparent' }, data: [0, ...bases] },
      {
        type: 'bar',
        stack: 'w',
        name: l.hours,
        label: { show: true, position: 'top' },
        data: [
          { value: t.bootHours, itemStyle: { color: '#1677ff' } },
          ...parts.map((v, i) => ({ value: v, itemStyle: { color: ['#52c41a', '#13c2c2', '#722ed1', '#faad14'][i] } })),
        ],
      },
    ],
  };
}

/** The battery's hottest and coolest probe over time (local times as the server gives them). */
export function temperatureOption(tm: Temperatures, l: ChartLabels): EChartOption {
  return {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 48, right: 16, top: 32, bottom: 32 },
    // the tenant's wall-clock times, read and shown alike by the browser
    xAxis: { type: 'time' },
    yAxis: { type: 'value', name: '°C', scale: true },
    series: [
      { type: 'line', name: l.maxC, showSymbol: false, data: tm.points.map((p) => [p.time, p.maxC]), itemStyle: { color: '#ff4d4f' } },
      { type: 'line', name: l.minC, showSymbol: false, data: tm.points.map((p) => [p.time, p.minC]), itemStyle: { color: '#1677ff' } },
    ],
  };
}

/** Hours on by band of speed (x) and of load (y). */
export function runConditionOption(rc: RunCondition, l: ChartLabels): EChartOption {
  const max = Math.max(0.01, ...rc.cells.map((c) => c[2]));
  return {
    tooltip: { position: 'top' },
    grid: { left: 72, right: 72, top: 24, bottom: 48 },
    xAxis: { type: 'category', name: l.speed, nameLocation: 'middle', nameGap: 28, data: rc.speedBands, splitArea: { show: true } },
    yAxis: { type: 'category', name: l.load, data: rc.loadBands, splitArea: { show: true } },
    visualMap: { ...SCALE, max },
    series: [{ type: 'heatmap', name: l.hours, data: rc.cells, label: { show: true } }],
  };
}
