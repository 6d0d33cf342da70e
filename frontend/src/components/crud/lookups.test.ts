import { describe, expect, it } from 'vitest';
import type { TFunction } from 'i18next';
import type { Column } from '../../resources/types';
import { displayText } from './lookups';

const t = ((key: string) => key) as unknown as TFunction;

describe('CSV text of a cell', () => {
  it('uses the option label when the cell is a custom element', () => {
    const column: Column = { prop: 'enableStatus', label: 'x', type: 'select', format: () => ({}) as never };
    const lookups = { enableStatus: new Map([['1', 'On']]) };
    expect(displayText(column, { enableStatus: 1 }, lookups, t)).toBe('On');
    expect(displayText(column, { enableStatus: 3 }, lookups, t)).toBe('3');
    expect(displayText(column, {}, lookups, t)).toBe('');
  });

  it('keeps plain text as it is', () => {
    const column: Column = { prop: 'speed', label: 'x', format: (v) => `${String(v)} km/h` };
    expect(displayText(column, { speed: 10 }, {}, t)).toBe('10 km/h');
  });
});
