import { describe, expect, it } from 'vitest';
import type { AfterTreatment, Throttle } from './api';
import { afterTreatmentOption, throttleOption, type CanLabels } from './canCharts';

const labels: CanLabels = {
  avg: 'avg',
  max: 'max',
  hours: 'h',
  pedal: 'pedal',
  fuelRate: 'L/h',
  soot: 'soot',
  def: 'def',
  pressure: 'kPa',
  resistance: 'r',
  rpm: 'rpm',
  load: 'load',
};

describe('CAN charts', () => {
  it('draws the pedal over time and its band hours as bars on the second axes', () => {
    const th: Throttle = {
      carId: '1',
      beginTime: '2026-05-07 08:00:00',
      endTime: '2026-05-07 12:00:00',
      stepS: 60,
      points: [{ time: '2026-05-07 09:00:00', avg: 40, max: 45 }],
      bands: ['0-10%', '10-20%'],
      bandHours: [0.1, 0.25],
      averagePct: 12.5,
    };
    const series = throttleOption(th, labels).series as { type: string; data: unknown[]; xAxisIndex?: number }[];
    expect(series.map((s) => s.type)).toEqual(['line', 'line', 'bar']);
    expect(series[0].data).toEqual([['2026-05-07 09:00:00', 40]]);
    expect(series[2]).toMatchObject({ xAxisIndex: 1, data: [0.1, 0.25] });
  });

  it('keeps a bucket without a DEF level as a gap in its line, not a zero', () => {
    const a: AfterTreatment = {
      carId: '1',
      beginTime: '2026-05-07 08:00:00',
      endTime: '2026-05-07 12:00:00',
      stepS: 60,
      points: [{ time: '2026-05-07 09:00:00', sootPct: 60, defPct: null }],
      regenerations: 0,
    };
    const series = afterTreatmentOption(a, labels).series as { data: unknown[] }[];
    expect(series[1].data).toEqual([['2026-05-07 09:00:00', null]]);
  });
});
