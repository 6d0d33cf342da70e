import { createElement, type ReactNode } from 'react';
import { Tag } from 'antd';
import type { Column } from '../types';

/** A text of the server's, as it is ('-' when empty). */
export const orDash = (value: unknown): string => (value === null || value === undefined || value === '' ? '-' : String(value));

/** JSON text (a call's parameters, a browser error) indented in a <pre>; other text as it is. */
export function preText(value: unknown): ReactNode {
  if (value === null || value === undefined || value === '') return '-';
  let text = String(value);
  try {
    text = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON: shown as it is
  }
  return createElement('pre', { className: 'command-json log-pre' }, text);
}

const METHOD_COLORS: Record<string, string> = { POST: 'blue', PUT: 'orange', PATCH: 'orange', DELETE: 'red', GET: 'green' };

/** The columns every log has: when, who, the request and where it came from. */
export const requestColumns = (): Column[] => [
  { prop: 'createTime', label: 'log.createTime', type: 'datetime', search: true, searchRange: true, searchOrder: 4, width: 170 },
  { prop: 'createBy', label: 'log.createBy', search: true, searchOrder: 2, width: 110, format: orDash },
  {
    prop: 'method',
    label: 'log.method',
    width: 90,
    format: (value) => (value ? createElement(Tag, { color: METHOD_COLORS[String(value)] ?? 'default' }, String(value)) : '-'),
  },
  { prop: 'requestUri', label: 'log.requestUri', search: true, searchOrder: 3, width: 260, ellipsis: true },
  { prop: 'remoteIp', label: 'log.remoteIp', width: 130, format: orDash },
];

/** Where the request was served (detail only). */
export const serverColumns = (): Column[] => [
  { prop: 'id', label: 'log.id', hideInTable: true },
  { prop: 'tenantId', label: 'log.tenantId', hideInTable: true },
  { prop: 'userAgent', label: 'log.userAgent', hideInTable: true, format: orDash },
  { prop: 'methodClass', label: 'log.methodClass', hideInTable: true, format: orDash },
  { prop: 'methodName', label: 'log.methodName', hideInTable: true, format: orDash },
  { prop: 'serverHost', label: 'log.serverHost', hideInTable: true, format: orDash },
  { prop: 'serverIp', label: 'log.serverIp', hideInTable: true, format: orDash },
  { prop: 'env', label: 'log.env', hideInTable: true, format: orDash },
  { prop: 'params', label: 'log.params', hideInTable: true, format: preText },
];
