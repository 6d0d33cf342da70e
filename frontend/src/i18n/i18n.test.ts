import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import zh from './zh.json';
import en from './en.json';

function keys(obj: object, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) =>
    v && typeof v === 'object' ? keys(v as object, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('translations', () => {
  const zhKeys = new Set(keys(zh));
  // Seeded names — menus (`menu.*`), dictionary values (`dictValue.<code>.<key>`) and roles (`roleName.<alias>`) —
  // fall back to the server's (Chinese) names, so only English lists them.
  const enKeys = new Set(keys(en).filter((k) => !/^(menu|dictValue|roleName)\./.test(k)));

  it('zh and en have the same keys', () => {
    expect([...enKeys].filter((k) => !zhKeys.has(k))).toEqual([]);
    expect([...zhKeys].filter((k) => !enKeys.has(k))).toEqual([]);
  });

  it('every literal key used in the code exists', () => {
    const root = join(import.meta.dirname, '..');
    const used = new Set<string>();
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bt\(\s*'([a-zA-Z]+\.[a-zA-Z0-9_.]+)'/g)) used.add(match[1]);
      for (const match of text.matchAll(/(?:label|title|extra): '([a-z]+[A-Za-z]*\.[a-zA-Z0-9_.]+)'/g)) used.add(match[1]);
    }
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((k) => !zhKeys.has(k))).toEqual([]);
  });
});
