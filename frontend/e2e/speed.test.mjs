// What a first visit costs: the JavaScript the login page loads, as transferred (the server sends the brotli files
// the build wrote), must stay under a budget; the JavaScript of 实时监控 (the map) is printed, not asserted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, launchBrowser, newPage, startBackend, ui } from './harness.mjs';

/** The login page's scripts, brotli as sent, at most (KB of 1024 bytes). */
const LOGIN_BUDGET_KB = 300;

let backend;
let browser;
let page;
const pageErrors = [];
let loginScripts = new Map();
const { fillLogin, openMenu, shellReady } = ui(() => page);

before(async () => {
  backend = await startBackend({ name: 'e2e-speed' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

const isScript = (response) => {
  const type = response.request().resourceType();
  return type === 'script' || /\.m?js(\?|$)/.test(new URL(response.url()).pathname);
};

/**
 * Records the scripts the context receives from now on: url → bytes as transferred (the Content-Length of the
 * encoded answer, else the encoded body size the browser counted) and the encoding they came in.
 */
function recordScripts(context) {
  const scripts = new Map();
  const listener = async (response) => {
    if (!isScript(response) || !response.url().startsWith(backend.base)) return;
    const headers = await response.allHeaders();
    const request = await response.request().allHeaders();
    let bytes = Number(headers['content-length']);
    if (!Number.isFinite(bytes)) bytes = (await response.request().sizes()).responseBodySize;
    scripts.set(new URL(response.url()).pathname, {
      bytes,
      encoding: headers['content-encoding'] ?? 'identity',
      acceptsBr: /\bbr\b/.test(request['accept-encoding'] ?? ''),
      status: response.status(),
    });
  };
  context.on('response', listener);
  scripts.stop = () => context.off('response', listener);
  return scripts;
}

/** Waits until no request has been made or answered for `quietMs` (lazy chunks fetched after the first paint count). */
async function idle(context, quietMs = 1500) {
  let last = Date.now();
  const touch = () => {
    last = Date.now();
  };
  context.on('request', touch);
  context.on('requestfinished', touch);
  context.on('requestfailed', touch);
  while (Date.now() - last < quietMs) await new Promise((r) => setTimeout(r, 100));
  context.off('request', touch);
  context.off('requestfinished', touch);
  context.off('requestfailed', touch);
}

const kb = (bytes) => (bytes / 1024).toFixed(1);
const total = (scripts) => [...scripts.values()].reduce((sum, s) => sum + s.bytes, 0);

function report(title, scripts) {
  const rows = [...scripts.entries()].sort((a, b) => b[1].bytes - a[1].bytes);
  console.log(`${title}: ${rows.length} scripts, ${kb(total(scripts))} KB as transferred`);
  for (const [path, s] of rows.slice(0, 12)) console.log(`  ${kb(s.bytes).padStart(7)} KB  ${s.encoding.padEnd(8)} ${path}`);
}

describe('speed', () => {
  it(`loads at most ${LOGIN_BUDGET_KB} KB of JavaScript (brotli, as transferred) on the login page`, async () => {
    page = await newPage(browser, pageErrors); // a fresh context: nothing cached
    const scripts = recordScripts(page.context());
    await page.goto(`${backend.base}/login`);
    await page.locator('.login-card').getByPlaceholder('账号').first().waitFor();
    await idle(page.context());
    scripts.stop();
    report('login page', scripts);
    loginScripts = new Map(scripts);
    assert.ok(scripts.size > 0, 'the login page loaded scripts');
    for (const [path, s] of scripts) {
      assert.equal(s.status, 200, path);
      assert.ok(s.acceptsBr, `${path} was asked for with accept-encoding br`);
      // precompressed, unless so small that brotli would not make it smaller (scripts/compress.mjs keeps those as
      // they are: a chunk of a re-export or two)
      if (s.bytes >= 512) assert.equal(s.encoding, 'br', `${path} came precompressed`);
    }
    const bytes = total(scripts);
    assert.ok(bytes <= LOGIN_BUDGET_KB * 1024, `the login page loads ${kb(bytes)} KB of JavaScript (budget ${LOGIN_BUDGET_KB} KB)`);
  });

  it('prints the JavaScript of 实时监控 (the map) as transferred', async () => {
    // signed in from the login page already open (a reload would count the cached scripts again)
    const scripts = recordScripts(page.context());
    await fillLogin('admin', ADMIN_PASSWORD);
    await shellReady();
    await idle(page.context());
    report('after sign-in (首页)', scripts);
    const home = new Map(scripts);
    scripts.clear();
    await openMenu('车辆管理', '实时监控');
    await page.waitForURL(/\/fleet\/monitor$/);
    await page.locator('.monitor-map canvas.map-vehicles').waitFor();
    await idle(page.context());
    scripts.stop();
    report('实时监控, beyond 首页', scripts);
    console.log(
      `实时监控 from a fresh browser (login, 首页, 实时监控): ${kb(total(loginScripts) + total(home) + total(scripts))} KB of JavaScript as transferred`,
    );
  });

  it('raised no uncaught page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
