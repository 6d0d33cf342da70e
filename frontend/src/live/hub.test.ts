import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveHub } from './hub';

/** A stand-in WebSocket the test opens, feeds and closes. */
class FakeSocket {
  static all: FakeSocket[] = [];
  readyState = 0;
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send() {}
  close() {
    this.closed = true;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  push(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
}

const open = () => FakeSocket.all.filter((s) => !s.closed);

function hub(idleMs = 1000) {
  return new LiveHub({
    url: (token) => `ws://x/live?t=${token}`,
    createSocket: (url) => new FakeSocket(url) as unknown as WebSocket,
    idleMs,
    notifyMs: 10,
  });
}

describe('LiveHub: one socket for the signed-in app', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.all = [];
  });
  afterEach(() => vi.useRealTimers());

  it('connects when the first page needs it, shares the socket, closes a while after the last page goes', () => {
    const h = hub();
    h.setToken('A');
    expect(FakeSocket.all).toHaveLength(0); // no page needs it yet
    const monitor = h.acquire();
    const other = h.acquire();
    expect(FakeSocket.all).toHaveLength(1);
    expect(FakeSocket.all[0].url).toBe('ws://x/live?t=A');
    FakeSocket.all[0].open();
    expect(h.getStatus()).toBe('open');
    monitor();
    other();
    other(); // a second release changes nothing
    vi.advanceTimersByTime(999);
    expect(open()).toHaveLength(1);
    // back within the idle time: the same socket
    const again = h.acquire();
    vi.advanceTimersByTime(5000);
    expect(FakeSocket.all).toHaveLength(1);
    again();
    vi.advanceTimersByTime(1000);
    expect(open()).toHaveLength(0);
    expect(h.getStatus()).toBe('closed');
  });

  it('waits for the token when a page comes first, and closes and forgets on sign-out', () => {
    const h = hub();
    h.acquire();
    expect(FakeSocket.all).toHaveLength(0);
    h.setToken('A');
    expect(FakeSocket.all).toHaveLength(1);
    FakeSocket.all[0].open();
    FakeSocket.all[0].push({ type: 'snapshot', data: [{ carId: '1', alarms: [] }] });
    vi.advanceTimersByTime(10);
    expect(h.getSnapshot().vehicles.size).toBe(1);
    // a refreshed token does not reconnect
    h.setToken('B');
    expect(FakeSocket.all).toHaveLength(1);
    h.setToken(null);
    expect(open()).toHaveLength(0);
    expect(h.getSnapshot().vehicles.size).toBe(0);
    expect(h.getStatus()).toBe('closed');
  });

  it('reconnects with the current token after a drop, and after a refusal once a new token comes', () => {
    const h = hub();
    h.setToken('A');
    h.acquire();
    FakeSocket.all[0].open();
    h.setToken('B');
    FakeSocket.all[0].onclose?.({ code: 1006 });
    vi.advanceTimersByTime(1000);
    expect(FakeSocket.all[1].url).toBe('ws://x/live?t=B');
    FakeSocket.all[1].onclose?.({ code: 4401 });
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(2); // refused: no retry with the same token
    h.setToken('C');
    expect(FakeSocket.all[2].url).toBe('ws://x/live?t=C');
  });

  it('asks for a ticket before each connection: a failure retries with back-off, a refusal waits for a new token', async () => {
    const asked: string[] = [];
    let failure: unknown = null;
    const h = new LiveHub({
      url: async (token) => {
        asked.push(token);
        if (failure) throw failure;
        return `ws://x/live?ticket=${token}${asked.length}`;
      },
      createSocket: (url) => new FakeSocket(url) as unknown as WebSocket,
      idleMs: 1000,
      notifyMs: 10,
    });
    h.setToken('A');
    failure = Object.assign(new Error('offline'), { status: 0 });
    h.acquire();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.all).toHaveLength(0);
    expect(h.getStatus()).toBe('closed');
    failure = null;
    await vi.advanceTimersByTimeAsync(1000); // the first back-off
    expect(FakeSocket.all.map((s) => s.url)).toEqual(['ws://x/live?ticket=A2']);
    // the ticket is refused (the user lost the monitor's menu): no retry until a new token comes
    failure = Object.assign(new Error('refused'), { status: 403 });
    FakeSocket.all[0].onclose?.({ code: 1006 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(asked).toEqual(['A', 'A', 'A']);
    expect(h.connected).toBe(false);
    failure = null;
    h.setToken('B');
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.all.at(-1)?.url).toBe('ws://x/live?ticket=B4');
  });
});
