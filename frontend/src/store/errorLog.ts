import { createStore, useStore } from './createStore';
import { getStore, removeStore, setStore } from './storage';

/** A local log of an uncaught front-end error (spec §3). */
export interface ErrorLog {
  type: string;
  message: string;
  stack: string;
  info: string;
  url: string;
  time: string;
}

const MAX = 100;

export const errorLogStore = createStore<ErrorLog[]>(getStore<ErrorLog[]>('errorLogs') ?? []);

export function useErrorLogs(): ErrorLog[] {
  return useStore(errorLogStore);
}

export function addErrorLog(entry: Omit<ErrorLog, 'time' | 'url'> & Partial<Pick<ErrorLog, 'time' | 'url'>>): void {
  const log: ErrorLog = {
    url: window.location.href,
    time: new Date().toISOString(),
    ...entry,
  };
  const next = [log, ...errorLogStore.get()].slice(0, MAX);
  setStore('errorLogs', next);
  errorLogStore.set(next);
}

export function clearErrorLogs(): void {
  removeStore('errorLogs');
  errorLogStore.set([]);
}

function describe(value: unknown): { message: string; stack: string } {
  if (value instanceof Error) return { message: value.message, stack: value.stack ?? '' };
  if (typeof value === 'string') return { message: value, stack: '' };
  try {
    return { message: JSON.stringify(value), stack: '' };
  } catch {
    return { message: String(value), stack: '' };
  }
}

/** Keeps window errors and unhandled rejections as local logs. */
export function installGlobalErrorHandlers(): () => void {
  const onError = (event: ErrorEvent) => {
    const { message, stack } = describe(event.error ?? event.message);
    addErrorLog({ type: 'error', message: message || event.message, stack, info: `${event.filename}:${event.lineno}:${event.colno}` });
  };
  const onRejection = (event: PromiseRejectionEvent) => {
    // Failed API calls have already been reported by a toast; they are not front-end bugs.
    if (event.reason instanceof Error && event.reason.name === 'ApiError') return;
    const { message, stack } = describe(event.reason);
    addErrorLog({ type: 'unhandledrejection', message, stack, info: '' });
  };
  window.addEventListener('error', onError);
  window.addEventListener('unhandledrejection', onRejection);
  return () => {
    window.removeEventListener('error', onError);
    window.removeEventListener('unhandledrejection', onRejection);
  };
}
