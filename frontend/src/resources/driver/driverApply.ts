import { createElement } from 'react';
import { Tag } from 'antd';
import { operation } from '../../api/manifest';
import { AuditButton } from '../../components/driver/AuditButton';
import { defineResource } from '../types';
import { phoneRules } from './driver';

export { DRIVER_APPLY_PATH } from './paths';

export const applyStatusOptions = [
  { value: 0, label: 'driverApply.pending' },
  { value: 1, label: 'driverApply.approved' },
  { value: 2, label: 'driverApply.rejected' },
];
const COLORS = ['processing', 'success', 'error'];

/** Driver applications (spec 001 §4): pending, approved or rejected, audited in batches with a note. */
export default defineResource({
  code: 'driver_apply',
  resource: 'driver_apply',
  title: 'resource.driverApply',
  toolbarExtras: [(props) => createElement(AuditButton, props)],
  columns: [
    { prop: 'name', label: 'driverApply.name', search: true, searchParam: 'name_like', width: 110 },
    { prop: 'phone', label: 'driverApply.phone', search: true, searchParam: 'phone_like', required: true, rules: phoneRules, width: 130 },
    { prop: 'jobNumber', label: 'driverApply.jobNumber', width: 100 },
    { prop: 'mechanismId', label: 'driverApply.mechanism', type: 'tree', treeUrl: operation('dept', 'tree'), displayProp: 'mechanismName', width: 150 },
    { prop: 'licenseNumber', label: 'driverApply.licenseNumber', width: 130 },
    {
      prop: 'applyStatus',
      label: 'driverApply.applyStatus',
      type: 'select',
      options: applyStatusOptions,
      search: true,
      hideInForm: true,
      width: 100,
      format: (value, _row, t) => {
        const n = Number(value);
        return createElement(Tag, { color: COLORS[n] ?? 'default' }, t(applyStatusOptions[n]?.label ?? '-'));
      },
    },
    { prop: 'auditNote', label: 'driverApply.auditNote', hideInForm: true, hideInSearch: true, width: 160, ellipsis: true },
    { prop: 'auditTime', label: 'driverApply.auditTime', type: 'datetime', hideInForm: true, hideInSearch: true, width: 170 },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, hideInSearch: true, width: 170 },
  ],
});
