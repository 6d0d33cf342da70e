import { apiPost } from '../api/client';

/**
 * The pages the user opens, sent to the server (`pageLog/save`) a few at a time: a visit waits at most
 * `DELAY_MS` (or until `MAX_BATCH` are waiting), so that quick navigation costs one call. Fire-and-forget: a visit
 * that cannot be sent is dropped, never retried nor shown.
 */
export interface PageVisit {
  pagePath: string;
  pageName: string;
}

export const MAX_BATCH = 50;
export const DELAY_MS = 3000;

let queue: PageVisit[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;

type Send = (logs: PageVisit[]) => Promise<unknown>;
const sendToServer: Send = (logs) =>
  apiPost('/api/blade-fics/pageLog/save', { logs: logs.map((l) => ({ ...l, behavior: 'visit' as const })) }, { silent: true });
let send: Send = sendToServer;

/** Replaces the sender (tests); `undefined` restores the server's. */
export function setPageLogSender(next: Send | undefined): void {
  send = next ?? sendToServer;
}

/** Sends what waits now. */
export function flushPageLog(): Promise<void> {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  const logs = queue.slice(0, MAX_BATCH);
  queue = queue.slice(MAX_BATCH);
  if (queue.length) timer = setTimeout(() => void flushPageLog(), DELAY_MS);
  if (!logs.length) return Promise.resolve();
  return send(logs).then(
    () => undefined,
    () => undefined,
  );
}

/** Records a visit of `pagePath` (its route path), titled `pageName` as the user saw it. */
export function logPageVisit(pagePath: string, pageName: string): void {
  if (!pagePath.startsWith('/')) return;
  queue.push({ pagePath: pagePath.replace(/\s/g, '').slice(0, 255), pageName: pageName.slice(0, 100) });
  if (queue.length >= MAX_BATCH) void flushPageLog();
  else if (timer === undefined) timer = setTimeout(() => void flushPageLog(), DELAY_MS);
}
