import { createElement, lazy } from 'react';
import { Tag } from 'antd';
import { action } from '../../api/manifest';
import { defineResource } from '../types';

export const SMS_PATH = '/resource/sms';
/** `status` of the tenant's enabled configuration (BladeX): messages go through it. */
export const SMS_ENABLED = 2;

const SendMessage = lazy(() => import('../../components/sms/SendMessage'));

/**
 * SMS configurations (`/api/blade-resource/sms`): aliyun and tencent accounts a tenant's messages go through. One is
 * enabled at a time (启用; none: the server writes messages to its log, outside production). The server reads the
 * secret key back as ******: saved unchanged, the stored key is kept. 发送短信 sends a message through a row's
 * configuration (`sms/endpoint/send-message`).
 */
export default defineResource({
  code: 'sms',
  resource: 'sms',
  title: 'resource.sms',
  rowActions: [
    {
      key: 'enable',
      label: 'sms.enable',
      permission: 'enable',
      confirm: 'sms.enableConfirm',
      done: 'sms.enabledDone',
      path: action('sms', 'enable_sms'),
      params: (row) => ({ id: String(row.id) }),
      when: (row) => row.status !== SMS_ENABLED,
    },
    { key: 'send', label: 'sms.send', permission: 'send', open: SendMessage },
  ],
  columns: [
    { prop: 'smsCode', label: 'sms.smsCode', search: true, width: 140 },
    {
      prop: 'status',
      label: 'sms.status',
      hideInForm: true,
      hideInSearch: true,
      width: 90,
      format: (value, _row, t) =>
        createElement(Tag, { color: value === SMS_ENABLED ? 'success' : 'default' }, t(value === SMS_ENABLED ? 'sms.enabled' : 'sms.disabled')),
    },
    { prop: 'category', label: 'sms.category', search: true, searchParam: 'category_equal', width: 100, extra: 'sms.categoryHelp' },
    { prop: 'templateId', label: 'sms.templateId', search: true, width: 160 },
    { prop: 'signName', label: 'sms.signName', width: 120 },
    { prop: 'accessKey', label: 'sms.accessKey', hideInTable: true },
    { prop: 'secretKey', label: 'sms.secretKey', hideInTable: true, secret: true, extra: 'sms.secretKeyHelp' },
    { prop: 'regionId', label: 'sms.regionId', hideInTable: true },
    { prop: 'appId', label: 'sms.appId', hideInTable: true, extra: 'sms.appIdHelp' },
    { prop: 'endpoint', label: 'sms.endpoint', hideInTable: true, extra: 'sms.endpointHelp', wide: true },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, hideInSearch: true, hideInTable: true },
  ],
});
