import { apiGet, apiPost } from '../../api/client';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** A region as the server keeps it (`blade_region`; `id` is its code). */
export type Region = Schemas['RegionOut'];
/** What the form saves. */
export type RegionInput = Schemas['RegionIn'];
/** One node of the lazy tree: `id` (the code), `title` (the name), `hasChildren`. */
export interface RegionNode {
  id: string;
  title: string;
  parentId?: string | null;
  hasChildren?: boolean;
}

/** The parent code of the provinces. */
export const COUNTRY = '00';
/** The rows of one search page. */
export const SEARCH_PAGE = 20;

/** 1 province (xx0000), 2 city (xxyy00), 3 district (6 digits), 4 town (9), 5 village (12); 0: not a code. */
export function levelOf(code: string): number {
  if (!/^[0-9]+$/.test(code)) return 0;
  if (code.length === 6) {
    if (code.startsWith('00')) return 0;
    if (code.endsWith('0000')) return 1;
    return code.endsWith('00') ? 2 : 3;
  }
  return code.length === 9 ? 4 : code.length === 12 ? 5 : 0;
}

/** The digits a child's code starts with: the parent's significant part (none under the country). */
export function childPrefix(parent: string): string {
  const lengths: Record<number, number> = { 1: 2, 2: 4, 3: 6, 4: 9 };
  return parent === COUNTRY ? '' : parent.slice(0, lengths[levelOf(parent)] ?? parent.length);
}

/** Whether `code` may be saved under `parent`, as the server checks it (the server has the last word). */
export function codeFits(code: string, parent: string): boolean {
  const level = levelOf(code);
  if (level === 0) return false;
  if (parent === COUNTRY) return level === 1;
  return levelOf(parent) < level && code.startsWith(childPrefix(parent));
}

export async function children(parentCode: string): Promise<RegionNode[]> {
  const nodes = await apiGet('/api/blade-system/region/lazy-tree', { parentCode });
  return (nodes ?? []).map((n) => ({ id: String(n.id), title: n.title, parentId: n.parentId, hasChildren: n.hasChildren }));
}

export async function search(name: string, regionLevel: number | undefined, current: number) {
  const query: Record<string, string | number> = { current, size: SEARCH_PAGE };
  if (name) query.name = name;
  if (regionLevel) query.regionLevel = regionLevel;
  return apiGet('/api/blade-system/region/list', query as never);
}

export async function detail(code: string): Promise<Region | null | undefined> {
  return apiGet('/api/blade-system/region/detail', { code } as never);
}

export async function save(body: RegionInput & { id?: string }): Promise<Region | null | undefined> {
  return apiPost('/api/blade-system/region/submit', body as never);
}

export async function remove(code: string): Promise<unknown> {
  return apiPost('/api/blade-system/region/remove', undefined, { params: { ids: code } as never });
}
