import { website } from '../config/website';

/** True when the token is at least `tokenTimeSec` old and no refresh is running. */
export function shouldRefresh(now: number, storedAt: number | undefined, tokenTimeSec: number, refreshing: boolean): boolean {
  if (refreshing || storedAt === undefined) return false;
  return (now - storedAt) / 1000 >= tokenTimeSec;
}

export interface RefreshDeps {
  /** When the current token was stored (ms), undefined when signed out. */
  storedAt: () => number | undefined;
  refresh: () => Promise<unknown>;
  now?: () => number;
  tokenTime?: number;
  interval?: number;
}

/** Checks the token age every 10 s and refreshes it once it reaches the token time. Returns a stop function. */
export function startTokenRefresh(deps: RefreshDeps): () => void {
  const now = deps.now ?? Date.now;
  const tokenTime = deps.tokenTime ?? website.tokenTime;
  let refreshing = false;
  const timer = setInterval(() => {
    if (!shouldRefresh(now(), deps.storedAt(), tokenTime, refreshing)) return;
    refreshing = true;
    deps
      .refresh()
      .catch(() => undefined)
      .finally(() => {
        refreshing = false;
      });
  }, deps.interval ?? website.tokenCheckInterval);
  return () => clearInterval(timer);
}
