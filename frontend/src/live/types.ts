import type { components } from '../api/schema';

type Schemas = components['schemas'];

/** A vehicle's live state: the one shape of the feed's snapshot and updates and of the REST calls
 * (`getCarLastGPSInfo`, `carRealTimeInfo`), generated from the server's schema (`telemetry/view.py`). Times are
 * `YYYY-MM-DD HH:mm:ss` in the tenant's zone. */
export type LiveVehicle = Schemas['LiveVehicle'];

/** An alarm as it happens (the feed's `event` messages); `carNo` is added by the page when it knows it. */
export type LiveEvent = Schemas['LiveEvent'] & { carNo?: string | null };

/** A terminal went online or offline (the feed's `online` messages). */
export type LiveOnline = Schemas['LiveOnline'];

/** The connection to the live feed. */
export type FeedStatus = 'connecting' | 'open' | 'closed';
