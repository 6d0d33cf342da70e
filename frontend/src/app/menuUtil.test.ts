import { describe, expect, it } from 'vitest';
import type { MenuVO } from '../api/types';
import { flattenButtons } from '../api/menu';
import { match } from 'pinyin-pro';
import { ancestorKeys, filterByRoles, findMenuByPath, leafMenus, searchMenus } from './menuUtil';

const m = (id: string, name: string, path: string, children?: MenuVO[], roles?: string[]): MenuVO => ({
  id,
  parentId: '0',
  code: id,
  name,
  path,
  children,
  meta: roles ? { roles } : undefined,
});

const tree: MenuVO[] = [
  m('system', '系统管理', '/system', [m('param', '参数管理', '/system/param'), m('user', 'User admin', '/system/user')]),
  m('authority', '权限管理', '/authority', [m('role', 'Roles', '/authority/role', undefined, ['administrator'])]),
  m('desk', 'Desk', '/desk/index'),
];

const live: MenuVO[] = [
  m('fleet', '车辆管理', '/fleet', [m('monitor', '实时监控', '/fleet/monitor'), m('report', '车辆效率报表', '/report/efficiency')]),
  m('system', '系统管理', '/system', [m('param', '参数管理', '/system/param')]),
  m('desk', 'Desk', '/desk/index'),
];

describe('menus', () => {
  it('lists leaves in order', () => {
    expect(leafMenus(tree).map((x) => x.id)).toEqual(['param', 'user', 'role', 'desk']);
  });

  it('searches leaf names anywhere, case-insensitively, those starting with the query first', () => {
    const label = (x: MenuVO) => x.name;
    expect(searchMenus(leafMenus(tree), 'user', label).map((x) => x.id)).toEqual(['user']);
    expect(searchMenus(leafMenus(tree), 'USE', label).map((x) => x.id)).toEqual(['user']);
    expect(searchMenus(leafMenus(tree), 'admin', label).map((x) => x.id)).toEqual(['user']); // inside the name
    expect(searchMenus(leafMenus(tree), '参数', label).map((x) => x.id)).toEqual(['param']);
    expect(searchMenus(leafMenus(tree), '管理', label).map((x) => x.id)).toEqual(['param']); // 参数管理
    expect(searchMenus(leafMenus(tree), 'e', label).map((x) => x.id)).toEqual(['user', 'role', 'desk']);
    expect(searchMenus(leafMenus(live), 'sk', label).map((x) => x.id)).toEqual(['desk']); // Desk before nothing
    expect(searchMenus(leafMenus(tree), '系统', label)).toEqual([]); // groups are not leaves
    expect(searchMenus(leafMenus(tree), '  ', label)).toEqual([]);
  });

  it('finds Chinese names by their pinyin, initials or syllables, after the names that hold the query', () => {
    const label = (x: MenuVO) => x.name;
    const pinyin = (name: string, q: string) => match(name, q, { precision: 'start', continuous: true }) !== null;
    expect(searchMenus(leafMenus(live), 'ssjk', label, pinyin).map((x) => x.id)).toEqual(['monitor']);
    expect(searchMenus(leafMenus(live), 'shishi', label, pinyin).map((x) => x.id)).toEqual(['monitor']);
    expect(searchMenus(leafMenus(live), 'bb', label, pinyin).map((x) => x.id)).toEqual(['report']); // 报表
    expect(searchMenus(leafMenus(live), 'gl', label, pinyin).map((x) => x.id)).toEqual(['param']); // 参数管理
    expect(searchMenus(leafMenus(live), 'zz', label, pinyin)).toEqual([]);
    expect(searchMenus(leafMenus(live), 'ssjk', label)).toEqual([]); // without the matcher: names only
  });

  it('hides items whose roles exclude the user', () => {
    expect(leafMenus(filterByRoles(tree, ['user'])).map((x) => x.id)).toEqual(['param', 'user', 'desk']);
    expect(leafMenus(filterByRoles(tree, ['administrator'])).map((x) => x.id)).toContain('role');
  });

  it('finds a menu and its ancestors by path', () => {
    expect(findMenuByPath(tree, '/system/user')?.id).toBe('user');
    expect(ancestorKeys(tree, '/authority/role')).toEqual(['authority']);
    expect(findMenuByPath(tree, '/nope')).toBeUndefined();
  });

  it('flattens button leaves into permission codes', () => {
    const codes = flattenButtons([
      { code: 'param', children: [{ code: 'param_add' }, { code: 'param_edit' }] },
      { code: 'user', children: [{ code: 'user_delete' }] },
    ]);
    expect([...codes].sort()).toEqual(['param_add', 'param_edit', 'user_delete']);
  });
});
