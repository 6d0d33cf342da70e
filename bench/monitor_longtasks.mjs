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
    trace: { type: 'string' },
    'trace-seconds': { type: 'string', default: '8' },
    // a slower machine than this one: the page's main thread runs N times slower (CDP Emulation.setCPUThrottlingRate)
    'cpu-slowdown': { type: 'string', default: '1' },
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
  const slowdown = Number(args['cpu-slowdown']);
  if (slowdown > 1) {
    await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: slowdown });
    log(`the page's CPU is slowed down ${slowdown} times`);
  }
  if (args.profile) {
    cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  }
  // a Chrome trace from the page load over the first seconds of the stream: what the long tasks are made of (script,
  // style, layout, paint, GC, waiting for the GPU…), including the browser's own work that a CPU profile does not see
  if (args.trace)
    await browser.startTracing(page, {
      path: args.trace,
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'v8', 'v8.execute', 'toplevel', 'disabled-by-default-v8.gc', 'disabled-by-default-v8.cpu_profiler'],
    });
  // the profile starts before the navigation (the same renderer process goes on), so that it covers the page's loading
  if (cdp) await cdp.send('Profiler.start');
  await page.goto(`${backend.base}/fleet/monitor`);
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
  if (args.trace) {
    const traceSeconds = Math.min(SECONDS, Number(args['trace-seconds']));
    await page.waitForTimeout(traceSeconds * 1000);
    const buffer = await browser.stopTracing();
    log(`Chrome trace written to ${args.trace}`);
    summariseTrace(JSON.parse(buffer.toString()));
    await page.waitForTimeout((SECONDS - traceSeconds) * 1000);
  } else {
    await page.waitForTimeout(SECONDS * 1000);
  }
  const result = await page.evaluate(() => ({ ...window.__bench, now: performance.now() }));
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop');
    // The profile's clock is the system's monotonic clock (µs), the page's is milliseconds since its time origin (a
    // wall-clock time): node reads both clocks at once to place the time origin on the monotonic one.
    const wallMinusMonotonic = Date.now() - Number(process.hrtime.bigint()) / 1e6;
    const origin = await page.evaluate(() => performance.timeOrigin);
    const profiledFrom = profile.startTime / 1000 - (origin - wallMinusMonotonic); // the page's clock at the profile's start
    writeFileSync(args.profile, JSON.stringify(profile));
    // beside it, the long tasks on the page's clock and where the profile starts on it (to take the profile apart by task)
    writeFileSync(`${args.profile}.tasks.json`, JSON.stringify({ profiledFrom, firstPaint: result.firstPaint, longtasks: result.longtasks }));
    log(`CPU profile written to ${args.profile}`);
    summarise(profile, profiledFrom, result.longtasks.filter((t) => t.start >= result.firstPaint));
  }
  // the control: a task of 80 ms made on purpose after the measurement must be seen, or the observer saw nothing
  const controlAt = await page.evaluate(
    () =>
      new Promise((resolve) =>
        setTimeout(() => {
          const start = performance.now();
          while (performance.now() - start < 80); // a busy loop in a task of the page's own: 80 ms
          resolve(start);
        }, 0),
      ),
  );
  await page.waitForTimeout(500);
  const control = await page.evaluate((at) => window.__bench.longtasks.some((t) => t.start >= at - 5 && t.duration >= 75), controlAt);
  log(`control: a task of 80 ms made on purpose was ${control ? 'seen' : 'NOT seen (the measurement is void)'}`);
  if (!control) process.exitCode = 1;
  const after = result.longtasks.filter((t) => result.firstPaint !== null && t.start >= result.firstPaint);
  const before = result.longtasks.length - after.length;
  const longest = after.reduce((m, t) => Math.max(m, t.duration), 0);
  const durations = after.map((t) => t.duration).sort((a, b) => a - b);
  const p95 = durations.length ? durations[Math.min(durations.length - 1, Math.ceil(durations.length * 0.95) - 1)] : 0;
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
        p95Ms: p95,
        over100: after.filter((t) => t.duration > 100).length,
        totalLongMs: after.reduce((s, t) => s + t.duration, 0),
        // once the whole fleet is on screen: the updates streaming, without the page's own loading
        steadyLongestMs: after.filter((t) => t.start >= shownAt).reduce((m, t) => Math.max(m, t.duration), 0),
        steadyLongTasks: after.filter((t) => t.start >= shownAt).length,
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
  const byCaller = new Map();
  const parents = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n);
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
    // every function on the sample's stack, once
    const seen = new Set();
    for (let node = nodes.get(profile.samples[i]); node; node = parents.get(node.id)) {
      const c = node.callFrame;
      const name = `${c.functionName || '(anonymous)'} ${c.url.split('/').pop() || c.functionName}:${c.lineNumber + 1}:${c.columnNumber + 1}`;
      if (seen.has(name)) continue;
      seen.add(name);
      byCaller.set(name, (byCaller.get(name) ?? 0) + delta);
    }
  }
  log(`samples inside the long tasks: ${(total / 1000).toFixed(0)} ms; by script:`);
  for (const [key, us] of [...byScript].sort((a, b) => b[1] - a[1]).slice(0, 12)) log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
  log('by function (self time):');
  for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
  log('by function (total time: itself and what it called):');
  for (const [key, us] of [...byCaller].sort((a, b) => b[1] - a[1]).slice(0, 40)) log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
}

/**
 * The renderer's main-thread tasks over 50 ms in a Chrome trace, and what they are made of: the self time of the
 * trace events inside them by name (FunctionCall, UpdateLayoutTree, Layout, Paint, MinorGC…), over all of them and
 * for the five longest.
 */
function summariseTrace(trace) {
  const events = trace.traceEvents ?? trace;
  const names = new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const mains = new Set([...names].filter(([, n]) => n === 'CrRendererMain').map(([k]) => k));
  // the main thread of the page: the renderer main thread with the most events
  const count = new Map();
  for (const e of events) {
    const k = `${e.pid}:${e.tid}`;
    if (mains.has(k)) count.set(k, (count.get(k) ?? 0) + 1);
  }
  const main = [...count].sort((a, b) => b[1] - a[1])[0]?.[0];
  const mine = events.filter((e) => `${e.pid}:${e.tid}` === main && e.ph === 'X' && typeof e.dur === 'number').sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  // the outermost task events over 50 ms (a RunTask may hold a ThreadControllerImpl::RunTask of the same span)
  const tasks = [];
  for (const e of mine) {
    if ((e.name !== 'RunTask' && e.name !== 'ThreadControllerImpl::RunTask') || e.dur <= 50_000) continue;
    const outer = tasks[tasks.length - 1];
    if (!outer || e.ts >= outer.ts + outer.dur) tasks.push(e);
  }
  const selfOf = (task) => {
    const inside = mine.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur <= task.ts + task.dur);
    const self = new Map();
    const stack = [{ e: task, child: 0 }];
    const close = (until) => {
      while (stack.length > 1 && stack[stack.length - 1].e.ts + stack[stack.length - 1].e.dur <= until) {
        const top = stack.pop();
        self.set(top.e.name, (self.get(top.e.name) ?? 0) + top.e.dur - top.child);
        stack[stack.length - 1].child += top.e.dur;
      }
    };
    for (const e of inside) {
      close(e.ts);
      stack.push({ e, child: 0 });
    }
    close(Infinity);
    self.set('(task itself)', task.dur - stack[0].child);
    return self;
  };
  const total = new Map();
  const each = tasks.map((task) => {
    const self = selfOf(task);
    for (const [k, v] of self) total.set(k, (total.get(k) ?? 0) + v);
    return { task, self };
  });
  const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`).join(', ');
  log(`trace: ${tasks.length} main-thread tasks over 50 ms (${(tasks.reduce((s, t) => s + t.dur, 0) / 1000).toFixed(0)} ms); self time by event (ms):`);
  log(`  ${top(total, 16)}`);
  for (const { task, self } of each.sort((a, b) => b.task.dur - a.task.dur).slice(0, 5))
    log(`  task of ${(task.dur / 1000).toFixed(0)} ms: ${top(self, 8)}`);
}
