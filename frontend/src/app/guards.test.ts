import { describe, expect, it } from 'vitest';
import { decideRedirect } from './guards';
import { passwordProblem } from '../api/auth';

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

  it('keeps a user who must choose a password on /password, and sends others away from it', () => {
    const must = { ...inn, mustChangePassword: true };
    expect(decideRedirect({ ...must, path: '/system/user' })).toBe('/password');
    expect(decideRedirect({ ...must, path: '/wel/index' })).toBe('/password');
    expect(decideRedirect({ ...must, path: '/password' })).toBeNull();
    expect(decideRedirect({ ...inn, path: '/password' })).toBe('/wel/index');
  });
});

describe('passwordProblem', () => {
  it('follows the rule of the specification', () => {
    expect(passwordProblem('Aa1!aaaa')).toBeNull();
    expect(passwordProblem('Aa1!aaa')).toBe('length');
    expect(passwordProblem('Aa1!aaaaaaaaaaaa')).toBe('length');
    expect(passwordProblem('aa1!aaaa')).toBe('classes');
    expect(passwordProblem('AaA!aaaa')).toBe('classes');
    expect(passwordProblem('Aa1aaaaa')).toBe('classes');
  });
});
