import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Empty, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import EChart from '../chart/EChart';
import type { EChartOption } from '../chart/option';
import type { DayRange } from '../report/range';
import { vehicleCalls } from './api';
import {
  afterTreatmentOption,
  fuelOption,
  pressureOption,
  resistanceOption,
  spectrumOption,
  throttleOption,
  type CanChartKind,
  type CanLabels,
} from './canCharts';

interface Drawn {
  option: EChartOption;
  empty: boolean;
  summary: string;
}

const NONE: Drawn = { option: {}, empty: true, summary: '' };

/**
 * One CAN chart of a vehicle over the range: drawn once its tab is opened (antd renders a tab's pane on first view).
 * A vehicle without CAN data (electric, no CAN adapter) shows the empty state.
 */
export default function CanChart({ kind, carId, range }: { kind: CanChartKind; carId: string; range: DayRange }) {
  const { t } = useTranslation();
  const labels = useMemo<CanLabels>(
    () => ({
      avg: t('vehicleDetail.canChart.avg'),
      max: t('vehicleDetail.canChart.max'),
      hours: t('vehicleDetail.hours'),
      pedal: t('vehicleDetail.canChart.pedal'),
      fuelRate: t('vehicleDetail.canChart.fuelRate'),
      soot: t('vehicleDetail.canChart.soot'),
      def: t('vehicleDetail.canChart.def'),
      pressure: t('vehicleDetail.canChart.pressure'),
      resistance: t('vehicleDetail.canChart.resistance'),
      rpm: t('vehicleDetail.canChart.rpm'),
      load: t('vehicleDetail.canChart.load'),
    }),
    [t],
  );
  const query = useQuery({
    queryKey: ['vd-can', kind, carId, range[0].format(), range[1].format()],
    queryFn: async (): Promise<Drawn> => {
      switch (kind) {
        case 'throttle': {
          const d = await vehicleCalls.throttle(carId, range);
          if (!d) return NONE;
          return { option: throttleOption(d, labels), empty: d.points.length === 0, summary: t('vehicleDetail.canChart.throttleHelp', { pct: d.averagePct }) };
        }
        case 'fuel': {
          const d = await vehicleCalls.fuel(carId, range);
          if (!d) return NONE;
          return { option: fuelOption(d, labels), empty: d.points.length === 0, summary: t('vehicleDetail.canChart.fuelHelp', { litres: d.litres, hours: d.hours, lph: d.averageLph }) };
        }
        case 'afterTreatment': {
          const d = await vehicleCalls.afterTreatment(carId, range);
          if (!d) return NONE;
          return {
            option: afterTreatmentOption(d, labels),
            empty: d.points.length === 0,
            summary: t('vehicleDetail.canChart.afterTreatmentHelp', { soot: d.sootPct ?? '-', def: d.defPct ?? '-', n: d.regenerations }),
          };
        }
        case 'pressure': {
          const d = await vehicleCalls.pressure(carId, range);
          if (!d) return NONE;
          return { option: pressureOption(d, labels), empty: d.points.length === 0, summary: t('vehicleDetail.canChart.pressureHelp', { kpa: d.maxKpa ?? '-' }) };
        }
        case 'spectrum': {
          const d = await vehicleCalls.spectrum(carId, range);
          if (!d) return NONE;
          return { option: spectrumOption(d, labels), empty: d.cells.length === 0, summary: t('vehicleDetail.canChart.spectrumHelp', { hours: d.totalHours }) };
        }
        case 'resistance': {
          const d = await vehicleCalls.resistance(carId, range);
          if (!d) return NONE;
          return {
            option: resistanceOption(d, labels),
            empty: d.points.length === 0,
            summary: t('vehicleDetail.canChart.resistanceHelp', { r: d.resistance ?? '-', flow: d.minFlowKgh }),
          };
        }
      }
    },
  });
  const label = t(`vehicleDetail.tab.${kind}`);
  if (query.isLoading || !query.data) return <Spin />;
  if (query.data.empty) return <Empty description={t('vehicleDetail.canChart.noData')} data-testid={`vd-empty-${kind}`} />;
  return (
    <>
      <Typography.Text type="secondary">{query.data.summary}</Typography.Text>
      <EChart option={query.data.option} height={300} ariaLabel={label} data-testid={`vd-chart-${kind}`} />
    </>
  );
}
