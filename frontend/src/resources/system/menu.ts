import { defineResource } from '../types';

export default defineResource({
  code: 'menu',
  title: 'resource.menu',
  api: {
    list: '/api/blade-system/menu/list',
    detail: '/api/blade-system/menu/detail',
    submit: '/api/blade-system/menu/submit',
    remove: '/api/blade-system/menu/remove',
  },
  paged: false,
  tree: true,
  columns: [
    { prop: 'name', label: 'menuField.name', search: true, required: true, width: 200 },
    { prop: 'code', label: 'menuField.code', search: true, required: true, width: 160 },
    { prop: 'alias', label: 'menuField.alias', required: true, width: 120 },
    { prop: 'path', label: 'menuField.path', required: true, width: 200 },
    { prop: 'source', label: 'menuField.source', width: 120, hideInTable: true },
    { prop: 'sort', label: 'common.sort', type: 'number', required: true, min: 0, width: 70, defaultValue: 1 },
    { prop: 'category', label: 'menuField.category', type: 'dict', dictCode: 'menu_category', valueType: 'number', required: true, width: 90, defaultValue: '1' },
    { prop: 'action', label: 'menuField.action', type: 'dict', dictCode: 'button_func', valueType: 'number', width: 110, hideInTable: true },
    { prop: 'isOpen', label: 'menuField.isOpen', type: 'dict', dictCode: 'yes_no', valueType: 'number', width: 100, defaultValue: '1', hideInTable: true },
    { prop: 'parentId', label: 'menuField.parentId', type: 'tree', treeUrl: '/api/blade-system/menu/tree', displayProp: 'parentName', hideInTable: true },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
  ],
});
