import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { RESOURCE_PAGES } from '../resources';
import { PILOT_EDIT_PATH, PILOT_VIEW_PATH } from '../resources/driver/paths';
import { FENCE_EDITOR_PATH } from '../resources/operation/fence';
import type { ResourceConfig } from '../resources/types';

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

const page = (component: Extract<PageEntry, { kind: 'component' }>['component']): PageEntry => ({ kind: 'component', component });

/**
 * Menu path → what renders it: a resource declaration (`RESOURCE_PAGES` in resources/) or a page of its own. Menu
 * routes without an entry show "not available".
 */
export const PAGES: Record<string, PageEntry> = {
  ...Object.fromEntries(
    Object.entries(RESOURCE_PAGES).map(([path, config]): [string, PageEntry] => [path, { kind: 'resource', config }]),
  ),
  '/system/dict': page(DictVertical),
  '/fleet/monitor': page(LiveMonitor),
  '/fleet/track': page(TrackPlayback),
  '/operation/map': page(MapSetting),
  '/report/efficiency': page(VehicleEfficiency),
  '/system/region': page(RegionPage),
  '/desk/message': page(MessageCenter),
  '/desk/receive': page(ReceiveSettings),
  '/alarm/record': page(AlarmRecords),
  '/alarm/abnormal': page(AbnormalVehicles),
  '/alarm/fault': page(FaultCodes),
  '/vision/behavior': page(BehaviorAnalysis),
};

/** Components of the pages opened from a list (their parent menus and labels: `SUB_PAGES` in app/staticPages). */
export const SUB_PAGE_COMPONENTS: Record<string, LazyExoticComponent<ComponentType>> = {
  [FENCE_EDITOR_PATH]: FenceEditor,
  [PILOT_EDIT_PATH]: PilotForm,
  [PILOT_VIEW_PATH]: PilotView,
};

export function resolvePage(path: string): PageEntry | undefined {
  return PAGES[path] ?? PAGES[path.replace(/\/index$/, '')];
}
