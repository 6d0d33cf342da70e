import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { post, type Params } from '../../api/request';
import StackedBars from '../../components/report/StackedBars';
import { dailyHoursDescription, dailySeries, type DailyHoursLabels } from '../../components/report/chart';
import { formatNumber } from '../../components/report/format';
import { efficiencyCalls, type FleetDay } from './api';

const COLORS = { work: '#52c41a', idle: '#faad14', vehicles: '#1677ff' };

/** The fleet's hours per day of the applied range (getCarFleetWorkTimeCount): work and idle stacked, = boot. */
export default function FleetHoursChart({ params }: { params: Params }) {
  const { t } = useTranslation();
  const url = efficiencyCalls().days;
  const { data, isLoading } = useQuery({ queryKey: ['report', url, params], queryFn: () => post<FleetDay[]>(url, params) });
  const series = useMemo(() => dailySeries(data ?? []), [data]);
  const labels = useMemo<DailyHoursLabels>(
    () => ({
      work: t('report.efficiency.workTime'),
      idle: t('report.efficiency.freeTime'),
      boot: t('report.efficiency.bootTime'),
      vehicles: t('report.efficiency.workingVehicles'),
      hoursAxis: t('report.efficiency.chartHours'),
      vehiclesAxis: t('report.efficiency.chartVehicles'),
      colors: COLORS,
      hours: formatNumber,
    }),
    [t],
  );
  if (isLoading || !data) return <Spin />;
  const title = t('report.efficiency.chartTitle');
  const description = dailyHoursDescription(title, series, (i) =>
    t('report.efficiency.dayTip', {
      day: series.days[i],
      boot: formatNumber(series.boot[i]),
      work: formatNumber(series.work[i]),
      move: formatNumber(series.move[i]),
      idle: formatNumber(series.idle[i]),
      count: series.vehicles[i],
    }),
  );
  return (
    <>
      <Typography.Text strong>{title}</Typography.Text>
      <StackedBars series={series} labels={labels} description={description} empty={t('crud.empty')} />
    </>
  );
}
