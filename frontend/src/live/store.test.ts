import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveStore, MAX_EVENTS } from './store';
import { backoffMs, liveUrl } from './feed';

const v = (id: string, extra: Record<string, unknown> = {}) => ({
  carId: id,
  tenantId: '000000',
  carNo: `FL-${id}`,
  state: 'idle',
  speed: 0,
  online: true,
  alarms: [],
  ...extra,
});

describe('LiveStore', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('replaces on a snapshot, merges updates, and tells listeners once per interval', () => {
    const store = new LiveStore(300);
    const seen = vi.fn();
    store.subscribe(seen);
    store.apply({ type: 'snapshot', data: [v('1'), v('2')] });
    store.apply({ type: 'vehicles', data: [v('1', { speed: 9.5, state: 'moving' })] });
    store.apply({ type: 'vehicles', data: [{ carId: '2', soc: 40 }] });
    expect(seen).not.toHaveBeenCalled();
    vi.advanceTimersByTime(300);
    expect(seen).toHaveBeenCalledTimes(1);
    const { vehicles } = store.get();
    expect(vehicles.get('1')).toMatchObject({ speed: 9.5, state: 'moving', carNo: 'FL-1' });
    expect(vehicles.get('2')).toMatchObject({ soc: 40, carNo: 'FL-2' }); // a partial update keeps the rest
    store.apply({ type: 'snapshot', data: [v('3')] });
    vi.advanceTimersByTime(300);
    expect([...store.get().vehicles.keys()]).toEqual(['3']);
  });

  it('flips online, keeps the newest alarms first and bounded, ignores what it does not know', () => {
    const store = new LiveStore(10);
    store.apply({ type: 'snapshot', data: [v('1')] });
    store.apply({ type: 'online', data: { carId: '1', online: false } });
    store.apply({ type: 'online', data: { carId: 'unknown', online: false } });
    for (let i = 0; i < MAX_EVENTS + 5; i++) store.apply({ type: 'event', data: { carId: 1, kind: `k${i}`, time: null } });
    store.apply({ type: 'bogus', data: [v('9')] });
    store.apply('not an object');
    vi.advanceTimersByTime(10);
    const snap = store.get();
    expect(snap.vehicles.get('1')?.online).toBe(false);
    expect(snap.vehicles.has('unknown')).toBe(false);
    expect(snap.vehicles.has('9')).toBe(false);
    expect(snap.events).toHaveLength(MAX_EVENTS);
    expect(snap.events[0]).toMatchObject({ carId: '1', kind: `k${MAX_EVENTS + 4}` });
  });
});

describe('feed', () => {
  it('builds the socket URL like the page and backs off up to 30 s', () => {
    expect(liveUrl('a b', { protocol: 'https:', host: 'x.example:8443' })).toBe(
      'wss://x.example:8443/api/liftdesk/live?ticket=a%20b',
    );
    expect(liveUrl('t', { protocol: 'http:', host: '127.0.0.1:8000' })).toBe('ws://127.0.0.1:8000/api/liftdesk/live?ticket=t');
    expect([0, 1, 2, 5, 10].map(backoffMs)).toEqual([1000, 2000, 4000, 30_000, 30_000]);
  });
});
