// Every menu page, proved in a browser (Chromium against the real backend, like the generic API suite does for the
// API). The pages come from the server's menu routes (signed in as the administrator); the fields to fill from the
// server's manifest (src/api/manifest.json: required fields, their type, limits and dictionary) joined with the form
// each page shows. For each page that lists records: save its first existing row unchanged, add a record (its
// required fields filled within the manifest's limits), find it by the page's search, open its edit form and save it
// unchanged, check it in the detail view, delete it and see it gone. Pages that need a drawing, live data or are
// read-only have their own flow (OWN_FLOW, with the suite that tests them); the meta-test fails for a menu page with
// neither. Every menu page is also photographed at three sizes (var/e2e/page-<code>-<width>.png) and checked for the
// narrow-screen rules: the side menu folds on a phone, a wide table scrolls inside its card and keeps its name
// column in view, clear of the fixed 操作 column. A read-only list (a resource with a list and a detail, and no save
// or delete: the logs) is listed, searched by its label field and opened in its detail view.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, FRONTEND, OUT, TIMEOUT, api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const MANIFEST = JSON.parse(readFileSync(join(FRONTEND, 'src', 'api', 'manifest.json'), 'utf8'));
const ZH = JSON.parse(readFileSync(join(FRONTEND, 'src', 'i18n', 'zh.json'), 'utf8'));
/** The messages the list pages show (crud.* of the Chinese texts: one "saved" for both, or "added" and "updated"). */
const SAID = { added: ZH.crud.added ?? ZH.crud.saved, updated: ZH.crud.updated ?? ZH.crud.saved, deleted: ZH.crud.deleted };
for (const [what, text] of Object.entries(SAID)) assert.ok(text, `src/i18n/zh.json has the "${what}" message of a list`);

/**
 * Menu pages tested by a suite of their own, by menu code: the file that opens them and why the generic case does
 * not fit. The meta-test checks that the file exists and opens the page.
 */
const OWN_FLOW = {
  message: {
    file: 'messages.test.mjs',
    reason: "the caller's own messages, made by notices and alarms (never added by hand): read, marked and deleted",
  },
  msg_receive: {
    file: 'messages.test.mjs',
    reason: 'one row per alarm message type, changed (in-site on or off, receivers chosen) but never added or deleted',
  },
  car_track: {
    file: 'track.test.mjs',
    reason: 'a track played back on a map from positions the pipeline stored, not a list of records',
  },
  car_monitor: {
    file: 'monitor.test.mjs',
    reason: 'a live map of the fleet, not a list: it needs simulated terminals on a gateway',
  },
  fence: {
    file: 'fence.test.mjs',
    reason: 'a fence is drawn on a map in its own editor page (/adds/addOperating), not in the list form',
  },
  map_setting: {
    file: 'mapsetting.test.mjs',
    reason: "one setting per tenant, not a list: a basemap template tested against a tile server and a site plan image placed on a map",
  },
  command_log: {
    file: 'monitor.test.mjs',
    reason: 'read-only: commands are made by the screens that send them; the log is listed, opened and cancelled after one is sent',
  },
  report_efficiency: {
    file: 'report.test.mjs',
    reason: 'a read-only report summed from daily aggregates: it needs known daily rows, a range, its totals and its export',
  },
  region: {
    file: 'region.test.mjs',
    reason: "a lazy tree of the seeded national list, not a page of rows: a new region needs a free code under its parent's",
  },
  alarm_record: {
    file: 'alarms.test.mjs',
    reason: 'read-only lists of the alarms the pipeline raised: they need ingested positions, a range and an export',
  },
  alarm_abnormal: {
    file: 'alarms.test.mjs',
    reason: "read-only: the vehicles abnormal now, from the terminals' states (an open battery alarm, fault codes)",
  },
  alarm_fault: {
    file: 'alarms.test.mjs',
    reason: 'read-only: the fault codes the terminals reported, by vehicle and by type, with their export',
  },
  attach: {
    file: 'files.test.mjs',
    reason: 'attachments are made by uploading a file (no form): uploaded through the page, listed, downloaded and deleted',
  },
  driver_paper: {
    file: 'papers.test.mjs',
    reason:
      'a paper needs a driver as its holder (drivers are written into the database until their own screens land) and its states change through the toolbar: added with a picture, reviewed, lent, returned, its records read',
  },
  driver_reminder: {
    file: 'papers.test.mjs',
    reason: 'read-only: reminders are written by the daily job (liftdesk remind), listed on the page and the home card, ignored',
  },
  face_log: {
    file: 'vision.test.mjs',
    reason: "read-only: face comparisons come from the terminals' driver cameras through the pipeline; listed and filtered by result",
  },
  driver_behavior: {
    file: 'vision.test.mjs',
    reason: "an analysis of the driver cameras' behaviour alarms (counts by type, a daily trend), not a list of records",
  },
  code: {
    file: 'codegen.test.mjs',
    reason: 'a record holds a list of fields edited in a table of its own (no made-up values fit it), and its code is downloaded as a zip',
  },
  report_file: {
    file: 'codegen.test.mjs',
    reason: 'definitions are saved by the report designer, never added or edited here: listed, opened and deleted',
  },
};

/**
 * Per-page hints where the manifest and the form do not say enough (by menu code):
 * - `search`: the prop of the search field that finds the new record (default: the resource's label field);
 * - `values`: a value for a field that must be chosen rather than made up;
 * - `seedValues`: the same for the first row made through the API, where it must differ from the form's (a unique
 *   mobile number);
 * - `list`: the action (its name in the manifest) the page lists with, when not the resource's page or list call.
 * - `masked`: required fields the server reads back masked (`******`, a secret): the edit form shows the mask and
 *   sends it back unchanged (the server then keeps the stored value).
 * Required selects (a user's role and department, from 角色管理 and 机构管理) take their first option.
 */
const HINTS = {
  // a new tenant's administrator password is shown once, in a notice over the list, after the creation
  tenant: { created: /租户 \d+ 的管理员账号 admin 的初始密码: \S{8,}/ },
  // 系统字典 shows the root entries (left; what the generic case adds) and, once a root is picked, its children
  dict: { list: 'parent_list' },
  // a read-only list that may start empty: `seed` is a call that makes a row of it (the web app's error upload)
  log_usual: {
    seed: { path: '/api/blade-auth/oauth/logout', body: [{ type: 'error', message: 'e2e page suite', url: '/monitor/log/usual' }] },
  },
  // an object storage configuration's endpoint is an http(s) address (the made-up texts are not)
  oss: { values: { endpoint: 'http://127.0.0.1:9000' } },
  // an SMS configuration's keys and signature are required; its secret key is read back masked
  sms: { masked: ['secretKey'] },
  // a driver's and an application's phone is a mobile number (the server tells empty, length and landline apart)
  driver: { values: { phone: '13800138001' }, seedValues: { phone: '13800138011' } },
  driver_apply: { values: { phone: '13800138002' }, seedValues: { phone: '13800138012' } },
};

/**
 * Steps that fail because of a defect of the app, by `<menu code>:<step>`, with the defect: the step runs as `todo`
 * (reported, not failing the suite) until the defect is fixed. Steps: first-row, add, search, edit, detail, delete.
 */
const KNOWN_DEFECTS = {};
const STEPS = ['first-row', 'add', 'search', 'edit', 'detail', 'delete', 'list'];

/** The sizes every menu page is photographed at (and checked for the narrow-screen rules at the first and last). */
const WIDTHS = [
  { width: 1280, height: 720 },
  { width: 768, height: 1024 },
  { width: 390, height: 844 },
];

// ---- the server's menu, before the cases are declared ---------------------------------------------------------

const backend = await startBackend({ name: 'e2e-pages' });
let MENU_PAGES;
let token;
try {
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const routes = await api(backend.base, '/api/blade-system/menu/routes', { token });
  assert.equal(routes.code, 200, JSON.stringify(routes));
  MENU_PAGES = menuPages(routes.data);
} catch (e) {
  await backend.stop();
  throw e;
}

/** The leaves of the menu tree (the pages a menu opens), each with the label of its group. */
function menuPages(nodes, group = undefined) {
  return nodes.flatMap((node) => {
    const pages = (node.children ?? []).filter((c) => c.category === 1);
    if (pages.length) return menuPages(pages, node.name);
    return [{ code: node.code, name: node.name, path: node.path, group }];
  });
}

/** The manifest resource behind a menu page: the one of the menu's code (its own name first). */
function resourceOf(code) {
  const matches = Object.values(MANIFEST).filter((r) => r.code === code);
  return matches.find((r) => r.name === code) ?? matches[0];
}

/** A resource whose page only lists and shows (a list and a detail call, no save and no delete): the logs. */
function isReadOnly(resource) {
  const kinds = new Set(resource.operations.map((o) => o.kind));
  const detail = kinds.has('detail') || resource.actions.some((a) => a.kind === 'detail');
  const writes = ['submit', 'create', 'update', 'remove'].some((k) => kinds.has(k));
  return (kinds.has('page') || kinds.has('list')) && detail && !writes;
}

/** Why a menu page cannot have a generic case (undefined when it can). */
function genericProblem(menuPage) {
  const resource = resourceOf(menuPage.code);
  if (!resource) return `no resource of the manifest has the code "${menuPage.code}"`;
  if (isReadOnly(resource)) return undefined;
  const kinds = new Set(resource.operations.map((o) => o.kind));
  const missing = [
    ['a list', ['page', 'list']],
    ['a detail', ['detail']],
    ['a save', ['submit', 'create']],
    ['a delete', ['remove']],
  ].filter(([, any]) => !any.some((k) => kinds.has(k)));
  if (missing.length) return `its resource "${resource.name}" has no ${missing.map(([what]) => what).join(', ')} call`;
  return undefined;
}

const GENERIC = MENU_PAGES.filter((p) => !OWN_FLOW[p.code]);

/** The calls a page lists its records with. */
function listPaths(p) {
  const resource = resourceOf(p.code);
  const action = HINTS[p.code]?.list;
  if (action) return new Set(resource.actions.filter((a) => a.name === action).map((a) => a.path));
  return new Set(resource.operations.filter((o) => o.kind === 'page' || o.kind === 'list').map((o) => o.path));
}

/**
 * Adds a record through the API, its required fields made up from the manifest (for a list that starts empty: its
 * first row is then one the form did not make).
 */
async function addThroughApi(p) {
  const resource = resourceOf(p.code);
  const body = {};
  let n = 0;
  for (const [prop, field] of Object.entries(resource.fields)) {
    if (!field.required) continue;
    n += 1;
    const hinted = HINTS[p.code]?.seedValues?.[prop] ?? HINTS[p.code]?.values?.[prop];
    if (hinted !== undefined) body[prop] = hinted;
    else if (field.default !== undefined) body[prop] = field.default;
    else if (field.type === 'string') body[prop] = textFor(field, `api${n}`);
    else if (field.type === 'integer' || field.type === 'number') body[prop] = Math.min(Math.max(1, field.minimum ?? 1), field.maximum ?? 1);
    else if (field.type === 'boolean') body[prop] = false;
    else throw new Error(`${p.name}: cannot make up ${prop} (${field.type}) for a first row: seed one in HINTS`);
  }
  const call = resource.operations.find((o) => o.kind === 'create') ?? resource.operations.find((o) => o.kind === 'submit');
  const answer = await api(backend.base, call.path, { method: 'POST', token, body });
  assert.equal(answer.code, 200, `${call.path} ${JSON.stringify(body)}: ${JSON.stringify(answer)}`);
}

// ---- browser, page and helpers ------------------------------------------------------------------------------

let browser;
let page;
const pageErrors = [];
/** What the suite noticed without failing (e.g. a delete confirmation that does not name the record). */
const NOTES = [];

const { opened, signInAsAdmin } = ui(() => page);

const RUN = Date.now().toString(36).slice(-5);
const PASSWORD = `E2e-pass#${RUN}`;

/** Records every toast the page shows (in `window.__toasts`), so a step need not wait for the last one to go. */
function recordToasts() {
  const seen = new WeakSet();
  window.__toasts = [];
  const scan = () => {
    for (const notice of document.querySelectorAll('.ant-message-notice')) {
      const text = notice.textContent?.trim();
      if (!seen.has(notice) && text) {
        seen.add(notice);
        window.__toasts.push(text);
      }
    }
  };
  new MutationObserver(scan).observe(document, { childList: true, subtree: true, characterData: true });
}

const toastMark = () => page.evaluate(() => window.__toasts.length);

/**
 * Waits for a toast with `text` shown after `mark` (see toastMark), or still on screen: the page does not show a
 * toast again while the same one shows (two saves in a row say "saved" once).
 */
async function toastAfter(mark, text) {
  try {
    await page.waitForFunction(
      ([m, s]) =>
        window.__toasts.slice(m).some((t) => t.includes(s)) ||
        [...document.querySelectorAll('.ant-message-notice')].some((n) => n.textContent.includes(s)),
      [mark, text],
      { timeout: TIMEOUT },
    );
  } catch {
    const shown = await page.evaluate((m) => window.__toasts.slice(m), mark);
    throw new Error(`no toast "${text}"; shown: ${JSON.stringify(shown)}`);
  }
}

before(async () => {
  // the failures' screenshots of an earlier run would pass for this one's
  for (const f of readdirSync(OUT)) if (f.startsWith('defect-')) rmSync(join(OUT, f));
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.addInitScript(recordToasts);
  // no basemap tile can load here: fail them at once rather than let them hang (the map pages are photographed)
  await page.context().route(/^https:\/\/tile\.openstreetmap\.org\//, (route) => route.abort('internetdisconnected'));
  await signInAsAdmin(backend.base);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
  if (NOTES.length) console.log(`# notes of the page suite:\n${NOTES.map((n) => `#   ${n}`).join('\n')}`);
});

/** The list card of the page on screen (the first: 系统字典's root entries). */
const card = () => page.locator('.crud-card:visible').first();
/** The open edit form (a dialog with the list's form). */
const formDialog = () => page.locator('.ant-modal:visible').filter({ has: page.locator('.crud-form') });
const rowsOf = (c) => c.locator('.ant-table-row:visible');
const rowWith = (c, value) => rowsOf(c).filter({ hasText: value });
/** A row's button by its text (an icon before it adds its own name; a compact list's has only an aria-label). */
const rowButton = (row, name) => row.getByRole('button', { name: new RegExp(`(^|\\s)${[...name].join('\\s*')}$`) });

/** Waits until the page has loaded what it shows (no spinner, no page placeholder). */
async function loaded() {
  await page.waitForFunction(
    () =>
      !document.querySelector('.page-loading') &&
      !document.querySelector('.app-content .ant-spin-spinning') &&
      !!document.querySelector('.app-content')?.firstElementChild,
    undefined,
    { timeout: TIMEOUT },
  );
}

/** Opens a menu page through the side menu (its group unfolded first when needed). */
async function openPage(p) {
  const sider = page.locator('.app-sider');
  const entry = sider.locator('li.ant-menu-item').getByText(p.name, { exact: true });
  if (!(await entry.isVisible())) {
    await sider.locator('.ant-menu-submenu-title').getByText(p.group, { exact: true }).click();
    await entry.waitFor();
    // a click while the group still unfolds can miss the item
    await page.waitForFunction(() => !document.querySelector('.app-sider [class*="-motion-"], .app-sider [class*="ant-motion"]'));
  }
  const listed = waitForList(p);
  await entry.click();
  await page.waitForURL((url) => url.pathname === p.path);
  try {
    await card().locator('.ant-table').waitFor();
  } catch {
    throw new Error(`${p.name} (${p.path}) shows no list: give it its own flow (OWN_FLOW) with the suite that tests it`);
  }
  return shown(await listed);
}

/** Waits for the page's list call (see listPaths). */
function waitForList(p) {
  const paths = listPaths(p);
  return page.waitForResponse((r) => paths.has(new URL(r.url()).pathname) && r.request().method() !== 'OPTIONS');
}

/** Waits for the page's list call searching for `value`. */
function waitForSearch(p, value) {
  const paths = listPaths(p);
  return page.waitForResponse((r) => {
    const url = new URL(r.url());
    return paths.has(url.pathname) && r.request().method() !== 'OPTIONS' && [...url.searchParams.values()].includes(value);
  });
}

/** The records of a list answer, once the table shows them. */
async function shown(answer) {
  const body = await answer.json();
  assert.equal(body.code, 200, `${answer.url()}: ${JSON.stringify(body)}`);
  const records = Array.isArray(body.data) ? body.data : (body.data?.records ?? []);
  if (records.length) await rowsOf(card()).first().waitFor();
  await loaded();
  return records;
}

/** The fields of a form: prop (the control's id), label, kind of control, required mark, disabled, empty. */
async function formFields(dialog) {
  return dialog.locator('.crud-form .ant-form-item').evaluateAll((items) =>
    items.map((item) => {
      const label = item.querySelector('.ant-form-item-label label');
      const control = item.querySelector('.ant-form-item-control');
      const prop = label?.getAttribute('for') ?? '';
      const has = (s) => !!control.querySelector(s);
      const kind = has('.ant-tree-select')
        ? 'tree'
        : has('.ant-select')
          ? 'select'
          : has('.ant-input-number')
            ? 'number'
            : has('.ant-switch')
              ? 'switch'
              : has('.ant-picker')
                ? 'date'
                : has('textarea')
                  ? 'textarea'
                  : has('input[type="password"]')
                    ? 'password'
                    : 'input';
      const input = control.querySelector('input, textarea');
      const placeholder = control.querySelector('.ant-select-placeholder');
      const empty =
        kind === 'tree' || kind === 'select'
          ? !!placeholder && getComputedStyle(placeholder).visibility !== 'hidden' && placeholder.offsetParent !== null
          : kind === 'switch'
            ? false
            : !input?.value;
      return {
        prop,
        label: label?.textContent?.trim() ?? '',
        kind,
        required: !!label?.classList.contains('ant-form-item-required'),
        disabled: !!control.querySelector('.ant-input-disabled, .ant-select-disabled, .ant-input-number-disabled, [disabled]'),
        empty,
      };
    }),
  );
}

/** A text valid for a manifest field: within its length limits and pattern; unique by `n`. */
function textFor(field, n) {
  const max = field?.maxLength ?? 64;
  const min = field?.minLength ?? 1;
  const candidates = [`e2e${RUN}${n}`, `E2E_${RUN}_${n}`, `${Date.now()}${n}`.slice(-Math.min(max, 12))];
  const pattern = field?.pattern ? new RegExp(field.pattern) : undefined;
  for (const raw of candidates) {
    const value = raw.length > max ? raw.slice(-max) : raw.padEnd(min, '0');
    if (!pattern || pattern.test(value)) return value;
  }
  throw new Error(`no made-up text fits ${JSON.stringify(field)}: give a value in HINTS`);
}

/** Picks the first option of the select or tree select of `prop` in the form. */
async function chooseFirst(dialog, prop, kind) {
  const field = dialog.locator('.ant-form-item').filter({ has: page.locator(`label[for="${prop}"]`) });
  await field.locator('.ant-select').click();
  const dropdown = page.locator('.ant-select-dropdown:visible').last();
  if (kind === 'tree') {
    const node = dropdown.locator('.ant-select-tree-treenode:not([aria-hidden="true"])').first();
    await node.waitFor();
    // a multiple tree select has check boxes; a single one selects its title
    const box = node.locator('.ant-select-tree-checkbox');
    await ((await box.count()) ? box : node.locator('.ant-select-tree-node-content-wrapper')).click();
  } else {
    await dropdown.locator('.ant-select-item-option').first().click();
  }
  if (await dropdown.isVisible()) await page.keyboard.press('Escape');
  await dropdown.waitFor({ state: 'hidden' });
  const placeholder = field.locator('.ant-select-placeholder');
  assert.ok(!(await placeholder.isVisible()), `${prop}: an option is chosen`);
}

/**
 * Fills the required fields the form leaves empty, valid per the manifest. Returns what was filled: the text ones
 * are checked in the detail view.
 */
async function fillRequired(dialog, resource, hints) {
  const filled = [];
  let n = 0;
  for (const f of await formFields(dialog)) {
    const field = resource.fields[f.prop];
    const required = f.required || field?.required;
    if (!required || !f.empty || f.disabled) continue;
    n += 1;
    const control = dialog.locator(`[id="${f.prop}"]`);
    const hinted = hints.values?.[f.prop];
    if (f.kind === 'input' || f.kind === 'textarea') {
      const value = hinted ?? textFor(field, n);
      await control.fill(value);
      filled.push({ ...f, value });
    } else if (f.kind === 'password') {
      await control.fill(PASSWORD);
      filled.push({ ...f, value: PASSWORD });
    } else if (f.kind === 'number') {
      const value = hinted ?? field?.default ?? Math.min(Math.max(1, field?.minimum ?? 1), field?.maximum ?? 1);
      await control.fill(String(value));
      filled.push({ ...f, value: String(value) });
    } else if (f.kind === 'select' || f.kind === 'tree') {
      await chooseFirst(dialog, f.prop, f.kind);
      filled.push({ ...f, value: undefined });
    } else if (f.kind === 'date') {
      const today = new Date().toISOString().slice(0, 10);
      await control.fill(today);
      await control.press('Enter');
      filled.push({ ...f, value: undefined });
    }
  }
  return filled;
}

/** The save calls of a resource (create, submit, update). */
function savePaths(resource) {
  return new Set(resource.operations.filter((o) => ['create', 'submit', 'update'].includes(o.kind)).map((o) => o.path));
}

/**
 * Presses the form's save button and returns the saved payload once the server took it; fails with the form's
 * messages when the form refuses, or with the server's answer when the server does.
 */
async function save(dialog, resource, message) {
  const paths = savePaths(resource);
  const mark = await toastMark();
  const answered = page.waitForResponse((r) => r.request().method() === 'POST' && paths.has(new URL(r.url()).pathname), { timeout: TIMEOUT });
  const refused = dialog
    .locator('.ant-form-item-explain-error')
    .first()
    .waitFor({ timeout: TIMEOUT })
    .then(() => 'refused');
  answered.catch(() => {});
  refused.catch(() => {});
  await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
  const first = await Promise.race([answered, refused]);
  if (first === 'refused') {
    const errors = await dialog.locator('.ant-form-item-explain-error').allInnerTexts();
    throw new Error(`the form does not save: ${errors.join('; ')}`);
  }
  const body = await first.json();
  assert.equal(body.code, 200, `${new URL(first.url()).pathname} answered ${first.status()}: ${JSON.stringify(body)}`);
  await toastAfter(mark, message);
  await dialog.waitFor({ state: 'hidden' });
  return first.request().postDataJSON();
}

/** Opens the edit form of `row` and waits until it shows the record's detail. */
async function openEdit(row) {
  await rowButton(row, '编辑').click();
  const dialog = formDialog();
  await opened(dialog);
  await page.waitForFunction(() => !document.querySelector('.ant-modal .ant-spin-spinning'));
  return dialog;
}

/** Runs a step: skipped after an earlier step of its page failed; a screenshot of the failure goes to var/e2e. */
function step(state, code, name, title, fn) {
  const defect = KNOWN_DEFECTS[`${code}:${name}`];
  it(title, defect ? { todo: defect } : {}, async (t) => {
    if (state.failed) return t.skip(`an earlier step failed (${state.failed})`);
    try {
      await fn(t);
    } catch (e) {
      state.failed = name;
      await page.screenshot({ path: shot(`defect-${code}-${name}`) }).catch(() => {});
      // leave no dialog open for the next page
      await page.keyboard.press('Escape').catch(() => {});
      throw e;
    }
  });
}

// ---- the meta-test ------------------------------------------------------------------------------------------

describe('menu pages: each has a case', () => {
  it('every menu page has a generic case or its own flow', () => {
    assert.ok(MENU_PAGES.length >= 10, `the administrator's menu has pages: ${JSON.stringify(MENU_PAGES)}`);
    const problems = [];
    for (const p of GENERIC) {
      const problem = genericProblem(p);
      if (problem) problems.push(`${p.name} (${p.path}) has no case: ${problem}; add it to OWN_FLOW with the suite that tests it`);
    }
    for (const [code, own] of Object.entries(OWN_FLOW)) {
      const p = MENU_PAGES.find((m) => m.code === code);
      if (!p) {
        problems.push(`OWN_FLOW names "${code}", which no menu page has`);
        continue;
      }
      assert.ok(own.reason, `OWN_FLOW.${code} gives a reason`);
      const file = join(FRONTEND, 'e2e', own.file);
      if (!existsSync(file)) problems.push(`${p.name}: its own flow ${own.file} does not exist`);
      else if (!readFileSync(file, 'utf8').includes(`openMenu('${p.group}', '${p.name}')`))
        problems.push(`${p.name}: ${own.file} does not open it (openMenu('${p.group}', '${p.name}'))`);
    }
    for (const key of [...Object.keys(HINTS), ...Object.keys(KNOWN_DEFECTS).map((k) => k.split(':')[0])]) {
      if (!GENERIC.some((p) => p.code === key)) problems.push(`HINTS / KNOWN_DEFECTS name "${key}", which is no generic case`);
    }
    for (const key of Object.keys(KNOWN_DEFECTS)) {
      if (!STEPS.includes(key.split(':')[1])) problems.push(`KNOWN_DEFECTS.${key}: the steps are ${STEPS.join(', ')}`);
    }
    assert.deepEqual(problems, []);
  });
});

// ---- the generic cases --------------------------------------------------------------------------------------

for (const p of GENERIC) {
  const resource = resourceOf(p.code);
  if (!resource) continue; // the meta-test names it
  const hints = HINTS[p.code] ?? {};
  const searchProp = hints.search ?? resource.label;
  if (isReadOnly(resource)) {
    readOnlyCase(p, hints, searchProp);
    continue;
  }
  describe(`${p.group} → ${p.name} (${p.path})`, () => {
    const state = { failed: undefined };
    /** The record added here: its name and the fields filled. */
    const made = { name: undefined, filled: [] };

    step(state, p.code, 'first-row', 'opens from the menu as a list and saves its first row unchanged', async (t) => {
      let records = await openPage(p);
      if (!records.length) {
        // nothing to save yet: a record made through the API, shown by the refresh button
        await addThroughApi(p);
        const listed = waitForList(p);
        await card().locator('.crud-toolbar').getByRole('button', { name: '刷新' }).click();
        records = await shown(await listed);
        assert.equal(records.length, 1, 'the record added through the API is listed');
        t.diagnostic('the list started empty: its first row was added through the API');
      }
      const first = rowsOf(card()).first();
      const dialog = await openEdit(first);
      await save(dialog, resource, SAID.updated);
    });

    step(state, p.code, 'add', `adds a record, its required fields filled per the manifest`, async () => {
      await card().locator('.crud-toolbar').getByRole('button', { name: /新\s*增/ }).click();
      const dialog = formDialog();
      await opened(dialog);
      made.filled = await fillRequired(dialog, resource, hints);
      const named = made.filled.find((f) => f.prop === searchProp);
      assert.ok(named?.value, `the form asks for ${searchProp} (the search field): filled ${JSON.stringify(made.filled)}`);
      made.name = named.value;
      const sent = await save(dialog, resource, SAID.added);
      assert.equal(sent[searchProp], made.name);
      if (hints.created) {
        // what only the creation's answer holds is shown this once, and the list is usable once it is read
        const notice = page.locator('.ant-modal-confirm');
        await notice.waitFor();
        assert.match(await notice.innerText(), hints.created);
        await notice.getByRole('button').last().click();
        await notice.waitFor({ state: 'hidden' });
      }
    });

    step(state, p.code, 'search', `finds it by its search field (${searchProp})`, async () => {
      const c = card();
      const search = c.locator('.crud-search');
      let field = search.locator(`[id="${searchProp}"]`);
      if (!(await field.isVisible())) {
        const expand = search.getByRole('button', { name: /展\s*开/ });
        if (await expand.count()) await expand.click();
      }
      field = search.locator(`[id="${searchProp}"]`);
      assert.ok(await field.isVisible(), `the search form has a field ${searchProp}`);
      await field.fill(made.name);
      const listed = waitForSearch(p, made.name);
      await search.getByRole('button', { name: /搜\s*索/ }).click();
      const answer = await listed;
      assert.equal((await answer.json()).code, 200);
      await rowWith(c, made.name).first().waitFor();
      await loaded();
      const texts = await rowsOf(c).allInnerTexts();
      assert.ok(texts.length >= 1 && texts.every((text) => text.includes(made.name)), `only matching rows listed: ${JSON.stringify(texts)}`);
    });

    step(state, p.code, 'edit', 'opens its edit form with its values and saves it unchanged', async () => {
      const dialog = await openEdit(rowWith(card(), made.name).first());
      const read = (f) => (HINTS[p.code]?.masked?.includes(f.prop) ? '******' : f.value);
      for (const f of made.filled.filter((x) => x.kind === 'input' || x.kind === 'textarea'))
        assert.equal(await dialog.locator(`[id="${f.prop}"]`).inputValue(), read(f), `${f.label} in the edit form`);
      const sent = await save(dialog, resource, SAID.updated);
      for (const f of made.filled.filter((x) => x.kind === 'input' || x.kind === 'textarea'))
        assert.equal(sent[f.prop], read(f), `${f.label} sent unchanged`);
    });

    step(state, p.code, 'detail', 'shows it in the detail view', async () => {
      await rowButton(rowWith(card(), made.name).first(), '查看').click();
      const drawer = page.locator('.ant-drawer-open');
      await drawer.locator('.ant-descriptions').waitFor();
      await page.waitForFunction(() => !document.querySelector('.ant-drawer .ant-spin-spinning'));
      // a secret shows •••• until its eye button is pressed
      for (const eye of await drawer.locator('.crud-secret button').all()) await eye.click();
      const shown = await drawer.locator('.ant-descriptions-row').evaluateAll((rows) =>
        Object.fromEntries(
          rows.map((r) => [r.querySelector('.ant-descriptions-item-label')?.textContent?.trim(), r.querySelector('.ant-descriptions-item-content')?.textContent?.trim()]),
        ),
      );
      const texts = made.filled.filter((x) => x.kind === 'input' || x.kind === 'textarea');
      assert.ok(texts.length > 0);
      const masked = HINTS[p.code]?.masked ?? [];
      for (const f of texts)
        assert.equal(shown[f.label], masked.includes(f.prop) ? '******' : f.value, `${f.label} in the detail: ${JSON.stringify(shown)}`);
      await drawer.locator('.ant-drawer-close').click();
      await drawer.waitFor({ state: 'detached' });
    });

    step(state, p.code, 'delete', 'deletes it after a confirmation, and it is gone', async (t) => {
      const c = card();
      await rowButton(rowWith(c, made.name).first(), '删除').click();
      const dialog = page.locator('.ant-modal-confirm:visible');
      await opened(dialog);
      const question = (await dialog.locator('.ant-modal-confirm-paragraph, .ant-modal-confirm-body').first().innerText()).trim();
      if (!question.includes(made.name)) {
        const note = `${p.name}: the delete confirmation "${question}" does not name the record (${made.name})`;
        NOTES.push(note);
        t.diagnostic(note);
      }
      const removePath = resource.operations.find((o) => o.kind === 'remove').path;
      const mark = await toastMark();
      const removed = page.waitForResponse((r) => new URL(r.url()).pathname === removePath);
      const relisted = waitForSearch(p, made.name);
      await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
      const body = await (await removed).json();
      assert.equal(body.code, 200, JSON.stringify(body));
      await toastAfter(mark, SAID.deleted);
      await relisted;
      await loaded();
      assert.equal(await rowWith(c, made.name).count(), 0, `${made.name} is no longer listed`);
      // leave the list unfiltered for the screenshots
      await c.locator('.crud-search').getByRole('button', { name: /清\s*空/ }).click();
    });
  });
}

/** A read-only list: it opens from the menu, finds a listed row by its label field and shows it in the detail view. */
function readOnlyCase(p, hints, searchProp) {
  describe(`${p.group} → ${p.name} (${p.path}), read-only`, () => {
    const state = { failed: undefined };
    /** A listed row's value of the search field (undefined: the list has no row to search for). */
    const found = { value: undefined };

    step(state, p.code, 'list', 'opens from the menu as a list without add, edit or delete', async (t) => {
      if (hints.seed) {
        const answer = await api(backend.base, hints.seed.path, { method: 'POST', token, body: hints.seed.body });
        assert.equal(answer.code, 200, `${hints.seed.path}: ${JSON.stringify(answer)}`);
      }
      const records = await openPage(p);
      const c = card();
      assert.equal(await c.locator('.crud-toolbar').getByRole('button', { name: /新\s*增/ }).count(), 0, 'no add button');
      if (records.length) {
        for (const name of ['编辑', '删除']) assert.equal(await rowButton(rowsOf(c).first(), name).count(), 0, `no ${name} button`);
      }
      found.value = records.map((r) => r[searchProp]).find((v) => typeof v === 'string' && v.trim());
      if (!found.value) t.diagnostic(`the list has no row with a ${searchProp} to search for and open`);
    });

    step(state, p.code, 'search', `finds a listed row by its search field (${searchProp})`, async (t) => {
      if (!found.value) return t.skip('the list is empty');
      const c = card();
      const search = c.locator('.crud-search');
      if (!(await search.locator(`[id="${searchProp}"]`).isVisible())) {
        const expand = search.getByRole('button', { name: /展\s*开/ });
        if (await expand.count()) await expand.click();
      }
      const field = search.locator(`[id="${searchProp}"]`);
      assert.ok(await field.isVisible(), `the search form has a field ${searchProp}`);
      await field.fill(found.value);
      const listed = waitForSearch(p, found.value);
      await search.getByRole('button', { name: /搜\s*索/ }).click();
      const records = await shown(await listed);
      assert.ok(records.length >= 1 && records.every((r) => String(r[searchProp]).includes(found.value)), `only matching rows: ${records.length}`);
    });

    step(state, p.code, 'detail', 'shows a row in the detail view', async (t) => {
      if (!found.value) return t.skip('the list is empty');
      const c = card();
      await rowButton(rowsOf(c).first(), '查看').click();
      const drawer = page.locator('.ant-drawer-open');
      await drawer.locator('.ant-descriptions').waitFor();
      await page.waitForFunction(() => !document.querySelector('.ant-drawer .ant-spin-spinning'));
      const text = await drawer.locator('.ant-descriptions').innerText();
      assert.ok(text.includes(found.value), `the detail shows ${found.value}: ${text.slice(0, 400)}`);
      await drawer.locator('.ant-drawer-close').click();
      await drawer.waitFor({ state: 'detached' });
      // leave the list unfiltered for the screenshots
      await c.locator('.crud-search').getByRole('button', { name: /清\s*空/ }).click();
    });
  });
}

// ---- three sizes ----------------------------------------------------------------------------------------------

/** How the page lays out: the side menu, and for a list its table, name column and fixed 操作 column. */
function layout() {
  const box = (el) => {
    if (!el) return undefined;
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width };
  };
  const sider = document.querySelector('.app-sider');
  const content = document.querySelector('.app-content');
  const card = [...document.querySelectorAll('.crud-card')].find((c) => c.offsetParent !== null);
  const table = card?.querySelector('.ant-table-container');
  const heads = card ? [...card.querySelectorAll('.ant-table-thead th')] : [];
  // the name column: the first one that is neither the selection, the index nor the expand column
  const name = heads.find((th) => !th.classList.contains('ant-table-selection-column') && th.textContent.trim() !== '#' && th.textContent.trim() !== '');
  const actions = heads.find((th) => th.textContent.trim() === '操作');
  return {
    viewport: window.innerWidth,
    pageScrollWidth: document.documentElement.scrollWidth,
    sider: box(sider),
    content: box(content),
    card: box(card),
    table: box(table),
    name: box(name),
    nameText: name?.textContent.trim(),
    actions: box(actions),
  };
}

/**
 * Opens every menu page in a window of `size` (a context of its own, signed in as the suite's page is), photographs
 * it and returns what breaks the narrow-screen rules, and the page errors.
 */
async function photograph(size) {
  const context = await browser.newContext({ viewport: size, locale: 'zh-CN', storageState: await page.context().storageState() });
  const errors = [];
  const problems = [];
  const view = await context.newPage();
  view.setDefaultTimeout(TIMEOUT * 2); // a map page in software WebGL takes its time
  view.on('pageerror', (e) => errors.push(e.message));
  await context.route(/^https:\/\/tile\.openstreetmap\.org\//, (route) => route.abort('internetdisconnected'));
  try {
    await view.goto(`${backend.base}/wel/index`);
    for (const p of MENU_PAGES) {
      // through the router, as a menu does (a reload per page would start the whole app again)
      await view.evaluate((path) => {
        window.history.pushState(null, '', path);
        window.dispatchEvent(new PopStateEvent('popstate'));
      }, p.path);
      await view.waitForURL((url) => url.pathname === p.path);
      // on two cores (and whatever else the machine runs) a page may take long, but which one it was is said
      await view
        .locator('.crud-card .ant-table, .monitor-page, .fence-editor, .track-page, .behavior-page, .report-page')
        .first()
        .waitFor({ timeout: TIMEOUT * 4 })
        .catch((e) => {
          throw new Error(`${p.name} (${p.path}) at ${size.width}px did not show its page: ${e.message}`);
        });
      await view.waitForFunction(
        () => !document.querySelector('.page-loading, .ant-spin-spinning, .ant-message-notice, .ant-table-placeholder .ant-spin'),
        undefined,
        { timeout: TIMEOUT * 2 },
      );
      await view.screenshot({ path: join(OUT, `page-${p.code}-${size.width}.png`) });
      const l = await view.evaluate(layout);
      const where = `${p.name} at ${size.width}px`;
      if (l.pageScrollWidth > l.viewport + 1) problems.push(`${where}: the page scrolls sideways (${l.pageScrollWidth}px wide)`);
      if (size.width < 768 && l.sider && l.sider.width > 0) problems.push(`${where}: the side menu is not folded (${l.sider.width}px)`);
      if (l.card && l.card.right > l.viewport + 1) problems.push(`${where}: the list card overflows the window (${l.card.right}px)`);
      if (l.table && l.table.right > l.card.right + 1) problems.push(`${where}: the table overflows its card`);
      if (l.name) {
        if (l.name.left < l.table.left - 1 || l.name.right > l.table.right + 1)
          problems.push(`${where}: the first column (${l.nameText}) is out of view: ${JSON.stringify(l.name)} in ${JSON.stringify(l.table)}`);
        if (l.actions && l.actions.left < l.name.right - 1)
          problems.push(`${where}: the 操作 column covers the first column (${l.nameText}): ${JSON.stringify(l.actions)} over ${JSON.stringify(l.name)}`);
      }
    }
  } finally {
    await context.close();
  }
  return { errors, problems };
}

describe('every menu page at three sizes', () => {
  const results = new Map();
  before(async () => {
    // one window after the other: three at once on two cores kept 实时监控 (maps in software WebGL) from showing in
    // 60 s in two CI runs; a window that fails says why in its own case (a failing hook only cancels the cases)
    for (const size of WIDTHS) results.set(size.width, await photograph(size).catch((failure) => ({ failure })));
  });
  for (const size of WIDTHS) {
    it(`at ${size.width}×${size.height}: photographed (var/e2e/page-<code>-${size.width}.png), menu folded on a phone, lists usable`, () => {
      const { errors, problems, failure } = results.get(size.width);
      if (failure) throw failure;
      assert.deepEqual(errors, []);
      assert.deepEqual(problems, []);
    });
  }
});

describe('the page suite', () => {
  it('raised no uncaught page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
