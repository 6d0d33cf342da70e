import { website } from '../config/website';
import { createStore, useStore } from './createStore';
import { getStore, removeStore, setStore } from './storage';

/** A tab of the tab bar (spec §3: label, value, params, query, meta, group, from). */
export interface Tab {
  label: string;
  /** The route path; identifies the tab. */
  value: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  meta?: Record<string, unknown>;
  group?: string[];
  /** Path of the page the tab was opened from. */
  from?: string;
}

export interface TabsState {
  list: Tab[];
  /** `value` of the active tab. */
  active: string;
}

export const HOME = website.homePath;

export const emptyTabs: TabsState = { list: [], active: '' };

/** Opens a tab (or refreshes the one with the same path) and makes it active. */
export function openTab(state: TabsState, tab: Tab): TabsState {
  const index = state.list.findIndex((t) => t.value === tab.value);
  if (index >= 0) {
    const list = state.list.slice();
    list[index] = { ...list[index], ...tab, from: list[index].from ?? tab.from };
    return { list, active: tab.value };
  }
  return { list: [...state.list, tab], active: tab.value };
}

/** One tab cannot be closed; with several, every tab but home can. */
export function isClosable(state: TabsState, value: string): boolean {
  return state.list.length > 1 && value !== HOME && state.list.some((t) => t.value === value);
}

/** Closes a tab; closing the active tab activates its left neighbour (or right one when it was first). */
export function closeTab(state: TabsState, value: string): TabsState {
  if (!isClosable(state, value)) return state;
  const index = state.list.findIndex((t) => t.value === value);
  const list = state.list.filter((t) => t.value !== value);
  if (state.active !== value) return { list, active: state.active };
  const neighbour = list[index - 1] ?? list[index] ?? list[list.length - 1];
  return { list, active: neighbour.value };
}

/** Keeps the current tab and home. */
export function closeOthers(state: TabsState): TabsState {
  const list = state.list.filter((t) => t.value === state.active || t.value === HOME);
  return { list, active: state.active };
}

/** Returns to the home tab alone. */
export function closeAll(state: TabsState, home: Tab): TabsState {
  const existing = state.list.find((t) => t.value === HOME);
  return { list: [existing ?? home], active: HOME };
}

export function findTab(state: TabsState, value: string): Tab | undefined {
  return state.list.find((t) => t.value === value);
}

/** Where to navigate for a tab: its path plus its query. */
export function tabHref(tab: Tab): string {
  const query = tab.query ? new URLSearchParams(tab.query).toString() : '';
  return query ? `${tab.value}?${query}` : tab.value;
}

// ---- the persisted store -------------------------------------------------------------------

function load(): TabsState {
  const list = getStore<Tab[]>('tagList');
  const active = getStore<string>('tag');
  if (!Array.isArray(list)) return emptyTabs;
  return { list, active: active ?? list[0]?.value ?? '' };
}

export const tabsStore = createStore<TabsState>(load());

tabsStore.subscribe(() => {
  const state = tabsStore.get();
  setStore('tagList', state.list);
  setStore('tag', state.active);
});

export function useTabs(): TabsState {
  return useStore(tabsStore);
}

export function resetTabs(): void {
  tabsStore.set(emptyTabs);
  removeStore('tagList');
  removeStore('tag');
}
