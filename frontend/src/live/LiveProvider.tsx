import { useEffect, useState, type ReactNode } from 'react';
import { useSession } from '../store/session';
import { LiveHubContext } from './context';
import { LiveHub } from './hub';

/**
 * The live feed of the signed-in shell: one socket for every page that shows live data (`useLive`). It opens when
 * a page first asks for it and closes on sign-out (and when the shell goes: the login and lock pages).
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const { token } = useSession();
  const [hub] = useState(() => new LiveHub());
  useEffect(() => hub.setToken(token), [hub, token]);
  // the shell goes (sign-out, lock): the socket closes and what it held is forgotten
  useEffect(() => () => hub.setToken(null), [hub]);
  return <LiveHubContext value={hub}>{children}</LiveHubContext>;
}
