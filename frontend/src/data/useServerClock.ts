import { useQuery } from '@tanstack/react-query';
import { getIpOffset } from '../api/menu';
import { clockSkew } from './serverTime';

/** Where the tenant's zone is when the server has not said yet: China (the product's home). */
export const DEFAULT_OFFSET = 480;

/**
 * The server's clock (`getIpOffset`): the tenant zone's offset east of UTC in minutes and the difference between the
 * server's clock and this browser's. One query for the sidebar clock, the greeting and the live pages.
 */
export function useServerClock(): { offset: number; skew: number; now: () => number; known: boolean } {
  const { data } = useQuery({
    queryKey: ['server-time'],
    queryFn: async () => {
      const sent = Date.now();
      const answer = await getIpOffset();
      // assume the server read its clock half-way through the round trip
      const received = Date.now();
      if (!answer) throw new Error('the server answered no clock'); // the query retries
      return { skew: clockSkew(answer.timestamp, (sent + received) / 2), offset: answer.offset };
    },
    staleTime: 10 * 60_000,
    refetchInterval: 10 * 60_000,
  });
  const skew = data?.skew ?? 0;
  return { offset: data?.offset ?? DEFAULT_OFFSET, skew, now: () => Date.now() + skew, known: !!data };
}
