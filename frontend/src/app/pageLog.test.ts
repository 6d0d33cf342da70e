import { afterEach, describe, expect, it, vi } from 'vitest';
import { DELAY_MS, MAX_BATCH, flushPageLog, flushPageLogOnLeave, logPageVisit, setPageLogSender, type PageVisit } from './pageLog';

describe('page visits', () => {
  afterEach(() => {
    setPageLogSender(undefined);
    vi.useRealTimers();
  });

  it('sends the visits of a few seconds in one call', async () => {
    vi.useFakeTimers();
    const sent: PageVisit[][] = [];
    setPageLogSender(async (logs) => void sent.push(logs));
    logPageVisit('/wel/index', '首页');
    logPageVisit('/system/user', '用户管理');
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(DELAY_MS);
    expect(sent).toEqual([
      [
        { pagePath: '/wel/index', pageName: '首页' },
        { pagePath: '/system/user', pageName: '用户管理' },
      ],
    ]);
  });

  it('sends at once when a batch is full, and drops what fails', async () => {
    const sent: number[] = [];
    setPageLogSender(async (logs) => {
      sent.push(logs.length);
      throw new Error('offline');
    });
    for (let i = 0; i < MAX_BATCH; i += 1) logPageVisit(`/p/${i}`, 'P');
    await Promise.resolve();
    expect(sent).toEqual([MAX_BATCH]);
    await flushPageLog();
    expect(sent).toEqual([MAX_BATCH]);
  });

  it('keeps only route paths, within the server limits', async () => {
    const sent: PageVisit[][] = [];
    setPageLogSender(async (logs) => void sent.push(logs));
    logPageVisit('not-a-path', 'x');
    logPageVisit('/a b', 'n'.repeat(150));
    await flushPageLog();
    expect(sent).toEqual([[{ pagePath: '/ab', pageName: 'n'.repeat(100) }]]);
  });

  it('sends what waits, all of it, in requests that outlive the page when it goes away', async () => {
    vi.useFakeTimers();
    const sent: { n: number; atUnload: boolean }[] = [];
    setPageLogSender(async (logs, atUnload) => void sent.push({ n: logs.length, atUnload }));
    const stop = flushPageLogOnLeave();
    try {
      logPageVisit('/wel/index', '首页');
      expect(sent).toEqual([]);
      window.dispatchEvent(new Event('pagehide'));
      expect(sent).toEqual([{ n: 1, atUnload: true }]);
      // nothing left for the timer
      await vi.advanceTimersByTimeAsync(DELAY_MS);
      expect(sent).toHaveLength(1);
      // hidden (a phone may discard a hidden page without another event)
      logPageVisit('/system/user', '用户管理');
      const visibility = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
      document.dispatchEvent(new Event('visibilitychange'));
      visibility.mockRestore();
      expect(sent).toEqual([
        { n: 1, atUnload: true },
        { n: 1, atUnload: true },
      ]);
      // shown again: nothing to send
      document.dispatchEvent(new Event('visibilitychange'));
      expect(sent).toHaveLength(2);
    } finally {
      stop();
    }
    logPageVisit('/a', 'A');
    window.dispatchEvent(new Event('pagehide'));
    expect(sent).toHaveLength(2); // no longer listening
    await vi.advanceTimersByTimeAsync(DELAY_MS);
    expect(sent).toEqual([
      { n: 1, atUnload: true },
      { n: 1, atUnload: true },
      { n: 1, atUnload: false },
    ]);
  });
});
