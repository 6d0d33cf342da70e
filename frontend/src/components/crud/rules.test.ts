import Schema from '@rc-component/async-validator';
import { describe, expect, it } from 'vitest';
import type { Column } from '../../resources/types';
import { requiredRules } from './rules';

/** Validates `value` with the rules of `column` as the form does; resolves to the error messages. */
async function errors(column: Column, value: unknown): Promise<string[]> {
  const schema = new Schema({ [column.prop]: requiredRules(column, 'missing') as never });
  try {
    await schema.validate({ [column.prop]: value });
    return [];
  } catch (e) {
    return ((e as { errors?: { message: string }[] }).errors ?? []).map((x) => x.message);
  }
}

describe('required rules', () => {
  it('accept a number, a switch and a numeric select that hold a value', async () => {
    expect(await errors({ prop: 'sort', label: 's', type: 'number', required: true }, 1)).toEqual([]);
    expect(await errors({ prop: 'sort', label: 's', type: 'number', required: true }, 0)).toEqual([]);
    expect(await errors({ prop: 'isSealed', label: 's', type: 'switch', required: true }, false)).toEqual([]);
    expect(await errors({ prop: 'carType', label: 's', type: 'dict', required: true }, 3)).toEqual([]);
    expect(await errors({ prop: 'roleId', label: 's', type: 'tree', required: true, multiple: true }, ['1'])).toEqual([]);
  });

  it('refuse what is missing, and blank text', async () => {
    expect(await errors({ prop: 'sort', label: 's', type: 'number', required: true }, undefined)).toEqual(['missing']);
    expect(await errors({ prop: 'name', label: 's', required: true }, '   ')).toEqual(['missing']);
    expect(await errors({ prop: 'name', label: 's', required: true }, '')).toEqual(['missing']);
    expect(await errors({ prop: 'name', label: 's' }, '')).toEqual([]);
  });
});
