import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { ResourceConfig } from './types';
import param from './system/param';
import dictTree from './system/dict';
import dictbiz from './system/dictbiz';
import post from './system/post';
import client from './system/client';
import tenant from './system/tenant';
import role from './system/role';
import menu from './system/menu';
import topmenu from './system/topmenu';
import dept from './system/dept';
import user from './system/user';
import fence, { FENCE_EDITOR_PATH, FENCE_LIST_PATH } from './operation/fence';
import vehicle, { VEHICLE_LIST_PATH } from './fleet/vehicle';
import command, { COMMAND_LOG_PATH } from './fleet/command';
import logUsual, { LOG_USUAL_PATH } from './system/logUsual';
import logApi, { LOG_API_PATH } from './system/logApi';
import logError, { LOG_ERROR_PATH } from './system/logError';
import notice, { NOTICE_PATH } from './desk/notice';
import oss, { OSS_PATH } from './system/oss';
import attach, { ATTACH_PATH } from './system/attach';
import sms, { SMS_PATH } from './system/sms';
import driverPaper, { PAPER_PATH } from './driver/paper';
import driverReminder, { REMINDER_PATH } from './driver/reminder';
import driver, { DRIVER_LIST_PATH, PILOT_EDIT_PATH, PILOT_VIEW_PATH } from './driver/driver';
import driverApply, { DRIVER_APPLY_PATH } from './driver/driverApply';
import faceLog, { FACE_LOG_PATH } from './driver/faceLog';
import code, { CODE_PATH } from './system/code';
import reportFile, { REPORT_FILE_PATH } from './system/reportFile';

export type PageEntry =
  | { kind: 'resource'; config: ResourceConfig }
  | { kind: 'component'; component: ComponentType | LazyExoticComponent<ComponentType> };

const DictVertical = lazy(() => import('../pages/dict/DictVertical'));
// the map (MapLibre, terra-draw) loads with this page only
const FenceEditor = lazy(() => import('../pages/fence/FenceEditor'));
const LiveMonitor = lazy(() => import('../pages/monitor/LiveMonitor'));
const TrackPlayback = lazy(() => import('../pages/track/TrackPlayback'));
const MapSetting = lazy(() => import('../pages/map/MapSetting'));
const VehicleEfficiency = lazy(() => import('../pages/report/VehicleEfficiency'));
const RegionPage = lazy(() => import('../pages/region/RegionPage'));
const MessageCenter = lazy(() => import('../pages/message/MessageCenter'));
const ReceiveSettings = lazy(() => import('../pages/message/ReceiveSettings'));
const AlarmRecords = lazy(() => import('../pages/alarm/AlarmRecords'));
const AbnormalVehicles = lazy(() => import('../pages/alarm/AbnormalVehicles'));
const FaultCodes = lazy(() => import('../pages/alarm/FaultCodes'));
// a driver's own add / edit and view pages (cards, face photo, app account, authorized vehicles)
const PilotForm = lazy(() => import('../pages/driver/PilotForm'));
const PilotView = lazy(() => import('../pages/driver/PilotView'));
const BehaviorAnalysis = lazy(() => import('../pages/vision/BehaviorAnalysis'));

const resource = (config: ResourceConfig): PageEntry => ({ kind: 'resource', config });

/** Menu path → what renders it. Menu routes without an entry show "not available". */
export const PAGES: Record<string, PageEntry> = {
  '/system/param': resource(param),
  '/system/dict': { kind: 'component', component: DictVertical },
  '/system/dictbiz': resource(dictbiz),
  '/system/post': resource(post),
  '/system/client': resource(client),
  '/system/tenant': resource(tenant),
  '/authority/role': resource(role),
  '/system/menu': resource(menu),
  '/system/topmenu': resource(topmenu),
  '/system/dept': resource(dept),
  '/system/user': resource(user),
  [FENCE_LIST_PATH]: resource(fence),
  '/fleet/monitor': { kind: 'component', component: LiveMonitor },
  '/fleet/track': { kind: 'component', component: TrackPlayback },
  '/operation/map': { kind: 'component', component: MapSetting },
  '/report/efficiency': { kind: 'component', component: VehicleEfficiency },
  [VEHICLE_LIST_PATH]: resource(vehicle),
  [COMMAND_LOG_PATH]: resource(command),
  [LOG_USUAL_PATH]: resource(logUsual),
  [LOG_API_PATH]: resource(logApi),
  [LOG_ERROR_PATH]: resource(logError),
  '/system/region': { kind: 'component', component: RegionPage },
  '/desk/message': { kind: 'component', component: MessageCenter },
  [NOTICE_PATH]: resource(notice),
  '/desk/receive': { kind: 'component', component: ReceiveSettings },
  [OSS_PATH]: resource(oss),
  [ATTACH_PATH]: resource(attach),
  [SMS_PATH]: resource(sms),
  '/alarm/record': { kind: 'component', component: AlarmRecords },
  '/alarm/abnormal': { kind: 'component', component: AbnormalVehicles },
  '/alarm/fault': { kind: 'component', component: FaultCodes },
  [PAPER_PATH]: resource(driverPaper),
  [REMINDER_PATH]: resource(driverReminder),
  [DRIVER_LIST_PATH]: resource(driver),
  [DRIVER_APPLY_PATH]: resource(driverApply),
  [FACE_LOG_PATH]: resource(faceLog),
  '/vision/behavior': { kind: 'component', component: BehaviorAnalysis },
  [CODE_PATH]: resource(code),
  [REPORT_FILE_PATH]: resource(reportFile),
};

/** Components of the pages opened from a list (their parent menus and labels: `SUB_PAGES` in app/staticPages). */
export const SUB_PAGE_COMPONENTS: Record<string, LazyExoticComponent<ComponentType>> = {
  [FENCE_EDITOR_PATH]: FenceEditor,
  [PILOT_EDIT_PATH]: PilotForm,
  [PILOT_VIEW_PATH]: PilotView,
};

/** Kept for the horizontal dictionary view and tests. */
export const RESOURCES = { param, dict: dictTree, dictbiz, post, client, tenant, role, menu, topmenu, dept, user, fence, vehicle, command };

export function resolvePage(path: string): PageEntry | undefined {
  return PAGES[path] ?? PAGES[path.replace(/\/index$/, '')];
}
