import Schema from '@rc-component/async-validator';
import { describe, expect, it } from 'vitest';
import type { Column } from '../../resources/types';
import i18n from '../../i18n';
import { fieldOfMessage, limitRules, messageForField, requiredRules } from './rules';

/** Validates `value` with the rules of `column` as the form does; resolves to the error messages. */
async function errors(column: Column, value: unknown): Promise<string[]> {
  const t = (key: string, options?: Record<string, unknown>) => i18n.getFixedT('zh')(key, options);
  const schema = new Schema({ [column.prop]: [...requiredRules(column, 'missing'), ...limitRules(column, t)] as never });
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

  it('judge a control of its own by presence only: a list it holds is not text', async () => {
    const fields: Column = { prop: 'fields', label: 's', required: true, maxLength: 3, input: () => null };
    expect(await errors(fields, [{ column: 'a' }, { column: 'b' }, { column: 'c' }, { column: 'd' }])).toEqual([]);
    expect(await errors(fields, undefined)).toEqual(['missing']);
  });
});

describe('limit rules (from the manifest)', () => {
  const carNo: Column = { prop: 'carNo', label: 'vehicle.carNo', required: true, maxLength: 8, minLength: 1 };
  const account: Column = { prop: 'account', label: 'user.account', minLength: 2 };
  const device: Column = { prop: 'deviceNumber', label: 'vehicle.deviceNumber', pattern: '^[0-9]{1,20}$', patternMessage: 'vehicle.deviceNumberRule' };
  const alias: Column = { prop: 'roleAlias', label: 'role.roleAlias', pattern: '^[A-Za-z][A-Za-z0-9_-]*$' };
  const load: Column = { prop: 'ratedLoadKg', label: 'vehicle.ratedLoad', type: 'number', min: 0, max: 100000 };
  const accounts: Column = { prop: 'accountNumber', label: 'tenant.accountNumber', type: 'number', min: -1 };

  it('refuse text longer or shorter than the server takes, counted as sent (trimmed)', async () => {
    expect(await errors(carNo, 'FL-00001')).toEqual([]);
    expect(await errors(carNo, '  FL-00001  ')).toEqual([]);
    expect(await errors(carNo, 'FL-000001')).toEqual(['车辆简称最多 8 个字符']);
    expect(await errors(account, 'a')).toEqual(['登录账号至少 2 个字符']);
    expect(await errors(account, '')).toEqual([]);
  });

  it('refuse text that does not match the pattern, with the column\'s message or the general one', async () => {
    expect(await errors(device, '013912340007')).toEqual([]);
    expect(await errors(device, '01391234AB')).toEqual(['设备号只能是 1 到 20 位数字']);
    expect(await errors(alias, '9admin')).toEqual(['角色别名格式不正确']);
    expect(await errors(alias, 'admin_2')).toEqual([]);
  });

  it('refuse numbers out of range and name the range', async () => {
    expect(await errors(load, 1800)).toEqual([]);
    expect(await errors(load, 100001)).toEqual(['额定载重 (kg)应在 0 到 100000 之间']);
    expect(await errors(load, -1)).toEqual(['额定载重 (kg)应在 0 到 100000 之间']);
    expect(await errors(load, null)).toEqual([]);
    expect(await errors(accounts, -2)).toEqual(['账号额度不能小于 -1']);
  });
});

describe('a server message about a field', () => {
  const fields = ['carNo', 'ratedLoadKg', 'deviceNumber'];

  it('names the field it starts with', () => {
    expect(fieldOfMessage('carNo 长度不能超过 64', fields)).toBe('carNo');
    expect(fieldOfMessage('ratedLoadKg 超出允许范围', fields)).toBe('ratedLoadKg');
    expect(fieldOfMessage('deviceNumber: must be digits', fields)).toBe('deviceNumber');
    expect(fieldOfMessage('carNo 已存在: FL-001', fields)).toBe('carNo');
  });

  it('names none for another field, a longer word or a message about no field', () => {
    expect(fieldOfMessage('simNumber 长度不能超过 20', fields)).toBeUndefined();
    expect(fieldOfMessage('carNoX 格式不正确', fields)).toBeUndefined();
    expect(fieldOfMessage('数据不存在', fields)).toBeUndefined();
    expect(fieldOfMessage('', fields)).toBeUndefined();
  });

  it('reads with the field\'s label', () => {
    expect(messageForField('carNo 长度不能超过 64', 'carNo', '车辆简称')).toBe('车辆简称 长度不能超过 64');
  });
});
