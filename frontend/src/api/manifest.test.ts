import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST, action, knownPaths, operation, transferCalls } from './manifest';

/** src/api/manifest.json is the `x-liftdesk-resources` of openapi.json (`npm run gen:api` writes both). */
describe('resource manifest', () => {
  it('src/api/manifest.json is what scripts/manifest.mjs makes of openapi.json (run `npm run gen:api`)', () => {
    const doc = JSON.parse(readFileSync(resolve(__dirname, '../../openapi.json'), 'utf8')) as Record<string, unknown>;
    const expected = `${JSON.stringify(doc['x-liftdesk-resources'], null, 2)}\n`;
    const committed = readFileSync(resolve(__dirname, 'manifest.json'), 'utf8');
    expect(committed === expected, 'src/api/manifest.json is stale: run `npm run gen:api`').toBe(true);
  });

  it('finds operations by kind and actions by name, and refuses unknown ones', () => {
    expect(operation('vehicle', 'page')).toBe('/api/blade-fics-report/fics/carInfo/page');
    expect(action('terminal', 'release_terminal')).toBe('/api/liftdesk/terminal/release');
    expect(() => operation('vehicle', 'tree')).toThrow(/no tree operation/);
    expect(() => action('vehicle', 'nope')).toThrow(/no action "nope"/);
    expect(() => operation('nope', 'page')).toThrow(/no resource "nope"/);
    expect(knownPaths().has('/api/blade-system/dept/tree')).toBe(true);
  });

  it('tells the import, its template and progress, and the export apart', () => {
    expect(transferCalls('vehicle')).toEqual({
      import: '/api/blade-fics-report/fics/carInfo/importCar',
      template: '/api/blade-fics-report/fics/carInfo/exportCarTemplate',
      progress: '/api/blade-fics-report/fics/carInfo/getCarByImport',
      export: '/api/blade-fics-report/fics/carInfo/exportCar',
    });
    expect(transferCalls('param')).toEqual({ import: undefined, template: undefined, progress: undefined, export: undefined });
    expect(Object.keys(MANIFEST).length).toBeGreaterThan(10);
  });
});
