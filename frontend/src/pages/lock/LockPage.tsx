import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { Avatar, Button, Input, Space, Typography } from 'antd';
import { LockOutlined, LogoutOutlined, UnlockOutlined, UserOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { commonStore, setLocked } from '../../store/common';
import { useSession } from '../../store/session';
import { tabsStore, tabHref, findTab } from '../../store/tabs';
import { website } from '../../config/website';
import { signOut } from '../../app/session';
import { toast } from '../../api/toast';

export default function LockPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { userInfo } = useSession();
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [now, setNow] = useState(() => dayjs());

  useEffect(() => {
    const timer = setInterval(() => setNow(dayjs()), 1000);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    document.title = `${t('lock.title')} · ${website.title}`;
  }, [t]);

  const unlock = () => {
    if (!password) {
      setError(t('lock.passwordRequired'));
      return;
    }
    if (password !== commonStore.get().lockPasswd) {
      setError(t('lock.wrongPassword'));
      toast.error(t('lock.wrongPassword'));
      return;
    }
    setLocked(false);
    const tabs = tabsStore.get();
    const tab = findTab(tabs, tabs.active);
    void navigate(tab ? tabHref(tab) : website.homePath, { replace: true });
  };

  const logout = async () => {
    await signOut();
    void navigate('/login', { replace: true });
  };

  const name = userInfo?.real_name || userInfo?.nick_name || userInfo?.user_name || '';

  return (
    <div className="lock-page">
      <div className="lock-time">
        <div className="lock-clock">{now.format('HH:mm:ss')}</div>
        <div className="lock-date">{now.format(t('lock.dateFormat'))}</div>
      </div>
      <div className="lock-card">
        <Avatar size={72} src={userInfo?.avatar || undefined} icon={<UserOutlined />} />
        <Typography.Title level={4} style={{ margin: '12px 0 4px' }}>
          {name}
        </Typography.Title>
        <Typography.Text type="secondary">
          <LockOutlined /> {t('lock.locked')}
        </Typography.Text>
        <Space.Compact block style={{ marginTop: 20 }}>
          <Input.Password
            autoFocus
            size="large"
            value={password}
            status={error ? 'error' : undefined}
            placeholder={t('lock.unlockPlaceholder')}
            aria-label={t('lock.unlockPlaceholder')}
            onChange={(e) => {
              setPassword(e.target.value);
              setError('');
            }}
            onPressEnter={unlock}
          />
          <Button size="large" type="primary" icon={<UnlockOutlined />} onClick={unlock}>
            {t('lock.unlock')}
          </Button>
        </Space.Compact>
        <div className="lock-error">{error}</div>
        <Button type="link" icon={<LogoutOutlined />} onClick={() => void logout()}>
          {t('lock.logout')}
        </Button>
      </div>
    </div>
  );
}
