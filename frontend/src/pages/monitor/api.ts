import { apiGet, apiGetAt } from '../../api/client';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** `positionTrailing/carRealTimeInfo`: the vehicle's live state as the server has it now (the feed's shape). */
export type VehicleDetail = Schemas['LiveVehicle'];

/** The vehicle's live state as the server has it now, null when it has none. */
export async function getVehicleDetail(carId: string): Promise<VehicleDetail | null> {
  return (await apiGet('/api/blade-fics-report/fics/positionTrailing/carRealTimeInfo', { carId })) ?? null;
}

export type Track = Schemas['Track'];

/** The vehicle's positions between two tenant-zone times, null when the server answered none. */
export async function getTrack(carId: string, beginTime: string, endTime: string): Promise<Track | null> {
  return (await apiGet('/api/blade-fics-report/fics/positionTrailing/positionTrailing', { carId, beginTime, endTime })) ?? null;
}

export interface TerminalParam {
  id: string;
  name: string;
  value: unknown;
}

/** A command and where it stands (pending → sent → acknowledged | failed | timeout). */
export type CommandView = Schemas['CommandOut'];

/** The parameters a parameter query's answer carries (`result.params`), none while there is no answer. */
export function answeredParams(command: CommandView | null | undefined): TerminalParam[] {
  const result = command?.result;
  if (typeof result !== 'object' || result === null || !('params' in result) || !Array.isArray(result.params)) return [];
  return result.params as TerminalParam[];
}

/** The parameter query, a path of the document with the vehicle's id in it (`{id}`). */
const QUERY_CONFIG = '/api/blade-fics-report/fics/carSet/sendGetDeviceConfig/{id}';
/** The button a terminal's parameters are asked with (backend telemetry/resources.py `car_set`). */
export const QUERY_CONFIG_BUTTON = 'car_set_config';

/** Asks the vehicle's terminal for all its parameters and waits (up to `wait` s) for the answer. */
export async function queryParameters(carId: string, wait = 8): Promise<CommandView | null> {
  const answer = await apiGetAt(QUERY_CONFIG, { id: carId }, { wait }, { timeout: (wait + 10) * 1000 });
  return answer ?? null;
}
