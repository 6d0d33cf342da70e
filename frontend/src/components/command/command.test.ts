import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { availableActions, buildSearchParams, searchFields } from '../crud/values';
import { displayText } from '../crud/lookups';
import commandLog from '../../resources/fleet/command';
import vehicle from '../../resources/fleet/vehicle';
import fence from '../../resources/operation/fence';
import type { Row, Translate } from '../../resources/types';
import {
  COMMAND_NAMES,
  COMMAND_STATUSES,
  STATUS_COLORS,
  commandLabel,
  commandSummary,
  errorText,
  pendingIds,
  prettyJson,
} from './command';

const zh: Translate = (key, options) => i18n.getFixedT('zh')(key, options);
const en: Translate = (key, options) => i18n.getFixedT('en')(key, options);

describe('command names and statuses', () => {
  it('labels every known name in both languages and shows an unknown one as it is', () => {
    expect(commandLabel('queryParams', zh)).toBe('查询全部参数');
    expect(commandLabel('queryParams', en)).toBe('Query all parameters');
    for (const name of COMMAND_NAMES) {
      expect(commandLabel(name, zh), name).not.toBe(name);
      expect(commandLabel(name, en), name).not.toBe(name);
    }
    expect(commandLabel('brandNewCommand', zh)).toBe('brandNewCommand');
    expect(commandLabel(null, zh)).toBe('');
  });

  it('has a colour and a label for every status the server knows', () => {
    expect([...COMMAND_STATUSES]).toEqual(['pending', 'sent', 'acknowledged', 'failed', 'timeout', 'cancelled']);
    for (const status of COMMAND_STATUSES) {
      expect(STATUS_COLORS[status]).toBeTruthy();
      expect(zh(`command.status.${status}`)).not.toContain('command.');
    }
    expect(zh('command.status.acknowledged')).toBe('已应答');
  });
});

describe('what became of a command', () => {
  const row = (extra: Row): Row => ({ id: '1', name: 'queryParams', status: 'acknowledged', ...extra });

  it('summarises the answer of the terminal', () => {
    const params = [{ id: '0x0001', name: 'heartbeat_interval', value: 30 }];
    expect(commandSummary(row({ result: { params } }), zh)).toBe('返回 1 个参数');
    expect(commandSummary(row({ result: { params } }), en)).toBe('1 parameter(s) returned');
    const attributes = { hardwareVersion: 'HW1.2', firmwareVersion: 'FW3.4' };
    expect(commandSummary(row({ result: { attributes } }), zh)).toBe('硬件 HW1.2 · 固件 FW3.4');
    expect(commandSummary(row({ result: { lat: 31.2304, lon: 121.4737 } }), en)).toBe('Position 31.23040, 121.47370');
    expect(commandSummary(row({ result: { reply: 0 } }), zh)).toBe('终端已确认');
    expect(commandSummary(row({ result: { upgradeType: 0, outcome: 'success' } }), zh)).toBe('升级成功');
    expect(commandSummary(row({ result: { data: { ok: true } } }), zh)).toBe('{"data":{"ok":true}}');
    expect(commandSummary(row({ result: { data: 'x'.repeat(200) } }), zh)).toHaveLength(80);
    expect(commandSummary(row({ result: null }), zh)).toBe('');
  });

  it('says why a command failed, in the user language when the reason is a known one', () => {
    expect(commandSummary(row({ status: 'timeout', error: 'no reply after 3 attempts' }), zh)).toBe('发送 3 次均无应答');
    expect(commandSummary(row({ status: 'failed', error: 'terminal does not support the command', result: { reply: 3 } }), en)).toBe(
      'The terminal does not support this command',
    );
    expect(commandSummary(row({ status: 'failed', error: 'expired' }), zh)).toBe('已过期,未发出');
    expect(errorText('cannot be sent: boom', en)).toBe('Cannot be sent: boom');
    expect(errorText('something new', zh)).toBe('something new');
  });

  it('says what a pending or sent command waits for, and nothing for a cancelled one', () => {
    expect(commandSummary(row({ status: 'pending' }), zh)).toBe('排队中,终端在线后发送');
    expect(commandSummary(row({ status: 'sent', attempts: 1 }), en)).toBe("Sent; waiting for the terminal's answer");
    expect(commandSummary(row({ status: 'cancelled', error: 'cancelled' }), zh)).toBe('');
  });

  it('picks the pending commands of a selection for cancelling', () => {
    const rows: Row[] = [
      { id: '1', status: 'pending' },
      { id: '2', status: 'sent' },
      { id: '3', status: 'pending' },
      { id: '4', status: 'acknowledged' },
    ];
    expect(pendingIds(rows)).toEqual(['1', '3']);
    expect(pendingIds([])).toEqual([]);
  });

  it('indents payload and result JSON', () => {
    expect(prettyJson({ text: 'slow down', tts: true })).toBe('{\n  "text": "slow down",\n  "tts": true\n}');
    const params = [
      { id: '0x0001', name: 'heartbeat_interval', value: 30 },
      { id: '0x0013', name: 'main_server', value: '127.0.0.1' },
    ];
    expect(prettyJson({ params })).toBe(
      [
        '{',
        '  "params": [',
        '    {"id": "0x0001", "name": "heartbeat_interval", "value": 30},',
        '    {"id": "0x0013", "name": "main_server", "value": "127.0.0.1"}',
        '  ]',
        '}',
      ].join('\n'),
    );
    // what prints is JSON, whatever the layout
    const nested = { area: { id: 5, vertices: [[121.4, 31.2], [121.5, 31.3]], rules: { speedLimit: 8 } }, ids: [], empty: {} };
    expect(JSON.parse(prettyJson(nested))).toEqual(nested);
    expect(JSON.parse(prettyJson({ long: 'x'.repeat(120), n: [1, 2] }))).toEqual({ long: 'x'.repeat(120), n: [1, 2] });
    expect(prettyJson({})).toBe('{}');
    expect(prettyJson(null)).toBe('');
    expect(prettyJson('raw')).toBe('raw');
  });
});

describe('the command log page', () => {
  it('is read-only: no add, edit or delete whatever the buttons, while the other pages keep theirs', () => {
    expect(availableActions(commandLog)).toEqual({ add: false, edit: false, delete: false });
    expect(availableActions(vehicle)).toEqual({ add: true, edit: true, delete: true });
    expect(availableActions(fence)).toEqual({ add: true, edit: true, delete: true });
    expect(availableActions({ api: { list: '/l', detail: '/d', submit: '/s' } })).toEqual({ add: true, edit: true, delete: false });
  });

  it('filters by what the list API supports', () => {
    const search = searchFields(commandLog.columns);
    // the first three show before "expand": vehicle, status, command
    expect(search.map((c) => c.prop)).toEqual(['carNo', 'status', 'name', 'createTime', 'deviceNumber']);
    const params = buildSearchParams(
      { carNo: ' FL-001 ', name: 'queryParams', status: 'acknowledged', deviceNumber: '0139' },
      search,
    );
    expect(params).toEqual({ carNo_like: 'FL-001', name_equal: 'queryParams', status_equal: 'acknowledged', deviceNumber_like: '0139' });
    expect(search[3].searchRange).toBe(true);
    // other pages keep the order of their columns
    expect(searchFields(vehicle.columns).map((c) => c.prop)).toEqual(vehicle.columns.filter((c) => c.search).map((c) => c.prop));
  });

  it('exports the translated command and status, and the platform as the sender of its own commands', () => {
    const t = i18n.getFixedT('zh');
    const column = (prop: string) => commandLog.columns.find((c) => c.prop === prop)!;
    const lookups = {
      name: new Map(column('name').options!.map((o) => [String(o.value), t(o.label)])),
      status: new Map(column('status').options!.map((o) => [String(o.value), t(o.label)])),
    };
    const row: Row = { id: '9', name: 'query_attributes', status: 'acknowledged', createUser: null, createUserName: '' };
    expect(displayText(column('name'), row, lookups, t)).toBe('查询终端属性');
    expect(displayText(column('status'), row, lookups, t)).toBe('已应答');
    expect(displayText(column('createUserName'), row, lookups, t)).toBe('平台自动');
    expect(displayText(column('createUserName'), { ...row, createUser: '1', createUserName: '管理员' }, lookups, t)).toBe('管理员');
  });
});
