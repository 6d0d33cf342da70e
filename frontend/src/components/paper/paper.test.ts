import { describe, expect, it } from 'vitest';
import { daysTone, mixedState, pictureProblem, picturesOf } from './paper';

describe('paper selections', () => {
  it('names the first state the rows do not share', () => {
    const rows = [
      { id: '1', auditStatus: 1, loanStatus: 0, archiveStatus: 0 },
      { id: '2', auditStatus: 2, loanStatus: 1, archiveStatus: 0 },
    ];
    expect(mixedState(rows, ['loanStatus', 'archiveStatus'])).toBe('loanStatus');
    expect(mixedState(rows, ['archiveStatus'])).toBeNull();
    expect(mixedState(rows, ['auditStatus'])).toBe('auditStatus');
    expect(mixedState([rows[0]], ['auditStatus', 'loanStatus'])).toBeNull();
  });
});

describe('paper pictures', () => {
  it('takes jpg and png up to 5 MB', () => {
    expect(pictureProblem({ type: 'image/png', size: 1000 })).toBeNull();
    expect(pictureProblem({ type: 'image/jpeg', size: 5 * 1024 * 1024 })).toBeNull();
    expect(pictureProblem({ type: 'image/jpeg', size: 5 * 1024 * 1024 + 1 })).toBe('size');
    expect(pictureProblem({ type: 'application/pdf', size: 10 })).toBe('type');
  });

  it('reads the form value', () => {
    expect(picturesOf(undefined)).toEqual([]);
    expect(picturesOf([{ attachId: '1', side: 1 }, { attachId: '', side: 2 }])).toEqual([{ attachId: '1', side: 1 }]);
  });

  it('colours the days left', () => {
    expect([daysTone(-3), daysTone(0), daysTone(7), daysTone(31), daysTone(null)]).toEqual(['error', 'error', 'warning', undefined, undefined]);
  });
});
