// 车辆管理 → 车辆档案 → a vehicle's 详情, against the real backend: its shift of two days ago, sent through the HTTP
// ingest (the pipeline stores it, counts its daily aggregates and raises its fault alarm), is shown as the server has
// it: the meter now, the diagnosis, the run history of the day and the charts of the range; a range over 7 days is
// refused before the server is asked; the drawer fits a phone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, fleetWith, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const F = '/api/blade-fics-report/fics';
const VEHICLE = 'E2E-详情-01';
const DEVICE = '013900002222';
// a diesel whose terminal passes its engine's J1939 frames on (CAN uploads, dated when they arrive: now)
const DIESEL = 'E2E-详情-02';
const DIESEL_DEVICE = '013900002223';
// EEC1: 1,500 rpm (bytes 4-5: 12000 × 0.125 = 0x2EE0), torque 30 %; EEC2: pedal 50 % (125 × 0.4), load 60 %
const ENGINE = [
  { id: '0CF00400', data: 'FFFF9BE02EFFFFFF' },
  { id: '0CF00300', data: 'FF7D3CFFFFFFFFFF' },
];

let backend;
let browser;
let page;
let token;
let carId;
let dieselId;
const pageErrors = [];
const { signInAsAdmin, openMenu } = ui(() => page);

// two days ago, from 09:00 in the tenant's zone (UTC+8), a report every 10 s: 30 minutes moving at 6 km/h (the
// charge falling), 10 idle, 20 standing with 1,000 kg (half the rated load), 10 lifting only (fault E101 from then
// on), ACC off at 10:10, charged to 90 % and locked at 10:20
const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
const START = Date.parse(`${day}T01:00:00Z`);
function fixes() {
  const out = [];
  const at = (s) => START + s * 1000;
  const here = { lat: 31.2 + 179e-5, lon: 121.5, mileageKm: 101.79 };
  for (let i = 0; i < 180; i += 1) {
    out.push({
      time: at(10 * i),
      lat: 31.2 + i * 1e-5,
      lon: 121.5,
      speed: 6,
      status: 3,
      mileageKm: 100 + i * 0.01,
      battery: { socPct: 80 - i * 0.02, voltageV: 51, temperaturesC: [30 + i / 100, 25] },
    });
  }
  for (let i = 0; i < 60; i += 1) out.push({ time: at(1800 + 10 * i), status: 3, ...here });
  for (let i = 0; i < 120; i += 1) out.push({ time: at(2400 + 10 * i), status: 3, loadKg: 1000, ...here });
  for (let i = 0; i < 60; i += 1) out.push({ time: at(3600 + 10 * i), status: 3, lifting: true, faultCodes: ['E101'], ...here });
  out.push({ time: at(4200), status: 2, faultCodes: ['E101'], ...here });
  out.push({
    time: at(4800),
    status: 2,
    faultCodes: ['E101'],
    lockLevel: 1,
    forkHeightMm: 120,
    seatBelt: false,
    battery: { socPct: 90, voltageV: 53.5, temperaturesC: [27, 26] },
    ...here,
  });
  return out;
}

before(async () => {
  backend = await startBackend({ name: 'e2e-vehicle-detail' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  // in the administrator's own organisation (the root)
  const fleet = await fleetWith(backend.base, token, {
    vehicles: [{ carNo: VEHICLE, deviceNumber: DEVICE, carType: 4, ratedLoadKg: 2000, speedLimitKmh: 10 }],
    fixes: { [DEVICE]: fixes() },
  });
  carId = String(fleet.cars[VEHICLE].id);
  const diesel = await fleetWith(backend.base, token, { vehicles: [{ carNo: DIESEL, deviceNumber: DIESEL_DEVICE, carType: 0 }] });
  dieselId = String(diesel.cars[DIESEL].id);
  const uploaded = await api(backend.base, '/api/liftdesk/ingest', {
    method: 'POST',
    token,
    body: { device: DIESEL_DEVICE, fixes: [{ time: Date.now(), lat: 31.2, lon: 121.5, status: 3 }], can: Array.from({ length: 5 }, () => ({ frames: ENGINE })) },
  });
  assert.equal(uploaded.code, 200, JSON.stringify(uploaded));
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
  await page.setViewportSize({ width: 1280, height: 900 });
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

const drawer = () => page.locator('.vehicle-detail .ant-drawer-section');
const text = async (testId) => (await drawer().getByTestId(testId).innerText()).replace(/\s+/g, ' ').trim();

describe('vehicle detail', () => {
  it('opens from 车辆档案 and shows the meter, the diagnosis and the run history as the server has them', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('车辆管理', '车辆档案');
    await page.waitForURL(/\/fleet\/vehicle$/);
    await page.locator('tbody tr.ant-table-row', { hasText: VEHICLE }).getByRole('button', { name: '详情' }).click();
    await drawer().getByText(`车辆详情 ${VEHICLE}`).waitFor();

    const meter = (await api(backend.base, `${F}/carStatus/getRealTimeMeter`, { token, params: { carId } })).data;
    assert.equal(meter.soc, 90);
    await drawer().getByTestId('meter-soc').getByText(`${meter.soc} %`).waitFor();
    assert.match(await text('meter-speed'), new RegExp(`${meter.speed} km/h`));
    assert.match(await text('meter-mileage'), new RegExp(`${meter.mileage} km`));
    assert.match(await text('meter-lock'), /软锁/);
    assert.match(await text('meter-state'), /熄火/);

    // the diagnosis: the active fault code the server reports
    const range = { startTime: new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10), endTime: day };
    const diagnosis = (await api(backend.base, `${F}/carStatus/getDiagnoseReport`, { token, params: { carId, ...range } })).data;
    assert.deepEqual(diagnosis.activeFaults, ['E101']);
    await drawer().getByTestId('vd-faults').getByText('E101').waitFor();

    // the run history: the day's row is the server's
    const stages = (await api(backend.base, `${F}/carStatus/getStageCnt`, { token, params: { carId, startTime: day, endTime: day } })).data;
    const [d] = stages.days;
    assert.equal(d.workHours, 1);
    const row = drawer().getByTestId('vd-history').locator('tr.ant-table-row', { hasText: day });
    const cells = (await row.locator('td').allInnerTexts()).map((c) => c.trim());
    assert.deepEqual(cells, [day, ...['bootHours', 'workHours', 'moveHours', 'loadHours', 'liftHours', 'idleHours', 'distanceKm', 'alarms', 'energyUsed', 'energyAdded'].map((k) => String(d[k]))]);
    await page.screenshot({ path: shot('vehicle-detail-1280') });
  });

  it('shows the charts of the range, with the server numbers', async () => {
    const charts = drawer().locator('.ant-tabs');
    await charts.scrollIntoViewIfNeeded();
    await drawer().getByTestId('vd-chart-mileage').locator('canvas').first().waitFor();
    const total = await text('vd-total-km');
    assert.match(total, /1\.79 km/);
    assert.match(total, /101\.79 km/);
    for (const [tab, id] of [
      ['作业时段热力图', 'vd-chart-thermal'],
      ['时长瀑布图', 'vd-chart-waterfall'],
      ['温度', 'vd-chart-temperature'],
      ['运行工况', 'vd-chart-run'],
      ['效率日历', 'vd-chart-calendar'],
    ]) {
      await charts.getByRole('tab', { name: tab, exact: true }).click();
      await drawer().getByTestId(id).locator('canvas').first().waitFor();
      await page.waitForTimeout(300); // the chart's entry animation
      await drawer().locator('.ant-tabs').screenshot({ path: shot(`vehicle-detail-${id.slice(9)}-1280`) });
    }
    const cal = (await api(backend.base, `${F}/monitor/getWorkEfficiencyCalendar`, { token, params: { carId, month: day.slice(0, 7) } })).data;
    if (day.slice(0, 7) === new Date().toISOString().slice(0, 7)) {
      assert.match(await text('vd-utilisation'), new RegExp(`${cal.utilisation}%`));
    }
    await page.screenshot({ path: shot('vehicle-detail-charts-1280') });
    assert.deepEqual(pageErrors, []);
  });

  it('draws the engine charts of a diesel from its CAN data; an electric vehicle has none', async () => {
    const charts = drawer().locator('.ant-tabs');
    await charts.getByRole('tab', { name: '油门开度', exact: true }).click();
    await drawer().getByTestId('vd-empty-throttle').waitFor(); // an electric truck: no engine on its CAN bus
    await page.keyboard.press('Escape');
    await page.locator('tbody tr.ant-table-row', { hasText: DIESEL }).getByRole('button', { name: '详情' }).click();
    await drawer().getByText(`车辆详情 ${DIESEL}`).waitFor();
    await drawer().locator('.ant-tabs').scrollIntoViewIfNeeded();
    await drawer().locator('.ant-tabs').getByRole('tab', { name: '强化路谱', exact: true }).click();
    await drawer().getByTestId('vd-chart-spectrum').locator('canvas').first().waitFor();
    const today = new Date(Date.now() + 8 * 3_600_000).toISOString().slice(0, 10);
    const since = new Date(Date.now() + 8 * 3_600_000 - 6 * 86_400_000).toISOString().slice(0, 10);
    const params = { carId: dieselId, beginTime: `${since} 00:00:00`, endTime: `${today} 23:59:59` };
    const spectrum = (await api(backend.base, `${F}/monitor/getStrengthenRoadSpectrum`, { token, params })).data;
    // 1,500 rpm at 60 % load: the 1200-1600 rpm band, the 60-80 % band
    assert.deepEqual(spectrum.cells.map(([r, l]) => [r, l]), [[2, 3]]);
    assert.ok(spectrum.totalHours > 0);
    await drawer().getByText(new RegExp(`共 ${spectrum.totalHours} 小时`)).waitFor();
    await page.waitForTimeout(300); // the chart's entry animation
    await drawer().locator('.ant-tabs').screenshot({ path: shot('vehicle-detail-spectrum-1280') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(600);
    await drawer().getByTestId('vd-chart-spectrum').locator('canvas').first().waitFor();
    await drawer().locator('.ant-tabs').screenshot({ path: shot('vehicle-detail-spectrum-390') });
    await page.setViewportSize({ width: 1280, height: 900 });
    await drawer().locator('.ant-tabs').getByRole('tab', { name: '油门开度', exact: true }).click();
    await drawer().getByTestId('vd-chart-throttle').locator('canvas').first().waitFor();
    await page.waitForTimeout(1500); // the line's entry animation
    await drawer().locator('.ant-tabs').screenshot({ path: shot('vehicle-detail-throttle-1280') });
    await page.keyboard.press('Escape');
    await page.locator('tbody tr.ant-table-row', { hasText: VEHICLE }).getByRole('button', { name: '详情' }).click();
    await drawer().getByText(`车辆详情 ${VEHICLE}`).waitFor();
    assert.deepEqual(pageErrors, []);
  });

  it('never asks the server for more than 7 days, and fits a phone', async () => {
    const asked = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      const start = url.searchParams.get('startTime') ?? url.searchParams.get('beginTime')?.slice(0, 10);
      const end = url.searchParams.get('endTime')?.slice(0, 10);
      if (start && end && /carStatus|monitor/.test(url.pathname)) asked.push((Date.parse(end) - Date.parse(start)) / 86_400_000 + 1);
    });
    const picker = drawer().locator('.vd-range-picker');
    const earlier = new Date(Date.parse(`${day}T00:00:00Z`) - 9 * 86_400_000).toISOString().slice(0, 10);
    const start = picker.locator('input').nth(0);
    await start.click();
    await start.press('Control+A');
    await start.fill(earlier);
    await start.press('Enter');
    const end = picker.locator('input').nth(1);
    await end.click();
    await end.press('Control+A');
    await end.fill(day);
    await end.press('Enter');
    await page.keyboard.press('Escape');
    // a shorter range is taken and asked for
    const three = new Date(Date.parse(`${day}T00:00:00Z`) - 2 * 86_400_000).toISOString().slice(0, 10);
    await start.click();
    await start.press('Control+A');
    await start.fill(three);
    await start.press('Enter');
    await end.click();
    await end.press('Control+A');
    await end.fill(day);
    await end.press('Enter');
    await page.keyboard.press('Escape');
    await drawer().getByTestId('vd-history').locator('tr.ant-table-row').nth(2).waitFor();
    assert.equal(await drawer().getByTestId('vd-history').locator('tr.ant-table-row').count(), 3);
    assert.ok(asked.length > 0 && asked.every((n) => n <= 7), `spans asked: ${asked.join(', ')}`);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(400);
    const overflow = await page.evaluate(() => {
      const body = document.querySelector('.vehicle-detail .ant-drawer-body');
      return body.scrollWidth - body.clientWidth;
    });
    assert.ok(overflow <= 1, `the drawer does not scroll sideways at 390 px (${overflow})`);
    // the drawer follows the screen (its width is min(1080px, 100vw), animated)
    await page.waitForFunction(() => {
      const r = document.querySelector('.vehicle-detail .ant-drawer-section').getBoundingClientRect();
      return r.left >= 0 && r.right <= 391;
    });
    await page.screenshot({ path: shot('vehicle-detail-390') });
    assert.deepEqual(pageErrors, []);
  });
});
