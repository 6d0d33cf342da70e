import { apiGet, apiPost } from '../../api/client';
import { operation } from '../../api/manifest';
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
    const data = await apiGet('/api/blade-system/menu/grant-tree');
    return { menu: data?.menu, dataScope: data?.dataScope, apiScope: data?.apiScope };
  },
  loadKeys: async (ids) => {
    const data = await apiGet('/api/blade-system/menu/role-tree-keys', { roleIds: ids.join(',') });
    return { menu: data?.menu, dataScope: data?.dataScope, apiScope: data?.apiScope };
  },
  save: (ids, checked) =>
    apiPost('/api/blade-system/role/grant', {
      roleIds: ids,
      menuIds: checked.menu ?? [],
      dataScopeIds: checked.dataScope ?? [],
      apiScopeIds: checked.apiScope ?? [],
    }),
});

export default defineResource({
  code: 'role',
  resource: 'role',
  title: 'resource.role',
  columns: [
    { prop: 'roleName', label: 'role.roleName', search: true },
    { prop: 'roleAlias', label: 'role.roleAlias', search: true },
    { prop: 'sort', label: 'common.sort', width: 80, defaultValue: 1 },
    { prop: 'parentId', label: 'role.parentId', type: 'tree', treeUrl: operation('role', 'tree'), displayProp: 'parentName', hideInTable: true },
  ],
  toolbarExtras: [RoleGrant],
});
