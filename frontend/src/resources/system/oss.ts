import { createElement } from 'react';
import { Tag } from 'antd';
import { action } from '../../api/manifest';
import { defineResource } from '../types';

export const OSS_PATH = '/resource/oss';
/** `status` of the tenant's enabled configuration (BladeX): uploads go there. */
export const OSS_ENABLED = 2;

/**
 * Object storage configurations (`/api/blade-resource/oss`): S3-compatible services (minio, qiniu, aliyun, tencent)
 * a tenant's uploads may go to. One is enabled at a time (启用; none: the server's own disk). The server reads the
 * secret key back as ******: saved unchanged, the stored key is kept.
 */
export default defineResource({
  code: 'oss',
  resource: 'oss',
  title: 'resource.oss',
  rowActions: [
    {
      key: 'enable',
      label: 'oss.enable',
      permission: 'enable',
      confirm: 'oss.enableConfirm',
      done: 'oss.enabledDone',
      path: action('oss', 'enable_oss'),
      params: (row) => ({ id: String(row.id) }),
      when: (row) => row.status !== OSS_ENABLED,
    },
    {
      key: 'test',
      label: 'oss.test',
      permission: 'edit',
      confirm: 'oss.testConfirm',
      done: 'oss.testOk',
      path: action('oss', 'test_oss'),
      params: (row) => ({ id: String(row.id) }),
    },
  ],
  columns: [
    { prop: 'ossCode', label: 'oss.ossCode', search: true, width: 140 },
    {
      prop: 'status',
      label: 'oss.status',
      hideInForm: true,
      hideInSearch: true,
      width: 90,
      format: (value, _row, t) =>
        createElement(Tag, { color: value === OSS_ENABLED ? 'success' : 'default' }, t(value === OSS_ENABLED ? 'oss.enabled' : 'oss.disabled')),
    },
    { prop: 'category', label: 'oss.category', search: true, searchParam: 'category_equal', width: 100 },
    { prop: 'endpoint', label: 'oss.endpoint', search: true, extra: 'oss.endpointHelp', wide: true, ellipsis: true, width: 200 },
    { prop: 'bucketName', label: 'oss.bucketName', width: 140 },
    { prop: 'accessKey', label: 'oss.accessKey', hideInTable: true },
    { prop: 'secretKey', label: 'oss.secretKey', hideInTable: true, secret: true, extra: 'oss.secretKeyHelp' },
    { prop: 'region', label: 'oss.region', hideInTable: true },
    { prop: 'appId', label: 'oss.appId', hideInTable: true },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, hideInSearch: true, hideInTable: true },
  ],
});
