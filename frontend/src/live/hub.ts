import { apiPost } from '../api/client';
import { LiveFeed, liveUrl, type FeedOptions } from './feed';
import { LiveStore, type LiveSnapshot } from './store';
import type { FeedStatus } from './types';

export interface HubOptions {
  /** How the socket's URL is made for the access token (default: a ticket asked with it, on this page's host). */
  url?: (token: string) => string | Promise<string>;
  createSocket?: FeedOptions['createSocket'];
  /** How long the socket stays open once no page uses it (a page left and come back to keeps its history). */
  idleMs?: number;
  /** Listeners are told at most once per this many ms (see `LiveStore`). */
  notifyMs?: number;
}

/** A single-use ticket for the signed-in user (the request carries their token), and the socket URL with it. */
async function ticketUrl(): Promise<string> {
  const answer = await apiPost('/api/liftdesk/live/ticket', undefined, { silent: true });
  if (!answer) throw new Error('no ticket');
  return liveUrl(answer.ticket);
}

/**
 * The one live connection of the signed-in app: pages `acquire` it while they show live data and read the one
 * store. It connects when a page first needs it (with the current token; a reconnection takes a refreshed one),
 * closes a while after the last page let go, and at once on sign-out (`setToken(null)`), forgetting what it held.
 */
export class LiveHub {
  readonly store: LiveStore;
  private feed: LiveFeed | null = null;
  private token: string | null = null;
  private users = 0;
  private status: FeedStatus = 'closed';
  private idle: ReturnType<typeof setTimeout> | null = null;
  private statusListeners = new Set<() => void>();

  constructor(private readonly opts: HubOptions = {}) {
    this.store = new LiveStore(opts.notifyMs);
  }

  /** The signed-in user's access token, or null once signed out (which closes the socket). */
  setToken(token: string | null): void {
    this.token = token;
    if (!token) {
      this.close();
      this.store.clear();
      return;
    }
    // a page waits for the first token, or a refused token is replaced by a refreshed one: connect
    if (this.users > 0 && !this.feed) this.open();
  }

  /** A page shows live data until the returned function is called. */
  acquire(): () => void {
    this.users += 1;
    this.cancelIdle();
    if (!this.feed) this.open();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.users -= 1;
      if (this.users === 0) this.scheduleIdle();
    };
  }

  get connected(): boolean {
    return this.feed !== null;
  }

  getSnapshot = (): LiveSnapshot => this.store.get();
  subscribe = (listener: () => void): (() => void) => this.store.subscribe(listener);
  getStatus = (): FeedStatus => this.status;
  subscribeStatus = (listener: () => void): (() => void) => {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  };

  private setStatus(status: FeedStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.statusListeners.forEach((l) => l());
  }

  private open(): void {
    if (!this.token) return;
    this.feed?.stop();
    const makeUrl = this.opts.url ?? ticketUrl;
    this.feed = new LiveFeed({
      url: () => makeUrl(this.token ?? ''),
      onMessage: (m) => this.store.apply(m),
      onStatus: (s) => this.setStatus(s),
      // the server refused the token (expired): the next token set connects again
      onRefused: () => {
        this.feed = null;
      },
      createSocket: this.opts.createSocket,
    });
    this.feed.start();
  }

  private close(): void {
    this.cancelIdle();
    this.feed?.stop();
    this.feed = null;
    this.setStatus('closed');
  }

  private scheduleIdle(): void {
    this.cancelIdle();
    this.idle = setTimeout(() => {
      this.idle = null;
      if (this.users === 0) {
        this.close();
        // what is held would be stale by the next use: that one starts from the server's snapshot
        this.store.clear();
      }
    }, this.opts.idleMs ?? 120_000);
  }

  private cancelIdle(): void {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
  }

  dispose(): void {
    this.close();
    this.store.dispose();
    this.statusListeners.clear();
  }
}
