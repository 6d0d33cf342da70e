import { lazy, Suspense, useEffect } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation, useNavigate, Outlet } from 'react-router';
import { App as AntApp, ConfigProvider, Spin, theme as antdTheme } from 'antd';
import zhCN from 'antd/locale/zh_CN';
import enUS from 'antd/locale/en_US';
import { useTranslation } from 'react-i18next';
import { AntdBridge } from './app/AntdBridge';
import { decideRedirect } from './app/guards';
import { themeByName } from './config/themes';
import { localSignOut } from './app/session';
import { setUnauthorizedHandler } from './api/request';
import { useCommon } from './store/common';
import { useSession } from './store/session';
import { website } from './config/website';
import { ErrorBoundary } from './app/ErrorBoundary';
import { ROUTE_ALIASES } from './app/staticPages';
import { useStages } from './app/useStages';

const LoginPage = lazy(() => import('./pages/login/LoginPage'));
const LockPage = lazy(() => import('./pages/lock/LockPage'));
const ErrorPage = lazy(() => import('./pages/error/ErrorPage'));
const Layout = lazy(() => import('./app/Layout'));
const Welcome = lazy(() => import('./pages/wel/Welcome'));
const DictVertical = lazy(() => import('./pages/dict/DictVertical'));
const DictHorizontal = lazy(() => import('./pages/dict/DictHorizontal'));
const MenuPage = lazy(() => import('./pages/MenuPage'));
const IframePage = lazy(() => import('./pages/IframePage'));
const PasswordPage = lazy(() => import('./pages/password/PasswordPage'));
const InfoPage = lazy(() => import('./pages/info/InfoPage'));

function PageLoading() {
  return (
    <div className="page-loading">
      <Spin size="large" />
    </div>
  );
}

/** Applies the navigation rules (spec §2) before any page renders. */
function Guard() {
  const location = useLocation();
  const navigate = useNavigate();
  const { token, userInfo } = useSession();
  const { isLock } = useCommon();
  const { t } = useTranslation();

  useEffect(() => {
    setUnauthorizedHandler(() => {
      localSignOut();
      void navigate('/login', { replace: true });
    });
  }, [navigate]);

  useEffect(() => {
    if (location.pathname === '/login') document.title = `${t('login.title')} · ${website.title}`;
  }, [location.pathname, t]);

  const target = decideRedirect({
    path: location.pathname,
    authenticated: !!token,
    locked: isLock,
    mustChangePassword: userInfo?.must_change_password === true,
  });
  if (target) {
    const keepFrom = target === '/login' && location.pathname !== '/' && location.pathname !== '/lock';
    const to = keepFrom ? `/login?redirect=${encodeURIComponent(location.pathname + location.search)}` : target;
    return <Navigate to={to} replace />;
  }
  return (
    <Suspense fallback={<PageLoading />}>
      <Outlet />
    </Suspense>
  );
}

function ThemedApp() {
  const { themeName } = useCommon();
  const { i18n } = useTranslation();
  const theme = themeByName(themeName);
  // antd's theme first, alone: its first render computes the theme's tokens and CSS variables (20-35 ms on a small
  // machine), which in the same task as the app's first render made one task over 50 ms; the app in the next task
  const stage = useStages(1);
  return (
    <ConfigProvider
      locale={i18n.language === 'en' ? enUS : zhCN}
      theme={{
        // Components take their styles from antd's prebuilt stylesheet (main.tsx) instead of generating and inserting
        // them while they first render: the first render of a page (the live monitor's shell, table, tabs, cards)
        // then costs a fraction of the time. Only the theme's CSS variables are made at run time.
        zeroRuntime: true,
        hashed: false,
        algorithm: antdTheme.defaultAlgorithm,
        token: { colorPrimary: theme.primary, colorLink: theme.primary, borderRadius: 4, fontSize: 14 },
        components: {
          Layout: {
            siderBg: theme.sider,
            triggerBg: theme.sider,
            headerBg: theme.header,
            headerHeight: 56,
            headerPadding: '0 16px',
            bodyBg: '#f0f2f5',
            lightSiderBg: theme.sider,
            lightTriggerBg: theme.sider,
          },
          Menu: { darkItemBg: theme.sider, darkSubMenuItemBg: 'rgba(0,0,0,0.18)', darkPopupBg: theme.sider },
        },
      }}
    >
      {stage > 0 && (
        <AntApp>
          <AntdBridge />
          {/* Plain (non-transition) updates: every navigation commits, so every visited page becomes a tab. */}
          <BrowserRouter useTransitions={false}>
            <Routes>
              <Route element={<Guard />}>
                <Route path="/login" element={<LoginPage />} />
                <Route path="/lock" element={<LockPage />} />
                <Route path="/password" element={<PasswordPage required />} />
                <Route path="/404" element={<ErrorPage status="404" />} />
                <Route path="/403" element={<ErrorPage status="403" />} />
                <Route path="/500" element={<ErrorPage status="500" />} />
                <Route path="/" element={<Navigate to={website.homePath} replace />} />
                <Route element={<Layout />}>
                  <Route path="/wel/index" element={<Welcome />} />
                  <Route path="/wel/dashboard" element={<Welcome />} />
                  {Object.entries(ROUTE_ALIASES).map(([from, to]) => (
                    <Route key={from} path={from} element={<Navigate to={to} replace />} />
                  ))}
                  <Route path="/dict-horizontal/index" element={<DictHorizontal />} />
                  <Route path="/dict-vertical/index" element={<DictVertical />} />
                  <Route path="/pass/index" element={<PasswordPage />} />
                  <Route path="/info/index" element={<InfoPage />} />
                  <Route path="/myiframe/:routerPath" element={<IframePage />} />
                  <Route path="*" element={<MenuPage />} />
                </Route>
              </Route>
            </Routes>
          </BrowserRouter>
        </AntApp>
      )}
    </ConfigProvider>
  );
}

export default function App() {
  return (
    <ErrorBoundary>
      <ThemedApp />
    </ErrorBoundary>
  );
}
