import { useMemo } from 'react';
import { Empty } from 'antd';
import { useTranslation } from 'react-i18next';
import EChart from '../../components/chart/EChart';
import type { EChartOption } from '../../components/chart/option';
import type { TypeCount } from './api';

const COLORS = { total: '#91caff', online: '#1677ff' };

/** Vehicles per type (the dictionary's names): all of them and those online, as horizontal bars. */
export default function TypeBars({ types }: { types: TypeCount[] }) {
  const { t } = useTranslation();
  const option = useMemo<EChartOption>(() => {
    const shown = [...types].reverse(); // most at the top
    return {
      grid: { left: 8, right: 24, top: 28, bottom: 8, containLabel: true },
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      legend: { top: 0 },
      xAxis: { type: 'value', minInterval: 1 },
      yAxis: { type: 'category', data: shown.map((c) => c.carTypeName) },
      series: [
        { type: 'bar', name: t('home.types.total'), data: shown.map((c) => c.total), itemStyle: { color: COLORS.total } },
        { type: 'bar', name: t('home.types.online'), data: shown.map((c) => c.online), itemStyle: { color: COLORS.online } },
      ],
    };
  }, [types, t]);
  if (types.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} />;
  const description = `${t('home.types.title')}: ${types
    .map((c) => t('home.types.item', { name: c.carTypeName, total: c.total, online: c.online }))
    .join(', ')}`;
  return <EChart option={option} height={Math.max(160, 48 + types.length * 36)} ariaLabel={description} data-testid="home-types-chart" />;
}
