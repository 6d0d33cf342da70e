import { defineResource } from '../types';
import { orDash, requestColumns, serverColumns } from './logCommon';

export const LOG_API_PATH = '/monitor/log/api';

/**
 * The API log (系统监控 → 接口日志): every mutating call, who made it, its parameters (passwords and secrets
 * masked), its status and how long it took (`/api/blade-log/api`). Read-only: the server writes it.
 */
export default defineResource({
  code: 'log_api',
  resource: 'log_api',
  title: 'log.apiTitle',
  labelField: 'requestUri',
  detailWidth: 760,
  columns: [
    ...requestColumns(),
    { prop: 'status', label: 'log.status', width: 80, format: orDash },
    { prop: 'time', label: 'log.time', width: 100, format: (value, _row, t) => (typeof value === 'number' ? t('log.ms', { ms: value }) : '-') },
    { prop: 'title', label: 'log.title', search: true, searchOrder: 1, width: 220, ellipsis: true, format: orDash },
    ...serverColumns(),
  ],
});
