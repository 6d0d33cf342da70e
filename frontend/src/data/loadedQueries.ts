import type { QueryClient } from '@tanstack/react-query';

/**
 * The query client once its module (and TanStack Query with it) has loaded, else null: what signs out clears it
 * without loading it (the login page does not need it).
 */
export const loadedQueries: { client: QueryClient | null } = { client: null };
