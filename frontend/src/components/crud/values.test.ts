import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import type { Column } from '../../resources/types';
import { buildSearchParams, normalizeList, toFormValues, toPayload, toCsv } from './values';

const columns: Column[] = [
  { prop: 'paramName', label: 'x', search: true },
  { prop: 'category', label: 'x', type: 'dict', dictCode: 'post_category', valueType: 'number', searchParam: 'category_equal' },
  { prop: 'createTime', label: 'x', type: 'datetime', searchRange: true },
  { prop: 'roleId', label: 'x', type: 'tree', multiple: true },
  { prop: 'parentId', label: 'x', type: 'tree' },
  { prop: 'isSealed', label: 'x', type: 'switch' },
  { prop: 'birthday', label: 'x', type: 'date' },
  { prop: 'password', label: 'x', type: 'password', addOnly: true },
  { prop: 'tenantId', label: 'x', readOnly: true },
];

describe('search parameters', () => {
  it('drops empty values and trims text', () => {
    expect(buildSearchParams({ paramName: '  ', category: undefined, roleId: [] }, columns)).toEqual({});
    expect(buildSearchParams({ paramName: ' key ' }, columns)).toEqual({ paramName: 'key' });
  });

  it('sends a date range as createTime_dategt / createTime_datelt', () => {
    const from = dayjs('2024-01-01 00:00:00');
    const to = dayjs('2024-01-31 23:59:59');
    expect(buildSearchParams({ createTime: [from, to] }, columns)).toEqual({
      createTime_dategt: '2024-01-01 00:00:00',
      createTime_datelt: '2024-01-31 23:59:59',
    });
  });

  it('uses the search key of a column', () => {
    expect(buildSearchParams({ category: '2' }, columns)).toEqual({ category_equal: '2' });
  });
});

describe('form values', () => {
  it('turns a server row into form values', () => {
    const v = toFormValues({ roleId: '1,2', parentId: '0', isSealed: 1, birthday: '2000-02-03', category: 2 }, columns);
    expect(v.roleId).toEqual(['1', '2']);
    expect(v.parentId).toBeUndefined();
    expect(v.isSealed).toBe(true);
    expect(dayjs.isDayjs(v.birthday)).toBe(true);
    expect(v.category).toBe('2');
  });

  it('builds the submit payload', () => {
    const payload = toPayload(
      { paramName: ' n ', category: '3', roleId: ['1', '2'], isSealed: false, birthday: dayjs('2000-02-03'), password: 'secret1', tenantId: 'x' },
      columns,
      null,
    );
    expect(payload).toEqual({ paramName: 'n', category: 3, roleId: '1,2', isSealed: 0, birthday: '2000-02-03', password: 'secret1' });
  });

  it('keeps the id and skips create-only fields when editing', () => {
    const payload = toPayload({ paramName: 'n', password: 'x' }, columns, { id: '42' });
    expect(payload).toEqual({ id: '42', paramName: 'n' });
  });
});

describe('list answers', () => {
  it('reads a page', () => {
    expect(normalizeList({ records: [{ id: '1' }], total: '25', size: 10, current: 1 })).toEqual({ rows: [{ id: '1' }], total: 25 });
  });
  it('reads a tree and removes empty children', () => {
    const r = normalizeList([{ id: '1', children: [{ id: '2', children: [] }] }]);
    expect(r.rows).toEqual([{ id: '1', children: [{ id: '2' }] }]);
  });
  it('copes with nothing', () => {
    expect(normalizeList(null)).toEqual({ rows: [], total: 0 });
  });
});

describe('csv', () => {
  it('quotes what needs quoting', () => {
    expect(toCsv(['a', 'b'], [['x,y', 'say "hi"']])).toBe('\ufeffa,b\r\n"x,y","say ""hi"""');
  });
});

describe('values of a new record', () => {
  it('show the server\'s defaults as the form holds them', async () => {
    const { initialValues } = await import('./values');
    const form: Column[] = [
      { prop: 'carType', label: 'x', type: 'dict', dictCode: 'car_type', valueType: 'number', defaultValue: 3 },
      { prop: 'isSealed', label: 'x', type: 'switch', defaultValue: 0 },
      { prop: 'sort', label: 'x', type: 'number', defaultValue: 1 },
      { prop: 'scope', label: 'x', defaultValue: 'all' },
      { prop: 'parentId', label: 'x', type: 'tree', defaultValue: 0 },
      { prop: 'tenantId', label: 'x', readOnly: true, defaultValue: '000000' },
    ];
    expect(initialValues(form)).toEqual({ carType: '3', isSealed: false, sort: 1, scope: 'all', parentId: undefined });
    expect(initialValues(form, { parentId: '7', carType: 2 })).toMatchObject({ parentId: '7', carType: '2', isSealed: false });
  });
});
