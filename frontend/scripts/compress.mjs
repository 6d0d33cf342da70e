// Writes a brotli (.br, quality 11) and a gzip (.gz, level 9) copy beside each text file of the build, which the
// server sends instead of the file when the request accepts it (backend/liftdesk/app.py, PrecompressedFiles).
// Run after `vite build` (npm run build). A copy that would not be smaller than its file is not written.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);
const DIST = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'));
const TEXT = /\.(js|mjs|css|html|svg|json|txt|map|webmanifest)$/;

async function* files(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile() && TEXT.test(entry.name)) yield path;
  }
}

async function compress(path) {
  const data = await readFile(path);
  const [br, gzipped] = await Promise.all([
    brotli(data, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      },
    }),
    gz(data, { level: 9 }),
  ]);
  const written = { size: data.length, br: 0, gz: 0 };
  if (br.length < data.length) {
    await writeFile(`${path}.br`, br);
    written.br = br.length;
  }
  if (gzipped.length < data.length) {
    await writeFile(`${path}.gz`, gzipped);
    written.gz = gzipped.length;
  }
  return written;
}

if (!(await stat(DIST).catch(() => null))?.isDirectory()) {
  console.error(`compress: ${DIST} is not a directory (run vite build first)`);
  process.exit(1);
}
const paths = [];
for await (const path of files(DIST)) paths.push(path);
const totals = { files: 0, size: 0, br: 0, gz: 0 };
// a few at a time: brotli at quality 11 is slow and the machine is shared
for (let i = 0; i < paths.length; i += 4) {
  for (const one of await Promise.all(paths.slice(i, i + 4).map(compress))) {
    totals.files += 1;
    totals.size += one.size;
    totals.br += one.br || one.size;
    totals.gz += one.gz || one.size;
  }
}
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
console.log(
  `compress: ${totals.files} files of ${relative(process.cwd(), DIST) || '.'}: ${kb(totals.size)} → br ${kb(totals.br)}, gzip ${kb(totals.gz)}`,
);
