import i18n, { acceptLanguage } from '../i18n';
import { website } from '../config/website';
import { sessionStore } from '../store/session';
import { toaster } from './toast';
import type { R } from './types';

export type Params = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  params?: Params;
  /** JSON body. */
  data?: unknown;
  /** Multipart body (e.g. a file upload); its boundary is set by the browser. */
  form?: FormData;
  headers?: Record<string, string>;
  /** Codes handed to the caller (as a rejected ApiError) without a toast. */
  whitelist?: number[];
  /** Never show a toast for this call. */
  silent?: boolean;
  /** Do not send Blade-Auth even when signed in. */
  noToken?: boolean;
  timeout?: number;
  /** The request outlives the page (fetch's `keepalive`): for what is sent as the page unloads. */
  keepalive?: boolean;
}

/** A call that did not end with code 200. `code` 0 means no answer (timeout, network). */
export class ApiError extends Error {
  readonly code: number;
  readonly status: number;
  readonly body: unknown;
  constructor(message: string, code: number, status: number, body: unknown) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.body = body;
  }
}

let onUnauthorized: () => void = () => undefined;
/** Called once by the app: local sign-out and navigation to /login. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export function basicAuth(clientId: string = website.clientId, secret: string = website.clientSecret): string {
  return `Basic ${btoa(`${clientId}:${secret}`)}`;
}

export function buildUrl(url: string, params?: Params): string {
  if (!params) return url;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    search.append(key, String(value));
  }
  const query = search.toString();
  if (!query) return url;
  return url + (url.includes('?') ? '&' : '?') + query;
}

/** The user-facing text of an answer: msg, message or error_description. */
export function messageOf(body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    for (const key of ['msg', 'message', 'error_description']) {
      const v = b[key];
      if (typeof v === 'string' && v.trim()) return v;
    }
  }
  return i18n.t('request.unknownError');
}

/** status = body.code || HTTP status (Saber's rule). */
export function statusOf(body: unknown, httpStatus: number): number {
  if (body && typeof body === 'object') {
    const code = (body as Record<string, unknown>).code;
    if (typeof code === 'number' && code) return code;
    if (typeof code === 'string' && /^\d+$/.test(code) && Number(code)) return Number(code);
  }
  return httpStatus;
}

export function requestHeaders(opts: RequestOptions = {}): Record<string, string> {
  const session = sessionStore.get();
  const headers: Record<string, string> = {
    Authorization: basicAuth(),
    'Accept-Language': acceptLanguage(i18n.language),
    'Tenant-Id': session.tenantId || website.tenantId,
    Accept: 'application/json',
  };
  if (session.token && !opts.noToken) headers[website.tokenHeader] = `bearer ${session.token}`;
  if (opts.data !== undefined) headers['Content-Type'] = 'application/json';
  return { ...headers, ...opts.headers };
}

/**
 * Lets the browser run what waits (a frame, input, the next request) before going on: `scheduler.yield()` where the
 * browser has it, else a message to the page itself (a task, not a timer: no clamping, no fake timers in tests).
 */
export function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (scheduler?.yield) return scheduler.yield();
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/**
 * Sends a request and returns the parsed body; rejects with ApiError on any code other than 200.
 *
 * The request is sent in a task of its own (but for one that must leave as the page unloads): a page's queries start
 * together as it mounts, and sending each (its headers, `fetch` itself) inside the task that mounted the page made one
 * long task of them (tens of milliseconds on a small machine).
 */
export async function request<T = unknown>(url: string, opts: RequestOptions = {}): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeout ?? website.requestTimeout);
  let response: Response;
  let text: string;
  try {
    if (!opts.keepalive) await nextTask();
    controller.signal.throwIfAborted();
    response = await fetch(buildUrl(url, opts.params), {
      method: opts.method ?? 'GET',
      headers: requestHeaders(opts),
      body: opts.form ?? (opts.data === undefined ? undefined : JSON.stringify(opts.data)),
      signal: controller.signal,
      ...(opts.keepalive ? { keepalive: true } : {}),
    });
    text = await response.text();
  } catch (cause) {
    const msg = i18n.t('request.timeout');
    if (!opts.silent) toaster.show('error', msg);
    throw new ApiError(msg, 0, 0, cause);
  } finally {
    clearTimeout(timer);
  }
  // Only HTTP 200–500 count as an answer; anything else is treated like a lost request.
  if (response.status < 200 || response.status > 500) {
    const msg = i18n.t('request.unavailable', { status: response.status });
    if (!opts.silent) toaster.show('error', msg);
    throw new ApiError(msg, 0, response.status, text);
  }
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const status = statusOf(body, response.status);
  if (status === 200) return body as T;
  throw failure(body, response.status, opts);
}

/** The error of an answer that is not a success: 401 signs out, the message is toasted (unless whitelisted / silent). */
function failure(body: unknown, httpStatus: number, opts: RequestOptions): ApiError {
  const status = statusOf(body, httpStatus);
  const whitelisted = opts.whitelist?.includes(status) ?? false;
  const msg = messageOf(body);
  if (!whitelisted) {
    if (status === 401) onUnauthorized();
    if (!opts.silent) toaster.show('error', msg);
  }
  return new ApiError(msg, status, httpStatus, body);
}

export interface DownloadedFile {
  blob: Blob;
  /** The name the server gave (Content-Disposition), else `fallback`. */
  filename: string;
}

/** The file name of a Content-Disposition header (`filename*=UTF-8''…` first, then `filename="…"`). */
export function filenameOf(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const encoded = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
  if (encoded) {
    try {
      return decodeURIComponent(encoded[1].trim());
    } catch {
      // a malformed name: the plain one, else the fallback
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(disposition);
  return plain ? plain[1].trim() : fallback;
}

/**
 * GETs (or with `method: 'POST'` POSTs) a file (e.g. an .xlsx export) with the headers of every call (token, tenant, language): a plain link could
 * not send them. An answer in JSON is the server's error envelope, handled like `request`'s.
 */
export async function download(url: string, params?: Params, opts: RequestOptions & { fallbackName?: string } = {}): Promise<DownloadedFile> {
  const controller = new AbortController();
  // a large export takes longer than a call
  const timer = setTimeout(() => controller.abort(), opts.timeout ?? website.requestTimeout * 4);
  try {
    let response: Response;
    try {
      response = await fetch(buildUrl(url, params), {
        // a file made by a command (gen-code) is POSTed, an export is a GET
        method: opts.method === 'POST' ? 'POST' : 'GET',
        headers: requestHeaders({ ...opts, headers: { Accept: '*/*', ...opts.headers } }),
        signal: controller.signal,
      });
    } catch (cause) {
      const msg = i18n.t('request.timeout');
      if (!opts.silent) toaster.show('error', msg);
      throw new ApiError(msg, 0, 0, cause);
    }
    const type = response.headers.get('Content-Type') ?? '';
    if (type.includes('json') || response.status >= 300) {
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: the text is the message
      }
      // a JSON answer where a file was expected is an error even when it says 200
      throw failure(body, response.status, opts);
    }
    const blob = await response.blob();
    return { blob, filename: filenameOf(response.headers.get('Content-Disposition'), opts.fallbackName ?? 'download') };
  } finally {
    clearTimeout(timer);
  }
}

/** GET returning `data` of the envelope. */
export async function get<T>(url: string, params?: Params, opts: RequestOptions = {}): Promise<T> {
  const body = await request<R<T>>(url, { ...opts, method: 'GET', params });
  return body.data;
}

/** POST a JSON body (or only query params) returning `data` of the envelope. */
export async function post<T>(url: string, data?: unknown, opts: RequestOptions = {}): Promise<T> {
  const body = await request<R<T>>(url, { ...opts, method: 'POST', data });
  return body.data;
}
