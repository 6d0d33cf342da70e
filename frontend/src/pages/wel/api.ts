import { apiGet, apiPost } from '../../api/client';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** The fleet now, today's use, the trend, terminals, alarms (backend reporting/home_schemas.py). */
export type FleetOverview = Schemas['FleetOverview'];
export type UsageSum = Schemas['UsageSum'];
export type OnlineTrend = Schemas['OnlineTrend'];
export type OfflineAnalysis = Schemas['OfflineAnalysis'];
export type OfflineTerminal = Schemas['OfflineTerminal'];
export type TypeCount = Schemas['TypeCount'];
export type AlarmSummary = Schemas['AlarmSummary'];
export type BatterySummary = Schemas['BatterySummary'];
export type HomeAlarm = Schemas['HomeAlarm'];

const HOME = '/api/blade-fics-report/fics/carHome';

/** The organisation filter of every call (none: every vehicle the caller may see). */
export interface HomeFilter {
  deptId?: string;
}

/** The home page's calls, each through the typed client. */
export const homeCalls = {
  overview: (f: HomeFilter) => apiGet(`${HOME}/getCarHomeOnlineStatic`, f),
  usage: (f: HomeFilter) => apiGet(`${HOME}/getCarHomeOpenSum`, f),
  trend: (f: HomeFilter, startTime?: string, endTime?: string) =>
    apiPost(`${HOME}/getFleetEquipmentOonLineTrends`, { ...f, startTime, endTime }),
  offline: (f: HomeFilter) => apiPost(`${HOME}/getOfflineAnalysisFleetEquipment`, f),
  offlineList: (f: HomeFilter, current: number, size: number) =>
    apiPost(`${HOME}/getTerminalOffListInfo`, { ...f, current, size }),
  byType: (f: HomeFilter) => apiGet(`${HOME}/getCarVehicleAssetClassification`, f),
  alarms: (f: HomeFilter) => apiGet(`${HOME}/getCarHomeWarringStatic`, f),
  battery: (f: HomeFilter) => apiGet(`${HOME}/getCarHomeBatteryWarringStatic`, f),
  recent: (f: HomeFilter) => apiGet(`${HOME}/getCarHomeCarWarringStaticList`, { ...f, size: 10 }),
};

/** How often the page reads everything again. */
export const REFRESH_MS = 60_000;
