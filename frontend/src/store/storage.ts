import { website } from '../config/website';

/**
 * Saber-style persistence: key `saber-<name>` holding `{dataType, content, type, datetime}`.
 * `type: 'session'` stores in sessionStorage (the lock state lives there).
 */
interface Stored<T> {
  dataType: string;
  content: T;
  type: 'local' | 'session';
  datetime: number;
}

type Kind = 'local' | 'session';

function area(type: Kind): Storage {
  return type === 'session' ? window.sessionStorage : window.localStorage;
}

export function keyOf(name: string): string {
  return website.storagePrefix + name;
}

export function setStore<T>(name: string, content: T, type: Kind = 'local', now: number = Date.now()): void {
  const value: Stored<T> = { dataType: typeof content, content, type, datetime: now };
  area(type).setItem(keyOf(name), JSON.stringify(value));
}

function readRaw<T>(name: string, type: Kind): Stored<T> | null {
  const raw = area(type).getItem(keyOf(name));
  if (raw == null) return null;
  try {
    const parsed = JSON.parse(raw) as Stored<T>;
    if (parsed && typeof parsed === 'object' && 'content' in parsed) return parsed;
    return null;
  } catch {
    return null;
  }
}

export function getStore<T>(name: string, type: Kind = 'local'): T | undefined {
  const stored = readRaw<T>(name, type);
  return stored ? stored.content : undefined;
}

/** When the value was written (ms since epoch), e.g. the token age. */
export function getStoreTime(name: string, type: Kind = 'local'): number | undefined {
  return readRaw(name, type)?.datetime;
}

export function removeStore(name: string, type: Kind = 'local'): void {
  area(type).removeItem(keyOf(name));
}
