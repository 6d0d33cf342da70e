import { useState } from 'react';
import { Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../api/client';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import type { RowDialogProps } from '../../resources/types';
import { phoneRules } from '../../resources/driver/driver';
import { checkParams } from './params';

interface Values {
  phones: string;
  params: string;
}

/** Sends a message through one configuration: mobile numbers (comma separated) and the template's parameters. */
export default function SendMessage({ row, onClose }: RowDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    setBusy(true);
    try {
      const params = { code: String(row.smsCode ?? ''), phones: values.phones.trim(), params: values.params.trim() || '{}' };
      await apiPost('/api/blade-resource/sms/endpoint/send-message', undefined, { params });
      toast.success(t('sms.sent'));
      onClose();
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    } finally {
      setBusy(false);
    }
  };

  const eachPhone = (message: string, pattern: RegExp) => ({
    validator: (_: unknown, value: string | undefined) =>
      (value ?? '')
        .split(/[,，]/)
        .map((p) => p.trim())
        .every((p) => !p || pattern.test(p))
        ? Promise.resolve()
        : Promise.reject(new Error(t(message))),
  });

  return (
    <Modal
      open
      title={t('sms.sendTitle', { smsCode: String(row.smsCode ?? '') })}
      okText={t('sms.send')}
      cancelText={t('common.cancel')}
      confirmLoading={busy}
      onOk={() => void submit()}
      onCancel={onClose}
    >
      <Form form={form} layout="vertical" initialValues={{ phones: '', params: '{"code": "1234"}' }}>
        <Form.Item
          name="phones"
          label={t('sms.phones')}
          extra={t('sms.phonesHelp')}
          rules={[
            { required: true, whitespace: true, message: t('sms.phonesRequired') },
            ...phoneRules.flatMap((rule) =>
              typeof rule === 'object' && rule.pattern instanceof RegExp ? [eachPhone(String(rule.message), rule.pattern)] : [],
            ),
          ]}
        >
          <Input id="smsPhones" maxLength={4000} />
        </Form.Item>
        <Form.Item
          name="params"
          label={t('sms.params')}
          extra={t('sms.paramsHelp')}
          rules={[
            {
              validator: (_: unknown, value: string | undefined) => {
                const problem = checkParams(value ?? '');
                return problem ? Promise.reject(new Error(t(problem))) : Promise.resolve();
              },
            },
          ]}
        >
          <Input.TextArea id="smsParams" rows={3} maxLength={2000} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
