import type { EChartOption } from '../chart/option';
import type { AfterTreatment, Fuel, Pressure, Resistance, RoadSpectrum, Throttle } from './api';

/** The CAN charts, each a tab of the vehicle's charts (backend telemetry/api/monitor_can.py). */
export const CAN_CHARTS = ['throttle', 'fuel', 'afterTreatment', 'pressure', 'spectrum', 'resistance'] as const;
export type CanChartKind = (typeof CAN_CHARTS)[number];

/** The texts of the CAN charts, in the user's language. */
export interface CanLabels {
  avg: string;
  max: string;
  hours: string;
  pedal: string;
  fuelRate: string;
  soot: string;
  def: string;
  pressure: string;
  resistance: string;
  rpm: string;
  load: string;
}

const GRID = { left: 56, right: 56, top: 40, bottom: 32 };
const HEAT = ['#f0f5ff', '#91caff', '#1677ff', '#003eb3'];

/** The period asked for as the time axis (the tenant's wall-clock times, read and shown alike by the browser). */
function timeAxis(c: { beginTime: string; endTime: string }) {
  return { type: 'time' as const, min: c.beginTime, max: c.endTime };
}

/** A few buckets are drawn as dots: a line needs two. */
const dots = (n: number) => n < 3;

/** A mean and a maximum per bucket of time. */
function spreadOption(
  c: { beginTime: string; endTime: string; points: { time: string; avg: number; max: number }[] },
  unit: string,
  l: CanLabels,
  color: string,
): EChartOption {
  const { points } = c;
  return {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: GRID,
    xAxis: timeAxis(c),
    yAxis: { type: 'value', name: unit, scale: true },
    series: [
      { type: 'line', name: l.avg, showSymbol: dots(points.length), data: points.map((p) => [p.time, p.avg]), itemStyle: { color } },
      {
        type: 'line',
        name: l.max,
        showSymbol: dots(points.length),
        data: points.map((p) => [p.time, p.max]),
        lineStyle: { type: 'dashed' },
        itemStyle: { color: '#ff7a45' },
      },
    ],
  };
}

/** Pedal position over time (lines) and the hours in each band of 10 % (bars on a second pair of axes). */
export function throttleOption(th: Throttle, l: CanLabels): EChartOption {
  const series = spreadOption(th, '%', l, '#1677ff');
  return {
    ...series,
    grid: [
      { left: 48, right: 16, top: 40, bottom: '50%' },
      { left: 48, right: 16, top: '66%', bottom: 24 },
    ],
    xAxis: [
      { ...timeAxis(th), gridIndex: 0 },
      { type: 'category', gridIndex: 1, data: th.bands, axisLabel: { interval: 0, fontSize: 10 } },
    ],
    yAxis: [
      { type: 'value', gridIndex: 0, name: l.pedal, min: 0, max: 100 },
      { type: 'value', gridIndex: 1, splitNumber: 2 },
    ],
    series: [
      ...(series.series as object[]),
      { type: 'bar', name: l.hours, xAxisIndex: 1, yAxisIndex: 1, data: th.bandHours, itemStyle: { color: '#13c2c2' } },
    ],
  };
}

/** Fuel rate over time (L/h). */
export function fuelOption(f: Fuel, l: CanLabels): EChartOption {
  return spreadOption(f, l.fuelRate, l, '#fa8c16');
}

/** DPF differential pressure over time (kPa). */
export function pressureOption(p: Pressure, l: CanLabels): EChartOption {
  return spreadOption(p, l.pressure, l, '#722ed1');
}

/** Soot load and DEF level (%) over time. */
export function afterTreatmentOption(a: AfterTreatment, l: CanLabels): EChartOption {
  return {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: GRID,
    xAxis: timeAxis(a),
    yAxis: { type: 'value', name: '%', min: 0, max: 100 },
    series: [
      { type: 'line', name: l.soot, showSymbol: dots(a.points.length), connectNulls: true, data: a.points.map((p) => [p.time, p.sootPct]), itemStyle: { color: '#595959' } },
      { type: 'line', name: l.def, showSymbol: dots(a.points.length), connectNulls: true, data: a.points.map((p) => [p.time, p.defPct]), itemStyle: { color: '#1677ff' } },
    ],
  };
}

/** Hours by band of engine speed (x) and of load (y): a heat map. */
export function spectrumOption(rs: RoadSpectrum, l: CanLabels): EChartOption {
  const max = Math.max(0.01, ...rs.cells.map((c) => c[2]));
  return {
    tooltip: { position: 'top' },
    grid: { left: 72, right: 72, top: 24, bottom: 48 },
    xAxis: { type: 'category', name: l.rpm, nameLocation: 'middle', nameGap: 28, data: rs.rpmBands, splitArea: { show: true } },
    yAxis: { type: 'category', name: l.load, data: rs.loadBands, splitArea: { show: true } },
    visualMap: { min: 0, max, precision: 2, calculable: true, orient: 'vertical', right: 0, top: 'middle', itemHeight: 120, inRange: { color: HEAT } },
    series: [{ type: 'heatmap', name: l.hours, data: rs.cells, label: { show: true } }],
  };
}

/** Flow resistance (kPa per t/h) over time. */
export function resistanceOption(r: Resistance, l: CanLabels): EChartOption {
  return {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: GRID,
    xAxis: timeAxis(r),
    yAxis: { type: 'value', name: 'kPa/(t/h)', scale: true },
    series: [{ type: 'line', name: l.resistance, showSymbol: dots(r.points.length), data: r.points.map((p) => [p.time, p.resistance]), itemStyle: { color: '#eb2f96' } }],
  };
}
