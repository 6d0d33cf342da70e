// 实时监控 with N live vehicles: the longest main-thread task after the first paint (run by bench/monitor.py).
//
// bench/monitor.py starts a real backend (`liftdesk serve` on a fresh SQLite file) with its JT/T 808 gateway and N
// simulated forklifts (`liftdesk simulate`: real terminals over TCP, through the gateway and the pipeline, onto the
// live feed) and passes its address (`--base`). This waits until the N vehicles report; then headless
// Debian Chromium at 1280×720 opens 实时监控 as a fresh page load and records every long task (PerformanceObserver
// 'longtask', buffered) from the first paint until `seconds` after the whole fleet is on screen, while the updates
// stream. Nothing is injected into the page. `--profile out.cpuprofile` also records a CPU profile (CDP Profiler)
// over the same window and prints the functions that took most time inside the long tasks.
//
// Prints one JSON line at the end (`RESULT {...}`) for bench/monitor.py.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ADMIN_PASSWORD, api, choosePassword, launchBrowser, tokenFor, ui } from '../frontend/e2e/harness.mjs';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    vehicles: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '30' },
    profile: { type: 'string' },
  },
});
const N = Number(args.vehicles);
const SECONDS = Number(args.seconds);
const log = (...a) => console.log(...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const F = '/api/blade-fics-report/fics/carInfo';

// Collects long tasks and paints from the start of the document (before any script of the app runs).
const OBSERVE = () => {
  const w = window;
  w.__bench = { longtasks: [], firstPaint: null };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__bench.longtasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'first-paint') w.__bench.firstPaint = e.startTime;
  }).observe({ type: 'paint', buffered: true });
};

const started = Date.now();
const backend = { base: args.base };
let browser;
try {
  // the seeded administrator chooses a password first (as the e2e suites start)
  await choosePassword(backend.base, 'admin', 'admin', ADMIN_PASSWORD);
  log(`waiting for the ${N} simulated terminals to report`);
  const token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const deadline = Date.now() + 300_000;
  let reporting = 0;
  let last = Date.now();
  for (;;) {
    const body = await api(backend.base, `${F}/getCarLastGPSInfo`, { method: 'POST', token, body: {} });
    reporting = body.code === 200 ? body.data.filter((v) => v.online && v.lat !== null).length : 0;
    if (reporting >= N) break;
    if (Date.now() > deadline) throw new Error(`only ${reporting} of ${N} simulated vehicles reported within 300 s`);
    if (Date.now() - last > 20_000) {
      last = Date.now();
      log(`  ${reporting} reporting after ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    await sleep(2000);
  }
  log(`${reporting} vehicles online and reporting after ${((Date.now() - started) / 1000).toFixed(1)} s`);

  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, locale: 'zh-CN' });
  // no basemap tile can load (as on a plant network, and so that the network does not vary the measure)
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort('internetdisconnected'));
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await ui(() => page).signInAsAdmin(backend.base);

  // 实时监控 as a fresh page load: the first paint is its own
  await page.addInitScript(OBSERVE);
  let cdp = null;
  if (args.profile) {
    cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  }
  await page.goto(`${backend.base}/fleet/monitor`);
  let profiledFrom = 0; // the page's clock (performance.now) when the profile started
  if (cdp) {
    await cdp.send('Profiler.start');
    profiledFrom = await page.evaluate(() => performance.now());
  }
  const label = page.locator('.monitor-filters label').first();
  await page.waitForFunction(
    (n) => Number(document.querySelector('.monitor-filters label')?.textContent?.replace(/\D+/g, '') ?? 0) >= n,
    N,
    { timeout: 60_000, polling: 200 },
  );
  const shownAt = await page.evaluate(() => performance.now());
  const shown = Number((await label.innerText()).replace(/\D+/g, ''));
  const rows = await page.locator('.monitor-list .ant-table-row').count();
  log(`${shown} vehicles shown (${rows} list rows in the DOM); streaming for ${SECONDS} s`);
  await page.waitForTimeout(SECONDS * 1000);
  const result = await page.evaluate(() => ({ ...window.__bench, now: performance.now() }));
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(args.profile, JSON.stringify(profile));
    log(`CPU profile written to ${args.profile}`);
    summarise(profile, profiledFrom, result.longtasks.filter((t) => t.start >= result.firstPaint));
  }
  const after = result.longtasks.filter((t) => result.firstPaint !== null && t.start >= result.firstPaint);
  const before = result.longtasks.length - after.length;
  const longest = after.reduce((m, t) => Math.max(m, t.duration), 0);
  const worst = [...after].sort((a, b) => b.duration - a.duration).slice(0, 5);
  log(`long tasks before the first paint (not counted): ${before}`);
  for (const t of worst) log(`  long task at ${(t.start / 1000).toFixed(2)} s: ${t.duration.toFixed(0)} ms`);
  if (errors.length) log(`page errors: ${errors.join(' | ')}`);
  log(
    'RESULT ' +
      JSON.stringify({
        vehicles: shown,
        reporting,
        firstPaintMs: result.firstPaint,
        shownMs: shownAt,
        windowS: (result.now - (result.firstPaint ?? 0)) / 1000,
        longTasks: after.length,
        longestMs: longest,
        totalLongMs: after.reduce((s, t) => s + t.duration, 0),
        errors: errors.length,
      }),
  );
} finally {
  await browser?.close();
}

/**
 * The functions with the most self time in the samples that fall inside the long tasks (top 25, by script and
 * position), and the same by script. The profile's clock is matched to the page's at the profile's start (within
 * the few milliseconds the call to start it took).
 */
function summarise(profile, profiledFrom, tasks) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map();
  const byScript = new Map();
  const inside = (ms) => tasks.some((task) => ms >= task.start && ms <= task.start + task.duration);
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    const f = nodes.get(profile.samples[i]).callFrame;
    if (f.functionName === '(idle)' || !inside(profiledFrom + (t - profile.startTime) / 1000)) continue;
    const script = f.url.split('/').pop() || f.functionName;
    const key = `${f.functionName || '(anonymous)'} ${script}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + delta);
    byScript.set(script, (byScript.get(script) ?? 0) + delta);
    total += delta;
  }
  log(`samples inside the long tasks: ${(total / 1000).toFixed(0)} ms; by script:`);
  for (const [key, us] of [...byScript].sort((a, b) => b[1] - a[1]).slice(0, 12)) log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
  log('by function (self time):');
  for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
}
