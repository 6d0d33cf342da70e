import { defineResource } from '../types';

export default defineResource({
  code: 'tenant',
  resource: 'tenant',
  title: 'resource.tenant',
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
    {
      prop: 'expireTime',
      label: 'tenant.expireTime',
      width: 170,
      format: (value, _row, t) => (value ? String(value) : t('tenant.never')),
    },
  ],
});
