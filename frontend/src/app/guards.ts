import { website } from '../config/website';

/** Routes reachable without signing in. */
export const PUBLIC_PATHS = ['/login', '/404', '/403', '/500'];

/** Where a user who must choose a new password is kept until it is done. */
export const PASSWORD_REQUIRED_PATH = '/password';

export interface GuardInput {
  path: string;
  authenticated: boolean;
  locked: boolean;
  mustChangePassword?: boolean;
}

/**
 * Where a navigation must go instead (spec §2 navigation rules), or null to stay.
 * A locked session is forced to /lock; a signed-in user opening /login goes to /;
 * an unauthenticated user goes to /login unless the route is public.
 */
export function decideRedirect({ path, authenticated, locked, mustChangePassword }: GuardInput): string | null {
  if (!authenticated) {
    if (PUBLIC_PATHS.includes(path)) return null;
    return '/login';
  }
  if (mustChangePassword) return path === PASSWORD_REQUIRED_PATH ? null : PASSWORD_REQUIRED_PATH;
  if (path === PASSWORD_REQUIRED_PATH) return website.homePath;
  if (locked) return path === website.lockPage ? null : website.lockPage;
  if (path === '/login') return '/';
  if (path === '/') return website.homePath;
  if (path === website.lockPage) return website.homePath;
  return null;
}
