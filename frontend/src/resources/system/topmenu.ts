import { get, post } from '../../api/request';
import type { GrantKeys, GrantTree } from '../../api/types';
import { grantAction } from '../../components/grant';
import { defineResource } from '../types';

const MenuSetting = grantAction({
  label: 'topmenu.setting',
  permission: 'topmenu_edit',
  multiple: false,
  sections: [{ key: 'menu', label: 'role.menuPermission' }],
  loadTrees: async () => ({ menu: (await get<GrantTree>('/api/blade-system/menu/grant-top-tree'))?.menu }),
  loadKeys: async (ids) => ({
    menu: (await get<GrantKeys>('/api/blade-system/menu/top-tree-keys', { topMenuIds: ids.join(',') }))?.menu,
  }),
  save: (ids, checked) => post('/api/blade-system/topmenu/grant', { topMenuIds: ids, menuIds: checked.menu ?? [] }),
});

export default defineResource({
  code: 'topmenu',
  title: 'resource.topmenu',
  api: {
    list: '/api/blade-system/topmenu/list',
    detail: '/api/blade-system/topmenu/detail',
    submit: '/api/blade-system/topmenu/submit',
    remove: '/api/blade-system/topmenu/remove',
  },
  paged: true,
  columns: [
    { prop: 'code', label: 'topmenu.code', search: true, required: true },
    { prop: 'name', label: 'topmenu.name', search: true, required: true },
    { prop: 'source', label: 'topmenu.source' },
    { prop: 'sort', label: 'common.sort', type: 'number', required: true, min: 0, width: 80, defaultValue: 1 },
  ],
  toolbarExtras: [MenuSetting],
});
