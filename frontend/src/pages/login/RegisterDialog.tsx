import { useEffect, useState } from 'react';
import { App, Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { passwordProblem, registerGuest, type Registration } from '../../api/auth';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { fieldOfMessage, messageForField } from '../../components/crud/rules';

const FIELDS = ['tenantId', 'name', 'account', 'password', 'password2'] as const;
type Field = (typeof FIELDS)[number];

const LABELS: Record<Field, string> = {
  tenantId: 'register.tenantId',
  name: 'register.name',
  account: 'register.account',
  password: 'register.password',
  password2: 'register.password2',
};

/**
 * The third-party registration dialog: tenant (hidden when the sign-in page found it by its domain), name, account,
 * password and its confirmation. Its checks run in the specification's order (tenant, account, passwords, match)
 * and a refusal of the server that names a field shows under it. On success the user is told to wait for an
 * administrator ("注册提示") and, once they close it, `onRegistered` signs out.
 */
export default function RegisterDialog({
  open,
  tenantId,
  tenantHidden,
  onClose,
  onRegistered,
}: {
  open: boolean;
  tenantId: string;
  tenantHidden: boolean;
  onClose: () => void;
  onRegistered: () => void;
}) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const [form] = Form.useForm<Registration>();
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue({ tenantId });
  }, [open, tenantId, form]);

  const submit = async () => {
    let values: Registration;
    try {
      values = await form.validateFields();
    } catch {
      return; // each field says what is missing
    }
    setLoading(true);
    try {
      await registerGuest({ ...values, tenantId: values.tenantId.trim(), account: values.account.trim() });
      onClose();
      modal.info({
        title: t('register.alertTitle'),
        content: t('register.submitted'),
        okText: t('common.confirm'),
        onOk: onRegistered,
      });
    } catch (e) {
      if (!(e instanceof ApiError) || e.code === 0) {
        console.log(e); // a lost request is only logged (the specification's choice); the form stays as it was
        return;
      }
      const field = fieldOfMessage(e.message, FIELDS) as Field | undefined;
      if (field && !(field === 'tenantId' && tenantHidden)) {
        form.setFields([{ name: field, errors: [messageForField(e.message, field, t(LABELS[field]))] }]);
      } else {
        toast.error(e.message || t('register.failed'));
      }
    } finally {
      setLoading(false);
    }
  };

  const required = (key: string) => ({ required: true, whitespace: true, message: t(key) });

  return (
    <Modal
      open={open}
      title={t('register.title')}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={loading}
      onOk={() => void submit()}
      onCancel={onClose}
      mask={{ closable: false }}
      width={440}
      forceRender
    >
      <Form form={form} layout="vertical" autoComplete="off" className="register-form" requiredMark>
        <Form.Item name="tenantId" label={t(LABELS.tenantId)} hidden={tenantHidden} rules={[required('register.tenantIdRequired')]}>
          <Input placeholder={t('register.tenantIdRequired')} />
        </Form.Item>
        <Form.Item
          name="name"
          label={t(LABELS.name)}
          rules={[{ validator: (_r, v: string | undefined) => (!v || (v.trim().length >= 2 && v.trim().length <= 5) ? Promise.resolve() : Promise.reject(new Error(t('register.nameLength')))) }]}
        >
          <Input placeholder={t('register.nameHint')} />
        </Form.Item>
        <Form.Item name="account" label={t(LABELS.account)} rules={[required('register.accountRequired'), { min: 2, message: t('register.accountShort') }]}>
          <Input placeholder={t('register.accountRequired')} maxLength={45} />
        </Form.Item>
        <Form.Item
          name="password"
          label={t(LABELS.password)}
          extra={t('password.rule')}
          rules={[
            required('register.passwordRequired'),
            {
              validator: (_r, v: string | undefined) =>
                !v || passwordProblem(v) === null ? Promise.resolve() : Promise.reject(new Error(t('register.passwordRule'))),
            },
          ]}
        >
          <Input.Password placeholder={t('register.passwordRequired')} autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          name="password2"
          label={t(LABELS.password2)}
          dependencies={['password']}
          rules={[
            required('register.passwordRequired'),
            ({ getFieldValue }) => ({
              validator: (_r, v: string | undefined) =>
                !v || v === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error(t('register.mismatch'))),
            }),
          ]}
        >
          <Input.Password placeholder={t('register.password2Hint')} autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
