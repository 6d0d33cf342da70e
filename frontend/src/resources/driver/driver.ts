import { createElement, lazy } from 'react';
import { Tag } from 'antd';
import type { FormRule } from 'antd';
import { action, operation } from '../../api/manifest';
import { FullAddButton } from '../../components/driver/FullAddButton';
import { defineResource, type Row } from '../types';

export { DRIVER_LIST_PATH, PILOT_EDIT_PATH, PILOT_VIEW_PATH } from './paths';

const DriverVehicles = lazy(() => import('../../components/driver/DriverVehicles'));
const BlacklistDialog = lazy(() => import('../../components/driver/BlacklistDialog'));
const ResetPassword = lazy(() => import('../../components/driver/ResetPassword'));
const OpenPilotView = lazy(() => import('../../components/driver/OpenPilotPage'));
const OpenPilotEdit = lazy(() => import('../../components/driver/OpenPilotPage').then((m) => ({ default: m.OpenPilotEdit })));

/** The dictionaries the server serves in the caller's language (work types, card levels, verification modes). */
export const WORK_TYPES = { url: action('driver', 'dictionary_work_type'), labelKey: 'dictValue', valueKey: 'dictKey' };
export const CARD_LEVELS = { url: action('driver', 'dictionary_card_level'), labelKey: 'dictValue', valueKey: 'dictKey' };
export const VERIFY_MODES = { url: action('driver', 'dictionary_verification_mode'), labelKey: 'dictValue', valueKey: 'dictKey' };

export const sexOptions = [
  { value: 0, label: 'driver.sexUnknown' },
  { value: 1, label: 'driver.male' },
  { value: 2, label: 'driver.female' },
];

/**
 * The spec's phone rules (§5): empty (the required rule), not 11 digits and not a mobile number (a landline) each
 * have a message; one message at a time (a 10-digit number is "not 11 digits", not also "not a mobile number").
 */
export const phoneRules: FormRule[] = [
  { pattern: /^(?:(?!\d+$)[\s\S]*|\d{11})$/, message: 'driver.phoneLength' },
  { pattern: /^(?:\d{1,10}|\d{12,}|1[3-9]\d{9})$/, message: 'driver.phoneFormat' },
];

const tag = (on: boolean, yes: string, no: string, color = 'error') => (t: (k: string) => string) =>
  createElement(Tag, { color: on ? color : 'default' }, t(on ? yes : no));

/**
 * Drivers (spec 001 §3 Driver): the person and the licence are edited here; cards, face photo and app account on
 * the driver's own page (/add/pilot), which the row's "full edit" opens; /locks/lockPilot shows everything with the
 * vehicles authorized. Calls, types and limits come from the server's `driver` resource (both generations of the
 * spec's paths serve it); import and export too.
 */
export default defineResource({
  code: 'driver',
  resource: 'driver',
  title: 'resource.driver',
  toolbarExtras: [() => createElement(FullAddButton)],
  rowActions: [
    { key: 'openView', label: 'driver.openView', permission: 'view', open: OpenPilotView },
    { key: 'fullEdit', label: 'driver.fullEdit', permission: 'edit', open: OpenPilotEdit },
    { key: 'authorize', label: 'driver.authorize', permission: 'auth', open: DriverVehicles },
    { key: 'blacklist', label: 'driver.blacklist', permission: 'blacklist', open: BlacklistDialog, danger: true },
    {
      key: 'unbindOrg',
      label: 'driver.unbindOrg',
      permission: 'unbind',
      confirm: 'driver.unbindOrgConfirm',
      done: 'driver.unbindOrgDone',
      path: action('driver', 'unbind_organisation'),
      params: (row: Row) => ({ ids: String(row.id) }),
      when: (row: Row) => !!row.mechanismId,
      danger: true,
    },
    { key: 'resetPassword', label: 'driver.resetPassword', permission: 'edit', open: ResetPassword, when: (row: Row) => !!row.appAccount },
  ],
  columns: [
    { prop: 'name', label: 'driver.name', search: true, searchParam: 'name_like', width: 110 },
    { prop: 'phone', label: 'driver.phone', search: true, searchParam: 'phone_like', required: true, rules: phoneRules, width: 130 },
    { prop: 'sex', label: 'driver.sex', type: 'select', options: sexOptions, width: 70 },
    { prop: 'jobNumber', label: 'driver.jobNumber', width: 100 },
    { prop: 'workType', label: 'driver.workType', type: 'select', remote: WORK_TYPES, displayProp: 'workTypeName', width: 130 },
    {
      prop: 'mechanismId',
      label: 'driver.mechanism',
      type: 'tree',
      treeUrl: operation('dept', 'tree'),
      displayProp: 'mechanismName',
      search: true,
      searchParam: 'deptId',
      width: 150,
    },
    // searched among the driver's cards: number or serial
    { prop: 'cardNo', label: 'driver.cardNo', search: true, hideInTable: true, hideInForm: true, hideInDetail: true },
    {
      prop: 'mainCard',
      label: 'driver.mainCard',
      hideInForm: true,
      hideInSearch: true,
      width: 130,
      format: (value) => ((value as Row | null)?.cardNumber as string | undefined) ?? '-',
    },
    { prop: 'position', label: 'driver.position', hideInTable: true },
    { prop: 'age', label: 'driver.age', hideInTable: true },
    { prop: 'licenseNumber', label: 'driver.licenseNumber', hideInTable: true },
    { prop: 'licenseType', label: 'driver.licenseType', hideInTable: true },
    { prop: 'licenseIssueDate', label: 'driver.licenseIssueDate', type: 'date', hideInTable: true },
    { prop: 'licenseValidUntil', label: 'driver.licenseValidUntil', type: 'date', width: 120 },
    {
      prop: 'licenseState',
      label: 'driver.licenseState',
      hideInForm: true,
      hideInSearch: true,
      width: 90,
      format: (value, _row, t) => (value ? tag(value === 'expired', 'driver.licenseExpired', 'driver.licenseValid')(t) : '-'),
    },
    { prop: 'carCount', label: 'driver.carCount', type: 'number', hideInForm: true, hideInSearch: true, width: 100 },
    {
      prop: 'blacklisted',
      label: 'driver.blacklisted',
      type: 'select',
      options: [
        { value: 1, label: 'driver.onBlacklist' },
        { value: 0, label: 'driver.notOnBlacklist' },
      ],
      search: true,
      hideInForm: true,
      width: 90,
      format: (value, _row, t) => tag(Number(value) === 1, 'driver.onBlacklist', 'driver.notOnBlacklist')(t),
    },
    { prop: 'blacklistReason', label: 'driver.blacklistReason', hideInForm: true, hideInSearch: true, hideInTable: true },
    { prop: 'entryDate', label: 'driver.entryDate', type: 'date', hideInTable: true },
    { prop: 'medicalDate', label: 'driver.medicalDate', type: 'date', hideInTable: true },
    { prop: 'homeAddress', label: 'driver.homeAddress', hideInTable: true },
    { prop: 'hometown', label: 'driver.hometown', hideInTable: true },
    { prop: 'emergencyPhone', label: 'driver.emergencyPhone', hideInTable: true },
    { prop: 'appAccount', label: 'driver.appAccount', hideInTable: true, hideInForm: true },
    { prop: 'remark', label: 'driver.remark', type: 'textarea', hideInTable: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, hideInSearch: true, width: 170 },
  ],
});
