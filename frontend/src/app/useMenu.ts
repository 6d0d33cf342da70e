import { useQuery } from '@tanstack/react-query';
import { flattenButtons, getButtons, getRoutes, getTopMenu } from '../api/menu';
import { createStore, useStore } from '../store/createStore';
import { getStore, setStore } from '../store/storage';
import { useSession } from '../store/session';

/** The selected top menu ('' = all menus). */
export const topMenuStore = createStore<string>(getStore<string>('topMenuId') ?? '');

export function selectTopMenu(id: string): void {
  setStore('topMenuId', id);
  topMenuStore.set(id);
}

export function useTopMenuId(): string {
  return useStore(topMenuStore);
}

export function useMenuRoutes() {
  const { token } = useSession();
  const topMenuId = useTopMenuId();
  return useQuery({
    queryKey: ['menu', 'routes', topMenuId],
    queryFn: () => getRoutes(topMenuId),
    enabled: !!token,
    staleTime: Infinity,
  });
}

/** All menus of the user, whatever top menu is selected: used to resolve page labels and routes. */
export function useAllMenuRoutes() {
  const { token } = useSession();
  return useQuery({
    queryKey: ['menu', 'routes', ''],
    queryFn: () => getRoutes(''),
    enabled: !!token,
    staleTime: Infinity,
  });
}

export function useTopMenus() {
  const { token } = useSession();
  return useQuery({ queryKey: ['menu', 'top'], queryFn: getTopMenu, enabled: !!token, staleTime: Infinity });
}

export function usePermissions(): Set<string> {
  const { token } = useSession();
  const { data } = useQuery({
    queryKey: ['menu', 'buttons'],
    queryFn: getButtons,
    enabled: !!token,
    staleTime: Infinity,
    select: flattenButtons,
  });
  return data ?? EMPTY;
}

const EMPTY = new Set<string>();
