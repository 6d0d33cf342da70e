import { defineResource } from '../types';

export default defineResource({
  code: 'dept',
  title: 'resource.dept',
  api: {
    list: '/api/blade-system/dept/list',
    detail: '/api/blade-system/dept/detail',
    submit: '/api/blade-system/dept/submit',
    remove: '/api/blade-system/dept/remove',
  },
  paged: false,
  tree: true,
  columns: [
    { prop: 'deptName', label: 'dept.deptName', search: true, required: true },
    { prop: 'fullName', label: 'dept.fullName', search: true, required: true },
    { prop: 'deptCategory', label: 'dept.deptCategory', type: 'dict', dictCode: 'org_category', valueType: 'number', width: 100 },
    { prop: 'sort', label: 'common.sort', type: 'number', required: true, min: 0, width: 80, defaultValue: 1 },
    { prop: 'parentId', label: 'dept.parentId', type: 'tree', treeUrl: '/api/blade-system/dept/tree', displayProp: 'parentName', hideInTable: true },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
  ],
});
