import { defineResource } from '../types';

export default defineResource({
  code: 'param',
  resource: 'param',
  title: 'resource.param',
  columns: [
    { prop: 'paramName', label: 'param.paramName', search: true },
    { prop: 'paramKey', label: 'param.paramKey', search: true },
    { prop: 'paramValue', label: 'param.paramValue', search: true, wide: true },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: false },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', search: true, searchRange: true, hideInForm: true, width: 170 },
  ],
});
