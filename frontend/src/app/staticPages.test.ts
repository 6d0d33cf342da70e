import { describe, expect, it } from 'vitest';
import type { TFunction } from 'i18next';
import { MIRROR_PAGES, ROUTE_ALIASES, SUB_PAGES, requiredMenu, staticPageLabel } from './staticPages';

const t = ((key: string) => `<${key}>`) as unknown as TFunction;

describe('labels of pages that are not menus', () => {
  it('names the fixed pages', () => {
    expect(staticPageLabel('/wel/index', t)).toBe('<tabs.home>');
    expect(staticPageLabel('/system/user', t)).toBeUndefined();
  });

  it('names a page opened from a list by what it does', () => {
    expect(staticPageLabel('/adds/addOperating', t)).toBe('<fence.addTitle>');
    expect(staticPageLabel('/adds/addOperating', t, '?id=42')).toBe('<fence.editTitle>');
    expect(SUB_PAGES['/adds/addOperating'].parent).toBe('/operation/fence');
  });

  it('names the fixed routes of spec §2 that show a menu page, and the menu each one needs', () => {
    expect(staticPageLabel('/wel/dashboard', t)).toBe('<tabs.dashboard>');
    expect(staticPageLabel('/zmess/index', t)).toBe('<shell.siteMessages>');
    expect(staticPageLabel('/infos/index', t)).toBe('<shell.receiveManagement>');
    expect(MIRROR_PAGES['/zmess/index'].page).toBe('/desk/message');
    expect(MIRROR_PAGES['/infos/index'].page).toBe('/desk/receive');
    // everyone's own messages need no menu; receive management needs its menu, as a page opened from a list does
    expect(requiredMenu('/zmess/index')).toBeUndefined();
    expect(requiredMenu('/infos/index')).toBe('/desk/receive');
    // the other name of receive management redirects to /infos/index (one page, one tab), and so is guarded by it
    expect(ROUTE_ALIASES['/messageReceiverManagement/index']).toBe('/infos/index');
    expect(requiredMenu(ROUTE_ALIASES['/messageReceiverManagement/index'])).toBe('/desk/receive');
    expect(requiredMenu('/add/pilot')).toBe('/driver/list');
    expect(requiredMenu('/wel/index')).toBeUndefined();
  });
});
