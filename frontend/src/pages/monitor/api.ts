import { get } from '../../api/request';

const F = '/api/blade-fics-report/fics';

/** `positionTrailing/carRealTimeInfo`: what the live feed does not carry (driver, mileage, lock, CAN, last seen). */
export interface VehicleDetail {
  carId: string;
  carNo: string;
  deviceNumber: string | null;
  carType: number;
  online: boolean;
  acc: boolean;
  state: string;
  lat: number | null;
  lon: number | null;
  speed: number;
  gpsTime: string | null;
  lastSeen: string | null;
  mileage: number | null;
  loadKg: number | null;
  soc: number | null;
  lockLevel: number | null;
  alarms: string[];
  driverName: string | null;
  can: Record<string, { data: string; channel: number; time: string }>;
}

export function getVehicleDetail(carId: string): Promise<VehicleDetail> {
  return get<VehicleDetail>(`${F}/positionTrailing/carRealTimeInfo`, { carId });
}

export interface TrackPoint {
  gpsTime: string;
  lat: number;
  lon: number;
  speed: number;
  loadKg: number | null;
}

export interface Track {
  carId: string;
  carNo: string;
  beginTime: string;
  endTime: string;
  count: number;
  truncated: boolean;
  points: TrackPoint[];
}

export function getTrack(carId: string, beginTime: string, endTime: string): Promise<Track> {
  return get<Track>(`${F}/positionTrailing/positionTrailing`, { carId, beginTime, endTime });
}

export interface TerminalParam {
  id: string;
  name: string;
  value: unknown;
}

/** A command and where it stands (pending → sent → acknowledged | failed | timeout). */
export interface CommandView {
  commandId: string;
  carId: string | null;
  deviceNumber: string;
  name: string;
  status: string;
  attempts: number;
  result: { params?: TerminalParam[] } | null;
  error: string | null;
}

/** Asks the vehicle's terminal for all its parameters and waits (up to `wait` s) for the answer. */
export function queryParameters(carId: string, wait = 8): Promise<CommandView> {
  return get<CommandView>(`${F}/carSet/sendGetDeviceConfig/${encodeURIComponent(carId)}`, { wait }, { timeout: (wait + 10) * 1000 });
}
