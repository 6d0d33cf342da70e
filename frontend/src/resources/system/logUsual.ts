import { createElement } from 'react';
import { Tag } from 'antd';
import { defineResource } from '../types';
import { orDash, preText } from './logCommon';

export const LOG_USUAL_PATH = '/monitor/log/usual';

const LEVEL_COLORS: Record<string, string> = { error: 'red', warn: 'orange', warning: 'orange', info: 'blue', debug: 'default' };

/**
 * The usual log (系统监控 → 通用日志): entries of level and data, among them the web app's own error log as it
 * uploads it (service `web`) (`/api/blade-log/usual`). Read-only.
 */
export default defineResource({
  code: 'log_usual',
  resource: 'log_usual',
  title: 'log.usualTitle',
  labelField: 'logId',
  detailWidth: 760,
  columns: [
    { prop: 'createTime', label: 'log.createTime', type: 'datetime', search: true, searchRange: true, searchOrder: 4, width: 170 },
    { prop: 'createBy', label: 'log.createBy', search: true, searchOrder: 2, width: 110, format: orDash },
    {
      prop: 'logLevel',
      label: 'log.level',
      search: true,
      searchOrder: 3,
      width: 90,
      format: (value) => (value ? createElement(Tag, { color: LEVEL_COLORS[String(value).toLowerCase()] ?? 'default' }, String(value)) : '-'),
    },
    { prop: 'serviceId', label: 'log.serviceId', width: 100, format: orDash },
    { prop: 'logId', label: 'log.logId', search: true, searchOrder: 1, width: 120, format: orDash },
    { prop: 'requestUri', label: 'log.requestUri', width: 220, ellipsis: true, format: orDash },
    { prop: 'remoteIp', label: 'log.remoteIp', width: 130, format: orDash },
    { prop: 'id', label: 'log.id', hideInTable: true },
    { prop: 'tenantId', label: 'log.tenantId', hideInTable: true },
    { prop: 'userAgent', label: 'log.userAgent', hideInTable: true, format: orDash },
    { prop: 'logData', label: 'log.logData', hideInTable: true, format: preText },
  ],
});
