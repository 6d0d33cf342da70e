import { describe, expect, it } from 'vitest';
import type { Thermal, Waterfall } from './api';
import { thermalOption, waterfallOption, type ChartLabels } from './charts';

const labels: ChartLabels = {
  km: 'km',
  hours: 'h',
  maxC: 'max',
  minC: 'min',
  utilisation: '%',
  speed: 'speed',
  load: 'load',
  steps: { boot: 'boot', emptyMove: 'empty', loaded: 'loaded', liftOnly: 'lift', idle: 'idle' },
};

const seriesOf = (option: ReturnType<typeof thermalOption>) => option.series as { data: unknown[] }[];

describe('vehicle charts', () => {
  it('puts a heat-map cell [day, hour, hours] at the hour (x) of its day (y)', () => {
    const th: Thermal = { carId: '1', days: ['2026-05-06', '2026-05-07'], hours: [...Array(24).keys()], cells: [[1, 9, 0.83]], totalHours: 0.83 };
    const option = thermalOption(th, labels);
    expect(seriesOf(option)[0].data).toEqual([[9, 1, 0.83]]);
    expect((option.yAxis as { data: string[] }).data).toEqual(['05-06', '05-07']);
  });

  it('steps the waterfall down from the hours on to zero', () => {
    const w: Waterfall = {
      carId: '1',
      total: { bootHours: 1.17, emptyMoveHours: 0.5, loadedHours: 0.33, liftOnlyHours: 0.17, idleHours: 0.17 },
      days: [],
    };
    const [bases, bars] = seriesOf(waterfallOption(w, labels));
    expect(bases.data).toEqual([0, 0.67, 0.34, 0.17, 0]);
    expect((bars.data as { value: number }[]).map((d) => d.value)).toEqual([1.17, 0.5, 0.33, 0.17, 0.17]);
  });
});
