import { defineResource } from '../types';

export const NOTICE_PATH = '/desk/notice';

/**
 * Notices (消息通知 → 通知公告, `/api/blade-desk/notice`): saving a new one publishes it, every user of the tenant gets
 * an in-site message about it (the top bar's bell); editing it does not send it again, deleting it withdraws them.
 */
export default defineResource({
  code: 'notice',
  resource: 'notice',
  title: 'resource.notice',
  labelField: 'title',
  columns: [
    { prop: 'title', label: 'notice.title', search: true, width: 240, ellipsis: true },
    { prop: 'category', label: 'notice.category', search: true, searchParam: 'category_equal', width: 110 },
    { prop: 'releaseTime', label: 'notice.releaseTime', type: 'datetime', search: true, searchRange: true, width: 170, extra: 'notice.releaseHelp' },
    { prop: 'content', label: 'notice.content', type: 'textarea', wide: true, hideInTable: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', hideInForm: true, width: 170 },
  ],
});
