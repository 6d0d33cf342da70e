import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** One alarm (backend reporting/alarm_schemas.py `AlarmRow`) and the totals of every selected alarm. */
export type AlarmRow = Schemas['AlarmRow'];
export type AlarmTotals = Schemas['AlarmTotals'];
export type AbnormalCar = Schemas['AbnormalCar'];
export type AbnormalInfo = Schemas['AbnormalInfo'];
export type AbnormalNode = Schemas['AbnormalNode'];
export type FaultCar = Schemas['FaultCar'];
export type FaultType = Schemas['FaultType'];
export type FaultTreeNode = Schemas['FaultTreeNode'];

const F = '/api/blade-fics-report/fics';

/** The lists of 报警记录: the spec's path of each (paged POST) and our export of it (GET, the same filters). */
export const ALARM_LISTS = {
  all: { url: `${F}/carInfo/getCarAlarmInfoList`, export: '/api/liftdesk/alarm/all/export' },
  collision: { url: `${F}/carInfo/getCarCollisionList`, export: '/api/liftdesk/alarm/collision/export' },
  speeding: { url: `${F}/carInfo/getCarSpeedingList`, export: '/api/liftdesk/alarm/speeding/export' },
  overload: { url: `${F}/carInfo/getCarOverloadList`, export: '/api/liftdesk/alarm/overload/export' },
  warning: { url: `${F}/carInfo/getCarWarningList`, export: '/api/liftdesk/alarm/warning/export' },
  fault: { url: `${F}/carInfo/getCarFaultList`, export: '/api/liftdesk/alarm/fault/export' },
} as const;
export type AlarmList = keyof typeof ALARM_LISTS;

export const ABNORMAL = {
  tree: `${F}/abnormal/getCarAbnormalTree`,
  page: `${F}/abnormal/getCarAbnormalPage`,
  info: `${F}/abnormal/getCarAbnormalInfo`,
} as const;

export const FAULTS = {
  tree: `${F}/faultCode/tree`,
  cars: `${F}/faultCode/faultCarPage`,
  types: `${F}/faultCode/faultTypePage`,
  export: `${F}/faultCode/export`,
} as const;

/** The longest range of the alarm center (backend alarm_schemas.ALARM_MAX_DAYS; spec 001 §5: 7 days). */
export const ALARM_MAX_DAYS = 7;
export const ALARM_EXPORT = 'alarm_record_export';
export const FAULT_EXPORT = 'alarm_fault_export';

/** Kinds the "other alarms and warnings" list may be narrowed to (labels: monitor.alarm.* and alarm.kind.*). */
export const WARNING_KINDS = [
  'fence_in',
  'fence_out',
  'fence_cross',
  'fence_speeding',
  'offline',
  'battery_high_voltage',
  'battery_low_voltage',
  'battery_over_current',
  'battery_over_temperature',
  'battery_liquid_level',
  'jt808_emergency',
  'jt808_overspeed',
  'jt808_power_low',
  'jt808_power_cut',
  'jt808_gnss_fault',
  'jt808_rollover_warning',
] as const;

export const REASONS = ['offline', 'never_reported', 'no_position', 'clock_fault', 'battery', 'fault'] as const;

/** A duration in seconds as `1h 2m 3s` (`-` for none). */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '-';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h) return `${h}h ${m}m ${rest}s`;
  if (m) return `${m}m ${rest}s`;
  return `${rest}s`;
}
