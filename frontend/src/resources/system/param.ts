import { defineResource } from '../types';

export default defineResource({
  code: 'param',
  title: 'resource.param',
  api: {
    list: '/api/blade-system/param/list',
    detail: '/api/blade-system/param/detail',
    submit: '/api/blade-system/param/submit',
    remove: '/api/blade-system/param/remove',
  },
  paged: true,
  columns: [
    { prop: 'paramName', label: 'param.paramName', search: true, required: true, maxLength: 255 },
    { prop: 'paramKey', label: 'param.paramKey', search: true, required: true, maxLength: 255 },
    { prop: 'paramValue', label: 'param.paramValue', search: true, required: true, wide: true },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: false, maxLength: 255 },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', search: true, searchRange: true, hideInForm: true, width: 170 },
  ],
});
