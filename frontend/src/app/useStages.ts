import { startTransition, useEffect, useState } from 'react';

/** The longest a step waits for a frame: a hidden tab paints none. */
const FRAME_WAIT_MS = 100;

/**
 * Mounts a page in steps: returns 0 until `start`, then 1, 2, … `count`, one step per task of the browser (each step
 * a transition of its own). A part shown from step n renders and commits in its own task instead of all parts in one
 * long one: the main thread stays free for input between them (a first load of the shell and a page is 150 ms of
 * script on a small machine; in steps no single task holds the thread for long). Once at `count` it stays there.
 *
 * Each step waits until the browser has painted a frame since the last one (or FRAME_WAIT_MS): the page is then laid
 * out, and a part that measures itself as it mounts (tabs, a menu's overflow) lays out only itself, not the whole page
 * that the previous step changed (a forced layout of the monitor's page inside the tab bar's commit was 25 ms).
 */
export function useStages(count: number, start = true): number {
  const [stage, setStage] = useState(0);
  useEffect(() => {
    if (!start || stage >= count) return;
    let step: ReturnType<typeof setTimeout> | undefined;
    let frame: number | undefined;
    const next = () => {
      clearTimeout(fallback);
      if (frame !== undefined) cancelAnimationFrame(frame);
      // a task after the frame's callbacks: after its paint
      step ??= setTimeout(() => startTransition(() => setStage((s) => Math.min(count, s + 1))), 0);
    };
    const fallback = setTimeout(next, FRAME_WAIT_MS);
    if (typeof requestAnimationFrame === 'function') frame = requestAnimationFrame(next);
    return () => {
      clearTimeout(fallback);
      if (frame !== undefined) cancelAnimationFrame(frame);
      clearTimeout(step);
    };
  }, [start, stage, count]);
  return stage;
}
