// E2E harness: starts the real backend serving the built app, and a headless Debian Chromium.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const FRONTEND = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = resolve(FRONTEND, '..');
export const OUT = join(REPO, 'var', 'e2e');
const LIFTDESK = join(REPO, '.venv', 'bin', 'liftdesk');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const BASIC = `Basic ${Buffer.from('saber:saber_secret').toString('base64')}`;

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `liftdesk serve` on a fresh SQLite file and waits for /api/health. `env` adds settings, e.g. a gateway
 * port and simulated vehicles (`{ gateway: true, vehicles: 4 }`: a free gateway port and 4 simulated terminals);
 * `privateEndpoints: true` lets object storage and SMS call 127.0.0.1 (refused by default, core/egress.py).
 */
export async function startBackend({ gateway = false, vehicles = 0, name = 'e2e', initialPassword = false, privateEndpoints = false } = {}) {
  if (!existsSync(LIFTDESK)) throw new Error(`${LIFTDESK} is missing: install the backend first (make install)`);
  if (!existsSync(join(process.env.E2E_WEB_DIR ?? join(FRONTEND, 'dist'), 'index.html')))
    throw new Error('frontend/dist is missing: run `npm run build` first');
  mkdirSync(OUT, { recursive: true });
  const db = join(OUT, `${name}.db`);
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  const port = await freePort();
  const gatewayPort = gateway ? await freePort() : 0;
  const logs = [];
  const child = spawn(LIFTDESK, ['serve'], {
    cwd: REPO,
    env: {
      ...process.env,
      LIFTDESK_DATABASE_URL: `sqlite+aiosqlite:///${db}`,
      LIFTDESK_PORT: String(port),
      LIFTDESK_GATEWAY_PORT: String(gatewayPort),
      LIFTDESK_SIMULATOR_VEHICLES: String(vehicles),
      // privateEndpoints: object storage and SMS may call internal addresses (a suite's provider on 127.0.0.1)
      LIFTDESK_ALLOW_PRIVATE_ENDPOINTS: privateEndpoints ? 'true' : 'false',
      // E2E_WEB_DIR: a copy of the built app, for a run that another build of frontend/dist must not disturb
      LIFTDESK_WEB_DIR: process.env.E2E_WEB_DIR ?? join(FRONTEND, 'dist'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => logs.push(String(d)));
  child.stderr.on('data', (d) => logs.push(String(d)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`backend exited with ${child.exitCode}:\n${logs.join('')}`);
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`backend did not answer /api/health within 90 s:\n${logs.join('')}`);
    }
    await sleep(300);
  }
  // The seeded admin / admin must choose a new password at first sign-in (password.test.mjs goes through that
  // screen); the other suites start from an administrator who has done so.
  if (!initialPassword) await choosePassword(base, 'admin', 'admin', ADMIN_PASSWORD);
  return {
    base,
    logs,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      // the spreadsheet readers' fork server (core/transfer.py) may outlive the server it served, holding its output
      // open: the suite would never end (seen in CI after the import suite); the server's output is of no use now
      child.stdout?.destroy();
      child.stderr?.destroy();
    },
  };
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export const md5 = (s) => createHash('md5').update(s).digest('hex');

/** The administrator's password in every suite but the one that chooses it through the page. */
export const ADMIN_PASSWORD = 'Admin-e2e#1';

/** Changes a user's password through the API (the first sign-in's required change). */
export async function choosePassword(base, account, old, chosen, tenantId = '000000') {
  const token = await tokenFor(base, account, old, tenantId);
  const body = await api(base, '/api/blade-user/update-password', {
    method: 'POST',
    token,
    tenantId,
    params: { oldPassword: md5(old), newPassword: md5(chosen), newPassword1: md5(chosen) },
  });
  if (body.code !== 200) throw new Error(`password change of ${account} failed: ${JSON.stringify(body)}`);
}

/** Calls the API directly (for set-up), returning the parsed body. */
export async function api(base, path, { method = 'GET', token, params, body, tenantId = '000000' } = {}) {
  const url = new URL(path, base);
  for (const [k, v] of Object.entries(params ?? {})) url.searchParams.set(k, String(v));
  const headers = { Authorization: BASIC, 'Tenant-Id': tenantId, Accept: 'application/json' };
  if (token) headers['Blade-Auth'] = `bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
}

/** A user's token in `tenantId` (the token call's Tenant-Id header names the tenant: it wins over the parameter). */
export async function tokenFor(base, username, password, tenantId = '000000') {
  const body = await api(base, '/api/blade-auth/oauth/token', {
    method: 'POST',
    tenantId,
    params: { tenantId, username, password: md5(password), grant_type: 'password', scope: 'all', type: 'account' },
  });
  if (!body.access_token) throw new Error(`login of ${username} failed: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** The id of the menu `code` in the server's menu tree. */
export function menuId(nodes, code) {
  for (const node of nodes ?? []) {
    if (node.code === code) return node.id;
    const found = menuId(node.children, code);
    if (found) return found;
  }
  return undefined;
}

/**
 * A user (fields `user`, in the first organisation) whose one role (fields `role`) holds exactly the menus `menus`
 * (codes): made through the API as an administrator would, each step checked. Answers the role's id.
 */
export async function userWithMenus(base, token, { role, menus, user }) {
  const made = await api(base, '/api/blade-system/role/submit', { method: 'POST', token, body: { sort: 9, ...role } });
  assert.equal(made.code, 200, JSON.stringify(made));
  const tree = await api(base, '/api/blade-system/menu/list', { token });
  const menuIds = menus.map((code) => menuId(tree.data, code));
  assert.ok(menuIds.every(Boolean), `menus ${menus.join(', ')} exist`);
  const granted = await api(base, '/api/blade-system/role/grant', { method: 'POST', token, body: { roleIds: [made.data.id], menuIds } });
  assert.equal(granted.code, 200, JSON.stringify(granted));
  const depts = await api(base, '/api/blade-system/dept/list', { token });
  const saved = await api(base, '/api/blade-user/submit', { method: 'POST', token, body: { ...user, roleId: made.data.id, deptId: depts.data[0].id } });
  assert.equal(saved.code, 200, JSON.stringify(saved));
  return made.data.id;
}

export function shot(name) {
  return join(OUT, `${name}.png`);
}

export const TIMEOUT = 15_000;

/** The window heights of the widths pages are photographed at. */
const HEIGHTS = { 1440: 900, 1280: 800, 390: 844 };

/**
 * Photographs `url` at 1280 and 390 px (or `widths`: 1440, 1280, 390), each in a window of its own signed in as
 * `page` is (its cookies and local storage: not its session storage), once `ready` (a selector) shows and nothing
 * loads, as var/e2e/<name>-<width>.png; fails when the page scrolls sideways.
 */
export async function photographAt(page, url, name, ready, { fullPage = false, widths = [1280, 390] } = {}) {
  for (const viewport of widths.map((width) => ({ width, height: HEIGHTS[width] }))) {
    const context = await page.context().browser().newContext({ viewport, locale: 'zh-CN', storageState: await page.context().storageState() });
    const view = await context.newPage();
    try {
      await view.goto(url);
      await view.locator(ready).first().waitFor();
      await view.waitForFunction(() => !document.querySelector('.page-loading, .ant-spin-spinning, .ant-message-notice'));
      const width = await view.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= viewport.width + 1, `${name} fits ${viewport.width} px (scroll width ${width})`);
      await view.screenshot({ path: shot(`${name}-${viewport.width}`), fullPage });
    } finally {
      await context.close();
    }
  }
}

/** A 1440×900 zh-CN page whose uncaught errors go to `errors`. */
export async function newPage(browser, errors) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.on('pageerror', (e) => errors.push(e.message));
  // the server's content security policy must not block anything the app does
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) errors.push(msg.text());
  });
  return page;
}

/**
 * The page's title once it matches `re` (the shell sets it in a task of its own after the tab shows), else fails
 * naming the title it has.
 */
export async function titled(page, re) {
  const ok = await page
    .waitForFunction((source) => new RegExp(source).test(document.title), re.source, { timeout: TIMEOUT })
    .then(() => true, () => false);
  const title = await page.title();
  assert.ok(ok, `the page's title is "${title}", not one matching ${re}`);
  return title;
}

/** Helpers over the page `getPage()` returns (suites create their page in `before`). */
export function ui(getPage) {
  const helpers = {
    async expectToast(text) {
      await getPage().locator('.ant-message-notice', { hasText: text }).first().waitFor({ timeout: TIMEOUT });
    },

    /** Waits for a dialog and for the end of its opening animation (a click during it can land on the mask). */
    async opened(dialog) {
      await dialog.waitFor();
      await getPage().waitForFunction(() => !document.querySelector('.ant-zoom-appear, .ant-zoom-enter, .ant-zoom-leave'));
    },

    /** Fills the account tab of the login page and presses 登录. */
    async fillLogin(account, password, tenant = '000000') {
      const form = getPage().locator('.login-card [role="tabpanel"][aria-hidden="false"]');
      await form.getByPlaceholder('租户ID').fill(tenant);
      await form.getByPlaceholder('账号').fill(account);
      await form.getByPlaceholder('密码', { exact: true }).fill(password);
      await form.getByRole('button', { name: /登\s*录/ }).click();
    },

    /** Waits for the signed-in shell on the home page: its side menu is loaded and no dialog stands in the way. */
    async shellReady() {
      const page = getPage();
      await page.waitForURL(/\/wel\/index$/);
      await page.locator('.app-sider .side-menu > li').first().waitFor();
      if (await page.locator('.ant-modal-wrap:visible').count()) throw new Error('a dialog stands in the way after sign-in');
    },

    /** Signs in as the tenant's administrator from the login page. */
    async signInAsAdmin(base) {
      const page = getPage();
      await page.goto(`${base}/login`);
      await helpers.fillLogin('admin', ADMIN_PASSWORD);
      await helpers.shellReady();
    },

    /** Opens a menu page through the sidebar (its group is expanded when needed). */
    async openMenu(group, item) {
      const sider = getPage().locator('.app-sider');
      const entry = sider.locator('li.ant-menu-item').getByText(item, { exact: true });
      // a click on the group toggles it: one that lands while the menu re-renders (its routes arriving after the
      // sign-in) can leave it closed, so it is clicked again until the entry shows
      for (let attempt = 0; attempt < 3 && !(await entry.isVisible()); attempt += 1) {
        await sider.getByText(group, { exact: true }).click();
        await entry.waitFor({ timeout: 3_000 }).catch(() => undefined);
      }
      // the click opens the page and marks its entry selected; in CI (stop 22) one click on 行政区划 right after the
      // sign-in left the page on home with the group open and no error, once in about three runs of the suite, and
      // never here since: a click lost while the shell re-rendered. A user clicks again, and so does this.
      const page = getPage();
      const selected = sider.locator('li.ant-menu-item-selected').getByText(item, { exact: true });
      const from = page.url();
      for (let attempt = 0; ; attempt += 1) {
        await entry.click();
        const deadline = Date.now() + 5_000;
        while (Date.now() < deadline) {
          if (page.url() !== from || (await selected.isVisible())) return;
          await page.waitForTimeout(100);
        }
        if (attempt === 2) throw new Error(`the menu entry ${item} opened nothing after three clicks`);
      }
    },

    /** Answers a confirmation dialog with its OK button. */
    async confirm(title) {
      const dialog = getPage().locator('.ant-modal-confirm', { hasText: title });
      await helpers.opened(dialog);
      await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
    },

    /** Chooses an item of the dropdown menu that is open now (closed ones stay in the page, hidden). */
    /** Hovers over a dropdown's trigger until its menu shows (a hover during a re-render can be lost). */
    async hoverMenu(trigger) {
      const page = getPage();
      const open = page.locator('.ant-dropdown:not(.ant-dropdown-hidden)');
      for (let attempt = 0; attempt < 5; attempt += 1) {
        await trigger.hover();
        try {
          await open.first().waitFor({ timeout: 2_000 });
          return;
        } catch {
          await page.mouse.move(0, 0); // leave, so that the next hover opens it again
        }
      }
      await open.first().waitFor();
    },

    async chooseMenu(name) {
      const page = getPage();
      await page.locator('.ant-dropdown:not(.ant-dropdown-hidden)').getByRole('menuitem', { name }).click();
      // wait until the menu has gone, so the next menu opened is the only one
      await page.waitForFunction(() => document.querySelectorAll('.ant-dropdown:not(.ant-dropdown-hidden)').length === 0);
    },

    /** Waits until no toast and no loading spinner is on screen (for screenshots). */
    async settle() {
      await getPage().waitForFunction(
        () => !document.querySelector('.ant-message-notice') && !document.querySelector('.ant-spin-spinning'),
        undefined,
        { timeout: 10_000 },
      );
    },

    async tabLabels() {
      // the shell mounts its tab bar a moment after the page (app/Layout.tsx): wait for it, then read it
      await getPage().locator('[data-testid="tab-bar"] .ant-tabs-tab .tab-label').first().waitFor();
      return getPage().locator('[data-testid="tab-bar"] .ant-tabs-tab .tab-label').allInnerTexts();
    },

    async activeTab() {
      return getPage().locator('[data-testid="tab-bar"] .ant-tabs-tab-active .tab-label').innerText();
    },
  };
  return helpers;
}

/**
 * A fleet for a suite, through the API as a user would make it: an organisation under the root (when `org` names
 * one), its vehicles (`vehicles`: insertCarInfo bodies, placed in it) and what their terminals sent (`fixes`: by
 * device number, through the HTTP ingest, the same pipeline as the gateway's, in calls of at most 5,000 fixes).
 * Returns `{ org, cars }`: the organisation's id and the vehicles as registered, by number.
 */
export async function fleetWith(base, token, { org, vehicles = [], fixes = {} }) {
  const call = async (path, body) => {
    const r = await api(base, path, { method: 'POST', token, body });
    if (r.code !== 200) throw new Error(`${path}: ${JSON.stringify(r)}`);
    return r.data;
  };
  let orgId;
  if (org) {
    const roots = await api(base, '/api/blade-system/dept/list', { token });
    orgId = (await call('/api/blade-system/dept/submit', { deptName: org, parentId: roots.data[0].id, deptCategory: 2, sort: 9 })).id;
  }
  const cars = {};
  for (const vehicle of vehicles) {
    cars[vehicle.carNo] = await call('/api/blade-fics-report/fics/carInfo/insertCarInfo', { ...(orgId ? { mechanismId: orgId } : {}), ...vehicle });
  }
  for (const [device, list] of Object.entries(fixes)) {
    for (let i = 0; i < list.length; i += 5000) await call('/api/liftdesk/ingest', { device, fixes: list.slice(i, i + 5000) });
  }
  return { org: orgId, cars };
}
