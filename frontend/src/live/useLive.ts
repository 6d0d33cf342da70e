import { startTransition, use, useEffect, useState, useSyncExternalStore } from 'react';
import { LiveHubContext } from './context';
import type { LiveSnapshot } from './store';
import type { FeedStatus } from './types';

/**
 * The live feed while the calling page is mounted: the vehicles and alarms it has sent, and the connection's
 * state. Every page shares the shell's one socket (`LiveProvider`).
 *
 * A new snapshot reaches the page as a transition: React renders it in slices of a few milliseconds, yielding to
 * input and painting in between, so that a fleet of thousands does not block the page for the length of a render
 * (`useSyncExternalStore` would render it in one go). The connection's state stays synchronous.
 */
export function useLive(): { live: LiveSnapshot; status: FeedStatus } {
  const hub = use(LiveHubContext);
  if (!hub) throw new Error('useLive needs the LiveProvider of the signed-in shell');
  useEffect(() => hub.acquire(), [hub]);
  const [live, setLive] = useState(hub.getSnapshot);
  useEffect(() => {
    const update = () => startTransition(() => setLive(hub.getSnapshot()));
    update(); // what came between the first render and this subscription
    return hub.subscribe(update);
  }, [hub]);
  const status = useSyncExternalStore(hub.subscribeStatus, hub.getStatus, hub.getStatus);
  return { live, status };
}
