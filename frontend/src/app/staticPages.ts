import type { TFunction } from 'i18next';
import { website } from '../config/website';

/** Tab labels of the signed-in routes that are not menu routes. */
const STATIC: Record<string, string> = {
  '/wel/index': 'tabs.home',
  '/wel/dashboard': 'tabs.dashboard',
  '/dict-horizontal/index': 'page.dictHorizontal',
  '/dict-vertical/index': 'page.dictVertical',
  '/pass/index': 'password.title',
  '/info/index': 'userInfo.title',
};

/**
 * Fixed routes of spec 000 §2 that open a menu page under another path (the top bar's user menu links to them).
 * `page` is the menu page shown; `guarded`: only for users who have that menu (the others get /403), as the server
 * answers its calls only to them; unguarded ones open for every signed-in user. `label` gives the tab label's i18n key.
 */
export interface MirrorPage {
  page: string;
  guarded: boolean;
  label: string;
}

/** The message centre's menu page: the caller's own messages (every signed-in user may read them). */
export const MESSAGE_CENTRE_PATH = '/desk/message';
/** The receive settings' menu page (消息接收设置: siteMsgReceive and siteMsgReceiveUser, the menu's users only). */
export const RECEIVE_SETTINGS_PATH = '/desk/receive';
/** The user menu's in-site messages and receive management entries. */
export const SITE_MESSAGES_ROUTE = '/zmess/index';
export const RECEIVE_ROUTE = '/infos/index';

export const MIRROR_PAGES: Record<string, MirrorPage> = {
  [SITE_MESSAGES_ROUTE]: { page: MESSAGE_CENTRE_PATH, guarded: false, label: 'shell.siteMessages' },
  // one receive management page (which types are sent in-site, and to whom): both routes open it
  [RECEIVE_ROUTE]: { page: RECEIVE_SETTINGS_PATH, guarded: true, label: 'shell.receiveManagement' },
};

/**
 * Fixed routes of spec 000 §2 that are another name of a route here: they redirect to it (one page, one tab).
 * `/messageReceiverManagement/index` is the receive management of the user menu (`/infos/index`); `/test/index` was
 * the old platform's developer test page, of no use to this one's users: home instead.
 */
export const ROUTE_ALIASES: Record<string, string> = {
  '/messageReceiverManagement/index': RECEIVE_ROUTE,
  '/test/index': website.homePath,
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

/** The menu a fixed page needs (a page opened from a list, a guarded mirror), or undefined when it needs none. */
export function requiredMenu(path: string): string | undefined {
  const mirror = MIRROR_PAGES[path];
  if (mirror) return mirror.guarded ? mirror.page : undefined;
  return SUB_PAGES[path]?.parent;
}

export function staticPageLabel(path: string, t: TFunction, search = ''): string | undefined {
  const sub = SUB_PAGES[path];
  if (sub) return t(sub.label(new URLSearchParams(search)));
  const key = STATIC[path] ?? MIRROR_PAGES[path]?.label;
  return key ? t(key) : undefined;
}
