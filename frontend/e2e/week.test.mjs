// A week of one forklift against the real backend (issue 13's flows): its terminal's week goes through the HTTP
// ingest (the pipeline stores it, finds its stops and raises a collision on the third day); 报警中心 → 报警记录 lists
// that collision with its level, threshold, strength and direction as the API has it; 轨迹回放 plays the week back with
// its seven stops marked on the map and listed with their durations, and the collision on the track, at the place and
// time the alarm list gives. No basemap tile can load here. Screenshots: var/e2e/week-*.png.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, fleetWith, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const F = '/api/blade-fics-report/fics';
const CAR = 'E2E-一周-01';
const DEVICE = '013900003301';
const ORG = `一周测试仓 ${Date.now() % 10_000}`;

let backend;
let browser;
let page;
let token;
let carId;
let org;
const pageErrors = [];
const { signInAsAdmin, openMenu, settle } = ui(() => page);

/** yyyy-MM-dd of `back` days before today in the tenant's zone (UTC+8). */
const dayBefore = (back) => new Date(Date.now() + 8 * 3_600_000 - back * 86_400_000).toISOString().slice(0, 10);
const DAYS = [7, 6, 5, 4, 3, 2, 1].map(dayBefore);
const COLLISION_DAY = DAYS[2];

// each day from 09:00 local (01:00 UTC), a report every 30 s: 30 minutes north at 8 km/h, 30 standing with ACC on
// (a stop), 20 back south; on the third day an impact of 3.5 g at 90° at 09:10 (the limit is 1.5 g)
function week() {
  const out = [];
  for (const [n, day] of DAYS.entries()) {
    const lon = 121.5 + n * 0.002; // each day a lane of its own: seven stops at seven places
    const start = Date.parse(`${day}T01:00:00Z`);
    let lat = 31.2;
    for (let i = 0; i < 160; i += 1) {
      const phase = i < 60 ? 'north' : i < 120 ? 'stand' : 'south';
      if (phase === 'north') lat += 6e-4;
      if (phase === 'south') lat -= 9e-4;
      const fix = { time: start + i * 30_000, lat, lon, speed: phase === 'stand' ? 0 : 8, status: 3 };
      if (day === COLLISION_DAY && i === 20) Object.assign(fix, { impactG: 3.5, impactDirection: 90 });
      out.push(fix);
    }
  }
  return out;
}

before(async () => {
  backend = await startBackend({ name: 'e2e-week' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const fleet = await fleetWith(backend.base, token, {
    org: ORG,
    vehicles: [{ carNo: CAR, deviceNumber: DEVICE, carType: 4, collisionThresholdG: 1.5, speedLimitKmh: 10 }],
    fixes: { [DEVICE]: week() },
  });
  org = fleet.org;
  carId = String(fleet.cars[CAR].id);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
  await page.context().route(/^https:\/\/tile\.openstreetmap\.org\//, (route) => route.abort('internetdisconnected'));
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

async function call(path, params) {
  const r = await api(backend.base, path, { token, params });
  assert.equal(r.code, 200, `${path}: ${JSON.stringify(r)}`);
  return r.data;
}

/** Types a time into the range picker's start (0) or end (1) input and confirms it. */
async function typeTime(index, text) {
  const input = page.locator('[data-testid="track-range"] input').nth(index);
  await input.click();
  await input.press('Control+A');
  await input.fill(text);
  await input.press('Enter');
}

/** The features the map draws in the circle layer of `color` (the stops are orange, the alarms red). */
async function drawn(color) {
  return page.evaluate((wanted) => {
    const m = document.querySelector('[data-testid="map"]').maplibreMap;
    const layer = m.getStyle().layers.find((l) => l.type === 'circle' && l.paint?.['circle-color'] === wanted);
    if (!layer) return [];
    const seen = new Map();
    for (const f of m.querySourceFeatures(layer.source)) seen.set(JSON.stringify(f.geometry.coordinates), f.properties.label);
    return [...seen.values()];
  }, color);
}

describe('a week of one vehicle', () => {
  let collision;

  it('报警记录 lists the collision of the third day as the API has it', async () => {
    const rows = await api(backend.base, `${F}/carInfo/getCarCollisionList`, {
      method: 'POST',
      token,
      body: { mechanismId: org, startTime: DAYS[0], endTime: DAYS[6], current: 1, size: 10 },
    });
    assert.equal(rows.code, 200, JSON.stringify(rows));
    assert.equal(rows.data.total, 1, JSON.stringify(rows.data.records));
    collision = rows.data.records[0];
    assert.equal(collision.beginTime, `${COLLISION_DAY} 09:10:00`);

    await signInAsAdmin(backend.base);
    await openMenu('报警中心', '报警记录');
    await page.waitForURL(/\/alarm\/record$/);
    await page.locator('.report-filters .ant-select').first().click();
    await page.locator('.ant-select-tree-node-content-wrapper', { hasText: ORG }).click();
    await page.getByTestId('alarm-lists').getByText('碰撞报警', { exact: true }).click();
    await page.locator('.report-filters').getByRole('button', { name: /搜\s*索/ }).click();
    const row = page.locator('.report-card .ant-table-row', { hasText: CAR });
    await row.waitFor();
    assert.equal(await page.locator('.report-card .ant-table-row').count(), 1);
    const headers = (await page.locator('.report-card .ant-table-thead th').allInnerTexts()).map((h) => h.trim());
    const cells = Object.fromEntries(headers.map((h, i) => [h, i]));
    const texts = (await row.locator('td').allInnerTexts()).map((c) => c.trim());
    const cell = (h) => texts[cells[h]];
    assert.ok(texts.includes(`${COLLISION_DAY} 09:10:00`), JSON.stringify(texts));
    assert.deepEqual(
      [cell('碰撞等级'), cell('碰撞阈值(g)'), cell('碰撞实际值(g)'), cell('碰撞方向(°)')],
      [String(collision.level), '1.50', '3.50', '90'],
    );
    await settle();
    await page.screenshot({ path: shot('week-collision-list') });
  });

  it('轨迹回放 shows the week: seven stops marked and listed, the collision on the track', async () => {
    await openMenu('车辆管理', '轨迹回放');
    await page.waitForURL(/\/fleet\/track$/);
    await page.getByTestId('track-search').locator('input').fill(CAR);
    await page.getByTestId('track-search').locator('input').press('Enter');
    await page.locator('.track-tree').getByText(CAR, { exact: true }).click();
    const begin = `${DAYS[0]} 08:00:00`;
    const end = `${dayBefore(0)} 07:59:59`; // under 7 days after the start
    await typeTime(0, begin);
    await typeTime(1, end);
    await page.getByTestId('track-show').click();

    const q = { carId, beginTime: begin, endTime: end };
    const track = await call(`${F}/positionTrailing/positionTrailing`, q);
    assert.equal(track.total, 7 * 160);
    // a view of the week at a city's zoom gets far fewer points, the stops' ends kept
    const view = await call(`${F}/positionTrailing/positionTrailing`, { ...q, zoom: 14 });
    assert.ok(view.simplified && view.count < 200, `simplified: ${view.count} of ${view.total}`);
    assert.equal(track.stops.length, 7, JSON.stringify(track.stops));
    assert.ok(track.stops.every((s) => s.durationS >= 29 * 60), JSON.stringify(track.stops));

    // the stops: listed with their durations, and marked on the map (one orange dot each)
    await page.getByRole('tab', { name: '停车点 (7)' }).click();
    // five a page: the first page, then the second
    const pane = page.locator('.track-page [role="tabpanel"][aria-hidden="false"]');
    const listed = [];
    for (const expected of [5, 2]) {
      await page.waitForFunction((n) => document.querySelectorAll('.track-page [role="tabpanel"][aria-hidden="false"] .ant-table-row').length === n, expected);
      // the places arrive after the rows
      await page.waitForFunction(() => [...document.querySelectorAll('.track-page [role="tabpanel"][aria-hidden="false"] [data-testid="address"]')].every((a) => a.dataset.source));
      for (const r of await pane.locator('.ant-table-row').all()) listed.push((await r.locator('td').allInnerTexts()).map((c) => c.trim()));
      if (expected === 5) await pane.locator('.ant-pagination-next').click();
    }
    // each stop's place, as the server's geocoder names it
    const places = [];
    for (const stop of track.stops) {
      const place = await call(`${F}/common/getAddress`, { location: `${stop.lon.toFixed(4)},${stop.lat.toFixed(4)}` });
      places.push(place.formattedAddress);
    }
    assert.ok(places.every((p) => /Shanghai|Pudong|Lujiazui/i.test(p) || /\d+\.\d+, \d+\.\d+/.test(p)), JSON.stringify(places));
    assert.deepEqual(
      listed.map((r) => r[3]),
      places,
    );
    assert.deepEqual(
      listed.map((r) => [r[0], r[2]]),
      track.stops.map((s) => [s.beginTime, `${Math.floor(s.durationS / 60)}m ${String(s.durationS % 60).padStart(2, '0')}s`]),
    );
    await page.waitForFunction(() => {
      const m = document.querySelector('[data-testid="map"]').maplibreMap;
      return m && m.loaded();
    });
    let stopsDrawn = [];
    for (let i = 0; i < 50 && stopsDrawn.length < 7; i += 1) {
      stopsDrawn = await drawn('#fa8c16');
      if (stopsDrawn.length < 7) await page.waitForTimeout(200);
    }
    assert.equal(stopsDrawn.length, 7, `stops on the map: ${JSON.stringify(stopsDrawn)}`);

    // the collision: in the alarm tab at its time, and a red dot on the track where it happened
    await page.getByRole('tab', { name: '报警 (1)' }).click();
    await page.locator('.track-page [role="tabpanel"][aria-hidden="false"] .ant-table-row', { hasText: '碰撞' }).filter({ hasText: collision.beginTime }).waitFor();
    const alarms = await call(`${F}/positionTrailing/alarmDetail`, q);
    assert.deepEqual(
      alarms.map((a) => [a.kind, a.beginTime]),
      [['collision', collision.beginTime]],
    );
    const red = await drawn('#f5222d');
    assert.equal(red.length, 1, `alarms on the map: ${JSON.stringify(red)}`);
    await settle();
    await page.screenshot({ path: shot('week-track-1440') });
  });

  it('plays the week back and seeks to the collision', async () => {
    const now = page.getByTestId('track-now');
    const first = await now.innerText();
    assert.match(first, new RegExp(`${DAYS[0]} 09:00:00`));
    await page.getByTestId('track-speed').getByText('16×').click();
    await page.getByTestId('track-play').click();
    await page.waitForFunction((text) => document.querySelector('[data-testid="track-now"]').textContent !== text, first);
    await page.getByTestId('track-play').click(); // pause
    // a click on the collision's row seeks to it
    await page.locator('.track-page [role="tabpanel"][aria-hidden="false"] .ant-table-row', { hasText: '碰撞' }).click();
    await page.waitForFunction(
      (t) => document.querySelector('[data-testid="track-now"]').textContent.includes(t),
      `${COLLISION_DAY} 09:10:00`,
    );
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(400);
    await page.screenshot({ path: shot('week-track-390') });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: shot('week-track-1280') });
    assert.deepEqual(pageErrors, []);
  });

  it('实时监控 shows the vehicle\'s card with the place of its last position', async () => {
    // the shell folded its menu on the phone (and remembers it): unfold it
    if (!(await page.locator('.app-sider').getByText('车辆管理', { exact: true }).isVisible()))
      await page.getByRole('button', { name: '展开/收起菜单' }).click();
    await openMenu('车辆管理', '实时监控');
    await page.waitForURL(/\/fleet\/monitor$/);
    await page.getByTestId(`vehicle-row-${CAR}`).click();
    const card = page.getByTestId('vehicle-card');
    await card.getByText(CAR).waitFor();
    const [live] = await api(backend.base, `${F}/carInfo/getCarLastGPSInfo`, { method: 'POST', token, body: { carId } }).then((r) => r.data);
    const place = await call(`${F}/common/getAddress`, { location: `${live.lon.toFixed(4)},${live.lat.toFixed(4)}` });
    await card.locator('[data-testid="address"][data-source]').waitFor();
    assert.equal(await card.getByTestId('address').innerText(), place.formattedAddress);
    await settle();
    await page.screenshot({ path: shot('week-monitor-card') });
    assert.deepEqual(pageErrors, []);
  });
});
