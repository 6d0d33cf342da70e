import { operation } from '../../api/manifest';
import { defineResource } from '../types';

export default defineResource({
  code: 'dept',
  resource: 'dept',
  title: 'resource.dept',
  columns: [
    { prop: 'deptName', label: 'dept.deptName', search: true },
    // the server takes a department without a full name; the form asks for it
    { prop: 'fullName', label: 'dept.fullName', search: true, required: true },
    { prop: 'deptCategory', label: 'dept.deptCategory', width: 100 },
    { prop: 'sort', label: 'common.sort', width: 80, defaultValue: 1 },
    { prop: 'parentId', label: 'dept.parentId', type: 'tree', treeUrl: operation('dept', 'tree'), displayProp: 'parentName', hideInTable: true },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
  ],
});
