import { QueryClient } from '@tanstack/react-query';
import { loadedQueries } from './loadedQueries';

/** The cache of server data, loaded with the signed-in shell (Layout): the login page goes without it. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});
loadedQueries.client = queryClient;
