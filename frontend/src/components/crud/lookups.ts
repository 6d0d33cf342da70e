import { useQueries, useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { getDictionary, getTree } from '../../api/dict';
import { dictLabel } from '../../i18n/dictLabel';
import { get } from '../../api/request';
import type { TreeNode } from '../../api/types';
import type { Column, Row } from '../../resources/types';
import { isEmpty, isNoParent, isOn, splitIds } from './values';

const FIVE_MINUTES = 5 * 60_000;

export function dictQuery(code: string, biz = false) {
  return {
    queryKey: ['dict', biz ? 'biz' : 'system', code],
    queryFn: () => getDictionary(code, biz),
    staleTime: FIVE_MINUTES,
  };
}

export function useDict(code: string, biz = false) {
  return useQuery(dictQuery(code, biz));
}

/** A dictionary's entries as options (value = key), labelled in the UI language (`dictLabel`). */
export function useDictOptions(code: string, biz = false): { options: { value: string; label: string }[]; isLoading: boolean } {
  const { t } = useTranslation();
  const { data, isLoading } = useDict(code, biz);
  const options = (data ?? []).map((d) => ({ value: String(d.dictKey), label: dictLabel(t, code, d.dictKey, d.dictValue) }));
  return { options, isLoading };
}

export function treeQuery(url: string) {
  return { queryKey: ['tree', url], queryFn: () => getTree(url), staleTime: 60_000 };
}

export function remoteQuery(remote: NonNullable<Column['remote']>) {
  return {
    queryKey: ['options', remote.url, remote.params ?? {}],
    queryFn: () => get<Row[]>(remote.url, remote.params),
    staleTime: 60_000,
  };
}

export type Lookups = Record<string, Map<string, string>>;

export function flattenTree(nodes: TreeNode[] | undefined, into = new Map<string, string>()): Map<string, string> {
  for (const node of nodes ?? []) {
    into.set(String(node.value ?? node.id), node.title);
    if (node.children) flattenTree(node.children, into);
  }
  return into;
}

/** Value → label maps of the dict, tree and remote-select columns (shared caches with the form fields). */
export function useColumnLookups(columns: Column[], t: TFunction): Lookups {
  const sources = columns.filter((c) => c.dictCode || c.treeUrl || c.remote);
  const results = useQueries({
    queries: sources.map((c) => {
      if (c.dictCode) return dictQuery(c.dictCode, c.dictBiz);
      if (c.treeUrl) return treeQuery(c.treeUrl);
      return remoteQuery(c.remote!);
    }),
  });
  const lookups: Lookups = {};
  sources.forEach((c, i) => {
    const data = results[i]?.data as unknown;
    const map = new Map<string, string>();
    if (c.dictCode)
      for (const d of (data as { dictKey: string; dictValue: string }[] | undefined) ?? [])
        map.set(String(d.dictKey), dictLabel(t, c.dictCode, d.dictKey, d.dictValue));
    else if (c.treeUrl) flattenTree(data as TreeNode[] | undefined, map);
    else if (c.remote) for (const r of (data as Row[] | undefined) ?? []) map.set(String(r[c.remote.valueKey]), String(r[c.remote.labelKey] ?? ''));
    lookups[c.prop] = map;
  });
  for (const c of columns) {
    if (c.options) lookups[c.prop] = new Map(c.options.map((o) => [String(o.value), t(o.label)]));
  }
  return lookups;
}

/** The text of a cell, a detail row or a CSV field. */
export function displayValue(column: Column, row: Row, lookups: Lookups, t: TFunction): ReactNode {
  const value = row[column.prop];
  if (column.format) return column.format(value, row, (k, options) => (options ? t(k, options) : t(k)));
  if (column.type === 'password') return '••••••';
  if (column.type === 'switch') return isOn(value) ? t('common.yes') : t('common.no');
  // a row at the top of a tree has no parent: its "parent" 0 is no row to name
  if (column.type === 'tree' && !column.multiple && column.prop === 'parentId' && (isEmpty(value) || isNoParent(value))) return t('crud.topLevel');
  const shown = column.displayProp && !isEmpty(row[column.displayProp]) ? String(row[column.displayProp]) : undefined;
  // a dictionary value in the UI language, whatever text the row carries with it (the server's is Chinese)
  if (column.dictCode && !isEmpty(value)) {
    const map = lookups[column.prop];
    const keys = splitIds(value);
    return keys.map((k) => map?.get(k) ?? dictLabel(t, column.dictCode!, k, keys.length === 1 && shown ? shown : k)).join(', ');
  }
  if (shown !== undefined) return shown;
  if (isEmpty(value)) return '';
  const map = lookups[column.prop];
  if (map) {
    return splitIds(value)
      .map((id) => map.get(id) ?? id)
      .join(', ');
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function displayText(column: Column, row: Row, lookups: Lookups, t: TFunction): string {
  const node = displayValue(column, row, lookups, t);
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  // a custom cell (e.g. a tag): the option's label when there is one, else the raw value
  const value = row[column.prop];
  const map = lookups[column.prop];
  if (map && !isEmpty(value))
    return splitIds(value)
      .map((id) => map.get(id) ?? id)
      .join(', ');
  return String(value ?? '');
}
