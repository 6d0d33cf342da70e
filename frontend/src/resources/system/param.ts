import { isSecretName } from '../../components/crud/secret';
import { defineResource } from '../types';

export default defineResource({
  code: 'param',
  resource: 'param',
  title: 'resource.param',
  columns: [
    { prop: 'paramName', label: 'param.paramName', search: true },
    { prop: 'paramKey', label: 'param.paramKey', search: true },
    // a value whose key names a password, secret or token is masked (revealed on demand to who may edit it)
    { prop: 'paramValue', label: 'param.paramValue', search: true, wide: true, secret: (row) => isSecretName(row.paramKey) },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: false },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', search: true, searchRange: true, hideInForm: true, width: 170 },
  ],
});
