import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { DatePicker, Form, Input, InputNumber, Select, Switch, TreeSelect, type FormRule } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Column, Row } from '../../resources/types';
import { DictSelect } from '../DictSelect';
import { remoteQuery, treeQuery } from './lookups';
import { limitRules, requiredRules } from './rules';

/** Props a Form.Item injects into its control (value, onChange, onBlur, id, checked...). */
type Injected = Record<string, unknown>;

const CHOICE_TYPES = new Set(['select', 'dict', 'tree', 'date', 'datetime', 'switch']);

/** "please enter x" / "please select x" in the user's language. */
function useRequiredMessage() {
  const { t } = useTranslation();
  return (column: Column) =>
    t(CHOICE_TYPES.has(column.type ?? 'input') ? 'crud.pleaseSelect' : 'crud.pleaseEnter', { label: t(column.label) });
}

function TreeField({ column, ...props }: { column: Column; disabled?: boolean; placeholder?: string } & Injected) {
  const { data, isLoading } = useQuery(treeQuery(column.treeUrl!));
  return (
    <TreeSelect
      allowClear
      showSearch={{ treeNodeFilterProp: 'title' }}
      loading={isLoading}
      treeData={data ?? []}
      multiple={column.multiple}
      treeCheckable={column.multiple}
      showCheckedStrategy={TreeSelect.SHOW_ALL}
      treeDefaultExpandAll
      styles={{ popup: { root: { maxHeight: 400, overflow: 'auto' } } }}
      {...props}
    />
  );
}

function RemoteSelect({ column, ...props }: { column: Column; disabled?: boolean; placeholder?: string } & Injected) {
  const { data, isLoading } = useQuery(remoteQuery(column.remote!));
  const remote = column.remote!;
  return (
    <Select
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      loading={isLoading}
      mode={column.multiple ? 'multiple' : undefined}
      options={(data ?? []).map((r: Row) => ({ value: String(r[remote.valueKey]), label: String(r[remote.labelKey] ?? '') }))}
      {...props}
    />
  );
}

/** The input control of a column, for the edit form and the search form. */
export function FieldInput({
  column,
  search = false,
  disabled,
  ...injected
}: { column: Column; search?: boolean; disabled?: boolean } & Injected) {
  const { t } = useTranslation();
  const label = t(column.label);
  const placeholder = t(CHOICE_TYPES.has(column.type ?? 'input') ? 'crud.selectPlaceholder' : 'crud.inputPlaceholder', { label });
  const common = { ...injected, disabled, placeholder, 'aria-label': label };
  // the length limit shows as a counter in the edit form (the input stops there)
  const counted = !search && column.maxLength !== undefined;
  switch (column.type) {
    case 'textarea':
      return search ? <Input allowClear {...common} /> : <Input.TextArea rows={3} maxLength={column.maxLength} showCount={counted} {...common} />;
    case 'number': {
      // no min / max on the control: it would put a typed 150 back to 30 on blur without a word; the range shows in
      // the placeholder and a form rule names it
      const { min, max } = column;
      const range = min !== undefined || max !== undefined ? ` (${min ?? '…'} ~ ${max ?? '…'})` : '';
      return <InputNumber style={{ width: '100%' }} {...common} placeholder={search ? placeholder : `${placeholder}${range}`} />;
    }
    case 'password':
      return <Input.Password autoComplete="new-password" maxLength={search ? undefined : column.maxLength} {...common} />;
    case 'switch':
      if (search)
        return (
          <Select
            allowClear
            {...common}
            options={[
              { value: '1', label: t('common.yes') },
              { value: '0', label: t('common.no') },
            ]}
          />
        );
      return <Switch {...injected} disabled={disabled} aria-label={label} checkedChildren={t('common.yes')} unCheckedChildren={t('common.no')} />;
    case 'dict':
      return <DictSelect code={column.dictCode!} biz={column.dictBiz} mode={column.multiple && !search ? 'multiple' : undefined} {...common} />;
    case 'tree':
      return <TreeField column={column} {...common} />;
    case 'select':
      if (column.remote) return <RemoteSelect column={column} {...common} />;
      return (
        <Select
          allowClear
          mode={column.multiple && !search ? 'multiple' : undefined}
          options={(column.options ?? []).map((o) => ({ value: String(o.value), label: t(o.label) }))}
          {...common}
        />
      );
    case 'date':
      if (search && column.searchRange) return <DatePicker.RangePicker {...injected} style={{ width: '100%' }} disabled={disabled} />;
      return <DatePicker style={{ width: '100%' }} {...common} />;
    case 'datetime':
      if (search && column.searchRange)
        return (
          <DatePicker.RangePicker
            {...injected}
            showTime
            style={{ width: '100%' }}
            disabled={disabled}
            placeholder={[t('crud.startTime'), t('crud.endTime')]}
            aria-label={label}
          />
        );
      return <DatePicker showTime style={{ width: '100%' }} {...common} />;
    default:
      return <Input allowClear={search} maxLength={column.maxLength} showCount={counted} {...common} />;
  }
}

/** A Form.Item of the edit form: required rules validate on blur and on change. */
export function FormField({ column, editing, children }: { column: Column; editing: boolean; children?: ReactNode }) {
  const { t } = useTranslation();
  const requiredMessage = useRequiredMessage();
  const rules: FormRule[] = requiredRules(column, requiredMessage(column));
  // the server's limits (length, pattern, range) before the save
  rules.push(...limitRules(column, (key, options) => (options ? t(key, options) : t(key))));
  // a rule's message is an i18n key, like every label of a column
  if (column.rules) rules.push(...column.rules.map((r) => (typeof r === 'object' && typeof r.message === 'string' ? { ...r, message: t(r.message) } : r)));
  const disabled = column.readOnly && editing;
  return (
    <Form.Item
      name={column.prop}
      label={t(column.label)}
      rules={rules}
      validateTrigger={['onChange', 'onBlur']}
      valuePropName={column.type === 'switch' ? 'checked' : 'value'}
      extra={column.extra ? t(column.extra) : undefined}
    >
      {children ?? (column.input ? <column.input disabled={disabled} /> : <FieldInput column={column} disabled={disabled} />)}
    </Form.Item>
  );
}

/** The confirmation field of a password column; it must match and is never sent. */
export function ConfirmField({ column }: { column: Column }) {
  const { t } = useTranslation();
  return (
    <Form.Item
      name={`${column.prop}Confirm`}
      label={t('crud.confirmPassword')}
      dependencies={[column.prop]}
      validateTrigger={['onChange', 'onBlur']}
      rules={[
        { required: !!column.required, message: t('crud.pleaseConfirmPassword') },
        ({ getFieldValue }) => ({
          validator(_, value) {
            if (!value || getFieldValue(column.prop) === value) return Promise.resolve();
            return Promise.reject(new Error(t('crud.passwordMismatch')));
          },
        }),
      ]}
    >
      <Input.Password autoComplete="new-password" placeholder={t('crud.confirmPassword')} aria-label={t('crud.confirmPassword')} />
    </Form.Item>
  );
}
