import { defineResource } from '../types';

export default defineResource({
  code: 'tenant',
  resource: 'tenant',
  title: 'resource.tenant',
  // a new tenant's administrator (account admin) gets a random password, in the creation's answer only
  created: (saved) =>
    saved.adminPassword
      ? { title: 'tenant.createdTitle', text: 'tenant.adminPassword', values: { tenantId: String(saved.tenantId ?? ''), password: String(saved.adminPassword) } }
      : null,
  columns: [
    { prop: 'tenantId', label: 'tenant.tenantId', search: true, readOnly: true, width: 110 },
    { prop: 'tenantName', label: 'tenant.tenantName', search: true },
    { prop: 'domain', label: 'tenant.domain' },
    { prop: 'linkman', label: 'tenant.linkman', width: 110 },
    { prop: 'contactNumber', label: 'tenant.contactNumber', search: true, width: 140 },
    { prop: 'address', label: 'tenant.address', wide: true, hideInTable: true },
    {
      prop: 'accountNumber',
      label: 'tenant.accountNumber',
      extra: 'tenant.accountNumberHelp',
      width: 110,
      format: (value, _row, t) => (value === -1 || value === '-1' || value === undefined || value === null ? t('tenant.unlimited') : String(value)),
    },
    // set by the platform administrator: what the tenant's files may take, and uploads per user per hour
    {
      prop: 'storageQuotaMb',
      label: 'tenant.storageQuotaMb',
      extra: 'tenant.limitHelp',
      width: 130,
      format: (value, _row, t) => (Number(value) === -1 ? t('tenant.unlimited') : `${String(value)} MB`),
    },
    {
      prop: 'uploadRate',
      label: 'tenant.uploadRate',
      extra: 'tenant.limitHelp',
      width: 130,
      format: (value, _row, t) => (Number(value) === -1 ? t('tenant.unlimited') : t('tenant.perHour', { count: Number(value) })),
    },
    {
      prop: 'expireTime',
      label: 'tenant.expireTime',
      width: 170,
      format: (value, _row, t) => (value ? String(value) : t('tenant.never')),
    },
  ],
});
