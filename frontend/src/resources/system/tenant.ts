import { defineResource } from '../types';

export default defineResource({
  code: 'tenant',
  title: 'resource.tenant',
  api: {
    list: '/api/blade-system/tenant/list',
    detail: '/api/blade-system/tenant/detail',
    submit: '/api/blade-system/tenant/submit',
    remove: '/api/blade-system/tenant/remove',
  },
  paged: true,
  columns: [
    { prop: 'tenantId', label: 'tenant.tenantId', search: true, readOnly: true, width: 110 },
    { prop: 'tenantName', label: 'tenant.tenantName', search: true, required: true },
    { prop: 'domain', label: 'tenant.domain' },
    { prop: 'linkman', label: 'tenant.linkman', width: 110 },
    { prop: 'contactNumber', label: 'tenant.contactNumber', search: true, width: 140 },
    { prop: 'address', label: 'tenant.address', wide: true, hideInTable: true },
    {
      prop: 'accountNumber',
      label: 'tenant.accountNumber',
      type: 'number',
      min: -1,
      defaultValue: -1,
      extra: 'tenant.accountNumberHelp',
      width: 110,
      format: (value, _row, t) => (value === -1 || value === '-1' || value === undefined || value === null ? t('tenant.unlimited') : String(value)),
    },
    {
      prop: 'expireTime',
      label: 'tenant.expireTime',
      type: 'datetime',
      width: 170,
      format: (value, _row, t) => (value ? String(value) : t('tenant.never')),
    },
  ],
});
