import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../resources';
import { namesToConfirm, rowLabel } from './names';
import { isSecretCell, isSecretName } from './secret';

describe('what a confirmation names', () => {
  it('names a row by the manifest label of its resource', () => {
    const { vehicle, dept, fence, role } = RESOURCES;
    expect(vehicle.labelField).toBe('carNo');
    expect(rowLabel(vehicle, { id: '1', carNo: 'FL-01', name: 'x' })).toBe('FL-01');
    expect(rowLabel(dept, { id: '2', deptName: '华东仓储中心' })).toBe('华东仓储中心');
    expect(rowLabel(fence, { id: '3', name: '仓库围栏' })).toBe('仓库围栏');
    expect(rowLabel(role, { id: '4', roleName: '' })).toBe('4');
  });

  it('lists the first rows and counts the rest', () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({ id: String(i), carNo: `FL-${i}` }));
    expect(namesToConfirm(RESOURCES.vehicle, rows.slice(0, 2))).toEqual({ names: ['「FL-0」', '「FL-1」'], more: 0 });
    expect(namesToConfirm(RESOURCES.vehicle, rows)).toEqual({ names: ['「FL-0」', '「FL-1」', '「FL-2」', '「FL-3」', '「FL-4」'], more: 2 });
  });
});

describe('secrets', () => {
  it('knows the names of secrets', () => {
    for (const key of ['account.initPassword', 'tenant.default.password', 'oss.secretKey', 'sms.accessToken', 'db.passwd', 'api_key', '默认密码'])
      expect(isSecretName(key), key).toBe(true);
    for (const key of ['account.failCount', 'tenant.default.menuCode', 'account.registerUser', undefined, 3]) expect(isSecretName(key), String(key)).toBe(false);
  });

  it('masks the parameters that name a secret and every client secret', () => {
    const { param, client } = RESOURCES;
    const value = param.columns.find((c) => c.prop === 'paramValue')!;
    expect(isSecretCell(value, { paramKey: 'account.initPassword', paramValue: '123456' })).toBe(true);
    expect(isSecretCell(value, { paramKey: 'account.failCount', paramValue: '5' })).toBe(false);
    expect(isSecretCell(client.columns.find((c) => c.prop === 'clientSecret')!, { clientSecret: 'saber_secret' })).toBe(true);
  });
});
