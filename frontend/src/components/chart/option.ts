import type { ComposeOption } from 'echarts/core';
import type { BarSeriesOption, HeatmapSeriesOption, LineSeriesOption } from 'echarts/charts';
import type {
  AriaComponentOption,
  CalendarComponentOption,
  GridComponentOption,
  LegendComponentOption,
  TooltipComponentOption,
  VisualMapComponentOption,
} from 'echarts/components';

/**
 * The options the app's ECharts build understands: only the charts and components `EChart.tsx` registers (a series or
 * component not registered there would be ignored at run time, so the type refuses it). Types only: importing this
 * file loads no ECharts code.
 */
export type EChartOption = ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | GridComponentOption
  | TooltipComponentOption
  | LegendComponentOption
  | AriaComponentOption
  // a vehicle's heat maps and efficiency calendar (components/vehicle)
  | HeatmapSeriesOption
  | VisualMapComponentOption
  | CalendarComponentOption
>;
