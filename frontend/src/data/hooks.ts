import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { Params } from '../api/request';
import type { ResourceConfig, Row } from '../resources/types';
import { dataProvider, type CustomCall, type ListSource, type SaveMode } from './provider';

/**
 * The data hooks of the pages, over the one data provider (`provider.ts`). Query keys: `['crud', code, …]` for a
 * resource's lists and rows, so that one invalidation refreshes every list of the resource wherever it shows.
 */

type Keyed = ListSource & Pick<ResourceConfig, 'code'>;

export const listKey = (config: Keyed, params: Params) => ['crud', config.code, config.api.list, params] as const;
export const oneKey = (config: Pick<ResourceConfig, 'code'>, id: string | undefined) => ['crud', config.code, 'detail', id] as const;

/** Refreshes the resource's lists and rows, and the trees and selects that may show its rows elsewhere. */
export function invalidateResource(client: QueryClient, code: string): Promise<unknown> {
  return Promise.all([
    client.invalidateQueries({ queryKey: ['crud', code] }),
    client.invalidateQueries({ queryKey: ['tree'] }),
    client.invalidateQueries({ queryKey: ['options'] }),
  ]);
}

/** A list of the resource with `params`; the previous rows stay on screen while new parameters load. */
export function useList(config: Keyed, params: Params, options: { enabled?: boolean } = {}) {
  const query = useQuery({
    queryKey: listKey(config, params),
    queryFn: () => dataProvider.list(config, params),
    placeholderData: keepPreviousData,
    enabled: options.enabled ?? true,
  });
  return { ...query, rows: query.data?.rows ?? EMPTY, total: query.data?.total ?? 0 };
}

const EMPTY: Row[] = [];

/** One row by id (none asked without an id). */
export function useOne(config: Pick<ResourceConfig, 'code' | 'api'>, id: string | undefined) {
  return useQuery({
    queryKey: oneKey(config, id),
    queryFn: () => dataProvider.one(config, id!),
    enabled: !!id,
    staleTime: 0,
  });
}

/** Saves a row (create or update); the resource's lists refresh after. */
export function useSave(config: Pick<ResourceConfig, 'code' | 'api'>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ mode, payload }: { mode: SaveMode; payload: Row }) =>
      mode === 'update' ? dataProvider.update(config, payload) : dataProvider.create(config, payload),
    // the lists refresh in the background: the caller goes on at once
    onSuccess: () => void invalidateResource(client, config.code),
  });
}

/** Deletes rows by id; the resource's lists refresh after. */
export function useRemove(config: Pick<ResourceConfig, 'code' | 'api'>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[]) => dataProvider.remove(config, ids),
    onSuccess: () => void invalidateResource(client, config.code),
  });
}

/**
 * Another call of the resource `code` (an action: bind, unbind, a row action); its lists refresh after, with those
 * of the resources in `alsoInvalidate` (e.g. the vehicles whose fence count changed).
 */
export function useCustom<T = unknown>(code: string, alsoInvalidate: string[] = []) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ path, ...call }: CustomCall & { path: string }) => dataProvider.custom<T>(path, call),
    onSuccess: () => {
      for (const c of [code, ...alsoInvalidate]) void invalidateResource(client, c);
    },
  });
}
