import { recordVisit } from '../api/menu';
import type { TFunction } from 'i18next';
import type { MenuVO } from '../api/types';

/** Display name of a menu: a translation keyed by its code, else the server's name. */
export function menuLabel(t: TFunction, menu: Pick<MenuVO, 'code' | 'name'>): string {
  if (!menu.code) return menu.name;
  return t(`menu.${menu.code}`, { defaultValue: menu.name });
}

/** Drops items whose meta lists roles none of which the user has (items without a list show to everyone). */
export function filterByRoles(tree: MenuVO[], roles: string[]): MenuVO[] {
  const out: MenuVO[] = [];
  for (const item of tree) {
    const allowed = item.meta?.roles;
    if (allowed && allowed.length && !allowed.some((r) => roles.includes(r))) continue;
    if (item.children && item.children.length) {
      const children = filterByRoles(item.children, roles);
      // a group whose entries are all hidden is hidden too (it must not turn into a leaf)
      if (children.length) out.push({ ...item, children });
      continue;
    }
    out.push(item);
  }
  return out;
}

export function isExternal(path: string): boolean {
  return /^https?:\/\//i.test(path) || /\.html?($|\?)/i.test(path);
}

/** Every menu without children, depth first, in menu order. */
export function leafMenus(tree: MenuVO[]): MenuVO[] {
  const out: MenuVO[] = [];
  const walk = (nodes: MenuVO[]) => {
    for (const node of nodes) {
      if (node.children && node.children.length) walk(node.children);
      else out.push(node);
    }
  };
  walk(tree);
  return out;
}

/** Leaf menus whose name starts with the query, case-insensitively (empty query → none). */
export function searchMenus(leaves: MenuVO[], query: string, labelOf: (m: MenuVO) => string): MenuVO[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  return leaves.filter((m) => labelOf(m).toLowerCase().startsWith(q) || m.name.toLowerCase().startsWith(q));
}

export function findMenuByPath(tree: MenuVO[], path: string): MenuVO | undefined {
  for (const node of tree) {
    if (node.path === path) return node;
    if (node.children) {
      const hit = findMenuByPath(node.children, path);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** Ids of the ancestors of the menu with that path (for opening the sidebar on it). */
export function ancestorKeys(tree: MenuVO[], path: string): string[] {
  const walk = (nodes: MenuVO[], trail: string[]): string[] | null => {
    for (const node of nodes) {
      if (node.path === path) return trail;
      if (node.children) {
        const hit = walk(node.children, [...trail, node.id]);
        if (hit) return hit;
      }
    }
    return null;
  };
  return walk(tree, []) ?? [];
}

/** The in-app route that embeds an external menu page (spec §2: `/myiframe/{routerPath}`). */
export function iframeRoute(path: string): string {
  return `/myiframe/${encodeURIComponent(path)}`;
}

/** The page an iframe route embeds (the inverse of `iframeRoute`), or undefined for another route. */
export function iframeTarget(pathname: string): string | undefined {
  const prefix = '/myiframe/';
  if (!pathname.startsWith(prefix) || pathname.length === prefix.length) return undefined;
  try {
    return decodeURIComponent(pathname.slice(prefix.length));
  } catch {
    return undefined; // a malformed escape: no page
  }
}

/**
 * Opens a menu and records the visit: "new window" menus (isOpen 2) in a new window, external pages (http… or
 * …html) through the iframe route, the others as a route.
 */
export function openMenu(menu: MenuVO, navigate: (to: string) => void): void {
  void recordVisit(menu.id).catch(() => undefined);
  if (menu.isOpen === 2) {
    window.open(menu.path, '_blank', 'noopener');
    return;
  }
  navigate(isExternal(menu.path) ? iframeRoute(menu.path) : menu.path);
}
