import { useEffect, useState, useSyncExternalStore } from 'react';
import { useSession } from '../store/session';
import { LiveFeed, liveUrl } from './feed';
import { LiveStore, type LiveSnapshot } from './store';
import type { FeedStatus } from './types';

/**
 * The live feed for the signed-in user while the calling page is mounted: the vehicles and alarms it has sent, and
 * the connection's state. A new access token (refresh) reconnects with it.
 */
export function useLive(): { live: LiveSnapshot; status: FeedStatus } {
  const { token } = useSession();
  const [store] = useState(() => new LiveStore());
  const [status, setStatus] = useState<FeedStatus>('connecting');
  const live = useSyncExternalStore(store.subscribe, store.get, store.get);

  useEffect(() => {
    if (!token) return;
    const feed = new LiveFeed({ url: liveUrl(token), onMessage: (m) => store.apply(m), onStatus: setStatus });
    feed.start();
    return () => feed.stop();
  }, [token, store]);

  useEffect(() => () => store.dispose(), [store]);
  return { live, status };
}
