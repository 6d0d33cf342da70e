import { useEffect, useRef, useState } from 'react';
import { Button, Form, Input, Space } from 'antd';
import { MobileOutlined, SafetyOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { loginByPhone, sendValidate } from '../../api/auth';
import type { TokenInfo } from '../../api/types';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { website } from '../../config/website';
import { TenantField } from './TenantField';
import { sessionStore } from '../../store/session';
import { fieldOfMessage, MOBILE, RESEND_SECONDS, SMS_CODE } from './phone';

interface PhoneForm {
  tenantId: string;
  phone: string;
  code: string;
}

/** Phone sign-in: a code by SMS (resend after a 60 s countdown), then the `sms_code` grant. The server's refusals
 * that name a field (`phone: …`, `code: …`) are shown on that field, the others as a toast. */
export default function PhoneTab({ onSignedIn }: { onSignedIn: (info: TokenInfo) => Promise<void> }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<PhoneForm>();
  const [key, setKey] = useState('');
  const [sending, setSending] = useState(false);
  const [loading, setLoading] = useState(false);
  const [left, setLeft] = useState(0);
  const timer = useRef<number | undefined>(undefined);

  useEffect(() => () => window.clearInterval(timer.current), []);

  const startCountdown = () => {
    setLeft(RESEND_SECONDS);
    window.clearInterval(timer.current);
    timer.current = window.setInterval(() => {
      setLeft((s) => {
        if (s <= 1) window.clearInterval(timer.current);
        return Math.max(0, s - 1);
      });
    }, 1000);
  };

  const showError = (err: unknown) => {
    const message = err instanceof ApiError ? err.message : String(err);
    const [field, text] = fieldOfMessage(message);
    if (field) form.setFields([{ name: field, errors: [text] }]);
    else toast.error(message);
  };

  const send = async () => {
    let values: Pick<PhoneForm, 'tenantId' | 'phone'>;
    try {
      values = await form.validateFields(website.tenantMode ? ['tenantId', 'phone'] : ['phone']);
    } catch {
      return; // the rules' messages are on the fields
    }
    setSending(true);
    try {
      const sent = await sendValidate((values.tenantId ?? website.tenantId).trim(), values.phone.trim());
      setKey(sent.id);
      startCountdown();
      toast.success(t('login.codeSent'));
    } catch (err) {
      showError(err);
    } finally {
      setSending(false);
    }
  };

  const submit = async (values: PhoneForm) => {
    if (!key) {
      form.setFields([{ name: 'code', errors: [t('login.sendCodeFirst')] }]);
      return;
    }
    setLoading(true);
    try {
      const info = await loginByPhone({
        tenantId: (values.tenantId ?? website.tenantId).trim(),
        phone: values.phone.trim(),
        key,
        code: values.code.trim(),
      });
      await onSignedIn(info);
    } catch (err) {
      showError(err);
    } finally {
      setLoading(false);
    }
  };

  return (
    <Form<PhoneForm>
      form={form}
      size="large"
      initialValues={{ tenantId: sessionStore.get().tenantId || website.tenantId }}
      onFinish={(v) => void submit(v)}
      autoComplete="off"
    >
      <TenantField />
      <Form.Item
        name="phone"
        rules={[
          { required: true, message: t('login.phoneRequired') },
          { pattern: MOBILE, message: t('login.phoneFormat') },
        ]}
      >
        <Input
          id="loginPhone"
          prefix={<MobileOutlined />}
          placeholder={t('login.phone')}
          aria-label={t('login.phone')}
          inputMode="numeric"
          maxLength={11}
        />
      </Form.Item>
      <Form.Item>
        <Space.Compact block>
          <Form.Item
            name="code"
            noStyle
            rules={[
              { required: true, message: t('login.smsCodeRequired') },
              { pattern: SMS_CODE, message: t('login.smsCodeFormat') },
            ]}
          >
            <Input
              id="loginSmsCode"
              prefix={<SafetyOutlined />}
              placeholder={t('login.smsCode')}
              aria-label={t('login.smsCode')}
              inputMode="numeric"
              maxLength={6}
            />
          </Form.Item>
          <Button onClick={() => void send()} loading={sending} disabled={left > 0} className="login-send-code">
            {left > 0 ? t('login.resendIn', { seconds: left }) : t('login.sendCode')}
          </Button>
        </Space.Compact>
      </Form.Item>
      <Form.Item style={{ marginBottom: 0 }}>
        <Button type="primary" htmlType="submit" block loading={loading}>
          {t('login.submit')}
        </Button>
      </Form.Item>
    </Form>
  );
}
