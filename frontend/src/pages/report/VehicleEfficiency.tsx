import { lazy } from 'react';
import { useTranslation } from 'react-i18next';
import { ReportPage, type ReportColumn, type ReportFilter } from '../../components/report/ReportPage';
import { dictLabel } from '../../i18n/dictLabel';
import { EFFICIENCY_EXPORT, EFFICIENCY_MAX_DAYS, efficiencyCalls, type EfficiencyRow, type EfficiencyTotals } from './api';

// the chart loads with the page (and after it), never with the sign-in page
const FleetHoursChart = lazy(() => import('./FleetHoursChart'));

const FILTERS: ReportFilter[] = [
  { name: 'carNo', label: 'report.efficiency.carNo', kind: 'text', maxLength: 64 },
  { name: 'carType', label: 'report.efficiency.carType', kind: 'dict', dict: 'car_type' },
  { name: 'festival', label: 'report.efficiency.festival', kind: 'switch', initial: true, help: 'report.efficiency.festivalHelp' },
];

/**
 * 智能报表 → 车辆效率报表 (spec 001 §2): per vehicle over a range of days, boot, load, move, idle and move-load hours
 * and move efficiency, with the fleet's daily hours above the table.
 */
export default function VehicleEfficiency() {
  const { t } = useTranslation();
  const calls = efficiencyCalls();
  const columns: ReportColumn<EfficiencyRow>[] = [
    { key: 'mechanismName', title: 'report.organisation', width: 160 },
    { key: 'carNo', title: 'report.efficiency.carNo', width: 130 },
    { key: 'equipmentNo', title: 'report.efficiency.equipmentNo', width: 140 },
    {
      key: 'carType',
      title: 'report.efficiency.carType',
      width: 130,
      render: (row) => dictLabel(t, 'car_type', row.carType, row.carTypeName || String(row.carType)),
    },
    { key: 'cumulativeBootTime', title: 'report.efficiency.bootTime', numeric: true, total: 'cumulativeBootTime', width: 130 },
    { key: 'loadTime', title: 'report.efficiency.loadTime', numeric: true, total: 'loadTime', width: 110 },
    { key: 'mobileTime', title: 'report.efficiency.mobileTime', numeric: true, total: 'mobileTime', width: 110 },
    { key: 'freeTime', title: 'report.efficiency.freeTime', numeric: true, total: 'freeTime', width: 110 },
    { key: 'movingLoadTime', title: 'report.efficiency.movingLoadTime', numeric: true, total: 'movingLoadTime', width: 130 },
    { key: 'mobileEfficiency', title: 'report.efficiency.mobileEfficiency', numeric: true, total: 'mobileEfficiency', width: 120 },
  ];
  return (
    <ReportPage<EfficiencyRow, EfficiencyTotals>
      title="report.efficiency.title"
      definitions="report.efficiency.definitions"
      url={calls.list}
      exportUrl={calls.export}
      exportName="vehicle-efficiency"
      exportCode={EFFICIENCY_EXPORT}
      columns={columns}
      rowKey="carId"
      maxDays={EFFICIENCY_MAX_DAYS}
      filters={FILTERS}
      chart={(params) => <FleetHoursChart params={params} />}
    />
  );
}
