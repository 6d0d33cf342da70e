import { createStore, useStore } from './createStore';
import { getStore, setStore } from './storage';

/** The selected top menu ('' = all menus). Apart from the menu queries (access/useMenu) so that signing in goes without them. */
export const topMenuStore = createStore<string>(getStore<string>('topMenuId') ?? '');

export function selectTopMenu(id: string): void {
  setStore('topMenuId', id);
  topMenuStore.set(id);
}

export function useTopMenuId(): string {
  return useStore(topMenuStore);
}
