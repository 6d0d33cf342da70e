import { createStore, useStore } from './createStore';
import { getStore, removeStore, setStore } from './storage';
import { DEFAULT_THEME } from '../config/themes';

export interface CommonState {
  collapse: boolean;
  themeName: string;
  isLock: boolean;
  lockPasswd: string;
}

function load(): CommonState {
  return {
    collapse: getStore<boolean>('collapse') ?? false,
    themeName: getStore<string>('themeName') ?? DEFAULT_THEME,
    isLock: getStore<boolean>('isLock', 'session') ?? false,
    lockPasswd: getStore<string>('lockPasswd', 'session') ?? '',
  };
}

export const commonStore = createStore<CommonState>(load());

export function useCommon(): CommonState {
  return useStore(commonStore);
}

export function setCollapse(collapse: boolean): void {
  setStore('collapse', collapse);
  commonStore.set((s) => ({ ...s, collapse }));
}

export function setThemeName(themeName: string): void {
  setStore('themeName', themeName);
  commonStore.set((s) => ({ ...s, themeName }));
}

export function setLockPasswd(lockPasswd: string): void {
  setStore('lockPasswd', lockPasswd, 'session');
  commonStore.set((s) => ({ ...s, lockPasswd }));
}

export function setLocked(isLock: boolean): void {
  setStore('isLock', isLock, 'session');
  commonStore.set((s) => ({ ...s, isLock }));
}

/** Lock state is cleared on login and on logout. */
export function clearLock(): void {
  removeStore('isLock', 'session');
  removeStore('lockPasswd', 'session');
  commonStore.set((s) => ({ ...s, isLock: false, lockPasswd: '' }));
}
