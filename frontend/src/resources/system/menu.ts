import { operation } from '../../api/manifest';
import { defineResource } from '../types';

export default defineResource({
  code: 'menu',
  resource: 'menu',
  title: 'resource.menu',
  columns: [
    { prop: 'name', label: 'menuField.name', search: true, width: 200 },
    { prop: 'code', label: 'menuField.code', search: true, width: 160 },
    { prop: 'alias', label: 'menuField.alias', width: 120 },
    // the server takes a menu without a path (a button); the form asks for it
    { prop: 'path', label: 'menuField.path', required: true, width: 200 },
    { prop: 'source', label: 'menuField.source', width: 120, hideInTable: true },
    { prop: 'sort', label: 'common.sort', width: 70, defaultValue: 1 },
    { prop: 'category', label: 'menuField.category', width: 90 },
    { prop: 'action', label: 'menuField.action', width: 110, hideInTable: true },
    { prop: 'isOpen', label: 'menuField.isOpen', width: 100, hideInTable: true },
    { prop: 'parentId', label: 'menuField.parentId', type: 'tree', treeUrl: operation('menu', 'tree'), displayProp: 'parentName', hideInTable: true },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
  ],
});
