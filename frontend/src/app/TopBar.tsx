import { memo, useEffect, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { App, Avatar, Badge, Button, Dropdown, Menu, Tooltip, type MenuProps } from 'antd';
import {
  BgColorsOutlined,
  BugOutlined,
  FullscreenExitOutlined,
  FullscreenOutlined,
  GlobalOutlined,
  KeyOutlined,
  LockOutlined,
  LogoutOutlined,
  MailOutlined,
  MenuFoldOutlined,
  MenuUnfoldOutlined,
  SearchOutlined,
  SettingOutlined,
  UserOutlined,
  DownOutlined,
} from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { MenuVO, TopMenu } from '../api/types';
import type { Language } from '../config/website';
import { setCollapse, useCommon } from '../store/common';
import { useErrorLogs } from '../store/errorLog';
import { switchLanguage } from './language';
import { useSession } from '../store/session';
import { signOut } from './session';
import { selectTopMenu, useTopMenuId } from '../access/useMenu';
import { MenuAutoComplete } from './MenuSearch';
import { ErrorLogDialog, LockDialog, ThemeDialog } from './dialogs';
import { useLock } from './useLock';
import { menuIcon } from './menuIcons';
import { MessageBell } from '../pages/message/Bell';
import { findMenuByPath } from './menuUtil';
import { MESSAGE_CENTRE_PATH, RECEIVE_ROUTE, RECEIVE_SETTINGS_PATH, SITE_MESSAGES_ROUTE } from './staticPages';
import { useStages } from './useStages';

function useFullscreen(): [boolean, () => void] {
  const [full, setFull] = useState(() => !!document.fullscreenElement);
  useEffect(() => {
    const onChange = () => setFull(!!document.fullscreenElement);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);
  const toggle = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void document.documentElement.requestFullscreen().catch(() => undefined);
  };
  return [full, toggle];
}

/** Rendered again only when its props change (the shell renders as tabs and queries change). */
export const TopBar = memo(function TopBar({
  logo,
  menus,
  topMenus,
  compact,
  onSearch,
  dark,
}: {
  /** The organisation's logo shown in the bar itself (on a phone, where the side menu and its logo are folded away). */
  logo?: string;
  menus: MenuVO[];
  topMenus: TopMenu[];
  compact: boolean;
  onSearch: () => void;
  dark: boolean;
}) {
  const { t, i18n } = useTranslation();
  const { modal } = App.useApp();
  const navigate = useNavigate();
  const { collapse, lockPasswd } = useCommon();
  const { userInfo } = useSession();
  const logs = useErrorLogs();
  const topMenuId = useTopMenuId();
  const [full, toggleFull] = useFullscreen();
  const [themeOpen, setThemeOpen] = useState(false);
  const [logOpen, setLogOpen] = useState(false);
  const lock = useLock();
  // the tools (search, bell, error log, lock, full screen, theme, language, the user's menu and their dialogs) mount
  // a task after the bar: with the shell's first render they were one task of 20 ms (60 ms on a slow PC)
  const tools = useStages(1) >= 1;

  const logout = () =>
    modal.confirm({
      title: t('shell.logoutConfirm'),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onOk: async () => {
        await signOut();
        void navigate('/login', { replace: true });
      },
    });

  // spec §2 Shell: in-site messages (everyone's own), receive management (for the users who have its menu), ...
  const mayReceive = !!findMenuByPath(menus, RECEIVE_SETTINGS_PATH);
  const userItems: MenuProps['items'] = [
    { key: 'messages', icon: <MailOutlined />, label: t('shell.siteMessages') },
    ...(mayReceive ? [{ key: 'receive', icon: <SettingOutlined />, label: t('shell.receiveManagement') }] : []),
    { key: 'info', icon: <UserOutlined />, label: t('userInfo.title') },
    { key: 'password', icon: <KeyOutlined />, label: t('password.title') },
    { key: 'theme', icon: <BgColorsOutlined />, label: t('shell.skin') },
    { key: 'errorLog', icon: <BugOutlined />, label: t('errorLog.title') },
    { type: 'divider' },
    { key: 'logout', icon: <LogoutOutlined />, label: t('shell.logout'), danger: true },
  ];
  const languageItems: MenuProps['items'] = [
    { key: 'zh', label: '简体中文' },
    { key: 'en', label: 'English' },
  ];

  const topItems: MenuProps['items'] = [
    { key: '', label: t('shell.allMenus') },
    ...topMenus.map((m) => ({ key: m.id, label: menuLabelTop(t, m), icon: menuIcon(m.code, m.source, false) })),
  ];

  const name = userInfo?.real_name || userInfo?.nick_name || userInfo?.user_name || '';
  const iconBtn = (title: string, icon: ReactNode, onClick: () => void, label?: string) => (
    <Tooltip title={title}>
      <Button type="text" className="top-icon" icon={icon} onClick={onClick} aria-label={label ?? title} />
    </Tooltip>
  );

  return (
    <div className={`top-bar${dark ? ' top-bar-dark' : ''}`}>
      <Button
        type="text"
        className="top-icon"
        icon={collapse ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
        onClick={() => setCollapse(!collapse)}
        aria-label={t('shell.toggleMenu')}
      />
      {logo && <img src={logo} alt={t('shell.orgLogo')} className="top-org-logo" data-testid="org-logo" />}
      {!compact && topMenus.length > 0 && (
        <Menu
          className="top-menu"
          mode="horizontal"
          theme={dark ? 'dark' : 'light'}
          selectedKeys={[topMenuId]}
          items={topItems}
          onClick={({ key }) => selectTopMenu(key)}
          style={{ flex: 1, minWidth: 0, background: 'transparent', borderBottom: 'none' }}
        />
      )}
      <div className="top-spacer" />
      {tools && (
        <>
          {!compact && <MenuAutoComplete menus={menus} />}
          {iconBtn(t('tabs.search'), <SearchOutlined />, onSearch)}
          <MessageBell centrePath={findMenuByPath(menus, MESSAGE_CENTRE_PATH) ? MESSAGE_CENTRE_PATH : SITE_MESSAGES_ROUTE} />
          <Tooltip title={t('errorLog.title')}>
            <Badge count={logs.length} size="small" offset={[-6, 6]}>
              <Button type="text" className="top-icon" icon={<BugOutlined />} onClick={() => setLogOpen(true)} aria-label={t('errorLog.title')} />
            </Badge>
          </Tooltip>
          {iconBtn(t('shell.lock'), <LockOutlined />, () => lock.start(!!lockPasswd))}
          {iconBtn(full ? t('shell.exitFullscreen') : t('shell.fullscreen'), full ? <FullscreenExitOutlined /> : <FullscreenOutlined />, toggleFull)}
          {iconBtn(t('theme.title'), <BgColorsOutlined />, () => setThemeOpen(true))}
          <Dropdown
            menu={{
              items: languageItems,
              selectable: true,
              selectedKeys: [i18n.language],
              onClick: ({ key }) => {
                if (key !== i18n.language) switchLanguage(key as Language);
              },
            }}
          >
            <Button type="text" className="top-icon" icon={<GlobalOutlined />} aria-label={t('shell.language')}>
              {!compact && (i18n.language === 'en' ? 'EN' : '中')}
            </Button>
          </Dropdown>
          <Dropdown
            menu={{
              items: userItems,
              onClick: ({ key }) => {
                if (key === 'messages') void navigate(SITE_MESSAGES_ROUTE);
                else if (key === 'receive') void navigate(RECEIVE_ROUTE);
                else if (key === 'info') void navigate('/info/index');
                else if (key === 'password') void navigate('/pass/index');
                else if (key === 'theme') setThemeOpen(true);
                else if (key === 'errorLog') setLogOpen(true);
                else if (key === 'logout') logout();
              },
            }}
          >
            <button type="button" className="top-user" aria-label={t('shell.userMenu')}>
              <Avatar size={28} src={userInfo?.avatar || undefined} icon={<UserOutlined />} />
              {!compact && <span className="top-user-name">{name}</span>}
              <DownOutlined style={{ fontSize: 10 }} />
            </button>
          </Dropdown>
          <ThemeDialog open={themeOpen} onClose={() => setThemeOpen(false)} />
          <ErrorLogDialog open={logOpen} onClose={() => setLogOpen(false)} />
          <LockDialog
            open={lock.asking}
            onCancel={() => lock.setAsking(false)}
            onLocked={() => {
              lock.setAsking(false);
              lock.lock();
            }}
          />
        </>
      )}
    </div>
  );
});

function menuLabelTop(t: (key: string, opts: { defaultValue: string }) => string, m: TopMenu): string {
  return m.code ? t(`menu.${m.code}`, { defaultValue: m.name }) : m.name;
}
