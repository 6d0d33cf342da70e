import { useMemo, useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { DatePicker, Empty, Grid, Spin, Tabs, Typography } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import EChart from '../chart/EChart';
import type { EChartOption } from '../chart/option';
import type { DayRange } from '../report/range';
import { vehicleCalls } from './api';
import CanChart from './CanCharts';
import { CAN_CHARTS } from './canCharts';
import {
  calendarOption,
  mileageOption,
  runConditionOption,
  temperatureOption,
  thermalOption,
  waterfallOption,
  type ChartLabels,
} from './charts';

const HEIGHT = 300;

function Chart({ loading, option, empty, label, testId }: { loading: boolean; option: EChartOption | null; empty: boolean; label: string; testId: string }) {
  const { t } = useTranslation();
  if (loading || !option) return <Spin />;
  if (empty) return <Empty description={t('vehicleDetail.noData')} />;
  return <EChart option={option} height={HEIGHT} ariaLabel={label} data-testid={testId} />;
}

/**
 * The charts of one vehicle over the range (at most 7 days, `monitor/*`), one tab each; the efficiency calendar by
 * month. Loaded lazily with ECharts.
 */
export default function VehicleCharts({ carId, range }: { carId: string; range: DayRange }) {
  const { t } = useTranslation();
  const screens = Grid.useBreakpoint();
  const narrow = !screens.md;
  const [tab, setTab] = useState('mileage');
  const [month, setMonth] = useState(() => range[1].format('YYYY-MM'));
  const key = [carId, range[0].format(), range[1].format()];
  const labels = useMemo<ChartLabels>(
    () => ({
      km: t('vehicleDetail.km'),
      hours: t('vehicleDetail.hours'),
      maxC: t('vehicleDetail.maxC'),
      minC: t('vehicleDetail.minC'),
      utilisation: t('vehicleDetail.utilisation'),
      speed: t('vehicleDetail.speedBand'),
      load: t('vehicleDetail.loadBand'),
      steps: {
        boot: t('vehicleDetail.step.boot'),
        emptyMove: t('vehicleDetail.step.emptyMove'),
        loaded: t('vehicleDetail.step.loaded'),
        liftOnly: t('vehicleDetail.step.liftOnly'),
        idle: t('vehicleDetail.step.idle'),
      },
    }),
    [t],
  );
  const on = (name: string) => ({ enabled: tab === name });
  const mileage = useQuery({ queryKey: ['vd-mileage', ...key], queryFn: () => vehicleCalls.mileage(carId, range), ...on('mileage') });
  const thermal = useQuery({ queryKey: ['vd-thermal', ...key], queryFn: () => vehicleCalls.thermal(carId, range), ...on('thermal') });
  const calendar = useQuery({ queryKey: ['vd-calendar', carId, month], queryFn: () => vehicleCalls.calendar(carId, month), ...on('calendar') });
  const waterfall = useQuery({ queryKey: ['vd-waterfall', ...key], queryFn: () => vehicleCalls.waterfall(carId, range), ...on('waterfall') });
  const temps = useQuery({ queryKey: ['vd-temps', ...key], queryFn: () => vehicleCalls.temperature(carId, range), ...on('temperature') });
  const run = useQuery({ queryKey: ['vd-run', ...key], queryFn: () => vehicleCalls.runCondition(carId, range), ...on('run') });

  const options = useMemo(
    () => ({
      mileage: mileage.data ? mileageOption(mileage.data, labels) : null,
      thermal: thermal.data ? thermalOption(thermal.data, labels) : null,
      calendar: calendar.data ? calendarOption(calendar.data, labels, narrow) : null,
      waterfall: waterfall.data ? waterfallOption(waterfall.data, labels) : null,
      temperature: temps.data ? temperatureOption(temps.data, labels) : null,
      run: run.data ? runConditionOption(run.data, labels) : null,
    }),
    [mileage.data, thermal.data, calendar.data, waterfall.data, temps.data, run.data, labels, narrow],
  );

  const items: { key: string; label: string; children: ReactNode }[] = [
    {
      key: 'mileage',
      label: t('vehicleDetail.tab.mileage'),
      children: (
        <>
          <Typography.Text data-testid="vd-total-km">
            {t('vehicleDetail.totalKm', { km: mileage.data?.totalKm ?? '-', odometer: mileage.data?.odometerKm ?? '-' })}
          </Typography.Text>
          <Chart loading={mileage.isLoading} option={options.mileage} empty={false} label={t('vehicleDetail.tab.mileage')} testId="vd-chart-mileage" />
        </>
      ),
    },
    {
      key: 'thermal',
      label: t('vehicleDetail.tab.thermal'),
      children: (
        <>
          <Typography.Text type="secondary">{t('vehicleDetail.thermalHelp', { hours: thermal.data?.totalHours ?? '-' })}</Typography.Text>
          <Chart loading={thermal.isLoading} option={options.thermal} empty={false} label={t('vehicleDetail.tab.thermal')} testId="vd-chart-thermal" />
        </>
      ),
    },
    {
      key: 'calendar',
      label: t('vehicleDetail.tab.calendar'),
      children: (
        <>
          <DatePicker
            picker="month"
            allowClear={false}
            value={dayjs(`${month}-01`)}
            onChange={(v) => v && setMonth(v.format('YYYY-MM'))}
            aria-label={t('vehicleDetail.month')}
          />{' '}
          <Typography.Text data-testid="vd-utilisation">
            {t('vehicleDetail.monthUtilisation', { pct: calendar.data?.utilisation ?? '-' })}
          </Typography.Text>
          <Chart loading={calendar.isLoading} option={options.calendar} empty={false} label={t('vehicleDetail.tab.calendar')} testId="vd-chart-calendar" />
        </>
      ),
    },
    {
      key: 'waterfall',
      label: t('vehicleDetail.tab.waterfall'),
      children: (
        <>
          <Typography.Text type="secondary">{t('vehicleDetail.waterfallHelp')}</Typography.Text>
          <Chart loading={waterfall.isLoading} option={options.waterfall} empty={false} label={t('vehicleDetail.tab.waterfall')} testId="vd-chart-waterfall" />
        </>
      ),
    },
    {
      key: 'temperature',
      label: t('vehicleDetail.tab.temperature'),
      children: (
        <Chart
          loading={temps.isLoading}
          option={options.temperature}
          empty={!!temps.data && temps.data.points.length === 0}
          label={t('vehicleDetail.tab.temperature')}
          testId="vd-chart-temperature"
        />
      ),
    },
    {
      key: 'run',
      label: t('vehicleDetail.tab.run'),
      children: (
        <Chart
          loading={run.isLoading}
          option={options.run}
          empty={!!run.data && run.data.cells.length === 0}
          label={t('vehicleDetail.tab.run')}
          testId="vd-chart-run"
        />
      ),
    },
    ...CAN_CHARTS.map((kind) => ({ key: kind, label: t(`vehicleDetail.tab.${kind}`), children: <CanChart kind={kind} carId={carId} range={range} /> })),
  ];
  return <Tabs activeKey={tab} onChange={setTab} items={items} size="small" />;
}
