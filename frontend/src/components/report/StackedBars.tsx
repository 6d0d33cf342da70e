import { useMemo } from 'react';
import { Empty } from 'antd';
import EChart from '../chart/EChart';
import { dailyHoursOption, isEmpty, type DailyHoursLabels, type DailySeries } from './chart';

const HEIGHT = 280;

/**
 * A fleet's days drawn by ECharts: work and idle hours stacked (= boot) with the vehicles that worked as a line; the
 * chart slot of the report pages, loaded (with ECharts) only by the page that shows it. `description` is the chart's
 * text for assistive technology; `empty` is shown instead of a chart with nothing on it.
 */
export default function StackedBars({
  series,
  labels,
  description,
  empty,
}: {
  series: DailySeries;
  labels: DailyHoursLabels;
  description: string;
  empty: string;
}) {
  const option = useMemo(() => dailyHoursOption(series, labels), [series, labels]);
  return (
    <div className="report-chart" data-testid="report-chart">
      {isEmpty(series) ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} style={{ margin: '16px 0' }} data-testid="report-chart-empty" />
      ) : (
        <EChart option={option} height={HEIGHT} ariaLabel={description} data-testid="report-chart-canvas" />
      )}
    </div>
  );
}
