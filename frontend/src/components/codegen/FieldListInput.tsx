import { Button, Checkbox, Input, InputNumber, Select, Table } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { FieldControlProps } from '../../resources/types';

/** One field of a code generation record (the server's `CodeField`). */
export interface CodeField {
  column: string;
  name: string;
  type: FieldType;
  required: boolean;
  maxLength?: number | null;
  dictCode?: string | null;
  inList: boolean;
  inSearch: boolean;
  inForm: boolean;
}

/** The server's closed list of field types. */
const FIELD_TYPES = ['string', 'text', 'int', 'long', 'double', 'datetime'] as const;
type FieldType = (typeof FIELD_TYPES)[number];

const blank = (): CodeField => ({ column: '', name: '', type: 'string', required: false, maxLength: null, dictCode: null, inList: true, inSearch: false, inForm: true });

/** 代码生成's form control of the entity's fields: one row each (column, label, type, rules, where it shows). */
export function FieldListInput({ value, onChange, disabled }: FieldControlProps) {
  const { t } = useTranslation();
  const rows: CodeField[] = Array.isArray(value) ? (value as CodeField[]) : [];
  const change = (index: number, patch: Partial<CodeField>) => onChange?.(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  const flag = (key: 'required' | 'inList' | 'inSearch' | 'inForm', label: string) => ({
    title: t(label),
    key,
    width: 64,
    render: (_: unknown, row: CodeField, i: number) => (
      <Checkbox checked={row[key]} disabled={disabled} aria-label={`${t(label)} ${i + 1}`} onChange={(e) => change(i, { [key]: e.target.checked })} />
    ),
  });
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 8, width: '100%' }} data-testid="code-fields">
      <Table<CodeField>
        size="small"
        rowKey={(_, i) => String(i)}
        pagination={false}
        scroll={{ x: 900 }}
        dataSource={rows}
        columns={[
          {
            title: t('code.column'),
            key: 'column',
            width: 150,
            render: (_, row, i) => (
              <Input value={row.column} disabled={disabled} placeholder="snake_case" aria-label={`${t('code.column')} ${i + 1}`} onChange={(e) => change(i, { column: e.target.value })} />
            ),
          },
          {
            title: t('code.fieldName'),
            key: 'name',
            width: 130,
            render: (_, row, i) => (
              <Input value={row.name} disabled={disabled} aria-label={`${t('code.fieldName')} ${i + 1}`} onChange={(e) => change(i, { name: e.target.value })} />
            ),
          },
          {
            title: t('code.type'),
            key: 'type',
            width: 110,
            render: (_, row, i) => (
              <Select<FieldType>
                value={row.type}
                disabled={disabled}
                aria-label={`${t('code.type')} ${i + 1}`}
                style={{ width: '100%' }}
                options={FIELD_TYPES.map((k) => ({ value: k, label: t(`code.types.${k}`) }))}
                onChange={(type) => change(i, { type })}
              />
            ),
          },
          {
            title: t('code.maxLength'),
            key: 'maxLength',
            width: 100,
            render: (_, row, i) => (
              <InputNumber<number>
                value={row.maxLength ?? null}
                min={1}
                max={4000}
                disabled={disabled || row.type !== 'string'}
                aria-label={`${t('code.maxLength')} ${i + 1}`}
                onChange={(n) => change(i, { maxLength: n ?? null })}
              />
            ),
          },
          {
            title: t('code.dictCode'),
            key: 'dictCode',
            width: 120,
            render: (_, row, i) => (
              <Input value={row.dictCode ?? ''} disabled={disabled} aria-label={`${t('code.dictCode')} ${i + 1}`} onChange={(e) => change(i, { dictCode: e.target.value || null })} />
            ),
          },
          flag('required', 'code.required'),
          flag('inList', 'code.inList'),
          flag('inSearch', 'code.inSearch'),
          flag('inForm', 'code.inForm'),
          {
            title: '',
            key: 'remove',
            width: 48,
            render: (_, _row, i) => (
              <Button
                type="text"
                danger
                icon={<DeleteOutlined />}
                disabled={disabled}
                aria-label={`${t('code.removeField')} ${i + 1}`}
                onClick={() => onChange?.(rows.filter((_r, j) => j !== i))}
              />
            ),
          },
        ]}
      />
      <Button icon={<PlusOutlined />} disabled={disabled} onClick={() => onChange?.([...rows, blank()])} data-testid="code-add-field">
        {t('code.addField')}
      </Button>
    </div>
  );
}
