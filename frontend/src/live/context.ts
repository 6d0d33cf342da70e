import { createContext } from 'react';
import type { LiveHub } from './hub';

/** The shell's live hub (`LiveProvider`); null outside the signed-in shell. */
export const LiveHubContext = createContext<LiveHub | null>(null);
