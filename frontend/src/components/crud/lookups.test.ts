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

describe('dictionary values and parents shown to the user', () => {
  const en = ((key: string, options?: { defaultValue?: string }) =>
    ({ 'dictValue.car_type.4': 'Lithium electric forklift', 'dictValue.yes_no.1': 'No', 'crud.topLevel': 'Top level' })[key] ??
    options?.defaultValue ??
    key) as unknown as TFunction;
  const zh = ((key: string, options?: { defaultValue?: string }) => (key === 'crud.topLevel' ? '顶级' : (options?.defaultValue ?? key))) as unknown as TFunction;

  it('shows a seeded dictionary value in the UI language, whatever text the row carries', () => {
    const carType: Column = { prop: 'carType', label: 'x', type: 'dict', dictCode: 'car_type', displayProp: 'carTypeName' };
    const row = { carType: 4, carTypeName: '锂电电动叉车' };
    expect(displayText(carType, row, {}, en)).toBe('Lithium electric forklift');
    expect(displayText(carType, row, {}, zh)).toBe('锂电电动叉车');
    // loaded (and translated) entries win; a value no translation knows shows as the server has it
    expect(displayText(carType, row, { carType: new Map([['4', '锂电']]) }, zh)).toBe('锂电');
    expect(displayText(carType, { carType: 9, carTypeName: '新车型' }, {}, en)).toBe('新车型');
    const isOpen: Column = { prop: 'isOpen', label: 'x', type: 'dict', dictCode: 'yes_no' };
    expect(displayText(isOpen, { isOpen: 1 }, {}, en)).toBe('No');
  });

  it('names the parent of a top-level row instead of showing 0', () => {
    const parent: Column = { prop: 'parentId', label: 'x', type: 'tree', treeUrl: '/t', displayProp: 'parentName' };
    const lookups = { parentId: new Map([['7', '华东仓储中心']]) };
    expect(displayText(parent, { parentId: '0', parentName: '' }, lookups, zh)).toBe('顶级');
    expect(displayText(parent, { parentId: 0 }, lookups, en)).toBe('Top level');
    expect(displayText(parent, { parentId: '7', parentName: '' }, lookups, zh)).toBe('华东仓储中心');
  });
});
