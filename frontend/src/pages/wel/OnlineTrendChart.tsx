import { useMemo } from 'react';
import { Empty } from 'antd';
import { useTranslation } from 'react-i18next';
import EChart from '../../components/chart/EChart';
import type { EChartOption } from '../../components/chart/option';
import type { OnlineTrend } from './api';

const HEIGHT = 260;
const COLORS = { online: '#1677ff', powered: '#52c41a' };

/** The trend's axis label: the hour (HH:00) of an hourly trend, the day (MM-DD) of a daily one. */
function pointLabel(time: string, unit: OnlineTrend['unit']): string {
  return unit === 'hour' ? time.slice(11, 16) : time.slice(5, 10);
}

/** Vehicles online per hour or per day (a line), and per day the vehicles powered on; loaded lazily with ECharts. */
export default function OnlineTrendChart({ trend }: { trend: OnlineTrend }) {
  const { t } = useTranslation();
  const daily = trend.unit === 'day';
  const option = useMemo<EChartOption>(() => {
    const labels = trend.points.map((p) => pointLabel(p.time, trend.unit));
    const series: EChartOption['series'] = [
      {
        type: 'line',
        name: t('home.trend.online'),
        data: trend.points.map((p) => p.online),
        areaStyle: { opacity: 0.12 },
        itemStyle: { color: COLORS.online },
      },
    ];
    if (daily)
      series.push({
        type: 'line',
        name: t('home.trend.poweredOn'),
        data: trend.points.map((p) => p.poweredOn ?? 0),
        itemStyle: { color: COLORS.powered },
      });
    return {
      grid: { left: 40, right: 16, top: 36, bottom: 28 },
      tooltip: { trigger: 'axis' },
      legend: { top: 0 },
      xAxis: { type: 'category', data: labels, boundaryGap: false },
      yAxis: { type: 'value', minInterval: 1, name: t('home.trend.vehicles') },
      series,
    };
  }, [trend, daily, t]);
  if (trend.points.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} />;
  const description = `${t('home.trend.title')}: ${trend.points
    .map((p) => `${pointLabel(p.time, trend.unit)} ${p.online}${daily ? `/${p.poweredOn ?? 0}` : ''}`)
    .join(', ')}`;
  return <EChart option={option} height={HEIGHT} ariaLabel={description} data-testid="home-trend-chart" />;
}
