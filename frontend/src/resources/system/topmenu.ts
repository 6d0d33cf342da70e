import { apiGet, apiPost } from '../../api/client';
import { grantAction } from '../../components/grant';
import { defineResource } from '../types';

const MenuSetting = grantAction({
  label: 'topmenu.setting',
  permission: 'topmenu_edit',
  multiple: false,
  sections: [{ key: 'menu', label: 'role.menuPermission' }],
  loadTrees: async () => ({ menu: (await apiGet('/api/blade-system/menu/grant-top-tree'))?.menu }),
  loadKeys: async (ids) => ({
    menu: (await apiGet('/api/blade-system/menu/top-tree-keys', { topMenuIds: ids.join(',') }))?.menu,
  }),
  save: (ids, checked) => apiPost('/api/blade-system/topmenu/grant', { topMenuIds: ids, menuIds: checked.menu ?? [] }),
});

export default defineResource({
  code: 'topmenu',
  resource: 'topmenu',
  title: 'resource.topmenu',
  columns: [
    { prop: 'code', label: 'topmenu.code', search: true },
    { prop: 'name', label: 'topmenu.name', search: true },
    { prop: 'source', label: 'topmenu.source' },
    { prop: 'sort', label: 'common.sort', width: 80, defaultValue: 1 },
  ],
  toolbarExtras: [MenuSetting],
});
