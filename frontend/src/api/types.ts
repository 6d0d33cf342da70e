/**
 * Shapes of the BladeX/Saber API used by the shell. Where the backend's OpenAPI document types an answer, the
 * type is taken from the generated `schema.d.ts` (`make client`; a test fails when it is stale); the raw OAuth
 * maps and the generic envelope/page are written here (bladex-api.md §2–§5).
 */
import type { components } from './schema';

type Schemas = components['schemas'];

/** The envelope every BladeX endpoint answers with (except the raw OAuth maps). */
export interface R<T> {
  code: number;
  success: boolean;
  data: T;
  msg: string;
}

export interface Page<T> {
  records: T[];
  total: number;
  size: number;
  current: number;
  pages?: number;
}

/** Raw success body of POST /api/blade-auth/oauth/token. */
export interface TokenInfo {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  tenant_id: string;
  user_id: string;
  user_name: string;
  nick_name?: string;
  real_name?: string;
  role_name?: string;
  role_id?: string;
  dept_id?: string;
  post_id?: string;
  avatar?: string;
  account?: string;
  /** The server serves nothing but the password change until the user has chosen a new password. */
  must_change_password?: boolean;
  /** `platform` or `tenant` for an administrator (who passes every button check), else empty. */
  admin_level?: string;
  [key: string]: unknown;
}

/** Raw failure body of the token endpoint. */
export interface OAuthError {
  error?: string;
  error_description?: string;
  code?: number;
  msg?: string;
}

export type TenantOption = Schemas['TenantBrief'];

export type TenantInfo = Partial<Schemas['TenantInfo']>;

export interface Captcha {
  key: string;
  image: string;
}

export interface MenuMeta {
  roles?: string[];
  keepAlive?: boolean;
  i18n?: string;
}

export interface MenuVO {
  id: string;
  parentId: string;
  code: string;
  name: string;
  alias?: string;
  path: string;
  source?: string;
  sort?: number;
  category?: number;
  action?: number;
  isOpen?: number;
  meta?: MenuMeta;
  children?: MenuVO[];
}

export interface ButtonVO {
  id?: string;
  code: string;
  name?: string;
  children?: ButtonVO[];
}

export interface TopMenu {
  id: string;
  code: string;
  name: string;
  source?: string;
  sort?: number;
}

export interface TreeNode {
  id: string;
  parentId?: string | null;
  title: string;
  key: string;
  value: string;
  children?: TreeNode[];
  hasChildren?: boolean;
}

export interface DictItem {
  id?: string;
  dictKey: string;
  dictValue: string;
  code?: string;
  sort?: number;
}

export type IpOffset = Schemas['IpOffset'];
