import type { TreeNode } from '../api/types';

type Translate = (key: string, options: { defaultValue: string }) => string;

/** The seeded roles' names by alias (backend `system/seed.py`), for a user who may not read the role list. */
export const SEEDED_ROLE_NAMES: Readonly<Record<string, string>> = {
  administrator: '超级管理员',
  admin: '管理员',
  maintenance: '维修人员',
  driver: '普通司机',
};

function namesById(nodes: TreeNode[] | null | undefined, into = new Map<string, string>()): Map<string, string> {
  for (const node of nodes ?? []) {
    into.set(String(node.id), node.title);
    namesById(node.children, into);
  }
  return into;
}

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The names of the signed-in user's roles (not their aliases): `roleIds` and `aliases` are the token's `role_id` and
 * `role_name` (the same roles in the same order). A name comes from the role tree when the user may read it, else
 * from the seeded names; a seeded role shows in the UI language (`roleName.<alias>`, English only, like the menus).
 */
export function roleNames(roleIds: string | undefined, aliases: string | undefined, tree: TreeNode[] | null | undefined, t: Translate): string[] {
  const ids = list(roleIds);
  const names = namesById(tree);
  return list(aliases).map((alias, i) => {
    const name = names.get(ids[i] ?? '') ?? SEEDED_ROLE_NAMES[alias] ?? alias;
    return t(`roleName.${alias}`, { defaultValue: name });
  });
}
