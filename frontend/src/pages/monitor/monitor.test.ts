import { describe, expect, it } from 'vitest';
import type { LiveEvent, LiveVehicle } from '../../live/types';
import {
  alarmEntries,
  ageParts,
  ageSeconds,
  countByFilter,
  filterVehicles,
  FleetOrder,
  FleetView,
  hasPosition,
  sortedFleet,
  todayPeriod,
  visibleRange,
  visibleVehicles,
  zonedMs,
} from './monitor';

const v = (id: string, extra: Partial<LiveVehicle> = {}): LiveVehicle => ({
  carId: id,
  tenantId: '000000',
  carNo: `FL-${id}`,
  mechanismId: null,
  deviceNumber: `0138000000${id.padStart(2, '0')}`,
  carType: 3,
  gpsTime: null,
  lastSeen: null,
  mileage: null,
  lockLevel: null,
  driverName: null,
  driverId: null,
  clockFault: false,
  clockFaultTime: null,
  can: {},
  lat: 31.2,
  lon: 121.5,
  speed: 0,
  direction: 0,
  state: 'idle',
  acc: true,
  loadKg: null,
  soc: null,
  alarms: [],
  online: true,
  ...extra,
});

describe('monitor helpers', () => {
  const fleet = [
    v('1', { state: 'moving' }),
    v('2', { state: 'loaded', alarms: ['overload'] }),
    v('10', { state: 'idle' }),
    v('3', { state: 'moving', online: false }),
    v('4', { state: 'off', lat: null, lon: null }),
  ];

  it('counts each tab; an offline vehicle counts as offline, not by its last state', () => {
    expect(countByFilter(fleet)).toEqual({ all: 5, moving: 1, loaded: 1, idle: 1, off: 1, offline: 1, alarm: 1 });
  });

  it('filters by tab and text, sorted by car number with numbers in order', () => {
    expect(visibleVehicles(fleet, 'all', '').map((x) => x.carNo)).toEqual(['FL-1', 'FL-2', 'FL-3', 'FL-4', 'FL-10']);
    expect(visibleVehicles(fleet, 'all', 'fl-1').map((x) => x.carNo)).toEqual(['FL-1', 'FL-10']);
    expect(visibleVehicles(fleet, 'all', '00000010').map((x) => x.carNo)).toEqual(['FL-10']);
    expect(visibleVehicles(fleet, 'alarm', '').map((x) => x.carNo)).toEqual(['FL-2']);
    expect(fleet.filter(hasPosition)).toHaveLength(4);
  });

  it('reads tenant-zone times of the feed and ages them in the largest unit', () => {
    expect(zonedMs('2026-11-23 17:11:32', 480)).toBe(Date.parse('2026-11-23T09:11:32Z'));
    expect(zonedMs(null, 480)).toBeNull();
    expect(zonedMs('garbage', 480)).toBeNull();
    expect(ageSeconds('2026-11-23 17:11:32', Date.parse('2026-11-23T09:12:02Z'), 480)).toBe(30);
    expect(ageSeconds('2026-11-23 17:11:32', Date.parse('2026-11-23T09:11:00Z'), 480)).toBe(0);
    expect(ageSeconds('2026-11-23 09:11:32', Date.parse('2026-11-23T09:12:02Z'), 0)).toBe(30);
    expect([5, 150, 7300, 200_000].map(ageParts)).toEqual([
      { value: 5, unit: 's' },
      { value: 2, unit: 'min' },
      { value: 2, unit: 'h' },
      { value: 2, unit: 'd' },
    ]);
    // 23:30 UTC is already the next day at UTC+8
    expect(todayPeriod(Date.parse('2026-11-23T23:30:00Z'), 480)).toEqual({
      beginTime: '2026-11-24 00:00:00',
      endTime: '2026-11-24 07:30:00',
    });
  });

  it('opens the alarm list with the vehicles in alarm now, then puts events on top as they come', () => {
    const fleet = [
      v('1', { alarms: ['overload'], gpsTime: '2026-11-24 07:00:00' }),
      v('2', { alarms: [] }),
      v('3', { alarms: ['speeding', 'collision'], gpsTime: '2026-11-24 07:10:00' }),
    ];
    const opened = alarmEntries(fleet, []);
    expect(opened.map((e) => [e.carId, e.kind, e.current])).toEqual([
      ['3', 'collision', true],
      ['3', 'speeding', true],
      ['1', 'overload', true],
    ]);
    expect(opened[0]).toMatchObject({ carNo: 'FL-3', time: '2026-11-24 07:10:00' });
    const event = (id: string, carId: string, kind: string, time: string) => ({ id, carId, kind, time }) as LiveEvent;
    // a new alarm of vehicle 3 that it has now too: listed once, as the event
    const later = alarmEntries(fleet, [event('e2', '2', 'fence_in', '2026-11-24 07:20:00'), event('e1', '3', 'speeding', '2026-11-24 07:15:00')]);
    expect(later.map((e) => [e.carId, e.kind, e.current])).toEqual([
      ['2', 'fence_in', false],
      ['3', 'speeding', false],
      ['3', 'collision', true],
      ['1', 'overload', true],
    ]);
  });
});

describe('a large fleet', () => {
  it('keeps the sorted order across updates and sorts again only when a vehicle comes, goes or is renamed', () => {
    const fleet = new Map(['10', '9', '2', '1'].map((id) => [id, v(id)]));
    const order = new FleetOrder();
    const first = order.sort(fleet);
    expect(first.map((x) => x.carId)).toEqual(['1', '2', '9', '10']);
    const moved = { ...fleet.get('9')!, speed: 7 };
    fleet.set('9', moved);
    const second = order.sort(fleet);
    expect(second.map((x) => x.carId)).toEqual(['1', '2', '9', '10']);
    expect(second[2]).toBe(moved); // the current object, in its place
    fleet.set('0', v('0', { carNo: 'FL-0' }));
    expect(order.sort(fleet).map((x) => x.carId)).toEqual(['0', '1', '2', '9', '10']);
    fleet.set('1', { ...fleet.get('1')!, carNo: 'FL-99' });
    expect(sortedFleet(fleet, order.sort(fleet)).map((x) => x.carId)).toEqual(['0', '2', '9', '10', '1']);
  });

  it('filters a sorted list in its order, and returns it as it is when nothing filters', () => {
    const sorted = sortedFleet(new Map(['1', '2', '3'].map((id) => [id, v(id, { online: id !== '2' })])), null);
    expect(filterVehicles(sorted, 'all', ' ')).toBe(sorted);
    expect(filterVehicles(sorted, 'offline', '').map((x) => x.carId)).toEqual(['2']);
    expect(filterVehicles(sorted, 'all', 'fl-3').map((x) => x.carId)).toEqual(['3']);
  });

  it('renders only the rows in view of a virtual list', () => {
    expect(visibleRange(2000, 0, 360, 36)).toEqual([0, 16]);
    expect(visibleRange(2000, 36 * 1000, 360, 36)).toEqual([994, 1016]);
    expect(visibleRange(5, 0, 360, 36)).toEqual([0, 5]);
    expect(visibleRange(0, 0, 360, 36)).toEqual([0, 0]);
  });
});

describe('FleetView', () => {
  it('derives the sorted fleet, the counts (the same object while they hold) and the alarms named by car number', () => {
    const view = new FleetView();
    const a = { ...v('2'), alarms: ['speeding'] };
    const first = view.derive(new Map([['2', a], ['1', v('1')]]), [{ carId: '1', kind: 'fence_in', time: null } as LiveEvent]);
    expect(first.all.map((x) => x.carId)).toEqual(['1', '2']);
    expect(first.counts.all).toBe(2);
    expect(first.alarms.map((e) => [e.carNo, e.kind])).toEqual([
      ['FL-1', 'fence_in'],
      ['FL-2', 'speeding'],
    ]);
    const same = view.derive(new Map([['2', { ...a, speed: 3 }], ['1', v('1')]]), []);
    expect(same.counts).toBe(first.counts);
    const fewer = view.derive(new Map([['1', v('1')]]), []);
    expect(fewer.counts).not.toBe(first.counts);
    expect(fewer.counts.all).toBe(1);
  });
});
