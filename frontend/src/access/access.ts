import type { TokenInfo } from '../api/types';

/**
 * Who may press which button: one rule for every page (`useAccess`, `<Can>`), as the server decides
 * (backend `core/crud.py` `Ctx.require`): the platform administrator and a tenant's administrator pass every button
 * check (BladeX's HAS_ROLE_ADMIN); other users need the button code granted through their roles' menus.
 */

/** The administrator level the token carries (`admin_level`: `platform`, `tenant` or none). */
export type AdminLevel = 'platform' | 'tenant' | '';

export function adminLevel(info: Pick<TokenInfo, 'admin_level'> | null | undefined): AdminLevel {
  const level = info?.admin_level;
  return level === 'platform' || level === 'tenant' ? level : '';
}

/** The operations of a list page whose buttons are `<code>_<op>`. */
export type Operation = 'add' | 'edit' | 'view' | 'delete';

export interface Access {
  /** Whether the user is an administrator of the platform or of their tenant. */
  admin: boolean;
  /** Whether the user may use the button `code` (e.g. `vehicle_edit`). */
  can: (code: string) => boolean;
  /** `can` for the button `<menuCode>_<op>` of a resource page. */
  canDo: (menuCode: string, op: Operation | string) => boolean;
}

export function createAccess(granted: ReadonlySet<string>, level: AdminLevel): Access {
  const admin = level !== '';
  const can = (code: string) => admin || granted.has(code);
  return { admin, can, canDo: (menuCode, op) => can(`${menuCode}_${op}`) };
}

/**
 * The code of the button an action of the manifest needs ("the button fence_edit" → `fence_edit`), or undefined
 * when it needs none beyond the page (a menu, every signed-in user).
 */
export function buttonOfPermission(permission: string | undefined): string | undefined {
  const match = /^the button (\w+)$/.exec(permission?.trim() ?? '');
  return match ? match[1] : undefined;
}
