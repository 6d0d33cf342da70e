// The long tasks of a `bench/monitor.py --profile F` run taken apart one by one: for each, the functions by total
// time (themselves and what they called) and by self time, named by the source maps of the build that ran.
//
//   (cd frontend && npx vite build --sourcemap --outDir /tmp/distmap)
//   LIFTDESK_WEB_DIR=/tmp/distmap .venv/bin/python bench/monitor.py --profile /tmp/p.cpuprofile
//   node bench/profile_tasks.mjs /tmp/p.cpuprofile /tmp/distmap        (TOP=n: lines per task, default 30)
//
// It reads F and F.tasks.json (the page's long tasks, and where the profile starts on the page's clock), both written
// by monitor_longtasks.mjs. Profiled, tasks last 1.3-2 times as long as without the profiler.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { SourceMapConsumer } = createRequire(new URL('../frontend/package.json', import.meta.url))('source-map-js');
const [file, dist = '/tmp/distmap'] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const meta = JSON.parse(readFileSync(`${file}.tasks.json`, 'utf8'));
const nodes = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const maps = new Map();
const names = new Map();
function name(cf) {
  const key = `${cf.url}:${cf.lineNumber}:${cf.columnNumber}:${cf.functionName}`;
  if (names.has(key)) return names.get(key);
  const f = cf.url.split('/').pop();
  let r;
  if (!f) r = cf.functionName || '(anon)';
  else {
    const mp = `${dist}/assets/${f}.map`;
    if (!maps.has(mp)) maps.set(mp, existsSync(mp) ? new SourceMapConsumer(JSON.parse(readFileSync(mp, 'utf8'))) : null);
    const c = maps.get(mp);
    if (!c || cf.lineNumber < 0) r = `${cf.functionName} ${f}`;
    else {
      const o = c.originalPositionFor({ line: cf.lineNumber + 1, column: Math.max(0, cf.columnNumber) });
      const src = (o.source ?? '?').replace(/.*node_modules\//, '').replace(/^.*\/src\//, 'src/');
      r = `${o.name ?? cf.functionName ?? '(anon)'} ${src}:${o.line}`;
    }
  }
  names.set(key, r);
  return r;
}
let t = p.startTime;
const samples = p.samples.map((s, i) => { t += p.timeDeltas[i]; return { t, id: s, dt: p.timeDeltas[i + 1] ?? 0 }; });
const pageMs = (us) => meta.profiledFrom + (us - p.startTime) / 1000;
console.log(`first paint ${meta.firstPaint?.toFixed(0)} ms`);
for (const task of meta.longtasks) {
  const inside = samples.filter((s) => pageMs(s.t) >= task.start && pageMs(s.t) < task.start + task.duration);
  const incl = new Map(); const self = new Map();
  for (const { id, dt } of inside) {
    const k0 = name(nodes.get(id).callFrame);
    self.set(k0, (self.get(k0) ?? 0) + dt);
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) { const k = name(nodes.get(n).callFrame); if (seen.has(k)) continue; seen.add(k); incl.set(k, (incl.get(k) ?? 0) + dt); }
  }
  console.log(`\n== long task at ${(task.start / 1000).toFixed(2)} s: ${task.duration.toFixed(0)} ms (${inside.length} samples, ${(inside.reduce((s, x) => s + x.dt, 0) / 1000).toFixed(0)} ms)`);
  console.log(' inclusive:'); for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 30))) console.log(`  ${(v / 1000).toFixed(1).padStart(6)} ${k}`);
  console.log(' self:'); for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${(v / 1000).toFixed(1).padStart(6)} ${k}`);
  if (process.env.SEQ) sequence(inside);
}

/** SEQ=1: the task in time order, as runs of samples under the same entry point (the frame under the root) and the
 * same innermost frame of the app's own source: what ran first (the event, the timer, the message) and what it led to. */
function sequence(inside) {
  console.log(' in order (entry point › innermost frame of src/):');
  let run = null;
  const flush = () => run && console.log(`  ${(run.from / 1000 - inside[0].t / 1000).toFixed(1).padStart(6)} ms +${(run.ms / 1000).toFixed(1).padStart(5)}  ${run.key}`);
  for (const { id, t, dt } of inside) {
    const stack = [];
    for (let n = id; n !== undefined; n = parent.get(n)) stack.push(name(nodes.get(n).callFrame));
    stack.reverse(); // root first
    const entry = stack[1] ?? stack[0];
    const own = [...stack].reverse().find((k) => k.includes(' src/')) ?? '';
    const key = `${entry} › ${own}`;
    if (run && run.key === key) run.ms += dt;
    else { flush(); run = { key, from: t, ms: dt }; }
  }
  flush();
}
