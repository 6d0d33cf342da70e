import { describe, expect, it } from 'vitest';
import { checkParams } from './params';

describe('checkParams', () => {
  it('takes a JSON object of texts or numbers, or nothing', () => {
    expect(checkParams('')).toBeNull();
    expect(checkParams('{"code": "1234", "n": 5}')).toBeNull();
  });
  it('refuses anything else with the message key', () => {
    for (const bad of ['[1]', '"x"', 'null', '{"a": {"b": 1}}', '{"a": true}', 'not json', '{'])
      expect(checkParams(bad), bad).toBe('sms.paramsObject');
  });
});
