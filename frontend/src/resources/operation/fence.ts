import { createElement, lazy } from 'react';
import { Tag } from 'antd';
import { ALARM_MODES, FENCE_CIRCLE, FENCE_POLYGON } from '../../components/fence/fence';
import { operation } from '../../api/manifest';
import { defineResource } from '../types';

export const FENCE_LIST_PATH = '/operation/fence';
export const FENCE_EDITOR_PATH = '/adds/addOperating';

// the bind / unbind page of a fence's vehicles, loaded when first opened
const FenceVehicles = lazy(() => import('../../components/fence/FenceVehicles'));

export const fenceTypeOptions = [
  { value: FENCE_CIRCLE, label: 'fence.type.circle' },
  { value: FENCE_POLYGON, label: 'fence.type.polygon' },
];
export const alarmModeOptions = ALARM_MODES.map((mode) => ({ value: mode, label: `fence.alarmMode.m${mode}` }));
export const enableOptions = [
  { value: 1, label: 'fence.enabled' },
  { value: 0, label: 'fence.disabled' },
];

/**
 * Electronic fences (spec 001 §2 /adds/addOperating, §3 Fence, §9 alarm modes): drawn on a map in their own page.
 * Calls (the page is a POST), types and limits come from the server's `fence` resource.
 */
export default defineResource({
  code: 'fence',
  resource: 'fence',
  title: 'resource.fence',
  editRoute: FENCE_EDITOR_PATH,
  rowActions: [{ key: 'bindVehicles', label: 'fence.bindVehicles', permission: 'view', open: FenceVehicles }],
  columns: [
    { prop: 'name', label: 'fence.name', search: true, searchParam: 'name_like', width: 180 },
    { prop: 'fenceType', label: 'fence.fenceType', type: 'select', options: fenceTypeOptions, width: 90 },
    {
      prop: 'alarmMode',
      label: 'fence.alarmModeLabel',
      type: 'select',
      options: alarmModeOptions,
      search: true,
      width: 150,
    },
    {
      prop: 'enableStatus',
      label: 'fence.enableStatus',
      type: 'select',
      options: enableOptions,
      search: true,
      width: 100,
      format: (value, _row, t) => {
        const on = Number(value) === 1;
        return createElement(Tag, { color: on ? 'success' : 'default' }, t(on ? 'fence.enabled' : 'fence.disabled'));
      },
    },
    {
      prop: 'speedLimit',
      label: 'fence.speedLimit',
      width: 110,
      format: (value) => (value === null || value === undefined || value === '' ? '-' : `${String(value)} km/h`),
    },
    // counted by the list, not saved
    { prop: 'carCount', label: 'fence.carCount', type: 'number', hideInForm: true, width: 100 },
    {
      prop: 'mechanismId',
      label: 'fence.mechanism',
      type: 'tree',
      treeUrl: operation('dept', 'tree'),
      displayProp: 'mechanismName',
      width: 160,
    },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, width: 170 },
  ],
});
