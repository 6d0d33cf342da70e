import { lazy } from 'react';
import { Navigate, useLocation, useOutletContext } from 'react-router';
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import type { MenuVO } from '../api/types';
import { findMenuByPath, menuLabel } from '../app/menuUtil';
import { MIRROR_PAGES, SUB_PAGES } from '../app/staticPages';
import { resolvePage, SUB_PAGE_COMPONENTS } from '../app/pages';

// The generic list page and its form fields (date pickers, tree selects...) only for the pages made of it: the
// map pages, say, go without (the shell's Suspense shows while it loads).
const CrudPage = lazy(() => import('../components/CrudPage').then((m) => ({ default: m.CrudPage })));

/**
 * Renders a menu route: the page or resource the path maps to, a page opened from a list when the user has its
 * menu, or a fixed route showing a menu page (MIRROR_PAGES; a guarded one without its menu goes to /403); unknown
 * paths go to /404.
 */
export default function MenuPage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const { menus } = useOutletContext<{ menus: MenuVO[] }>();
  const sub = SUB_PAGES[pathname];
  const SubPage = SUB_PAGE_COMPONENTS[pathname];
  if (sub && SubPage) return findMenuByPath(menus, sub.parent) ? <SubPage /> : <Navigate to="/404" replace />;
  // a fixed route of spec §2 showing a menu page (/zmess/index, /infos/index...): a guarded one needs its menu
  const mirror = MIRROR_PAGES[pathname];
  const mirrored = mirror && resolvePage(mirror.page);
  if (mirror && mirrored?.kind === 'component') {
    if (mirror.guarded && !findMenuByPath(menus, mirror.page)) return <Navigate to="/403" replace />;
    const Page = mirrored.component;
    return <Page />;
  }
  const menu = findMenuByPath(menus, pathname);
  if (!menu) return <Navigate to="/404" replace />;
  const entry = resolvePage(pathname);
  if (!entry) {
    return (
      <div className="page">
        <Result status="info" title={menuLabel(t, menu)} subTitle={t('page.notAvailable')} />
      </div>
    );
  }
  if (entry.kind === 'component') {
    const Page = entry.component;
    return <Page />;
  }
  return (
    <div className="page">
      <CrudPage key={pathname} config={entry.config} />
    </div>
  );
}
