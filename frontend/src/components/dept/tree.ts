import type { TreeNode } from '../../api/types';

/** A tree select's node: `disabled` for the organisation being moved and everything under it. */
export interface PickNode {
  title: string;
  value: string;
  key: string;
  disabled?: boolean;
  children?: PickNode[];
}

/**
 * The organisation tree as the parents an organisation may move under: itself and its own branch are disabled (the
 * server refuses them too), every other organisation can be picked.
 */
export function parentChoices(nodes: TreeNode[] | undefined, moving: string, inside = false): PickNode[] {
  return (nodes ?? []).map((node) => {
    const own = inside || String(node.id) === moving;
    const children = node.children?.length ? parentChoices(node.children, moving, own) : undefined;
    return { title: node.title, value: String(node.value ?? node.id), key: String(node.key ?? node.id), disabled: own, ...(children ? { children } : {}) };
  });
}

/** `rows` with the one at `index` moved by `step` places (kept in bounds). */
export function moved<T>(rows: readonly T[], index: number, step: number): T[] {
  const target = index + step;
  if (index < 0 || index >= rows.length || target < 0 || target >= rows.length) return [...rows];
  const out = [...rows];
  const [row] = out.splice(index, 1);
  out.splice(target, 0, row as T);
  return out;
}
