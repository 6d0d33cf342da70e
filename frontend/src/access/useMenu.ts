import { useQuery } from '@tanstack/react-query';
import { flattenButtons, getButtons, getRoutes, getTopMenu } from '../api/menu';
import { useSession } from '../store/session';
import { useTopMenuId } from '../store/topMenu';

export { selectTopMenu, topMenuStore, useTopMenuId } from '../store/topMenu';

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
