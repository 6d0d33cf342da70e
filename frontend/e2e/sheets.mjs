// Spreadsheets in the browser suites: written and read with the backend's own openpyxl (.venv), not an npm package.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './harness.mjs';

const PYTHON = join(REPO, '.venv', 'bin', 'python');

/** Runs a Python script with the backend's interpreter (openpyxl), arguments as JSON; returns its stdout parsed. */
export function python(script, ...args) {
  const out = execFileSync(PYTHON, ['-c', script, ...args.map((a) => JSON.stringify(a))], { encoding: 'utf8' });
  return out.trim() ? JSON.parse(out) : null;
}

/** Writes `rows` under the header of the template at `template` into `target`. */
export function fillTemplate(template, target, rows) {
  python(
    `import json, sys
from openpyxl import load_workbook
book = load_workbook(json.loads(sys.argv[1]))
sheet = book.worksheets[0]
for row in json.loads(sys.argv[3]):
    sheet.append(row)
book.save(json.loads(sys.argv[2]))`,
    template,
    target,
    rows,
  );
}

/** The rows of the first sheet of an .xlsx (header first). */
export function readSheet(path) {
  return python(
    `import json, sys
from openpyxl import load_workbook
sheet = load_workbook(json.loads(sys.argv[1]), read_only=True).worksheets[0]
print(json.dumps([[c for c in r] for r in sheet.iter_rows(values_only=True)], ensure_ascii=False, default=str))`,
    path,
  );
}
