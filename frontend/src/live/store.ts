import type { LiveEvent, LiveVehicle } from './types';

/** What the page reads: every known vehicle by id, and the latest alarms (newest first). */
export interface LiveSnapshot {
  vehicles: ReadonlyMap<string, LiveVehicle>;
  events: readonly LiveEvent[];
  /** Bumped on every change, so React sees a new value. */
  version: number;
}

export const MAX_EVENTS = 100;

function asArray(data: unknown): Record<string, unknown>[] {
  if (Array.isArray(data)) return data.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
  if (data && typeof data === 'object') return [data as Record<string, unknown>];
  return [];
}

/**
 * The vehicles the live feed has told about, keyed by id. Messages are merged as they come; listeners are told at
 * most once per `notifyMs`, so a busy feed re-renders the page a few times a second, not once per message.
 */
export class LiveStore {
  private vehicles = new Map<string, LiveVehicle>();
  private events: LiveEvent[] = [];
  private version = 0;
  private snapshot: LiveSnapshot = { vehicles: new Map(), events: [], version: 0 };
  private listeners = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly notifyMs = 300) {}

  /** One message of the feed: `snapshot` replaces, `vehicles` merges, `event` adds alarms, `online` flips. */
  apply(message: unknown): void {
    if (!message || typeof message !== 'object') return;
    const { type, data } = message as { type?: unknown; data?: unknown };
    if (type === 'snapshot') {
      this.vehicles = new Map();
      for (const v of asArray(data)) this.merge(v);
    } else if (type === 'vehicles') {
      for (const v of asArray(data)) this.merge(v);
    } else if (type === 'online') {
      for (const raw of asArray(data)) {
        const id = String(raw.carId ?? '');
        const known = this.vehicles.get(id);
        if (known && typeof raw.online === 'boolean') this.vehicles.set(id, { ...known, online: raw.online });
      }
    } else if (type === 'event') {
      const fresh = asArray(data)
        .filter((e) => e.carId != null && typeof e.kind === 'string')
        .map((e) => ({ ...e, carId: String(e.carId) }) as LiveEvent);
      this.events = [...fresh.reverse(), ...this.events].slice(0, MAX_EVENTS);
    } else {
      return; // a message type this page does not know: ignored
    }
    this.changed();
  }

  private merge(raw: Record<string, unknown>): void {
    if (raw.carId == null) return;
    const id = String(raw.carId);
    const before = this.vehicles.get(id);
    this.vehicles.set(id, { ...(before ?? {}), ...raw, carId: id } as LiveVehicle);
  }

  private changed(): void {
    this.version += 1;
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.snapshot = { vehicles: new Map(this.vehicles), events: this.events, version: this.version };
      this.listeners.forEach((l) => l());
    }, this.notifyMs);
  }

  get = (): LiveSnapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Forgets every vehicle and event (a sign-out: the next user sees nothing of this one's) and tells at once. */
  clear(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.vehicles = new Map();
    this.events = [];
    this.version = 0;
    this.snapshot = { vehicles: new Map(), events: [], version: 0 };
    this.listeners.forEach((l) => l());
  }

  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.listeners.clear();
  }
}
