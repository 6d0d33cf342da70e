import { get } from '../../api/request';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

const F = '/api/blade-fics-report/fics';

/** `positionTrailing/carRealTimeInfo`: the vehicle's live state as the server has it now (the feed's shape). */
export type VehicleDetail = Schemas['LiveVehicle'];

export function getVehicleDetail(carId: string): Promise<VehicleDetail> {
  return get<VehicleDetail>(`${F}/positionTrailing/carRealTimeInfo`, { carId });
}

export type Track = Schemas['Track'];

export function getTrack(carId: string, beginTime: string, endTime: string): Promise<Track> {
  return get<Track>(`${F}/positionTrailing/positionTrailing`, { carId, beginTime, endTime });
}

export interface TerminalParam {
  id: string;
  name: string;
  value: unknown;
}

/** A command and where it stands (pending → sent → acknowledged | failed | timeout). */
export type CommandView = Schemas['CommandOut'];

/** The parameters a parameter query's answer carries (`result.params`), none while there is no answer. */
export function answeredParams(command: CommandView | undefined): TerminalParam[] {
  const result = command?.result;
  if (typeof result !== 'object' || result === null || !('params' in result) || !Array.isArray(result.params)) return [];
  return result.params as TerminalParam[];
}

/** Asks the vehicle's terminal for all its parameters and waits (up to `wait` s) for the answer. */
export function queryParameters(carId: string, wait = 8): Promise<CommandView> {
  return get<CommandView>(`${F}/carSet/sendGetDeviceConfig/${encodeURIComponent(carId)}`, { wait }, { timeout: (wait + 10) * 1000 });
}
