import { createElement } from 'react';
import type { TreeNode } from '../api/types';
import type { ToolbarExtra } from '../resources/types';
import { GrantButton } from './GrantDialog';

export interface GrantSection {
  /** Key in the tree and keys answers (menu, dataScope, apiScope). */
  key: string;
  /** i18n key of the tab. */
  label: string;
}

export interface GrantSpec {
  /** i18n key of the button and dialog title. */
  label: string;
  permission: string;
  /** Whether several rows may be granted at once. */
  multiple: boolean;
  sections: GrantSection[];
  loadTrees: () => Promise<Record<string, TreeNode[] | undefined>>;
  loadKeys: (ids: string[]) => Promise<Record<string, string[] | undefined>>;
  save: (ids: string[], checked: Record<string, string[]>) => Promise<unknown>;
}

function keyOf(n: TreeNode): string {
  return String(n.key ?? n.id);
}

/** The keys plus every ancestor of them in the tree. */
export function withAncestors(keys: string[], nodes: TreeNode[] | undefined): string[] {
  const parentOf = new Map<string, string>();
  const walk = (list: TreeNode[], parent: string | null) =>
    list.forEach((n) => {
      if (parent) parentOf.set(keyOf(n), parent);
      if (n.children) walk(n.children, keyOf(n));
    });
  walk(nodes ?? [], null);
  const out = new Set<string>();
  for (const key of keys) {
    let k: string | undefined = key;
    while (k && !out.has(k)) {
      out.add(k);
      k = parentOf.get(k);
    }
  }
  return [...out];
}

/**
 * Checked keys to show for granted ids: only leaves (and childless nodes) are checked, so a partly granted
 * parent shows half-checked; ids missing from the tree are dropped.
 */
export function initialGrant(
  sections: GrantSection[],
  trees: Record<string, TreeNode[] | undefined>,
  keys: Record<string, string[] | undefined>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of sections) {
    const leaves = new Set<string>();
    const walk = (list: TreeNode[]) =>
      list.forEach((n) => {
        if (n.children && n.children.length) walk(n.children);
        else leaves.add(keyOf(n));
      });
    walk(trees[s.key] ?? []);
    out[s.key] = (keys[s.key] ?? []).map(String).filter((k) => leaves.has(k));
  }
  return out;
}

/** A toolbar extra rendering a grant button. */
export function grantAction(spec: GrantSpec): ToolbarExtra {
  return (props) => createElement(GrantButton, { ...props, spec });
}
