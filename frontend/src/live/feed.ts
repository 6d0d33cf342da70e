import type { FeedStatus } from './types';

export const LIVE_PATH = '/api/liftdesk/live';

/**
 * The WebSocket URL of the live feed for a page served from `location` (ws: or wss: like the page), with a
 * single-use ticket (`POST /api/liftdesk/live/ticket`): the access token is never written in a URL.
 */
export function liveUrl(ticket: string, location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${LIVE_PATH}?ticket=${encodeURIComponent(ticket)}`;
}

/** Whether a failed call refused the caller (401 signed out, 403 not allowed): asking again cannot help. */
function refusal(error: unknown): boolean {
  const status = (error as { status?: unknown; code?: unknown } | null)?.status;
  const code = (error as { code?: unknown } | null)?.code;
  return [401, 403].includes(Number(status)) || [401, 403].includes(Number(code));
}

/** Wait before the n-th reconnection (0-based): 1 s, 2 s, 4 s … capped at 30 s. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt));
}

/** Close codes after which reconnecting cannot help (the backend refused the token). */
const FINAL_CODES = new Set([4401, 4403]);

export interface FeedOptions {
  /** The socket's URL, made at each (re)connection (a fresh ticket each time, asked with the current token). */
  url: string | (() => string | Promise<string>);
  onMessage: (message: unknown) => void;
  onStatus: (status: FeedStatus) => void;
  /** Called when the server refuses the token: the caller signs out or refreshes. */
  onRefused?: () => void;
  /** Seconds between keep-alive pings (proxies close silent sockets). */
  pingS?: number;
  createSocket?: (url: string) => WebSocket;
}

/**
 * One connection to the live feed that reconnects with back-off after a drop, and pings to keep proxies from
 * closing it. On each (re)connection the server sends a snapshot first, so nothing is missed while away.
 */
export class LiveFeed {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private ping: ReturnType<typeof setInterval> | null = null;
  private stopped = false;

  constructor(private readonly opts: FeedOptions) {}

  start(): void {
    this.stopped = false;
    this.connect();
  }

  private connect(): void {
    const { opts } = this;
    opts.onStatus('connecting');
    const made = typeof opts.url === 'function' ? opts.url() : opts.url;
    if (typeof made === 'string') {
      this.open(made);
      return;
    }
    made.then(
      (url) => {
        if (!this.stopped) this.open(url);
      },
      (error: unknown) => {
        if (this.stopped) return;
        opts.onStatus('closed');
        if (refusal(error)) {
          opts.onRefused?.();
          return;
        }
        this.retry = setTimeout(() => this.connect(), backoffMs(this.attempt++));
      },
    );
  }

  private open(url: string): void {
    const { opts } = this;
    const socket = (opts.createSocket ?? ((u) => new WebSocket(u)))(url);
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      opts.onStatus('open');
      this.ping = setInterval(() => {
        if (socket.readyState === WebSocket.OPEN) socket.send('ping');
      }, (opts.pingS ?? 25) * 1000);
    };
    socket.onmessage = (event: MessageEvent) => {
      if (typeof event.data !== 'string') return;
      try {
        opts.onMessage(JSON.parse(event.data));
      } catch {
        // not JSON: nothing the page can use
      }
    };
    socket.onclose = (event: CloseEvent) => {
      this.clearPing();
      this.socket = null;
      if (this.stopped) return;
      opts.onStatus('closed');
      if (FINAL_CODES.has(event.code)) {
        opts.onRefused?.();
        return;
      }
      this.retry = setTimeout(() => this.connect(), backoffMs(this.attempt++));
    };
  }

  private clearPing(): void {
    if (this.ping !== null) clearInterval(this.ping);
    this.ping = null;
  }

  stop(): void {
    this.stopped = true;
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
    this.clearPing();
    this.socket?.close();
    this.socket = null;
  }
}
