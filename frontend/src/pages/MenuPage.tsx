import { Navigate, useLocation, useOutletContext } from 'react-router';
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import type { MenuVO } from '../api/types';
import { CrudPage } from '../components/CrudPage';
import { findMenuByPath, menuLabel } from '../app/menuUtil';
import { SUB_PAGES } from '../app/staticPages';
import { resolvePage, SUB_PAGE_COMPONENTS } from '../resources';

/**
 * Renders a menu route: the page or resource the path maps to, or a page opened from a list when the user has
 * its menu; unknown paths go to /404.
 */
export default function MenuPage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const { menus } = useOutletContext<{ menus: MenuVO[] }>();
  const sub = SUB_PAGES[pathname];
  const SubPage = SUB_PAGE_COMPONENTS[pathname];
  if (sub && SubPage) return findMenuByPath(menus, sub.parent) ? <SubPage /> : <Navigate to="/404" replace />;
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
