import { website } from '../config/website';
import type { TokenInfo } from '../api/types';
import { createStore, useStore } from './createStore';
import { getStore, getStoreTime, removeStore, setStore } from './storage';

export interface SessionState {
  token: string | null;
  refreshToken: string | null;
  tenantId: string;
  userInfo: TokenInfo | null;
}

function load(): SessionState {
  return {
    token: getStore<string>('token') ?? null,
    refreshToken: getStore<string>('refreshToken') ?? null,
    tenantId: getStore<string>('tenantId') ?? website.tenantId,
    userInfo: getStore<TokenInfo>('userInfo') ?? null,
  };
}

export const sessionStore = createStore<SessionState>(load());

export function useSession(): SessionState {
  return useStore(sessionStore);
}

export function isAuthenticated(): boolean {
  return !!sessionStore.get().token;
}

/** Stores the tokens and user info of a successful token grant (login or refresh). */
export function saveTokens(info: TokenInfo, now: number = Date.now()): void {
  setStore('token', info.access_token, 'local', now);
  setStore('refreshToken', info.refresh_token, 'local', now);
  setStore('tenantId', info.tenant_id);
  setStore('userInfo', info);
  sessionStore.set({
    token: info.access_token,
    refreshToken: info.refresh_token,
    tenantId: info.tenant_id,
    userInfo: info,
  });
}

/** When the current access token was stored (ms), used to decide when to refresh it. */
export function tokenStoredAt(): number | undefined {
  return getStoreTime('token');
}

/** Forgets the tokens and the user; the tenant id is kept to prefill the next login. */
export function clearSession(): void {
  removeStore('token');
  removeStore('refreshToken');
  removeStore('userInfo');
  sessionStore.set((prev) => ({ ...prev, token: null, refreshToken: null, userInfo: null }));
}

/** Role aliases of the signed-in user (role_name is a comma list). */
export function currentRoles(info: TokenInfo | null): string[] {
  return (info?.role_name ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
}
