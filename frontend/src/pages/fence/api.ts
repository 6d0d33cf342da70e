import { get, post } from '../../api/request';
import type { Fence, FenceVehicle } from './fence';

const F = '/api/blade-fics-report/fics/carInfo';

export function getFence(id: string): Promise<Fence> {
  return get<Fence>(`${F}/V2/getCarElectronicsInfo`, { id });
}

/** The vehicles in the caller's scope, `bound` for those of the fence (all unbound without an id). */
export function getFenceVehicles(id?: string): Promise<FenceVehicle[]> {
  return get<FenceVehicle[]>(`${F}/V2/getCarElectronicsAuthorization`, id ? { id } : {});
}

export function saveFence(fence: Fence): Promise<unknown> {
  return post(fence.id ? `${F}/v2/updateCarElectronicsSet` : `${F}/v2/addCarElectronicsSet`, fence);
}

export interface VehiclePosition {
  carId: string;
  carNo: string;
  lat: number | null;
  lon: number | null;
}

/** The last known positions of the caller's vehicles (to show where the fleet is while drawing). */
export function getVehiclePositions(): Promise<VehiclePosition[]> {
  return post<VehiclePosition[]>(`${F}/getCarLastGPSInfo`, {});
}
