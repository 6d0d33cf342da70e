import { memo, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { Menu, type MenuProps } from 'antd';
import { useTranslation } from 'react-i18next';
import type { MenuVO } from '../api/types';
import { ancestorKeys, menuLabel, openMenu } from './menuUtil';
import { menuIcon } from './menuIcons';

type Item = Required<MenuProps>['items'][number];

/** Rendered again only when its props change (the shell renders as tabs and queries change). */
export const SideMenu = memo(function SideMenu({ menus, dark, collapsed }: { menus: MenuVO[]; dark: boolean; collapsed: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();

  const { items, byKey } = useMemo(() => {
    const byKey = new Map<string, MenuVO>();
    const build = (nodes: MenuVO[], depth: number): Item[] =>
      nodes.map((node) => {
        const hasChildren = !!node.children && node.children.length > 0;
        const key = hasChildren ? `group:${node.id}` : node.path;
        byKey.set(key, node);
        const label = menuLabel(t, node);
        const icon = menuIcon(node.code, node.source, depth === 0);
        return hasChildren
          ? { key, label, icon, children: build(node.children!, depth + 1) }
          : { key, label, icon, title: label };
      });
    return { items: build(menus, 0), byKey };
  }, [menus, t]);

  // The groups above the current page open whenever the page (or the menu) changes.
  const ancestorsOf = () => ancestorKeys(menus, pathname).map((id) => `group:${id}`);
  const [openKeys, setOpenKeys] = useState<string[]>(ancestorsOf);
  const [openedFor, setOpenedFor] = useState({ pathname, menus });
  if (openedFor.pathname !== pathname || openedFor.menus !== menus) {
    setOpenedFor({ pathname, menus });
    setOpenKeys((prev) => Array.from(new Set([...prev, ...ancestorsOf()])));
  }

  return (
    <Menu
      className="side-menu"
      mode="inline"
      theme={dark ? 'dark' : 'light'}
      items={items}
      selectedKeys={[pathname]}
      openKeys={collapsed ? undefined : openKeys}
      onOpenChange={(keys) => setOpenKeys(keys)}
      onClick={({ key }) => {
        const menu = byKey.get(key);
        if (menu) openMenu(menu, (to) => void navigate(to));
      }}
    />
  );
});
