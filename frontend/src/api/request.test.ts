import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { saveTokens, clearSession } from '../store/session';
import { ApiError, basicAuth, download, filenameOf, request, setUnauthorizedHandler, statusOf, messageOf } from './request';
import { toaster } from './toast';
import type { TokenInfo } from './types';

function respond(status: number, body: unknown) {
  return vi.fn(async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status }));
}

describe('request wrapper', () => {
  const shown: string[] = [];
  beforeEach(() => {
    shown.length = 0;
    toaster.setSink({ open: (_k, text, close) => (shown.push(text), close()) });
    clearSession();
    void i18n.changeLanguage('zh');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
    toaster.setSink(null);
  });

  it('sends the client, language and tenant headers, and the token once signed in', async () => {
    const fetch = respond(200, { code: 200, success: true, data: 1, msg: '' });
    vi.stubGlobal('fetch', fetch);
    await request('/api/x', { params: { a: 1, b: undefined, c: '' } });
    const [url, first] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    let init = first;
    let headers = init.headers as Record<string, string>;
    expect(url).toBe('/api/x?a=1&c=');
    expect(headers.Authorization).toBe(`Basic ${btoa('saber:saber_secret')}`);
    expect(headers['Accept-Language']).toBe('zh-CN');
    expect(headers['Tenant-Id']).toBe('000000');
    expect(headers['Blade-Auth']).toBeUndefined();

    saveTokens({ access_token: 'T', refresh_token: 'R', tenant_id: '123456' } as TokenInfo);
    await i18n.changeLanguage('en');
    await request('/api/x');
    init = (fetch.mock.calls[1] as unknown as [string, RequestInit])[1];
    headers = init.headers as Record<string, string>;
    expect(headers['Blade-Auth']).toBe('bearer T');
    expect(headers['Accept-Language']).toBe('en-US');
    expect(headers['Tenant-Id']).toBe('123456');
  });

  it('uses body.code over the HTTP status', () => {
    expect(statusOf({ code: 400 }, 200)).toBe(400);
    expect(statusOf({ access_token: 'x' }, 200)).toBe(200);
    expect(statusOf(null, 401)).toBe(401);
  });

  it('takes the message from msg, message or error_description', () => {
    expect(messageOf({ msg: 'a', error_description: 'b' })).toBe('a');
    expect(messageOf({ message: 'm' })).toBe('m');
    expect(messageOf({ error: 'invalid_grant', error_description: '用户名或密码错误' })).toBe('用户名或密码错误');
    expect(messageOf({})).toBe('未知错误');
  });

  it('toasts a failure and rejects with its code', async () => {
    vi.stubGlobal('fetch', respond(400, { error: 'invalid_grant', error_description: '用户名或密码错误', code: 400 }));
    const err = await request('/api/t').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(400);
    expect(shown).toEqual(['用户名或密码错误']);
  });

  it('passes whitelisted codes to the caller without a toast', async () => {
    vi.stubGlobal('fetch', respond(200, { code: 400, success: false, msg: 'nope' }));
    await expect(request('/api/t', { whitelist: [400] })).rejects.toMatchObject({ code: 400 });
    expect(shown).toEqual([]);
  });

  it('signs out on 401', async () => {
    const onUnauthorized = vi.fn();
    setUnauthorizedHandler(onUnauthorized);
    vi.stubGlobal('fetch', respond(401, { code: 401, msg: '令牌已失效', data: null }));
    await expect(request('/api/t')).rejects.toMatchObject({ code: 401 });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    setUnauthorizedHandler(() => undefined);
  });

  it('treats HTTP statuses above 500 as not received', async () => {
    vi.stubGlobal('fetch', respond(502, '<html>bad gateway</html>'));
    await expect(request('/api/t')).rejects.toMatchObject({ code: 0, status: 502 });
    expect(shown[0]).toContain('502');
  });

  it('sends a request in a task of its own, but one that must leave as the page unloads at once', async () => {
    const fetch = vi.fn(() => Promise.resolve(new Response(JSON.stringify({ code: 200, data: 1 }), { status: 200 })));
    vi.stubGlobal('fetch', fetch);
    const later = request('/api/a');
    await Promise.resolve(); // microtasks alone do not send it: the task that started it goes on first
    expect(fetch).not.toHaveBeenCalled();
    const now = request('/api/b', { keepalive: true });
    expect(fetch).toHaveBeenCalledTimes(1);
    await Promise.all([later, now]);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('times out after 30 s with "request timeout"', async () => {
    vi.useFakeTimers();
    vi.stubGlobal(
      'fetch',
      vi.fn(
        (_url: string, init: RequestInit) =>
          new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
      ),
    );
    const pending = request('/api/slow').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(shown).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    const err = await pending;
    expect((err as ApiError).code).toBe(0);
    expect(shown).toEqual(['请求超时']);
  });

  it('builds the Basic header from client id and secret', () => {
    expect(basicAuth('saber', 'saber_secret')).toBe('Basic c2FiZXI6c2FiZXJfc2VjcmV0');
  });
});

describe('downloads', () => {
  const shown: string[] = [];
  beforeEach(() => {
    shown.length = 0;
    toaster.setSink({ open: (_k, text, close) => (shown.push(text), close()) });
    clearSession();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    toaster.setSink(null);
  });

  it('read the file name the server gives', () => {
    expect(filenameOf("attachment; filename*=UTF-8''%E8%BD%A6%E8%BE%86.xlsx", 'x.xlsx')).toBe('车辆.xlsx');
    expect(filenameOf('attachment; filename="vehicles.xlsx"', 'x.xlsx')).toBe('vehicles.xlsx');
    expect(filenameOf(null, 'x.xlsx')).toBe('x.xlsx');
  });

  it('fetch the file with the token and the filters, and hand over the blob', async () => {
    saveTokens({ access_token: 'T', refresh_token: 'R', tenant_id: '000000' } as TokenInfo);
    const fetch = vi.fn(
      async () =>
        new Response('PK', {
          status: 200,
          headers: { 'Content-Type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'Content-Disposition': "attachment; filename*=UTF-8''vehicles.xlsx" },
        }),
    );
    vi.stubGlobal('fetch', fetch);
    const file = await download('/api/export', { carNo_like: 'FL', empty: undefined });
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/export?carNo_like=FL');
    expect((init.headers as Record<string, string>)['Blade-Auth']).toBe('bearer T');
    expect(file.filename).toBe('vehicles.xlsx');
    expect(await file.blob.text()).toBe('PK');
  });

  it('turn an error envelope into an ApiError with its toast', async () => {
    vi.stubGlobal('fetch', respond(400, { code: 400, success: false, msg: '请求被拒绝' }));
    await expect(download('/api/export')).rejects.toBeInstanceOf(ApiError);
    expect(shown).toEqual(['请求被拒绝']);
  });
});
