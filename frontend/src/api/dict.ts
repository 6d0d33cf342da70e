import { get } from './request';
import type { DictItem, TreeNode } from './types';

export function getDictionary(code: string, biz = false): Promise<DictItem[]> {
  return get<DictItem[]>(`/api/blade-system/${biz ? 'dict-biz' : 'dict'}/dictionary`, { code });
}

export function getTree(url: string): Promise<TreeNode[]> {
  return get<TreeNode[]>(url);
}
