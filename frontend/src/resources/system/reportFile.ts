import { defineResource } from '../types';

export const REPORT_FILE_PATH = '/tool/report';

/**
 * 研发工具 → 报表管理 (`/api/blade-report/report/rest`): the report definitions the report designer saved, listed,
 * opened and removed. The platform administrator's.
 */
export default defineResource({
  code: 'report_file',
  resource: 'report_file',
  title: 'resource.reportFile',
  detailWidth: 760,
  columns: [
    { prop: 'name', label: 'reportFile.name', search: true },
    { prop: 'content', label: 'reportFile.content', type: 'textarea', hideInTable: true, hideInSearch: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, hideInSearch: true, width: 170 },
    { prop: 'updateTime', label: 'reportFile.updateTime', type: 'datetime', readOnly: true, hideInSearch: true, width: 170 },
  ],
});
