import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { shouldRefresh, startTokenRefresh } from './tokenRefresh';

describe('shouldRefresh', () => {
  it('refreshes once the token age reaches the token time', () => {
    expect(shouldRefresh(3_000_000, 0, 3000, false)).toBe(true);
    expect(shouldRefresh(2_999_999, 0, 3000, false)).toBe(false);
  });
  it('never while a refresh runs or when signed out', () => {
    expect(shouldRefresh(9_000_000, 0, 3000, true)).toBe(false);
    expect(shouldRefresh(9_000_000, undefined, 3000, false)).toBe(false);
  });
});

describe('startTokenRefresh', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('checks every 10 s and refreshes when the token is 3000 s old', async () => {
    let storedAt = 0;
    const refresh = vi.fn(async () => {
      storedAt = Date.now();
    });
    const stop = startTokenRefresh({ storedAt: () => storedAt, refresh });

    await vi.advanceTimersByTimeAsync(2_990_000);
    expect(refresh).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(10_000); // t = 3000 s: the check at that tick refreshes
    expect(refresh).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(60_000); // the new token is young again
    expect(refresh).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2_940_000); // another 3000 s after the refresh
    expect(refresh).toHaveBeenCalledTimes(2);
    stop();
  });

  it('does not start a second refresh while one is running', async () => {
    let finish: () => void = () => undefined;
    const refresh = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const stop = startTokenRefresh({ storedAt: () => 0, refresh });
    await vi.advanceTimersByTimeAsync(3_000_000);
    await vi.advanceTimersByTimeAsync(50_000);
    expect(refresh).toHaveBeenCalledTimes(1);
    finish();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(refresh).toHaveBeenCalledTimes(2);
    stop();
  });

  it('does nothing when signed out, and stops when asked', async () => {
    const refresh = vi.fn(async () => undefined);
    const stop = startTokenRefresh({ storedAt: () => undefined, refresh });
    await vi.advanceTimersByTimeAsync(10_000_000);
    expect(refresh).not.toHaveBeenCalled();
    stop();
    const refresh2 = vi.fn(async () => undefined);
    const stop2 = startTokenRefresh({ storedAt: () => 0, refresh: refresh2 });
    stop2();
    await vi.advanceTimersByTimeAsync(10_000_000);
    expect(refresh2).not.toHaveBeenCalled();
  });
});
