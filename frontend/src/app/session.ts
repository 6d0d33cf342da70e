import { getButtons, getRoutes, getTopMenu } from '../api/menu';
import { logout, refreshToken } from '../api/auth';
import type { TokenInfo } from '../api/types';
import { clearLock } from '../store/common';
import { clearSession, saveTokens, sessionStore } from '../store/session';
import { resetTabs } from '../store/tabs';
import { loadedQueries } from '../data/loadedQueries';
import { selectTopMenu } from '../store/topMenu';

/** Signed in: tokens and user stored, tabs and lock cleared, menus and buttons loaded. */
export async function completeLogin(info: TokenInfo): Promise<void> {
  // the signed-in shell's cache, fetched now (not with the login page) and filled with the menus it shows first
  const { queryClient } = await import('../data/queryClient');
  queryClient.clear();
  saveTokens(info);
  resetTabs();
  clearLock();
  selectTopMenu('');
  if (info.must_change_password) return; // nothing else is served until the password is changed
  await Promise.all([
    queryClient.query({ queryKey: ['menu', 'routes', ''], queryFn: () => getRoutes(''), staleTime: Infinity }),
    queryClient.query({ queryKey: ['menu', 'buttons'], queryFn: getButtons, staleTime: Infinity }),
    queryClient.query({ queryKey: ['menu', 'top'], queryFn: getTopMenu, staleTime: Infinity }),
  ]);
}

/** Local sign-out (also used on 401): auth data, menus, tabs and lock are cleared. */
export function localSignOut(): void {
  clearSession();
  resetTabs();
  clearLock();
  loadedQueries.client?.clear();
}

/** Logout: tells the server, then clears everything locally whatever it answered. */
export async function signOut(): Promise<void> {
  try {
    await logout();
  } catch {
    // the local sign-out below is what matters
  }
  localSignOut();
}

/** Refresh grant with the stored refresh token. */
export async function refreshSession(): Promise<void> {
  const { refreshToken: refresh, tenantId } = sessionStore.get();
  if (!refresh) return;
  const info = await refreshToken(refresh, tenantId);
  saveTokens(info);
}
