// Writes src/api/manifest.json: the resource manifest of openapi.json (`x-liftdesk-resources`: every resource's
// operations, actions, fields and filters), the only part of the OpenAPI document the app reads at run time; the
// whole document (~400 KB) stays out of the bundle. Run by `npm run gen:api` (`make client`);
// src/api/manifest.test.ts fails when the file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const FRONTEND = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = join(FRONTEND, 'openapi.json');
const TARGET = join(FRONTEND, 'src', 'api', 'manifest.json');

const doc = JSON.parse(readFileSync(SOURCE, 'utf8'));
const manifest = doc['x-liftdesk-resources'];
if (!manifest || typeof manifest !== 'object') throw new Error(`${SOURCE} has no x-liftdesk-resources`);
// the same text the test expects: two-space JSON and a final newline
writeFileSync(TARGET, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${TARGET} (${Object.keys(manifest).length} resources)`);
