import { describe, expect, it } from 'vitest';
import { decideRedirect } from './guards';

describe('route guard', () => {
  const out = { authenticated: false, locked: false };
  const inn = { authenticated: true, locked: false };
  const locked = { authenticated: true, locked: true };

  it('sends unauthenticated users to /login except on public routes', () => {
    expect(decideRedirect({ ...out, path: '/system/param' })).toBe('/login');
    expect(decideRedirect({ ...out, path: '/wel/index' })).toBe('/login');
    expect(decideRedirect({ ...out, path: '/' })).toBe('/login');
    expect(decideRedirect({ ...out, path: '/lock' })).toBe('/login');
    for (const path of ['/login', '/404', '/403', '/500']) expect(decideRedirect({ ...out, path })).toBeNull();
  });

  it('sends a signed-in user opening /login to /', () => {
    expect(decideRedirect({ ...inn, path: '/login' })).toBe('/');
  });

  it('redirects / to the home page', () => {
    expect(decideRedirect({ ...inn, path: '/' })).toBe('/wel/index');
  });

  it('lets signed-in users through', () => {
    expect(decideRedirect({ ...inn, path: '/system/param' })).toBeNull();
    expect(decideRedirect({ ...inn, path: '/404' })).toBeNull();
  });

  it('forces a locked session to /lock, whatever the path', () => {
    expect(decideRedirect({ ...locked, path: '/system/param' })).toBe('/lock');
    expect(decideRedirect({ ...locked, path: '/login' })).toBe('/lock');
    expect(decideRedirect({ ...locked, path: '/' })).toBe('/lock');
    expect(decideRedirect({ ...locked, path: '/lock' })).toBeNull();
  });

  it('leaves /lock when the session is not locked', () => {
    expect(decideRedirect({ ...inn, path: '/lock' })).toBe('/wel/index');
  });
});
