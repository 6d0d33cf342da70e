import { useEffect, useLayoutEffect } from 'react';
import { App, Col, Form, Modal, Row as GridRow, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { useOne, useSave } from '../../data/hooks';
import type { ResourceConfig, Row } from '../../resources/types';
import { ConfirmField, FormField } from './fields';
import { fieldOfMessage, messageForField } from './rules';
import { initialValues, toFormValues, toPayload, type Values } from './values';

export type FormMode = 'create' | 'edit' | 'child';

/** What the dialog edits: a new row (with its defaults, e.g. a child's parent) or an existing one. */
export interface FormState {
  mode: FormMode;
  /** The row edited (its list values; the detail completes them). */
  row: Row | null;
  /** Values of a new row. */
  defaults?: Row;
}

/**
 * The add / edit dialog of a resource: its fields from the columns (a read-only one is not asked on create, a
 * create-only one not on edit), the complete row from the detail call, the save through the data provider, and a
 * server refusal that names a field shown under that field.
 */
export function FormDialog({
  config,
  state,
  fixedValues,
  onClose,
}: {
  config: ResourceConfig;
  state: FormState | null;
  /** Values every new row gets when the form has none (e.g. the dictionary root of its children). */
  fixedValues?: Row;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const [form] = Form.useForm<Values>();
  const editing = state?.mode === 'edit';
  const id = editing && state.row?.id ? String(state.row.id) : undefined;
  const detail = useOne(config, id);
  const save = useSave(config);
  const formColumns = config.columns.filter((c) => !c.hideInForm);
  const shown = formColumns.filter((c) => !(c.readOnly && !editing)).filter((c) => !(c.addOnly && editing));

  // each opening starts from the row's values, or the defaults of a new row (before the dialog shows)
  useLayoutEffect(() => {
    if (!state) return;
    const columns = config.columns.filter((c) => !c.hideInForm);
    form.resetFields();
    form.setFieldsValue(state.mode === 'edit' && state.row ? toFormValues(state.row, columns) : initialValues(columns, state.defaults ?? {}));
  }, [state, form, config.columns]);

  // once the detail arrives, the form shows the complete record
  useEffect(() => {
    if (id && detail.data && String(detail.data.id) === id) form.setFieldsValue(toFormValues(detail.data, config.columns.filter((c) => !c.hideInForm)));
  }, [id, detail.data, form, config.columns]);

  /**
   * A refusal (400, which the request wrapper leaves to the form: data/provider.ts) is told once, in a toast, the
   * field it names by its label ("手机号 已存在", not "phone 已存在"), and also shows under that field until it is
   * changed.
   */
  const showRefusal = (e: unknown) => {
    if (!(e instanceof ApiError) || e.code !== 400) return;
    const prop = fieldOfMessage(
      e.message,
      shown.filter((c) => !c.readOnly).map((c) => c.prop),
    );
    const column = shown.find((c) => c.prop === prop);
    if (!prop || !column) {
      toast.error(e.message);
      return;
    }
    const text = messageForField(e.message, prop, t(column.label));
    toast.error(text);
    form.setFields([{ name: prop, errors: [text] }]);
    form.scrollToField(prop, { block: 'center' });
  };

  const submit = async () => {
    if (!state) return;
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return; // the form shows what is missing
    }
    const base = editing ? { ...(detail.data ?? state.row) } : null;
    const payload = toPayload(values, formColumns, base);
    if (!editing && fixedValues) {
      for (const [k, v] of Object.entries(fixedValues)) if (payload[k] === undefined) payload[k] = v;
    }
    try {
      const saved = await save.mutateAsync({ mode: editing ? 'update' : 'create', payload });
      toast.success(t('crud.saved'));
      onClose();
      // what only the creation's answer holds, shown this once (e.g. a new tenant's administrator password)
      const notice = !editing && config.created ? config.created((saved ?? {}) as Row) : null;
      if (notice) modal.info({ title: t(notice.title), content: t(notice.text, notice.values), okText: t('common.confirm'), width: 480 });
    } catch (e) {
      // a toast shows the server's message; the form stays open for a correction, the field named marked
      showRefusal(e);
    }
  };

  const title = state
    ? t(state.mode === 'edit' ? 'crud.editTitle' : state.mode === 'child' ? 'crud.addChildTitle' : 'crud.addTitle', { title: t(config.title) })
    : '';

  return (
    <Modal
      open={!!state}
      title={title}
      width={780}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      confirmLoading={save.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
      mask={{ closable: false }}
      forceRender
    >
      <Spin spinning={editing && detail.isFetching}>
        <Form form={form} layout="vertical" className="crud-form" requiredMark>
          <GridRow gutter={16}>
            {shown.flatMap((c) => {
              const wide = c.wide || c.type === 'textarea';
              const items = [
                <Col key={c.prop} span={wide ? 24 : 12}>
                  <FormField column={c} editing={editing} />
                </Col>,
              ];
              if (c.type === 'password' && c.confirm)
                items.push(
                  <Col key={`${c.prop}Confirm`} span={12}>
                    <ConfirmField column={c} />
                  </Col>,
                );
              return items;
            })}
          </GridRow>
        </Form>
      </Spin>
    </Modal>
  );
}
