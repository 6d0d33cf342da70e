import type { TFunction } from 'i18next';

/** Tab labels of the signed-in routes that are not menu routes. */
const STATIC: Record<string, string> = {
  '/wel/index': 'tabs.home',
  '/dict-horizontal/index': 'page.dictHorizontal',
  '/dict-vertical/index': 'page.dictVertical',
  '/pass/index': 'password.title',
  '/info/index': 'userInfo.title',
};

/**
 * Pages opened from a list page rather than from a menu (spec 001 §2: add/edit/view routes). Each belongs to the
 * menu at `parent`: it opens only for users who have that menu. `label` gives the tab label's i18n key.
 */
export interface SubPage {
  parent: string;
  label: (query: URLSearchParams) => string;
}

export const SUB_PAGES: Record<string, SubPage> = {
  '/adds/addOperating': { parent: '/operation/fence', label: (q) => (q.get('id') ? 'fence.editTitle' : 'fence.addTitle') },
  '/add/pilot': { parent: '/driver/list', label: (q) => (q.get('id') ? 'driver.editTitle' : 'driver.addTitle') },
  '/locks/lockPilot': { parent: '/driver/list', label: () => 'driver.viewTitle' },
};

export function staticPageLabel(path: string, t: TFunction, search = ''): string | undefined {
  const sub = SUB_PAGES[path];
  if (sub) return t(sub.label(new URLSearchParams(search)));
  const key = STATIC[path];
  return key ? t(key) : undefined;
}
