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

/** Whether a Chinese name matches a query in pinyin (``pinyin-pro``'s ``match``: initials "sskz", syllables
 * "shishi", or mixed), loaded with the search. */
export type PinyinMatch = (name: string, query: string) => boolean;

/**
 * Leaf menus whose label (in the user's language) or seeded name holds the query anywhere, case-insensitively,
 * those starting with it first ("监控" finds 实时监控, "报表" 车辆效率报表); with ``pinyin``, also those whose
 * Chinese name the query spells in pinyin ("sskz", "cljl"). An empty query finds none.
 */
export function searchMenus(leaves: MenuVO[], query: string, labelOf: (m: MenuVO) => string, pinyin?: PinyinMatch): MenuVO[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const rank = (m: MenuVO): number => {
    const names = [labelOf(m).toLowerCase(), m.name.toLowerCase()];
    if (names.some((n) => n.startsWith(q))) return 0;
    if (names.some((n) => n.includes(q))) return 1;
    return pinyin && /^[a-z\s]+$/.test(q) && pinyin(m.name, q) ? 2 : 3;
  };
  return leaves
    .map((m) => ({ m, r: rank(m) }))
    .filter((x) => x.r < 3)
    .sort((a, b) => a.r - b.r)
    .map((x) => x.m);
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
