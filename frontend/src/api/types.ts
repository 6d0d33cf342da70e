/**
 * Hand-written shapes of the BladeX/Saber API used by the shell. When `frontend/openapi.json` exists,
 * `npm run gen:api` writes `schema.d.ts`; these types describe the same contract (bladex-api.md §2–§5).
 */

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
  [key: string]: unknown;
}

/** Raw failure body of the token endpoint. */
export interface OAuthError {
  error?: string;
  error_description?: string;
  code?: number;
  msg?: string;
}

export interface TenantOption {
  tenantId: string;
  tenantName: string;
}

export interface TenantInfo {
  tenantId?: string;
  domain?: string;
  backgroundUrl?: string;
  captchaMode?: boolean;
}

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
  parentId?: string;
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

export interface IpOffset {
  /** Server epoch in ms. */
  timestamp: number;
  /** Tenant zone offset from UTC in minutes (480 = UTC+8). */
  offset: number;
}

export interface GrantTree {
  menu: TreeNode[];
  dataScope?: TreeNode[];
  apiScope?: TreeNode[];
}

export interface GrantKeys {
  menu: string[];
  dataScope?: string[];
  apiScope?: string[];
}
