import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * How the folders of the web app may depend on each other: the shared layers (declarations, components, data,
 * access...) import nothing of the shell (`app/`, the entry modules) or of the pages (`pages/`). What a shared layer
 * needs lives in a shared layer; the shell and the pages put it together (the route table is app/pages). The web half
 * of issue 27, as backend/tests/test_layering.py is the server's.
 */
const SRC = import.meta.dirname;
const SHARED = ['resources', 'components', 'data', 'map', 'live', 'api', 'access', 'store', 'i18n', 'config'];
/** Where a shared layer must not reach (paths relative to src/): the pages, the shell and the modules that start it. */
const UPWARD = [/^pages(\/|$)/, /^app(\/|$)/, /^(App|main)(\.tsx?)?$/];
const upward = (to: string) => UPWARD.some((place) => place.test(to));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/**
 * Every module specifier a source imports: `import ... from`, `import type ... from`, a bare `import '...'`,
 * `export ... from` (on one line or several) and `import('...')` wherever it is (a lazy page, a `.then`).
 */
function importsOf(source: string): string[] {
  const found: string[] = [];
  const statics = /\b(?:import|export)\s+(?:[\w*{}\s,$]*?\s*from\s*)?(['"])([^'"\n]+)\1/g;
  const dynamics = /\bimport\s*\(\s*(['"`])([^'"`\n]+)\1\s*\)/g;
  for (const match of source.matchAll(statics)) found.push(match[2]);
  for (const match of source.matchAll(dynamics)) found.push(match[2]);
  return found;
}

/** Where a relative specifier of `file` lands, relative to src/ (a package name stays as it is). */
function target(file: string, specifier: string): string {
  return specifier.startsWith('.') ? relative(SRC, resolve(dirname(file), specifier)).split(sep).join('/') : specifier;
}

describe('layering', () => {
  it('no shared layer imports from pages/ or app/', () => {
    const files = SHARED.flatMap((layer) => sources(join(SRC, layer)));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) =>
      importsOf(readFileSync(file, 'utf8'))
        .map((specifier) => target(file, specifier))
        .filter(upward)
        .map((to) => `${relative(SRC, file).split(sep).join('/')} -> ${to}`),
    );
    expect(found, `a shared layer imports from the pages or the shell:\n${found.join('\n')}`).toEqual([]);
  });

  it('the scan sees every form of import', () => {
    const sample = [
      "import { a } from '../pages/one';",
      "import type { B } from '../app/two';",
      'import {\n  c,\n  type D,\n} from "../pages/three";',
      "import e, { f } from '../pages/four';",
      "import * as g from '../pages/five';",
      "import '../pages/six.css';",
      "export { h } from '../pages/seven';",
      'export {\n  i,\n} from "../app/eight";',
      "export * from '../app/nine';",
      "const J = lazy(() => import('../pages/ten'));",
      "const K = lazy(() => import(\n  '../pages/eleven'\n).then((m) => ({ default: m.K })));",
      "export const L = 'from ../pages/not-an-import';",
    ].join('\n');
    expect(importsOf(sample).sort()).toEqual(
      [
        '../pages/one',
        '../app/two',
        '../pages/three',
        '../pages/four',
        '../pages/five',
        '../pages/six.css',
        '../pages/seven',
        '../app/eight',
        '../app/nine',
        '../pages/ten',
        '../pages/eleven',
      ].sort(),
    );
  });

  it('resolves a specifier against the importing file and tells what is upward', () => {
    const file = join(SRC, 'resources', 'driver', 'driver.ts');
    expect(target(file, '../../pages/driver/PilotForm')).toBe('pages/driver/PilotForm');
    expect(target(file, '../types')).toBe('resources/types');
    expect(target(file, 'react')).toBe('react');
    expect(['pages/driver/PilotForm', 'app/pages', 'App', 'main', 'App.tsx'].filter(upward)).toHaveLength(5);
    expect(['resources/types', 'react', 'components/paper/paper', 'apps/x', 'pagesx', 'map/api'].filter(upward)).toEqual([]);
  });
});
