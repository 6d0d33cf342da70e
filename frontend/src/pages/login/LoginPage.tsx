import { lazy, Suspense, useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Alert, App, Button, Form, Input, Space, Tabs, Typography } from 'antd';
import {
  LockOutlined,
  SafetyOutlined,
  UserOutlined,
  GlobalOutlined,
  WechatOutlined,
  GithubOutlined,
  DingtalkOutlined,
} from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { getCaptcha, getTenantInfo, getTenantListByAccount, loginByAccount, type AccountLogin } from '../../api/auth';
import type { Captcha, TenantOption, TokenInfo } from '../../api/types';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { completeLogin, signOut } from '../../app/session';
import { website } from '../../config/website';
import { TenantField } from './TenantField';
import { sessionStore } from '../../store/session';
import { saveLanguage } from '../../i18n';
import { Logo } from '../../components/Logo';

const TenantChooser = lazy(() => import('./TenantChooser'));
const PhoneTab = lazy(() => import('./PhoneTab'));
// the registration dialog loads when it is first opened: the sign-in page stays light
const RegisterDialog = lazy(() => import('./RegisterDialog'));

interface AccountForm {
  tenantId: string;
  username: string;
  password: string;
  code?: string;
}

function safeRedirect(value: string | null): string {
  if (value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/login')) return value;
  return '/';
}

function AccountTab({
  onSuccess,
  onRegister,
}: {
  onSuccess: (info: TokenInfo, form: AccountLogin, tenants: TenantOption[]) => Promise<void>;
  /** Opens the registration dialog (absent: registration is switched off). */
  onRegister?: () => void;
}) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const [form] = Form.useForm<AccountForm>();
  const [loading, setLoading] = useState(false);
  const [captchaMode, setCaptchaMode] = useState(false);
  const [captcha, setCaptcha] = useState<Captcha | null>(null);

  const refreshCaptcha = () => {
    getCaptcha()
      .then(setCaptcha)
      .catch(() => setCaptcha(null));
  };

  useEffect(() => {
    let alive = true;
    getTenantInfo(window.location.hostname)
      .then((info) => {
        if (!alive || !info) return;
        if (info.tenantId && !form.isFieldTouched('tenantId')) form.setFieldValue('tenantId', info.tenantId);
        if (info.captchaMode === true) {
          setCaptchaMode(true);
          refreshCaptcha();
        }
      })
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, [form]);

  /** The other enterprises of the account: asked after the sign-in, with its token and password. */
  const loadTenants = async (info: TokenInfo, password: string): Promise<TenantOption[]> => {
    if (info.must_change_password) return [];
    try {
      const list = (await getTenantListByAccount(info, password)) ?? [];
      return Array.isArray(list) ? list : [];
    } catch {
      return [];
    }
  };

  const submit = async (values: AccountForm) => {
    setLoading(true);
    try {
      const login: AccountLogin = {
        tenantId: values.tenantId.trim(),
        username: values.username.trim(),
        password: values.password,
        captcha: captchaMode && captcha ? { key: captcha.key, code: values.code ?? '' } : undefined,
      };
      const info = await loginByAccount(login, { silent: true });
      await onSuccess(info, login, await loadTenants(info, values.password));
    } catch (err) {
      // the server's message (error_description); a registration not approved yet gets the registration's alert;
      // after several failures the server asks for the captcha
      const body = err instanceof ApiError ? (err.body as { error?: string } | null) : null;
      if (body?.error === 'user_pending') {
        modal.warning({ title: t('register.alertTitle'), content: err instanceof ApiError ? err.message : '', okText: t('common.confirm') });
      } else if (err instanceof ApiError) {
        toast.error(err.message);
      }
      const needsCaptcha = body?.error === 'captcha_required';
      if (needsCaptcha) setCaptchaMode(true);
      if (captchaMode || needsCaptcha) refreshCaptcha();
    } finally {
      setLoading(false);
    }
  };

  return (
    <Form<AccountForm>
      form={form}
      size="large"
      initialValues={{ tenantId: sessionStore.get().tenantId || website.tenantId }}
      onFinish={(v) => void submit(v)}
      autoComplete="off"
    >
      <TenantField />
      <Form.Item name="username" rules={[{ required: true, message: t('login.usernameRequired') }]}>
        <Input
          prefix={<UserOutlined />}
          placeholder={t('login.username')}
          aria-label={t('login.username')}
        />
      </Form.Item>
      <Form.Item
        name="password"
        rules={[
          { required: true, message: t('login.passwordRequired') },
          // Saber shows this hint but still lets shorter passwords through: the seeded admin/admin has 5 characters.
          { min: 6, message: t('login.passwordMin'), warningOnly: true },
        ]}
      >
        <Input.Password prefix={<LockOutlined />} placeholder={t('login.password')} aria-label={t('login.password')} />
      </Form.Item>
      {captchaMode && (
        <Form.Item name="code" rules={[{ required: true, message: t('login.codeRequired') }]}>
          <Space.Compact block>
            <Input prefix={<SafetyOutlined />} placeholder={t('login.code')} aria-label={t('login.code')} />
            <button type="button" className="captcha-img" onClick={refreshCaptcha} title={t('login.refreshCode')}>
              {captcha ? <img src={captcha.image} alt={t('login.code')} /> : t('login.refreshCode')}
            </button>
          </Space.Compact>
        </Form.Item>
      )}
      <Form.Item style={{ marginBottom: 0 }}>
        <Button type="primary" htmlType="submit" block loading={loading}>
          {t('login.submit')}
        </Button>
      </Form.Item>
      {onRegister && (
        <div className="login-register">
          <Button type="link" size="small" onClick={onRegister} data-testid="open-register">
            {t('register.open')}
          </Button>
        </div>
      )}
    </Form>
  );
}

function SocialTab({ onRegister }: { onRegister?: () => void }) {
  const { t } = useTranslation();
  return (
    <div>
      <Alert type="info" showIcon title={t('login.socialNotConfigured')} style={{ marginBottom: 24 }} />
      {onRegister && (
        <Button block onClick={onRegister} style={{ marginBottom: 24 }} data-testid="social-register">
          {t('register.title')}
        </Button>
      )}
      <div className="social-list">
        {[
          { icon: <WechatOutlined />, key: 'wechat' },
          { icon: <DingtalkOutlined />, key: 'dingtalk' },
          { icon: <GithubOutlined />, key: 'github' },
        ].map((s) => (
          <Button key={s.key} shape="circle" size="large" icon={s.icon} disabled aria-label={t(`login.social.${s.key}`)} />
        ))}
      </div>
    </div>
  );
}

export default function LoginPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [choice, setChoice] = useState<{ info: TokenInfo; login: AccountLogin; tenants: TenantOption[] } | null>(null);
  const [chosen, setChosen] = useState('');
  const [switching, setSwitching] = useState(false);
  const [registration, setRegistration] = useState<{ open: boolean; tenantId: string; tenantHidden: boolean } | null>(null);
  const [registering, setRegistering] = useState(false);

  // self-registration is offered when the server has it switched on; the tenant is asked unless the domain told it
  useEffect(() => {
    let alive = true;
    getTenantInfo(window.location.hostname)
      .then((info) => {
        if (!alive || !info?.registerOpen) return;
        setRegistration({
          open: true,
          tenantId: info.tenantResolved ? (info.tenantId ?? '') : sessionStore.get().tenantId || website.tenantId,
          tenantHidden: !website.tenantMode || info.tenantResolved === true,
        });
      })
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, []);
  const openRegister = registration ? () => setRegistering(true) : undefined;
  // after the alert: signed out (whatever session there was) and on the sign-in page
  const registered = async () => {
    await signOut();
    void navigate('/login', { replace: true });
  };

  const finish = async (info: TokenInfo) => {
    await completeLogin(info);
    void navigate(safeRedirect(params.get('redirect')), { replace: true });
  };

  const onSuccess = async (info: TokenInfo, login: AccountLogin, tenants: TenantOption[]) => {
    if (tenants.length > 1) {
      setChosen(info.tenant_id || login.tenantId);
      setChoice({ info, login, tenants });
      return;
    }
    await finish(info);
  };

  const confirmTenant = async () => {
    if (!choice) return;
    setSwitching(true);
    try {
      const info =
        chosen === (choice.info.tenant_id || choice.login.tenantId)
          ? choice.info
          : await loginByAccount({ ...choice.login, tenantId: chosen, captcha: undefined });
      setChoice(null);
      await finish(info);
    } catch {
      // message shown by the request wrapper
    } finally {
      setSwitching(false);
    }
  };

  const switchLanguage = () => {
    const next = i18n.language === 'en' ? 'zh' : 'en';
    saveLanguage(next);
    void i18n.changeLanguage(next);
  };

  return (
    <div className="login-page">
      <div className="login-brand">
        <div className="login-brand-inner">
          <Logo size={44} inverse />
          <h1>{t('login.brandTitle')}</h1>
          <p>{t('login.brandSubtitle')}</p>
          <ul>
            <li>{t('login.feature1')}</li>
            <li>{t('login.feature2')}</li>
            <li>{t('login.feature3')}</li>
          </ul>
        </div>
        <div className="login-brand-foot">© {new Date().getFullYear()} Liftdesk</div>
      </div>
      <div className="login-main">
        <Button type="text" icon={<GlobalOutlined />} className="login-lang" onClick={switchLanguage}>
          {i18n.language === 'en' ? '中文' : 'English'}
        </Button>
        <div className="login-card">
          <Typography.Title level={3} style={{ marginBottom: 4 }}>
            {t('login.welcome')}
          </Typography.Title>
          <Typography.Paragraph type="secondary">{t('login.hint')}</Typography.Paragraph>
          <Tabs
            defaultActiveKey="account"
            items={[
              {
                key: 'account',
                label: t('login.tabAccount'),
                children: <AccountTab onSuccess={onSuccess} onRegister={openRegister} />,
              },
              {
                key: 'phone',
                label: t('login.tabPhone'),
                children: (
                  <Suspense fallback={null}>
                    <PhoneTab onSignedIn={finish} />
                  </Suspense>
                ),
              },
              { key: 'social', label: t('login.tabSocial'), children: <SocialTab onRegister={openRegister} /> },
            ]}
          />
        </div>
      </div>
      {registration && registering && (
        <Suspense fallback={null}>
          <RegisterDialog
            open
            tenantId={registration.tenantId}
            tenantHidden={registration.tenantHidden}
            onClose={() => setRegistering(false)}
            onRegistered={() => void registered()}
          />
        </Suspense>
      )}
      {choice && (
        <Suspense fallback={null}>
          <TenantChooser
            open
            tenants={choice.tenants}
            chosen={chosen}
            switching={switching}
            onChoose={setChosen}
            onOk={() => void confirmTenant()}
            onCancel={() => setChoice(null)}
          />
        </Suspense>
      )}
    </div>
  );
}
