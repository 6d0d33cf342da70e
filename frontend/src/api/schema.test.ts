import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';

/** The generated client types must match the backend's OpenAPI document (`make client` regenerates both). */
describe('generated API types', () => {
  it('src/api/schema.d.ts is what openapi-typescript makes of openapi.json', async () => {
    const doc = readFileSync(resolve(__dirname, '../../openapi.json'), 'utf8');
    const generated = astToString(await openapiTS(doc));
    const committed = readFileSync(resolve(__dirname, 'schema.d.ts'), 'utf8');
    const body = (text: string): string => text.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '').trim();
    expect(body(committed)).toBe(body(generated));
  }, 30_000);
});
