import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MapFeed, type MapVehicle } from './vehicleFeed';

const v = (id: string, extra: Partial<MapVehicle> = {}): MapVehicle => ({
  id,
  position: [120, 30],
  state: 'idle',
  online: true,
  alarm: false,
  direction: 0,
  ...extra,
});

function source() {
  return { setData: vi.fn(() => Promise.resolve()), updateData: vi.fn(() => Promise.resolve()) };
}

describe('MapFeed: the vehicles source gets what changed', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends the whole fleet first, then only the vehicles added, gone or changed, and what changed in them', () => {
    const src = source();
    const a = v('1');
    const b = v('2');
    let wanted = { vehicles: [a, b], selected: null as string | null, crs: 'WGS84' as const };
    const feed = new MapFeed(() => src, () => wanted);
    feed.flush();
    expect(src.setData).toHaveBeenCalledTimes(1);
    expect(src.setData.mock.calls[0]).toMatchObject([{ features: [{ properties: { id: '1' } }, { properties: { id: '2' } }] }]);

    // the same vehicles (objects): nothing to send
    feed.flush();
    expect(src.updateData).not.toHaveBeenCalled();
    // a new object saying the same: nothing either
    wanted = { ...wanted, vehicles: [{ ...a }, b] };
    feed.flush();
    expect(src.updateData).not.toHaveBeenCalled();

    // 1 moved and started moving, 2 is gone, 3 came, 1 is selected
    wanted = { ...wanted, vehicles: [v('1', { position: [121, 30], state: 'moving' }), v('3')], selected: '1' };
    feed.flush();
    expect(src.updateData).toHaveBeenCalledTimes(1);
    const [diff] = src.updateData.mock.calls[0] as unknown as [Record<string, unknown>];
    expect(diff.remove).toEqual(['2']);
    expect(diff.add).toMatchObject([{ properties: { id: '3', selected: false } }]);
    expect(diff.update).toEqual([
      {
        id: '1',
        newGeometry: { type: 'Point', coordinates: [121, 30] },
        addOrUpdateProperties: [
          { key: 'state', value: 'moving' },
          { key: 'category', value: 'moving' },
          { key: 'selected', value: true },
        ],
      },
    ]);
    expect(src.setData).toHaveBeenCalledTimes(1);
  });

  it('goes out at most once per interval, with the newest state', () => {
    const src = source();
    let wanted = { vehicles: [v('1')], selected: null as string | null, crs: 'WGS84' as const };
    const feed = new MapFeed(() => src, () => wanted, 1000);
    feed.schedule();
    vi.advanceTimersByTime(0);
    expect(src.setData).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i += 1) {
      wanted = { ...wanted, vehicles: [v('1', { direction: i + 1 })] };
      feed.schedule();
      vi.advanceTimersByTime(100);
    }
    expect(src.updateData).not.toHaveBeenCalled();
    vi.advanceTimersByTime(500);
    expect(src.updateData).toHaveBeenCalledTimes(1);
    expect(src.updateData.mock.calls[0]).toEqual([{ add: [], remove: [], update: [{ id: '1', addOrUpdateProperties: [{ key: 'direction', value: 5 }] }] }]);
    feed.stop();
  });
});
