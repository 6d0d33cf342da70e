import { describe, expect, it } from 'vitest';
import type { LiveEvent, LiveVehicle } from '../../live/types';
import { alarmEntries, ageParts, ageSeconds, countByFilter, hasPosition, todayPeriod, visibleVehicles, zonedMs } from './monitor';

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
