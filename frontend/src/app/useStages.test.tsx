import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useStages } from './useStages';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean | undefined;
}

/** Renders a component that shows its stage in a container, and what it showed, render by render. */
function mount(count: number, start: boolean): { root: Root; seen: number[]; rerender: (start: boolean) => void } {
  const seen: number[] = [];
  function Staged({ go }: { go: boolean }) {
    const stage = useStages(count, go);
    seen.push(stage);
    return <span>{stage}</span>;
  }
  const root = createRoot(document.createElement('div'));
  act(() => root.render(<Staged go={start} />));
  return { root, seen, rerender: (go) => act(() => root.render(<Staged go={go} />)) };
}

describe('useStages', () => {
  // the browser's frames, painted when the test says so
  let frames = new Map<number, FrameRequestCallback>();
  let lastId = 0;
  beforeEach(() => {
    globalThis.IS_REACT_ACT_ENVIRONMENT = true;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    frames = new Map();
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => {
      lastId += 1;
      frames.set(lastId, cb);
      return lastId;
    });
    vi.stubGlobal('cancelAnimationFrame', (id: number) => frames.delete(id));
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const paint = (): void =>
    act(() => {
      const due = [...frames.values()];
      frames.clear();
      for (const cb of due) cb(performance.now());
    });
  const tick = (ms: number): void =>
    act(() => {
      vi.advanceTimersByTime(ms);
    });

  it('steps once per painted frame, each step in a task after the frame, and stays at the last', () => {
    const { root, seen } = mount(3, true);
    expect(seen.at(-1)).toBe(0);
    tick(20); // no frame painted yet: no step (it waits up to 100 ms for one)
    expect(seen.at(-1)).toBe(0);
    paint();
    expect(seen.at(-1)).toBe(0); // not inside the frame: in a task after it
    tick(1); // the next task (a timer set inside a timer runs 1 ms later under fake timers)
    expect(seen.at(-1)).toBe(1);
    paint();
    tick(1);
    expect(seen.at(-1)).toBe(2);
    paint();
    tick(1);
    expect(seen.at(-1)).toBe(3);
    paint();
    tick(200);
    expect(seen.at(-1)).toBe(3);
    expect(frames.size).toBe(0); // at the last step it asks for no frame any more
    expect(new Set(seen)).toEqual(new Set([0, 1, 2, 3]));
    act(() => root.unmount());
  });

  it('steps without frames after 100 ms (a hidden tab paints none), and once per step when a frame comes too', () => {
    const { root, seen } = mount(2, true);
    tick(99);
    expect(seen.at(-1)).toBe(0);
    tick(1); // the wait is over: the step is due in the next task, and the frame asked for is no longer wanted
    expect(frames.size).toBe(0);
    paint();
    tick(1);
    expect(seen.at(-1)).toBe(1);
    tick(1);
    expect(seen.at(-1)).toBe(1); // one step, not two
    tick(100);
    tick(1);
    expect(seen.at(-1)).toBe(2);
    act(() => root.unmount());
  });

  it('waits for its start, and leaves nothing behind when unmounted mid-way', () => {
    const { root, seen, rerender } = mount(2, false);
    paint();
    tick(500);
    expect(seen.at(-1)).toBe(0);
    rerender(true);
    paint();
    tick(1);
    expect(seen.at(-1)).toBe(1);
    act(() => root.unmount());
    const rendered = seen.length;
    paint();
    tick(500);
    expect(seen).toHaveLength(rendered);
    expect(vi.getTimerCount()).toBe(0);
  });
});
