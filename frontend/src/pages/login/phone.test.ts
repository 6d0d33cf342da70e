import { describe, expect, it } from 'vitest';
import { fieldOfMessage, MOBILE, SMS_CODE } from './phone';

describe('phone sign-in helpers', () => {
  it('puts a message naming a field on that field', () => {
    expect(fieldOfMessage('phone: 验证码发送过于频繁, 请 42 秒后再试')).toEqual(['phone', '验证码发送过于频繁, 请 42 秒后再试']);
    expect(fieldOfMessage('code: the code is wrong (4 tries left)')).toEqual(['code', 'the code is wrong (4 tries left)']);
    expect(fieldOfMessage('key is required')).toEqual([null, 'key is required']);
    expect(fieldOfMessage('key: the code has expired')).toEqual(['code', 'the code has expired']);
    expect(fieldOfMessage('账号未启用或已被禁用, 请联系管理员')).toEqual([null, '账号未启用或已被禁用, 请联系管理员']);
  });

  it('checks numbers and codes as the server does', () => {
    expect(MOBILE.test('13800138000')).toBe(true);
    expect(MOBILE.test('1380013800')).toBe(false);
    expect(MOBILE.test('23800138000')).toBe(false);
    expect(SMS_CODE.test('012345')).toBe(true);
    expect(SMS_CODE.test('12345a')).toBe(false);
  });
});
