import { apiGet, apiPost, type BodyOf } from '../../api/client';
import type { components } from '../../api/schema';
import type { LonLat } from '../../map/geo';
import { ALARM_MODES, FENCE_CIRCLE, FENCE_POLYGON, type AlarmMode, type Fence, type FenceVehicle } from '../../components/fence/fence';

type FenceOut = components['schemas']['FenceOut'];

/** The editor's fence from the server's: the kinds narrowed to the values the editor draws. */
export function fenceOf(out: FenceOut): Fence {
  const mode = ALARM_MODES.find((m) => m === out.alarmMode);
  return {
    id: out.id,
    name: out.name,
    fenceType: out.fenceType === FENCE_POLYGON ? FENCE_POLYGON : FENCE_CIRCLE,
    alarmMode: (mode ?? 1) as AlarmMode,
    enableStatus: out.enableStatus === 0 ? 0 : 1,
    speedLimit: out.speedLimit,
    centerLon: out.centerLon,
    centerLat: out.centerLat,
    radius: out.radius,
    points: out.points?.map((p) => [p[0], p[1]] as LonLat) ?? null,
    mechanismId: out.mechanismId,
    remark: out.remark,
    carIds: out.carIds,
    carCount: out.carCount,
    createTime: out.createTime ?? undefined,
    updateTime: out.updateTime ?? undefined,
  };
}

export async function getFence(id: string): Promise<Fence> {
  const out = await apiGet('/api/blade-fics-report/fics/carInfo/V2/getCarElectronicsInfo', { id });
  if (!out) throw new Error('the server answered no fence');
  return fenceOf(out);
}

/** The vehicles in the caller's scope, `bound` for those of the fence (all unbound without an id). */
export async function getFenceVehicles(id?: string): Promise<FenceVehicle[]> {
  return (await apiGet('/api/blade-fics-report/fics/carInfo/V2/getCarElectronicsAuthorization', id ? { id } : {})) ?? [];
}

const ADD = '/api/blade-fics-report/fics/carInfo/v2/addCarElectronicsSet';

export function saveFence(fence: Fence): Promise<unknown> {
  return fence.id
    ? apiPost('/api/blade-fics-report/fics/carInfo/v2/updateCarElectronicsSet', { ...fence, id: fence.id })
    : // the document states a new fence's shape rules as alternatives (a circle's centre, a polygon's points), which
      // the editor's own checks (fence.ts) have enforced before it saves
      apiPost(ADD, fence as BodyOf<typeof ADD>);
}

export interface VehiclePosition {
  carId: string;
  carNo: string;
  lat: number | null;
  lon: number | null;
}

/** The last known positions of the caller's vehicles (to show where the fleet is while drawing). */
export async function getVehiclePositions(): Promise<VehiclePosition[]> {
  const live = (await apiPost('/api/blade-fics-report/fics/carInfo/getCarLastGPSInfo', {})) ?? [];
  return live.map((v) => ({ carId: v.carId, carNo: v.carNo ?? '', lat: v.lat ?? null, lon: v.lon ?? null }));
}
