import { get, post } from './request';
import type { ButtonVO, IpOffset, MenuVO, TopMenu } from './types';

const MENU = '/api/blade-system/menu';

export function getRoutes(topMenuId?: string): Promise<MenuVO[]> {
  return get<MenuVO[]>(`${MENU}/routes`, { topMenuId: topMenuId || undefined });
}

export function getButtons(): Promise<ButtonVO[]> {
  return get<ButtonVO[]>(`${MENU}/buttons`);
}

export function getTopMenu(): Promise<TopMenu[]> {
  return get<TopMenu[]>(`${MENU}/top-menu`);
}

/** Records that the user opened a menu item (spec §2: "opening a menu item records a menu visit"). */
export function recordVisit(menuId: string): Promise<boolean> {
  return post<boolean>(`${MENU}/visit`, { menuId }, { silent: true });
}

export function getIpOffset(): Promise<IpOffset> {
  return get<IpOffset>('/api/blade-fics-report/fics/common/getIpOffset', undefined, { silent: true });
}

/** Flattens the buttons tree into the set of leaf codes (Saber's `permission`). */
export function flattenButtons(tree: ButtonVO[] | null | undefined): Set<string> {
  const codes = new Set<string>();
  const walk = (nodes: ButtonVO[]) => {
    for (const node of nodes) {
      if (node.children && node.children.length) walk(node.children);
      else if (node.code) codes.add(node.code);
    }
  };
  walk(tree ?? []);
  return codes;
}
