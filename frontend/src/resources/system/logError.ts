import { createElement } from 'react';
import { action } from '../../api/manifest';
import { defineResource } from '../types';
import { orDash, requestColumns, serverColumns } from './logCommon';

export const LOG_ERROR_PATH = '/monitor/log/error';

/**
 * The error log (系统监控 → 错误日志): every unhandled server error with the request that met it; the 500 answer
 * names its id as "ref". The platform administrator's only; the trace is in the detail (an action of its own).
 */
export default defineResource({
  code: 'log_error',
  resource: 'log_error',
  title: 'log.errorTitle',
  labelField: 'exceptionName',
  api: { detail: action('log_error', 'error_detail') },
  detailWidth: 900,
  columns: [
    ...requestColumns(),
    { prop: 'exceptionName', label: 'log.exceptionName', search: true, searchOrder: 1, width: 220, ellipsis: true, format: orDash },
    { prop: 'message', label: 'log.message', search: true, searchOrder: 5, width: 260, ellipsis: true, format: orDash },
    { prop: 'fileName', label: 'log.fileName', hideInTable: true, format: orDash },
    { prop: 'lineNumber', label: 'log.lineNumber', hideInTable: true, format: orDash },
    ...serverColumns(),
    {
      prop: 'stackTrace',
      label: 'log.stackTrace',
      hideInTable: true,
      hideInSearch: true,
      format: (value) => (value ? createElement('pre', { className: 'command-json log-pre' }, String(value)) : '-'),
    },
  ],
});
