import dayjs, { type Dayjs } from 'dayjs';
import { website } from '../../config/website';
import type { Column, ResourceConfig, Row } from '../../resources/types';

export type Values = Record<string, unknown>;

export function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0 || value.every(isEmpty);
  return false;
}

function isDayjs(value: unknown): value is Dayjs {
  return dayjs.isDayjs(value);
}

function formatDate(value: unknown, type: Column['type']): string {
  const format = type === 'date' ? website.dateFormat : website.dateTimeFormat;
  if (isDayjs(value)) return value.format(format);
  return String(value);
}

/**
 * The write actions a resource's API has calls for: a read-only resource (no `submit`/`remove`) shows no add, edit
 * or delete, whatever buttons the user holds. A page of its own (`editRoute`) stands in for `submit`.
 */
export function availableActions(config: Pick<ResourceConfig, 'api' | 'editRoute'>): Record<'add' | 'edit' | 'delete', boolean> {
  const { api, editRoute } = config;
  return {
    add: !!(api.create ?? api.submit ?? editRoute),
    edit: !!(api.submit ?? editRoute),
    delete: !!api.remove,
  };
}

/** The search fields of a page, in their `searchOrder` (else in the order of the columns). */
export function searchFields(columns: Column[]): Column[] {
  return columns
    .map((column, index) => ({ column, order: column.searchOrder ?? index }))
    .filter(({ column }) => column.search && !column.hideInSearch)
    .sort((a, b) => a.order - b.order)
    .map(({ column }) => column);
}

export function searchKey(column: Column): string {
  return column.searchParam ?? column.prop;
}

/**
 * Query parameters of a search: empty values are dropped, ranges become `<prop>_dategt` / `<prop>_datelt`
 * (`YYYY-MM-DD HH:mm:ss`), multiple values are comma-joined.
 */
export function buildSearchParams(values: Values, columns: Column[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const column of columns) {
    const value = values[column.prop];
    if (isEmpty(value)) continue;
    if (column.searchRange) {
      const [from, to] = Array.isArray(value) ? value : [];
      if (!isEmpty(from)) out[`${column.prop}_dategt`] = dayjsValue(from).format(website.dateTimeFormat);
      if (!isEmpty(to)) out[`${column.prop}_datelt`] = dayjsValue(to).format(website.dateTimeFormat);
      continue;
    }
    const key = searchKey(column);
    if (Array.isArray(value)) out[key] = value.filter((v) => !isEmpty(v)).map(String).join(',');
    else if (isDayjs(value)) out[key] = formatDate(value, column.type);
    else out[key] = typeof value === 'string' ? value.trim() : String(value);
  }
  return out;
}

function dayjsValue(value: unknown): Dayjs {
  return isDayjs(value) ? value : dayjs(String(value));
}

export function splitIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String).filter(Boolean);
  if (isEmpty(value)) return [];
  return String(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** True for the switch's "on" value (1, "1", true). */
export function isOn(value: unknown): boolean {
  return value === 1 || value === '1' || value === true;
}

/** BladeX stores "no parent" as 0 (and a null number as -1). */
export function isNoParent(value: unknown): boolean {
  return value === 0 || value === '0' || value === -1 || value === '-1';
}

/** Row (server shape) → form values. */
export function toFormValues(row: Row, columns: Column[]): Values {
  const out: Values = { ...row };
  for (const c of columns) {
    const value = row[c.prop];
    switch (c.type) {
      case 'date':
      case 'datetime':
        out[c.prop] = isEmpty(value) ? undefined : dayjs(String(value));
        break;
      case 'switch':
        out[c.prop] = isOn(value);
        break;
      case 'number':
        out[c.prop] = isEmpty(value) ? undefined : Number(value);
        break;
      case 'tree':
      case 'select':
      case 'dict':
        if (c.multiple) out[c.prop] = splitIds(value).filter((v) => !(c.type === 'tree' && isNoParent(v)));
        else if (isEmpty(value) || (c.type === 'tree' && isNoParent(value))) out[c.prop] = undefined;
        else out[c.prop] = String(value);
        break;
      case 'password':
        out[c.prop] = undefined;
        break;
      default:
        break;
    }
  }
  return out;
}

/** Form values → JSON payload of `submit`. */
export function toPayload(values: Values, columns: Column[], editing: Row | null): Row {
  const out: Row = {};
  if (editing?.id) out.id = editing.id;
  for (const c of columns) {
    if (c.hideInForm) continue;
    if (c.readOnly) continue;
    if (c.addOnly && editing) continue;
    const value = values[c.prop];
    if (value === undefined) continue;
    switch (c.type) {
      case 'date':
      case 'datetime':
        out[c.prop] = isEmpty(value) ? '' : formatDate(value, c.type);
        break;
      case 'switch':
        out[c.prop] = value ? 1 : 0;
        break;
      case 'number':
        out[c.prop] = value === null ? null : Number(value);
        break;
      case 'tree':
      case 'select':
      case 'dict':
        if (c.multiple) out[c.prop] = splitIds(value).join(',');
        else if (isEmpty(value)) out[c.prop] = c.valueType === 'number' ? null : '';
        else out[c.prop] = c.valueType === 'number' ? Number(value) : String(value);
        break;
      default:
        out[c.prop] = typeof value === 'string' ? value.trim() : value;
    }
  }
  return out;
}

/**
 * Form values of a new record: the column defaults (the server's default `3` of a dictionary field becomes the
 * option `'3'`, `0` of a switch `false`) and the given values over them.
 */
export function initialValues(columns: Column[], extra: Row = {}): Values {
  const defaults: Row = {};
  for (const c of columns) if (c.defaultValue !== undefined && !c.readOnly) defaults[c.prop] = c.defaultValue;
  const given = columns.filter((c) => c.prop in extra);
  return {
    ...toFormValues(defaults, columns.filter((c) => c.prop in defaults)),
    ...toFormValues(extra, given),
  };
}

/** Removes empty `children` arrays so antd does not draw expand icons on leaves. */
export function pruneTree(rows: Row[]): Row[] {
  return rows.map((row) => {
    const children = row.children as Row[] | undefined;
    if (!Array.isArray(children)) return row;
    if (children.length === 0) {
      const copy = { ...row };
      delete copy.children;
      return copy;
    }
    return { ...row, children: pruneTree(children) };
  });
}

export interface ListResult {
  rows: Row[];
  total: number;
}

/** A list answer is either a page (records/total) or an array (tree or plain list). */
export function normalizeList(data: unknown): ListResult {
  if (Array.isArray(data)) return { rows: pruneTree(data as Row[]), total: data.length };
  if (data && typeof data === 'object' && Array.isArray((data as { records?: unknown }).records)) {
    const page = data as { records: Row[]; total?: number | string };
    return { rows: pruneTree(page.records), total: Number(page.total ?? page.records.length) };
  }
  return { rows: [], total: 0 };
}

/** Keys of every row that has children (for "expand all"). */
export function parentKeys(rows: Row[]): string[] {
  const out: string[] = [];
  const walk = (list: Row[]) => {
    for (const r of list) {
      const children = r.children as Row[] | undefined;
      if (children && children.length) {
        out.push(String(r.id));
        walk(children);
      }
    }
  };
  walk(rows);
  return out;
}

/** CSV of the given rows (RFC 4180 quoting, BOM for spreadsheet programs). */
export function toCsv(header: string[], rows: string[][]): string {
  const quote = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  return '\ufeff' + [header, ...rows].map((r) => r.map(quote).join(',')).join('\r\n');
}
