import { use, useEffect, useSyncExternalStore } from 'react';
import { LiveHubContext } from './context';
import type { LiveSnapshot } from './store';
import type { FeedStatus } from './types';

/**
 * The live feed while the calling page is mounted: the vehicles and alarms it has sent, and the connection's
 * state. Every page shares the shell's one socket (`LiveProvider`).
 */
export function useLive(): { live: LiveSnapshot; status: FeedStatus } {
  const hub = use(LiveHubContext);
  if (!hub) throw new Error('useLive needs the LiveProvider of the signed-in shell');
  useEffect(() => hub.acquire(), [hub]);
  const live = useSyncExternalStore(hub.subscribe, hub.getSnapshot, hub.getSnapshot);
  const status = useSyncExternalStore(hub.subscribeStatus, hub.getStatus, hub.getStatus);
  return { live, status };
}
