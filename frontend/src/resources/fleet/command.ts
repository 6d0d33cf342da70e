import { createElement } from 'react';
import { Tag } from 'antd';
import { action } from '../../api/manifest';
import { CancelCommandsButton } from '../../components/command/CancelCommands';
import {
  STATUS_COLORS,
  commandLabel,
  commandSummary,
  errorText,
  isStatus,
  nameOptions,
  prettyJson,
  statusOptions,
} from '../../components/command/command';
import { defineResource, type ToolbarExtra } from '../types';

export const COMMAND_LOG_PATH = '/fleet/command';

const json = (value: unknown) => {
  const text = prettyJson(value);
  return text ? createElement('pre', { className: 'command-json' }, text) : '-';
};
const orDash = (value: unknown) => (value === null || value === undefined || value === '' ? '-' : String(value));

const CancelCommands: ToolbarExtra = (props) => createElement(CancelCommandsButton, props);

/**
 * The command log (车辆管理 → 指令记录): every command Liftdesk sent to the terminals, who sent it, how it went and
 * what the terminal answered (`/api/liftdesk/command`). Read-only: commands are created by the screens that send
 * them; pending ones can be cancelled.
 */
export default defineResource({
  code: 'command_log',
  resource: 'command',
  title: 'resource.command',
  // the list is the resource's page operation; the detail is an action of its own
  api: { detail: action('command', 'detail') },
  // room for a terminal parameter per line in the answer's JSON
  detailWidth: 760,
  columns: [
    // searched by vehicle, status and command first; the time range (and the device number) behind "expand"
    { prop: 'createTime', label: 'command.createTime', search: true, searchRange: true, searchOrder: 4, width: 170 },
    { prop: 'carNo', label: 'vehicle.carNo', search: true, searchParam: 'carNo_like', searchOrder: 1, width: 120, format: orDash },
    {
      prop: 'name',
      label: 'command.name',
      type: 'select',
      options: nameOptions,
      search: true,
      searchParam: 'name_equal',
      searchOrder: 3,
      width: 140,
      // a name without a label shows as it is
      format: (value, _row, t) => commandLabel(value, t) || '-',
    },
    {
      prop: 'status',
      label: 'command.statusLabel',
      type: 'select',
      options: statusOptions,
      search: true,
      searchParam: 'status_equal',
      searchOrder: 2,
      width: 90,
      format: (value, _row, t) =>
        isStatus(value) ? createElement(Tag, { color: STATUS_COLORS[value] }, t(`command.status.${value}`)) : orDash(value),
    },
    { prop: 'attempts', label: 'command.attempts', width: 90 },
    {
      prop: 'createUserName',
      label: 'command.sender',
      width: 100,
      // no sender: the platform sent it by itself (e.g. the terminal's attributes after it connected)
      format: (value, row, t) => (value ? String(value) : row.createUser ? '-' : t('command.platform')),
    },
    { prop: 'summary', label: 'command.summaryLabel', width: 240, ellipsis: true, format: (_value, row, t) => commandSummary(row, t) || '-' },
    { prop: 'id', label: 'command.id', hideInTable: true },
    { prop: 'deviceNumber', label: 'vehicle.deviceNumber', search: true, searchParam: 'deviceNumber_like', searchOrder: 5, hideInTable: true },
    {
      prop: 'msgId',
      label: 'command.msgId',
      hideInTable: true,
      format: (value) => (typeof value === 'number' ? `0x${value.toString(16).toUpperCase().padStart(4, '0')}` : orDash(value)),
    },
    { prop: 'sentTime', label: 'command.sentTime', hideInTable: true },
    { prop: 'doneTime', label: 'command.doneTime', hideInTable: true },
    { prop: 'expireTime', label: 'command.expireTime', hideInTable: true },
    { prop: 'error', label: 'command.error', hideInTable: true, format: (value, _row, t) => (value ? errorText(String(value), t) : '-') },
    { prop: 'payload', label: 'command.payload', hideInTable: true, format: json },
    { prop: 'result', label: 'command.result', hideInTable: true, format: json },
  ],
  toolbarExtras: [CancelCommands],
});
