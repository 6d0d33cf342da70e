// 车辆管理 → 轨迹回放 against the real backend: a vehicle's morning, sent through the HTTP ingest (the pipeline stores
// it and raises its speeding alarm), is found in the vehicle tree, shown for a typed period, played back and sought
// through its phases; the stop, the alarm and the phases shown are the server's. No basemap tile can load here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, fleetWith, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const F = '/api/blade-fics-report/fics';
const VEHICLE = 'E2E-回放-01';
const DEVICE = '013900001111';
const TOGGLE = '展开/收起菜单';

let backend;
let browser;
let page;
let token;
let carId;
const pageErrors = [];
const { signInAsAdmin, openMenu } = ui(() => page);

// two days ago, 09:00-10:00 in the tenant's zone (UTC+8): 30 minutes at 14 km/h (over the 10 km/h limit), 15
// standing with ACC on, 15 carrying 800 kg at walking pace; a report every 10 s
const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
const START = Date.parse(`${day}T01:00:00Z`);
function fixes() {
  const out = [];
  let lat = 31.2;
  let lon = 121.5;
  for (let i = 0; i < 360; i += 1) {
    const phase = i < 180 ? 'move' : i < 270 ? 'stand' : 'load';
    if (phase === 'move') lat += 4e-5;
    if (phase === 'load') lon += 1e-5;
    out.push({
      time: START + i * 10_000,
      lat,
      lon,
      speed: phase === 'move' ? 14 : phase === 'load' ? 3 : 0,
      status: 3,
      ...(phase === 'load' ? { loadKg: 800 } : {}),
    });
  }
  return out;
}

before(async () => {
  backend = await startBackend({ name: 'e2e-track' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  // in the administrator's own organisation (the root)
  const fleet = await fleetWith(backend.base, token, {
    vehicles: [{ carNo: VEHICLE, deviceNumber: DEVICE, carType: 4, speedLimitKmh: 10 }],
    fixes: { [DEVICE]: fixes() },
  });
  carId = String(fleet.cars[VEHICLE].id);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
  await page.context().route(/^https:\/\/tile\.openstreetmap\.org\//, (route) => route.abort('internetdisconnected'));
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Types a time into the range picker's start (0) or end (1) input and confirms it. */
async function typeTime(index, text) {
  const input = page.locator('[data-testid="track-range"] input').nth(index);
  await input.click();
  await input.press('Control+A');
  await input.fill(text);
  await input.press('Enter');
}

describe('track playback', () => {
  it('finds the vehicle in the tree and shows its morning: track, stop, alarm and phases as the server has them', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('车辆管理', '轨迹回放');
    await page.waitForURL(/\/fleet\/track$/);
    await page.getByTestId('track-search').locator('input').fill(VEHICLE);
    await page.getByTestId('track-search').locator('input').press('Enter');
    await page.locator('.track-tree').getByText(VEHICLE, { exact: true }).click();

    await typeTime(0, `${day} 08:00:00`);
    await typeTime(1, `${day} 12:00:00`);
    await page.getByTestId('track-show').click();

    const q = { carId, beginTime: `${day} 08:00:00`, endTime: `${day} 12:00:00` };
    const track = (await api(backend.base, `${F}/positionTrailing/positionTrailing`, { token, params: q })).data;
    assert.equal(track.total, 360);
    assert.equal(track.stops.length, 1, JSON.stringify(track.stops));
    const phases = (await api(backend.base, `${F}/positionTrailing/phaseData`, { token, params: q })).data;

    // the lists and the timeline are the server's
    await page.getByRole('tab', { name: '停车点 (1)' }).waitFor();
    await page.getByRole('tab', { name: '报警 (1)' }).click();
    await page.locator('.ant-table-row', { hasText: '超速' }).filter({ hasText: `${day} 09:00:00` }).waitFor();
    const drawn = await page.locator('[data-testid="track-phases"] .track-phase').evaluateAll((els) => els.map((e) => e.dataset.state));
    assert.deepEqual(
      drawn,
      phases.spans.map((s) => s.state),
    );
    assert.deepEqual(drawn, ['none', 'moving', 'idle', 'loaded', 'none']);
    // the map holds the line of the track the server sent for the view, simplified (never over 2,000 points)
    // (MapLibre is made for the track's layers as the page mounts: waited for, as its tiles of the line)
    const lineOnMap = () =>
      page.evaluate(() => {
        const m = document.querySelector('[data-testid="map"]').maplibreMap;
        if (!m?.loaded()) return -2;
        const layer = m.getStyle().layers.find((l) => /track.*line$/.test(l.id));
        return layer ? m.querySourceFeatures(layer.source).filter((f) => f.geometry.type === 'LineString').length : -1;
      });
    let line = await lineOnMap();
    for (let i = 0; i < 50 && line < 1; i += 1) {
      await page.waitForTimeout(100);
      line = await lineOnMap();
    }
    assert.ok(line >= 1, `the track's line is on the map (${line})`);
    await page.screenshot({ path: shot('track-1440') });
  });

  it('plays back, pauses and seeks to a phase', async () => {
    const now = page.getByTestId('track-now');
    const before = await now.innerText();
    assert.match(before, new RegExp(`${day} 09:00:00`));
    await page.getByTestId('track-speed').getByText('16×').click();
    await page.getByTestId('track-play').click();
    await page.waitForFunction((text) => document.querySelector('[data-testid="track-now"]').textContent !== text, before);
    await page.getByTestId('track-play').click(); // pause
    const paused = await now.innerText();
    await page.waitForTimeout(400);
    assert.equal(await now.innerText(), paused, 'paused: the cursor stays');
    // a click on the loaded phase seeks to its start (09:45:00)
    await page.locator('[data-testid="track-phases"] .track-phase[data-state="loaded"]').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="track-now"]').textContent.includes('09:45:00'));
    assert.deepEqual(pageErrors, []);
  });

  it('refuses a period over 7 days before asking the server, and fits a phone', async () => {
    const earlier = new Date(Date.parse(`${day}T00:00:00Z`) - 8 * 86_400_000).toISOString().slice(0, 10);
    await typeTime(0, `${earlier} 08:00:00`);
    await typeTime(1, `${day} 12:00:00`); // the range changes once both ends are confirmed
    await page.locator('.track-problem').getByText('时间范围不能超过 7 天').waitFor();
    assert.equal(await page.getByTestId('track-show').isDisabled(), true);
    await page.setViewportSize({ width: 390, height: 844 });
    // the layout follows the new width in a frame or a few (more on a loaded machine): wait for it, then judge it
    await page
      .waitForFunction(() => document.querySelector('.track-map').getBoundingClientRect().width > 300, undefined, { timeout: 10_000 })
      .catch(() => undefined);
    const width = await page.evaluate(() => document.querySelector('.track-map').getBoundingClientRect().width);
    assert.ok(width > 300, `the map spans the phone's width (${width})`);
    await page.screenshot({ path: shot('track-390'), fullPage: true });
    // on a phone the side menu is a drawer: opened from the top bar, it leads back to 实时监控 and closes
    await page.getByRole('button', { name: TOGGLE }).click();
    const drawer = page.locator('.app-menu-drawer');
    await drawer.getByText('车辆管理', { exact: true }).waitFor();
    await page.waitForFunction(() => !document.querySelector('.ant-drawer [class*="-motion-"]')); // slid in
    await page.screenshot({ path: shot('menu-drawer-390') });
    const item = drawer.getByText('实时监控', { exact: true });
    if (!(await item.isVisible())) await drawer.getByText('车辆管理', { exact: true }).click();
    await item.click();
    await page.waitForURL(/\/fleet\/monitor$/);
    await drawer.waitFor({ state: 'hidden' });
    assert.deepEqual(pageErrors, []);
  });
});
