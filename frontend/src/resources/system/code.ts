import { createElement } from 'react';
import { action } from '../../api/manifest';
import { FieldListInput, type CodeField } from '../../components/codegen/FieldListInput';
import { GenerateButton } from '../../components/codegen/GenerateButton';
import { defineResource } from '../types';

export const CODE_PATH = '/tool/code';

/**
 * 研发工具 → 代码生成 (`/api/blade-develop/code`): records of a table, its entity and fields, from which 生成代码
 * downloads a zip of a Liftdesk resource (declaration, schemas, migration, web configuration). The platform
 * administrator's.
 */
export default defineResource({
  code: 'code',
  resource: 'code',
  title: 'resource.code',
  detailWidth: 960,
  toolbarExtras: [(props) => createElement(GenerateButton, props)],
  rowActions: [
    {
      key: 'copy',
      label: 'code.copy',
      permission: 'copy',
      confirm: 'code.copyConfirm',
      done: 'code.copied',
      path: action('code', 'copy_code'),
      params: (row) => ({ id: String(row.id) }),
    },
  ],
  columns: [
    { prop: 'codeName', label: 'code.codeName', search: true, width: 140 },
    { prop: 'tableName', label: 'code.tableName', search: true, width: 150, extra: 'code.tableNameHelp' },
    { prop: 'tablePrefix', label: 'code.tablePrefix', hideInTable: true },
    { prop: 'entityName', label: 'code.entityName', width: 130, extra: 'code.entityNameHelp' },
    { prop: 'packageName', label: 'code.packageName', width: 140, extra: 'code.packageNameHelp' },
    { prop: 'serviceName', label: 'code.serviceName', width: 130, extra: 'code.serviceNameHelp' },
    {
      prop: 'fields',
      label: 'code.fields',
      wide: true,
      hideInTable: true,
      hideInSearch: true,
      required: true,
      defaultValue: [],
      input: FieldListInput,
      format: (value) => (Array.isArray(value) ? (value as CodeField[]).map((f) => `${f.column} (${f.type})`).join(', ') : '-'),
    },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, hideInSearch: true, width: 170 },
  ],
});
