import { apiGet, apiPost } from './client';
import type { components } from './schema';
import type { ButtonVO, IpOffset, MenuVO, TopMenu } from './types';

type MenuNode = components['schemas']['MenuNode'];
type TopMenuOut = components['schemas']['TopMenuOut'];

/** The shell's view of a menu node: absent texts are empty or undefined, never null. */
export function toMenuVO(node: MenuNode): MenuVO {
  return {
    id: node.id,
    parentId: node.parentId,
    code: node.code,
    name: node.name,
    alias: node.alias ?? undefined,
    path: node.path ?? '',
    source: node.source ?? undefined,
    sort: node.sort,
    category: node.category,
    action: node.action,
    isOpen: node.isOpen,
    children: node.children?.map(toMenuVO),
  };
}

function toTopMenu(top: TopMenuOut): TopMenu {
  return { id: top.id, code: top.code, name: top.name, source: top.source ?? undefined, sort: top.sort };
}

export async function getRoutes(topMenuId?: string): Promise<MenuVO[]> {
  return ((await apiGet('/api/blade-system/menu/routes', { topMenuId: topMenuId || undefined })) ?? []).map(toMenuVO);
}

export async function getButtons(): Promise<ButtonVO[]> {
  return (await apiGet('/api/blade-system/menu/buttons')) ?? [];
}

export async function getTopMenu(): Promise<TopMenu[]> {
  return ((await apiGet('/api/blade-system/menu/top-menu')) ?? []).map(toTopMenu);
}

/** Records that the user opened a menu item (spec §2: "opening a menu item records a menu visit"). */
export async function recordVisit(menuId: string): Promise<boolean> {
  return (await apiPost('/api/blade-system/menu/visit', { menuId }, { silent: true })) === true;
}

export async function getIpOffset(): Promise<IpOffset | null> {
  return apiGet('/api/blade-fics-report/fics/common/getIpOffset', undefined, { silent: true });
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
