import { get, post, request, type Params } from '../api/request';
import { normalizeList, type ListResult } from '../components/crud/values';
import type { ResourceConfig, Row } from '../resources/types';

/**
 * The one data provider of the pages (the refine / Ant Design Pro idea): every call a list page makes, as functions
 * of a resolved resource config (`resources/resolve.ts`: paths and methods from the server manifest) over
 * `api/request.ts`. The hooks of `data/hooks.ts` put them on TanStack Query; a page never builds a call itself.
 */

/** What a list call needs of a config: its calls and how `list` is called. */
export type ListSource = Pick<ResourceConfig, 'api' | 'listMethod'>;

/** A save: `create` posts to the resource's create call (else its submit), `update` to its submit. */
export type SaveMode = 'create' | 'update';

export interface CustomCall {
  method?: 'GET' | 'POST';
  /** Query parameters. */
  params?: Params;
  /** JSON body. */
  data?: unknown;
  /** No toast on failure (the caller shows it). */
  silent?: boolean;
}

export class ProviderError extends Error {}

/** A page (records and total) or a tree / plain list of the resource, with `params` (filters, paging). */
export async function list(config: ListSource, params: Params = {}): Promise<ListResult> {
  const data =
    config.listMethod === 'POST' ? await post<unknown>(config.api.list, undefined, { params }) : await get<unknown>(config.api.list, params);
  return normalizeList(data);
}

/** One row by id (the resource's detail call). */
export function one(config: Pick<ResourceConfig, 'api'>, id: string): Promise<Row> {
  return get<Row>(config.api.detail, { id });
}

/** The call a save of `mode` posts to, or undefined for a resource that has none (read-only). */
export function saveUrl(config: Pick<ResourceConfig, 'api'>, mode: SaveMode): string | undefined {
  return mode === 'update' ? config.api.submit : (config.api.create ?? config.api.submit);
}

/** A refusal of a save (400) is the form's to show: it names the field by its label, once (``FormDialog``). */
const FORM_REFUSAL = { whitelist: [400] };

/** A new row (JSON body). */
export function create(config: Pick<ResourceConfig, 'api'>, payload: Row): Promise<unknown> {
  const url = saveUrl(config, 'create');
  if (!url) return Promise.reject(new ProviderError('the resource has no create call'));
  return post(url, payload, FORM_REFUSAL);
}

/** A changed row (JSON body with its id). */
export function update(config: Pick<ResourceConfig, 'api'>, payload: Row): Promise<unknown> {
  const url = saveUrl(config, 'update');
  if (!url) return Promise.reject(new ProviderError('the resource has no update call'));
  return post(url, payload, FORM_REFUSAL);
}

/** Deletes rows by id (`ids=1,2` in the query, BladeX's remove). */
export async function remove(config: Pick<ResourceConfig, 'api'>, ids: string[]): Promise<void> {
  const url = config.api.remove;
  if (!url) throw new ProviderError('the resource has no remove call');
  if (ids.length === 0) throw new ProviderError('nothing to remove');
  await request(url, { method: 'POST', params: { ids: ids.join(',') } });
}

/** Any other call of a resource (an action of the manifest: bind, a row action, a read): the envelope's `data`. */
export function custom<T = unknown>(path: string, call: CustomCall = {}): Promise<T> {
  const { method = 'GET', params, data, silent } = call;
  if (method === 'GET') return get<T>(path, params, { silent });
  return post<T>(path, data, { params, silent });
}

export const dataProvider = { list, one, create, update, remove, custom };
export type DataProvider = typeof dataProvider;
