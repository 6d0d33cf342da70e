import { describe, expect, it } from 'vitest';
import { exportFileName } from './exportName';

describe('exportFileName', () => {
  it('names the period the filters name', () => {
    expect(exportFileName('alarms-all', { startTime: '2026-05-01', endTime: '2026-05-07', carNo: 'x' })).toBe('alarms-all_2026-05-01_2026-05-07.xlsx');
    expect(exportFileName('track', { beginTime: '2026-05-01 08:00:00', endTime: '2026-05-01 18:00:00' })).toBe('track_2026-05-01.xlsx');
  });
  it('keeps the name alone without a whole period', () => {
    expect(exportFileName('vehicle', {})).toBe('vehicle.xlsx');
    expect(exportFileName('vehicle', { startTime: '2026-05-01' })).toBe('vehicle.xlsx');
    expect(exportFileName('vehicle', { startTime: 'soon', endTime: '2026-05-01' })).toBe('vehicle.xlsx');
  });
});
