import { createElement, lazy } from 'react';
import { Tag, Typography } from 'antd';
import { daysTone } from '../../components/paper/paper';
import { defineResource } from '../types';

export const REMINDER_PATH = '/driver/reminder';

const IgnoreReminder = lazy(() => import('../../components/paper/IgnoreReminder'));
const PaperViewDialog = lazy(() => import('../../components/paper/PaperViewDialog'));

export const sourceOptions = [
  { value: 1, label: 'reminder.source.s1' },
  { value: 2, label: 'reminder.source.s2' },
];
export const typeOptions = [
  { value: 1, label: 'reminder.type.t1' },
  { value: 2, label: 'reminder.type.t2' },
];
export const stateOptions = [
  { value: 0, label: 'reminder.state.s0' },
  { value: 1, label: 'reminder.state.s1' },
  { value: 2, label: 'reminder.state.s2' },
];

/**
 * 到期提醒: the drivers' licences and papers expiring within 30 days or expired (written every day by the server's
 * job, fleet/reminders.py): type, driver, paper, expiry day, days left, state; ignore one, open its paper.
 */
export default defineResource({
  code: 'driver_reminder',
  resource: 'driver_reminder',
  title: 'resource.driverReminder',
  rowActions: [
    { key: 'ignore', label: 'reminder.ignore', permission: 'ignore', open: IgnoreReminder, when: (row) => Number(row.remindState) === 0 },
    { key: 'paper', label: 'reminder.openPaper', permission: 'view', open: PaperViewDialog, when: (row) => !!row.paperId },
  ],
  columns: [
    {
      prop: 'remindType',
      label: 'reminder.typeLabel',
      type: 'select',
      options: typeOptions,
      search: true,
      searchParam: 'remindType_equal',
      searchOrder: 3,
      width: 100,
      format: (value, _row, t) => createElement(Tag, { color: Number(value) === 2 ? 'error' : 'warning' }, t(`reminder.type.t${Number(value ?? 1)}`)),
    },
    {
      prop: 'source',
      label: 'reminder.sourceLabel',
      type: 'select',
      options: sourceOptions,
      search: true,
      searchParam: 'source_equal',
      searchOrder: 4,
      width: 100,
      format: (value, _row, t) => t(`reminder.source.s${Number(value ?? 1)}`),
    },
    { prop: 'driverName', label: 'paper.driver', search: true, searchParam: 'driverName', searchOrder: 1, width: 110 },
    {
      prop: 'paperNumber',
      label: 'reminder.paper',
      search: true,
      searchParam: 'paperNumber',
      searchOrder: 5,
      width: 160,
      format: (value, row, t) => (row.paperId ? String(value ?? '-') : `${t('reminder.licence')} ${String(row.licenseNumber ?? '')}`.trim()),
    },
    { prop: 'expireDate', label: 'reminder.expireDate', type: 'date', width: 110, format: (value) => (value ? String(value).slice(0, 10) : '-') },
    {
      prop: 'daysLeft',
      label: 'reminder.daysLeft',
      type: 'number',
      width: 100,
      format: (value, _row, t) => {
        const tone = daysTone(value);
        const text = Number(value) < 0 ? t('reminder.overdue', { days: -Number(value) }) : t('reminder.days', { days: Number(value) });
        return createElement(Typography.Text, { type: tone === 'error' ? 'danger' : tone === 'warning' ? 'warning' : undefined }, text);
      },
    },
    {
      prop: 'remindState',
      label: 'reminder.stateLabel',
      type: 'select',
      options: stateOptions,
      search: true,
      searchParam: 'remindState_equal',
      searchOrder: 2,
      width: 90,
      format: (value, _row, t) =>
        createElement(Tag, { color: Number(value) === 0 ? 'processing' : 'default' }, t(`reminder.state.s${Number(value ?? 0)}`)),
    },
    { prop: 'mechanismName', label: 'paper.mechanism', width: 130 },
    { prop: 'threshold', label: 'reminder.threshold', type: 'number', hideInTable: true },
    { prop: 'ignoreTime', label: 'reminder.ignoreTime', type: 'datetime', hideInTable: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', width: 170 },
  ],
});
