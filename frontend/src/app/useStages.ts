import { startTransition, useEffect, useState } from 'react';

/**
 * Mounts a page in steps: returns 0 until `start`, then 1, 2, … `count`, one step per task of the browser (each step
 * a transition of its own). A part shown from step n renders and commits in its own task instead of all parts in one
 * long one: the main thread stays free for input between them (a first load of the shell and a page is 150 ms of
 * script on a small machine; in steps no single task holds the thread for long). Once at `count` it stays there.
 */
export function useStages(count: number, start = true): number {
  const [stage, setStage] = useState(0);
  useEffect(() => {
    if (!start || stage >= count) return;
    const timer = setTimeout(() => startTransition(() => setStage((s) => Math.min(count, s + 1))), 0);
    return () => clearTimeout(timer);
  }, [start, stage, count]);
  return stage;
}
