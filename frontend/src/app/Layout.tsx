import { Suspense, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { Drawer, Layout as AntLayout, Result, Spin } from 'antd';
import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { website } from '../config/website';
import { useCommon, setCollapse } from '../store/common';
import { currentRoles, tokenStoredAt, useSession } from '../store/session';
import { openTab, tabsStore, useTabs, findTab } from '../store/tabs';
import { Logo, LogoMark } from '../components/Logo';
import { ownLogo } from '../components/dept/logo';
import { useLogoUrl } from '../components/dept/useLogoUrl';
import { ErrorBoundary } from './ErrorBoundary';
import { MenuSearchOverlay } from './MenuSearch';
import { LiveProvider } from '../live/LiveProvider';
import { ServerClock } from './ServerClock';
import { SideMenu } from './SideMenu';
import { TabBar } from './TabBar';
import { TopBar } from './TopBar';
import { filterByRoles, findMenuByPath, iframeTarget, menuLabel } from './menuUtil';
import { flushPageLogOnLeave, logPageVisit } from './pageLog';
import { sizeClass } from './sizeClass';
import { startTokenRefresh } from './tokenRefresh';
import { refreshSession } from './session';
import { queryClient } from '../data/queryClient';
import type { TopMenu } from '../api/types';
import { useAllMenuRoutes, useMenuRoutes, useTopMenus } from '../access/useMenu';
import { useStages } from './useStages';
import { themeByName } from '../config/themes';
import { requiredMenu, staticPageLabel } from './staticPages';

function useSizeClass() {
  const [size, setSize] = useState(() => sizeClass(window.innerWidth));
  useEffect(() => {
    const onResize = () => setSize(sizeClass(window.innerWidth));
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return size;
}

/**
 * The logo of the signed-in user's organisation (or of its nearest ancestor with one), as a picture the page may
 * show; undefined: the product's own.
 */
function useOrgLogo(userId: string | undefined): string | undefined {
  const { data } = useQuery({ queryKey: ['org-logo', userId], queryFn: ownLogo, enabled: !!userId, staleTime: 60_000 });
  return useLogoUrl(data?.deptLogo || undefined);
}

/** The signed-in shell and its pages, with the cache of server data (which the login page does without). */
export default function Layout() {
  return (
    <QueryClientProvider client={queryClient}>
      {/* one live socket for every page that shows live data: opened when one first needs it */}
      <LiveProvider>
        <Shell />
      </LiveProvider>
    </QueryClientProvider>
  );
}

const NO_TOP_MENUS: TopMenu[] = [];

/**
 * The page's title: the active tab's label. Its own component (the shell does not render again when a tab opens),
 * and set in a task of its own: Chromium takes up to 5 ms to set a document's title.
 */
function DocumentTitle({ label }: { label: string | undefined }) {
  const tabs = useTabs();
  const activeLabel = findTab(tabs, tabs.active)?.label ?? label;
  useEffect(() => {
    const timer = setTimeout(() => {
      document.title = activeLabel ? `${activeLabel} · ${website.title}` : website.title;
    }, 0);
    return () => clearTimeout(timer);
  }, [activeLabel]);
  return null;
}

function Shell() {
  const { t } = useTranslation();
  const location = useLocation();
  const { collapse, themeName } = useCommon();
  const { userInfo } = useSession();
  const size = useSizeClass();
  const theme = themeByName(themeName);
  const routes = useMenuRoutes();
  const allRoutes = useAllMenuRoutes();
  const topMenus = useTopMenus();
  const [searchOpen, setSearchOpen] = useState(false);
  const openSearch = useCallback(() => setSearchOpen(true), []);
  const closeSearch = useCallback(() => setSearchOpen(false), []);
  const deptLogo = useOrgLogo(userInfo?.user_id);

  const roles = useMemo(() => currentRoles(userInfo), [userInfo]);
  const menus = useMemo(() => filterByRoles(routes.data ?? [], roles), [routes.data, roles]);
  const allMenus = useMemo(() => filterByRoles(allRoutes.data ?? [], roles), [allRoutes.data, roles]);

  // Token refresh: every 10 s, refresh once the token reaches the token time.
  useEffect(() => startTokenRefresh({ storedAt: tokenStoredAt, refresh: refreshSession }), []);

  // Up to a tablet's width (< 992 px) the side menu folds to its icons; on a phone it is a drawer (the top bar's
  // fold button opens it) that closes again when a page is chosen.
  const phone = size === 0;
  const { pathname, search } = location;
  useEffect(() => {
    if (size <= 1) setCollapse(true);
  }, [size]);
  useEffect(() => {
    if (phone) setCollapse(true);
  }, [phone, pathname, search]);

  // Every visited page becomes a tab.
  const label = useMemo(() => {
    // a page opened from a list, or a fixed route mirroring a guarded menu page, belongs to its menu: no tab for
    // users without it (the page answers 404 or 403)
    const needs = requiredMenu(pathname);
    if (needs && !findMenuByPath(allMenus, needs)) return undefined;
    const fixed = staticPageLabel(pathname, t, search);
    if (fixed) return fixed;
    // an embedded page: its menu's name, else its address
    const framed = iframeTarget(pathname);
    if (framed) {
      const menu = findMenuByPath(allMenus, framed);
      return menu ? menuLabel(t, menu) : framed;
    }
    const menu = findMenuByPath(allMenus, pathname);
    return menu ? menuLabel(t, menu) : undefined;
  }, [pathname, search, allMenus, t]);

  useEffect(() => {
    if (!label) return;
    const query = Object.fromEntries(new URLSearchParams(search));
    const from = tabsStore.get().active || undefined;
    tabsStore.set((s) => openTab(s, { label, value: pathname, query, params: {}, meta: {}, from }));
  }, [label, pathname, search]);

  // Every page opened is recorded (pageLog), once per opening: a change of language renames it, no new visit.
  const logged = useRef<string | undefined>(undefined);
  // what waits of them leaves when the page is hidden or goes away (a reload, a closed tab), not 3 s later
  useEffect(() => flushPageLogOnLeave(), []);
  useEffect(() => {
    if (!label || logged.current === pathname) return;
    logged.current = pathname;
    logPageVisit(pathname, label);
  }, [label, pathname]);

  // the pages' outlet context: the same object while the menus are, so that a render of the shell (a tab opened, the
  // search shown) does not render the page again
  const outlet = useMemo(() => ({ menus: allMenus }), [allMenus]);
  // The top bar takes the menus as they arrive in a render that may wait (a transition, in slices of a few ms): a
  // query's answer renders at once and whole (React Query's updates are synchronous), and the top bar with its
  // tooltips, dialogs and search box was 30-40 ms of it on a slow PC.
  const barMenus = useDeferredValue(allMenus);
  const barTopMenus = useDeferredValue(topMenus.data ?? NO_TOP_MENUS);

  const loadingMenus = allRoutes.isLoading;
  const menuError = allRoutes.isError;
  // once the menus are known: the page first, then the side menu, then the tab bar (each measures itself as it
  // mounts), each in a task of its own
  const stage = useStages(3, !loadingMenus);

  return (
    <AntLayout className={`app-shell size-${size}`} hasSider>
      <AntLayout.Sider
        className="app-sider"
        width={224}
        collapsedWidth={size === 0 ? 0 : 64}
        collapsed={phone || collapse}
        trigger={null}
        theme={theme.siderDark ? 'dark' : 'light'}
      >
        <div className={`sider-logo${theme.siderDark ? ' dark' : ''}`}>
          {deptLogo ? (
            <img src={deptLogo} alt={t('shell.orgLogo')} className="dept-logo" data-testid="org-logo" />
          ) : collapse ? (
            <LogoMark size={30} />
          ) : (
            <Logo size={30} inverse={theme.siderDark} />
          )}
        </div>
        <div className="sider-menu-wrap">
          {routes.isLoading || stage < 2 ? (
            <Spin style={{ margin: 24 }} />
          ) : (
            <SideMenu menus={menus} dark={theme.siderDark} collapsed={collapse} />
          )}
        </div>
        <ServerClock collapsed={collapse} />
      </AntLayout.Sider>
      <AntLayout className="app-main">
        <AntLayout.Header className="app-header">
          <TopBar
            logo={phone ? deptLogo : undefined}
            menus={barMenus}
            topMenus={barTopMenus}
            compact={size <= 1}
            onSearch={openSearch}
            dark={theme.headerDark}
          />
        </AntLayout.Header>
        {stage >= 3 ? <TabBar onSearch={openSearch} /> : <div className="app-tabs-placeholder" />}
        <DocumentTitle label={label} />
        <AntLayout.Content className="app-content">
          {menuError ? (
            <Result status="warning" title={t('shell.menuLoadFailed')} />
          ) : loadingMenus || stage < 1 ? (
            <div className="page-loading">
              <Spin size="large" />
            </div>
          ) : (
            <ErrorBoundary key={pathname}>
              <Suspense
                fallback={
                  <div className="page-loading">
                    <Spin size="large" />
                  </div>
                }
              >
                <Outlet context={outlet} />
              </Suspense>
            </ErrorBoundary>
          )}
        </AntLayout.Content>
      </AntLayout>
      {phone && (
        <Drawer
          className="app-menu-drawer"
          placement="left"
          size={240}
          open={!collapse}
          onClose={() => setCollapse(true)}
          closable={false}
          styles={{ body: { padding: 0 } }}
        >
          <div className={`sider-logo${theme.siderDark ? ' dark' : ''}`}>
            {deptLogo ? <img src={deptLogo} alt={t('shell.orgLogo')} className="dept-logo" /> : <Logo size={30} inverse={theme.siderDark} />}
          </div>
          {routes.isLoading ? <Spin style={{ margin: 24 }} /> : <SideMenu menus={menus} dark={theme.siderDark} collapsed={false} />}
        </Drawer>
      )}
      <MenuSearchOverlay open={searchOpen} onClose={closeSearch} menus={allMenus} />
      {/*
        Notices: none pops up. A notice an administrator publishes (消息通知 → 通知公告) reaches every user of the
        tenant as an in-site message, counted on the bell of the top bar; the old platform's hard-coded shutdown
        notice is gone.
      */}
    </AntLayout>
  );
}
