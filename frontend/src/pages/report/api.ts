import { action } from '../../api/manifest';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** One vehicle over the range (backend reporting/schemas.py), and the totals of every selected vehicle. */
export type EfficiencyRow = Schemas['EfficiencyRow'];
export type EfficiencyTotals = Schemas['EfficiencyTotals'];
/** The selected vehicles on one day: summed hours and how many worked. */
export type FleetDay = Schemas['FleetDay'];

/** The report's calls, from the server's manifest (actions of the report's own resource, over the vehicles' scope). */
export const efficiencyCalls = () => ({
  list: action('efficiency_report', 'car_work_efficiency_list'),
  export: action('efficiency_report', 'export_car_work_efficiency_list'),
  days: action('efficiency_report', 'car_fleet_work_time_count'),
});

/** The longest range of the report (backend reporting/api/efficiency.py MAX_DAYS). */
export const EFFICIENCY_MAX_DAYS = 31;
export const EFFICIENCY_EXPORT = 'report_efficiency_export';
