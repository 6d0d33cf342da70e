import { get, post } from '../../api/request';
import type { GrantKeys, GrantTree } from '../../api/types';
import { grantAction } from '../../components/grant';
import { defineResource } from '../types';

const RoleGrant = grantAction({
  label: 'role.grant',
  permission: 'role_edit',
  multiple: true,
  sections: [
    { key: 'menu', label: 'role.menuPermission' },
    { key: 'dataScope', label: 'role.dataPermission' },
    { key: 'apiScope', label: 'role.apiPermission' },
  ],
  loadTrees: async () => {
    const data = await get<GrantTree>('/api/blade-system/menu/grant-tree');
    return { menu: data?.menu, dataScope: data?.dataScope, apiScope: data?.apiScope };
  },
  loadKeys: async (ids) => {
    const data = await get<GrantKeys>('/api/blade-system/menu/role-tree-keys', { roleIds: ids.join(',') });
    return { menu: data?.menu, dataScope: data?.dataScope, apiScope: data?.apiScope };
  },
  save: (ids, checked) =>
    post('/api/blade-system/role/grant', {
      roleIds: ids,
      menuIds: checked.menu ?? [],
      dataScopeIds: checked.dataScope ?? [],
      apiScopeIds: checked.apiScope ?? [],
    }),
});

export default defineResource({
  code: 'role',
  title: 'resource.role',
  api: {
    list: '/api/blade-system/role/list',
    detail: '/api/blade-system/role/detail',
    submit: '/api/blade-system/role/submit',
    remove: '/api/blade-system/role/remove',
  },
  paged: false,
  tree: true,
  columns: [
    { prop: 'roleName', label: 'role.roleName', search: true, required: true },
    { prop: 'roleAlias', label: 'role.roleAlias', search: true, required: true },
    { prop: 'sort', label: 'common.sort', type: 'number', required: true, min: 0, width: 80, defaultValue: 1 },
    { prop: 'parentId', label: 'role.parentId', type: 'tree', treeUrl: '/api/blade-system/role/tree', displayProp: 'parentName', hideInTable: true },
  ],
  toolbarExtras: [RoleGrant],
});
