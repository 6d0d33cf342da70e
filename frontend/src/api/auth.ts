import { md5 } from 'js-md5';
import { apiGet, apiPost } from './client';
import { request } from './request';
import type { Captcha, TenantInfo, TenantOption, TokenInfo } from './types';

const AUTH = '/api/blade-auth/oauth';

export function hashPassword(plain: string): string {
  return md5(plain);
}

export interface AccountLogin {
  tenantId: string;
  username: string;
  /** Plain password; it is sent as md5 hex. */
  password: string;
  captcha?: { key: string; code: string };
}

/** Password (or captcha) grant. Fields travel as query parameters (Saber). */
export function loginByAccount(form: AccountLogin, opts: { silent?: boolean } = {}): Promise<TokenInfo> {
  const headers: Record<string, string> = { 'Tenant-Id': form.tenantId };
  if (form.captcha) {
    headers['Captcha-Key'] = form.captcha.key;
    headers['Captcha-Code'] = form.captcha.code;
  }
  return request<TokenInfo>(`${AUTH}/token`, {
    method: 'POST',
    noToken: true,
    silent: opts.silent,
    headers,
    params: {
      tenantId: form.tenantId,
      username: form.username,
      password: hashPassword(form.password),
      grant_type: form.captcha ? 'captcha' : 'password',
      scope: 'all',
      type: 'account',
    },
  });
}

export interface SmsValidate {
  /** The key to send back with the code. */
  id: string;
  phone: string;
}

/** Phone sign-in, first step: a 6-digit code by SMS (the same answer whether or not an account has the number). */
export async function sendValidate(tenantId: string, phone: string): Promise<SmsValidate> {
  const sent = await apiPost('/api/blade-resource/sms/endpoint/send-validate', undefined, {
    params: { tenantId, phone },
    headers: { 'Tenant-Id': tenantId },
    silent: true,
    noToken: true,
  });
  if (!sent) throw new Error('send-validate answered no key');
  return sent;
}

export interface PhoneLogin {
  tenantId: string;
  phone: string;
  /** The id `sendValidate` answered. */
  key: string;
  code: string;
}

/** Phone sign-in, second step: the `sms_code` grant. */
export function loginByPhone(form: PhoneLogin): Promise<TokenInfo> {
  return request<TokenInfo>(`${AUTH}/token`, {
    method: 'POST',
    noToken: true,
    silent: true,
    headers: { 'Tenant-Id': form.tenantId },
    params: { ...form, grant_type: 'sms_code', scope: 'all', type: 'phone' },
  });
}

export function refreshToken(refresh: string, tenantId: string): Promise<TokenInfo> {
  return request<TokenInfo>(`${AUTH}/token`, {
    method: 'POST',
    noToken: true,
    headers: { 'Tenant-Id': tenantId },
    params: { tenantId, refresh_token: refresh, grant_type: 'refresh_token', scope: 'all' },
  });
}

export function getCaptcha(): Promise<Captcha> {
  return request<Captcha>(`${AUTH}/captcha`);
}

export function logout(): Promise<unknown> {
  return request(`${AUTH}/logout`, { silent: true });
}

export function clearCache(): Promise<unknown> {
  return request(`${AUTH}/clear-cache`);
}

/** Uploads the local error-log entries (Saber posts them to the logout endpoint). */
export function uploadErrorLogs(logs: unknown[]): Promise<unknown> {
  return request(`${AUTH}/logout`, { method: 'POST', data: logs });
}

/** After a sign-in: the other tenants where the same account opens with the same password. */
export async function getTenantListByAccount(info: TokenInfo, password: string): Promise<TenantOption[]> {
  const tenants = await apiPost('/api/blade-user/getTenantListByAccount', undefined, {
    params: { account: info.account ?? info.user_name, password: hashPassword(password) },
    headers: { 'Blade-Auth': `bearer ${info.access_token}` },
    silent: true,
    noToken: true,
  });
  return tenants ?? [];
}

/** Changes the signed-in user's password; every token issued before is revoked by the server. */
export function updatePassword(oldPassword: string, newPassword: string, newPassword1: string): Promise<unknown> {
  return apiPost('/api/blade-user/update-password', undefined, {
    params: {
      oldPassword: hashPassword(oldPassword),
      newPassword: hashPassword(newPassword),
      newPassword1: hashPassword(newPassword1),
    },
  });
}

/** The password rule of the specification: 8-15 characters with a digit, upper and lower case and a special one. */
export function passwordProblem(plain: string): 'length' | 'classes' | null {
  if (plain.length < 8 || plain.length > 15) return 'length';
  const classes = [/[0-9]/, /[a-z]/, /[A-Z]/, /[^0-9A-Za-z]/];
  return classes.every((re) => re.test(plain)) ? null : 'classes';
}

export function getTenantInfo(domain: string): Promise<TenantInfo | null> {
  return apiGet('/api/blade-system/tenant/info', { domain }, { silent: true, noToken: true });
}

/** What the third-party registration dialog sends (`register-guest`); the password travels as typed. */
export interface Registration {
  tenantId: string;
  name: string;
  account: string;
  password: string;
  password2: string;
  /** The signed-in third-party user's id, when there is one. */
  oauthId?: string;
}

/** Asks for an account: it waits for an administrator's approval (用户管理) before it can sign in. */
export function registerGuest(form: Registration): Promise<unknown> {
  return request('/api/blade-user/register-guest', { method: 'POST', data: form, noToken: true, silent: true });
}
