import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import * as echarts from 'echarts/core';
import { BarChart, HeatmapChart, LineChart } from 'echarts/charts';
import { AriaComponent, CalendarComponent, GridComponent, LegendComponent, TooltipComponent, VisualMapComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { EChartOption } from './option';

// Only what the app's charts use (see option.ts): the rest of ECharts stays out of the bundle.
echarts.use([BarChart, LineChart, GridComponent, TooltipComponent, LegendComponent, AriaComponent, CanvasRenderer]);
// a vehicle's work-time heat map, run condition and efficiency calendar (components/vehicle)
echarts.use([HeatmapChart, VisualMapComponent, CalendarComponent]);

export interface EChartProps {
  /** The whole chart (memoise it: a new object redraws). */
  option: EChartOption;
  height: number;
  /**
   * The text description of the chart for assistive technology (ECharts' aria: it becomes the `aria-label` of the
   * chart's box, role img). Without one ECharts writes its own from the series and data, in the UI language.
   */
  ariaLabel?: string;
  /** Replace the previous option (the default: `option` is the whole chart) rather than merge into it. */
  notMerge?: boolean;
  className?: string;
  'data-testid'?: string;
}

/**
 * An ECharts chart on a canvas: created on its box, given `option` whenever it changes, resized with its box, disposed
 * when unmounted. No theme: colours come from the option (or ECharts' defaults). Load it lazily: ECharts is large.
 */
export default function EChart({ option, height, ariaLabel, notMerge = true, className, ...rest }: EChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  const { i18n } = useTranslation();
  // ECharts' own texts (its aria description, when none is given) follow the UI language; it is fixed at creation
  const locale = (i18n.resolvedLanguage ?? i18n.language ?? '').toLowerCase().startsWith('zh') ? 'ZH' : 'EN';

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const instance = echarts.init(el, null, { renderer: 'canvas', locale });
    chart.current = instance;
    const observer = new ResizeObserver(() => {
      if (!instance.isDisposed()) instance.resize();
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, [locale]);

  useEffect(() => {
    const aria: EChartOption['aria'] = { enabled: true, label: ariaLabel ? { enabled: true, description: ariaLabel } : { enabled: true } };
    chart.current?.setOption({ ...option, aria }, { notMerge });
  }, [option, ariaLabel, notMerge, locale]);

  return <div ref={box} className={className} style={{ width: '100%', height }} {...rest} />;
}
