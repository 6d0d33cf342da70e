import { apiGet } from './client';
import { get } from './request';
import type { DictItem, TreeNode } from './types';

export async function getDictionary(code: string, biz = false): Promise<DictItem[]> {
  const items = biz
    ? await apiGet('/api/blade-system/dict-biz/dictionary', { code })
    : await apiGet('/api/blade-system/dict/dictionary', { code });
  return items ?? [];
}

export function getTree(url: string): Promise<TreeNode[]> {
  return get<TreeNode[]>(url);
}
