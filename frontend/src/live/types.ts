/** A vehicle's live state as the live feed sends it (backend `telemetry/view.py`: snapshot and updates alike). */
export interface LiveVehicle {
  vehicleId: string;
  tenantId: string;
  carNo: string | null;
  mechanismId: string | null;
  deviceNumber: string | null;
  /** Device time of the last position, ISO 8601 UTC. */
  time: string | null;
  lat: number | null;
  lon: number | null;
  speed: number;
  direction: number;
  /** off | idle | moving | loaded */
  state: string;
  acc: boolean;
  loadKg: number | null;
  soc: number | null;
  /** Kinds of the alarms in progress (collision, speeding, overload, fence_in, battery_low_voltage ...). */
  alarms: string[];
  online: boolean;
}

/** An alarm as it happens (the live feed's `event` messages). */
export interface LiveEvent {
  vehicleId: string;
  kind: string;
  level?: number;
  time: string | null;
  value?: number | null;
  limit?: number | null;
  lat?: number | null;
  lon?: number | null;
  carNo?: string | null;
}

/** The connection to the live feed. */
export type FeedStatus = 'connecting' | 'open' | 'closed';
