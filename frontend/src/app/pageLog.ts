import { apiPost } from '../api/client';

/**
 * The pages the user opens, sent to the server (`pageLog/save`) a few at a time: a visit waits at most
 * `DELAY_MS` (or until `MAX_BATCH` are waiting), so that quick navigation costs one call. What still waits when the
 * page goes away (closed, reloaded, left for another site) or is hidden leaves at once in a request that outlives
 * the page (`keepalive`; `sendBeacon` cannot carry the token). Fire-and-forget: a visit that cannot be sent is
 * dropped, never retried nor shown.
 */
export interface PageVisit {
  pagePath: string;
  pageName: string;
}

export const MAX_BATCH = 50;
export const DELAY_MS = 3000;

let queue: PageVisit[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;

/** Sends a batch; `atUnload`: the page is going away, the request must outlive it. */
type Send = (logs: PageVisit[], atUnload: boolean) => Promise<unknown>;
const sendToServer: Send = (logs, atUnload) =>
  apiPost(
    '/api/blade-fics/pageLog/save',
    { logs: logs.map((l) => ({ ...l, behavior: 'visit' as const })) },
    { silent: true, keepalive: atUnload },
  );
let send: Send = sendToServer;

/** Replaces the sender (tests); `undefined` restores the server's. */
export function setPageLogSender(next: Send | undefined): void {
  send = next ?? sendToServer;
}

function take(): PageVisit[] {
  const logs = queue.slice(0, MAX_BATCH);
  queue = queue.slice(MAX_BATCH);
  return logs;
}

/** Sends what waits now. */
export function flushPageLog(): Promise<void> {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  const logs = take();
  if (queue.length) timer = setTimeout(() => void flushPageLog(), DELAY_MS);
  if (!logs.length) return Promise.resolve();
  return send(logs, false).then(
    () => undefined,
    () => undefined,
  );
}

/** Sends all that waits at once, in requests that outlive the page (called as it goes away or is hidden). */
export function flushPageLogAtUnload(): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  while (queue.length) {
    send(take(), true).catch(() => undefined);
  }
}

/**
 * Sends what waits when the page is hidden or goes away: `pagehide` (closed, reloaded, navigated off; also when it
 * enters the back-forward cache) and `visibilitychange` to hidden (a phone may discard a hidden page without any
 * other event). Returns the function that stops listening.
 */
export function flushPageLogOnLeave(win: Window = window): () => void {
  const onHide = () => flushPageLogAtUnload();
  const onVisibility = () => {
    if (win.document.visibilityState === 'hidden') flushPageLogAtUnload();
  };
  win.addEventListener('pagehide', onHide);
  win.document.addEventListener('visibilitychange', onVisibility);
  return () => {
    win.removeEventListener('pagehide', onHide);
    win.document.removeEventListener('visibilitychange', onVisibility);
  };
}

/** Records a visit of `pagePath` (its route path), titled `pageName` as the user saw it. */
export function logPageVisit(pagePath: string, pageName: string): void {
  if (!pagePath.startsWith('/')) return;
  queue.push({ pagePath: pagePath.replace(/\s/g, '').slice(0, 255), pageName: pageName.slice(0, 100) });
  if (queue.length >= MAX_BATCH) void flushPageLog();
  else if (timer === undefined) timer = setTimeout(() => void flushPageLog(), DELAY_MS);
}
