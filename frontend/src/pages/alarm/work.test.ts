import { describe, expect, it } from 'vitest';
import { trackWindow } from './work';

describe('trackWindow', () => {
  it('takes ten minutes either side of an alarm that ended', () => {
    expect(trackWindow({ beginTime: '2026-05-08 09:00:00', endTime: '2026-05-08 09:30:05' })).toEqual({
      begin: '2026-05-08 08:50:00',
      end: '2026-05-08 09:40:05',
    });
  });
  it('takes ten minutes either side of its begin while it is active, across midnight', () => {
    expect(trackWindow({ beginTime: '2026-05-08 23:55:00', endTime: null })).toEqual({
      begin: '2026-05-08 23:45:00',
      end: '2026-05-09 00:05:00',
    });
  });
});
