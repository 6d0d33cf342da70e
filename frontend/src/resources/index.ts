import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { ResourceConfig } from './types';
import param from './system/param';
import dictTree from './system/dict';
import dictbiz from './system/dictbiz';
import post from './system/post';
import client from './system/client';
import tenant from './system/tenant';
import role from './system/role';
import menu from './system/menu';
import topmenu from './system/topmenu';
import dept from './system/dept';
import user from './system/user';

export type PageEntry =
  | { kind: 'resource'; config: ResourceConfig }
  | { kind: 'component'; component: ComponentType | LazyExoticComponent<ComponentType> };

const DictVertical = lazy(() => import('../pages/dict/DictVertical'));

const resource = (config: ResourceConfig): PageEntry => ({ kind: 'resource', config });

/** Menu path → what renders it. Menu routes without an entry show "not available". */
export const PAGES: Record<string, PageEntry> = {
  '/system/param': resource(param),
  '/system/dict': { kind: 'component', component: DictVertical },
  '/system/dictbiz': resource(dictbiz),
  '/system/post': resource(post),
  '/system/client': resource(client),
  '/system/tenant': resource(tenant),
  '/authority/role': resource(role),
  '/system/menu': resource(menu),
  '/system/topmenu': resource(topmenu),
  '/system/dept': resource(dept),
  '/system/user': resource(user),
};

/** Kept for the horizontal dictionary view and tests. */
export const RESOURCES = { param, dict: dictTree, dictbiz, post, client, tenant, role, menu, topmenu, dept, user };

export function resolvePage(path: string): PageEntry | undefined {
  return PAGES[path] ?? PAGES[path.replace(/\/index$/, '')];
}
