import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert, Button, Card, Form, Input, Typography } from 'antd';
import { LockOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { loginByAccount, passwordProblem, updatePassword } from '../../api/auth';
import { completeLogin, signOut } from '../../app/session';
import { website } from '../../config/website';
import { useSession } from '../../store/session';
import { toast } from '../../api/toast';

interface PasswordForm {
  oldPassword: string;
  newPassword: string;
  newPassword1: string;
}

/**
 * Change password (/pass/index in the shell). With `required` it is the only page a user who must choose a new
 * password reaches (/password, outside the shell): the seeded administrator, a new tenant's administrator, a user
 * whose password an administrator reset. After the change the server has revoked every earlier token, so the page
 * signs in again with the new password.
 */
export default function PasswordPage({ required = false }: { required?: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { userInfo, tenantId } = useSession();
  const [form] = Form.useForm<PasswordForm>();
  const [saving, setSaving] = useState(false);

  const submit = async (values: PasswordForm) => {
    setSaving(true);
    try {
      await updatePassword(values.oldPassword, values.newPassword, values.newPassword1);
      toast.success(t('password.changed'));
      const account = userInfo?.account ?? userInfo?.user_name ?? '';
      try {
        const info = await loginByAccount({ tenantId: userInfo?.tenant_id ?? tenantId, username: account, password: values.newPassword });
        await completeLogin(info);
        void navigate(website.homePath, { replace: true });
      } catch {
        await signOut();
        void navigate('/login', { replace: true });
      }
    } catch {
      // the request wrapper showed the server's message (old password wrong, the same password ...)
    } finally {
      setSaving(false);
    }
  };

  const content = (
    <Form<PasswordForm> form={form} layout="vertical" onFinish={(v) => void submit(v)} style={{ maxWidth: 420 }} autoComplete="off">
      <Form.Item name="oldPassword" label={t('password.old')} rules={[{ required: true, message: t('password.oldRequired') }]}>
        <Input.Password prefix={<LockOutlined />} autoComplete="current-password" />
      </Form.Item>
      <Form.Item
        name="newPassword"
        label={t('password.new')}
        extra={t('password.rule')}
        rules={[
          { required: true, message: t('password.newRequired') },
          {
            validator: (_rule, value: string | undefined) =>
              !value || passwordProblem(value) === null ? Promise.resolve() : Promise.reject(new Error(t('password.ruleBroken'))),
          },
        ]}
      >
        <Input.Password prefix={<LockOutlined />} autoComplete="new-password" />
      </Form.Item>
      <Form.Item
        name="newPassword1"
        label={t('password.confirm')}
        dependencies={['newPassword']}
        rules={[
          { required: true, message: t('password.confirmRequired') },
          ({ getFieldValue }) => ({
            validator: (_rule, value: string | undefined) =>
              !value || value === getFieldValue('newPassword') ? Promise.resolve() : Promise.reject(new Error(t('password.mismatch'))),
          }),
        ]}
      >
        <Input.Password prefix={<LockOutlined />} autoComplete="new-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={saving}>
        {t('password.submit')}
      </Button>
      {required && (
        <Button
          type="link"
          onClick={() => {
            void signOut().then(() => navigate('/login', { replace: true }));
          }}
        >
          {t('shell.logout')}
        </Button>
      )}
    </Form>
  );

  if (!required) {
    return (
      <Card title={t('password.title')} className="page-card">
        {content}
      </Card>
    );
  }
  return (
    <div className="password-required">
      <Card style={{ width: 'min(480px, 100%)' }}>
        <Typography.Title level={4}>{t('password.requiredTitle')}</Typography.Title>
        <Alert type="warning" showIcon title={t('password.requiredHint')} style={{ marginBottom: 24 }} />
        {content}
      </Card>
    </div>
  );
}
