// 报警中心 against the real backend: two vehicles of a new organisation send a morning through the HTTP ingest (the
// pipeline raises a speeding, two collisions, an overload, two fault codes and a low battery that stays open); then
// 报警记录 shows each list exactly as the API answers it (all, speeding, collisions by level), refuses a range over 7
// days, and exports the rows it shows; 异常车辆 lists the vehicle with an open battery alarm and active fault codes and
// opens its detail; 故障码 shows the faults by vehicle and by type and exports them. Every page is photographed at
// 1280 and 390 wide (var/e2e/alarm-<page>-<width>.png).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, OUT, REPO, api, fleetWith, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const F = '/api/blade-fics-report/fics';
const PYTHON = join(REPO, '.venv', 'bin', 'python');
const A = 'E2E-ALM-01';
const B = 'E2E-ALM-02';
const DEVICE_A = '013900002201';
const DEVICE_B = '013900002202';

let backend;
let browser;
let page;
let token;
let org;
let orgName;
const cars = {};
const pageErrors = [];
const { signInAsAdmin, openMenu, settle } = ui(() => page);

// two days ago, from 09:00 in the tenant's zone (UTC+8)
const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
const START = Date.parse(`${day}T01:00:00Z`);
const at = (s, extra) => ({ time: START + s * 1000, lat: 31.2, lon: 121.5, status: 3, ...extra });
/** A day `back` days before today in the tenant zone, yyyy-MM-dd. */
const dayBefore = (back) => new Date(Date.now() + 8 * 3_600_000 - back * 86_400_000).toISOString().slice(0, 10);

function readXlsx(path) {
  const script = `
import json, sys
from openpyxl import load_workbook
sheet = load_workbook(sys.argv[1], read_only=True).worksheets[0]
print(json.dumps([list(r) for r in sheet.iter_rows(values_only=True)], ensure_ascii=False))
`;
  return JSON.parse(execFileSync(PYTHON, ['-c', script, path], { encoding: 'utf8' }));
}

async function call(path, { body, params } = {}) {
  const r = await api(backend.base, path, body ? { method: 'POST', token, body } : { token, params });
  assert.equal(r.code, 200, `${path}: ${JSON.stringify(r)}`);
  return r.data;
}

before(async () => {
  backend = await startBackend({ name: 'e2e-alarms' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  orgName = `报警测试仓 ${Date.now() % 10_000}`;
  const limits = { carType: 4, speedLimitKmh: 10, overloadThresholdKg: 2000, collisionThresholdG: 1.5 };
  const faults = { faultCodes: ['BMS-CELL_OVER_VOLTAGE', 'E12'] };
  const morning = [
    at(0, { speed: 14 }),
    at(10, { speed: 14 }),
    at(20, { speed: 14 }),
    at(30, { speed: 14 }),
    at(40, { speed: 16 }),
    at(50, { speed: 5 }),
    at(120, { impactG: 3.2, impactDirection: 90 }),
    at(180, { loadKg: 2500 }),
    at(190, { loadKg: 2800 }),
    at(200, { loadKg: 1000 }),
    at(240, faults),
    at(250, faults),
    at(260, { ...faults, battery: { socPct: 30, voltageV: 40 } }),
  ];
  const fleet = await fleetWith(backend.base, token, {
    org: orgName,
    vehicles: [
      { carNo: A, deviceNumber: DEVICE_A, ...limits },
      { carNo: B, deviceNumber: DEVICE_B, ...limits },
    ],
    fixes: { [DEVICE_A]: morning, [DEVICE_B]: [at(30, { impactG: 2.0, impactDirection: 180 })] },
  });
  org = fleet.org;
  cars.a = fleet.cars[A];
  cars.b = fleet.cars[B];
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

/** The cells of each row of the page's table, by column header. */
async function tableRows(card = '.report-card') {
  await settle();
  const headers = (await page.locator(`${card} .ant-table-thead th`).allInnerTexts()).map((h) => h.trim());
  const rows = [];
  for (const row of await page.locator(`${card} .ant-table-row`).all()) {
    const cells = await row.locator('td').allInnerTexts();
    rows.push(Object.fromEntries(headers.map((h, i) => [h, cells[i]?.trim()])));
  }
  return rows;
}

async function pickOrganisation() {
  await page.locator('.report-filters .ant-select').first().click();
  await page.locator('.ant-select-tree-node-content-wrapper', { hasText: orgName }).click();
  // the tree's dropdown closes on a pick, not when the organisation was picked already (a page kept in its tab): it
  // would lie over the search button of a narrow filter row
  const tree = page.locator('.ant-select-dropdown .ant-select-tree');
  await tree.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => page.keyboard.press('Escape'));
  await tree.waitFor({ state: 'hidden' });
}

async function search() {
  await page.locator('.report-filters').getByRole('button', { name: /搜\s*索/ }).click();
  await settle();
}

async function waitRows(n, card = '.report-card') {
  await page.waitForFunction(([sel, count]) => document.querySelectorAll(`${sel} .ant-table-row`).length === count, [card, n]);
}

async function photograph(name) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.waitForTimeout(300);
    await settle();
    await page.screenshot({ path: shot(`alarm-${name}-${width}`) });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 1, `${name} scrolls sideways at ${width}px (${wide}px)`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const fmt = (s) => {
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h ? `${h}h ${m}m ${r}s` : m ? `${m}m ${r}s` : `${r}s`;
};

describe('alarm center', () => {
  it('报警记录 lists every alarm of the organisation as the API answers', async () => {
    const q = { mechanismId: org, startTime: dayBefore(6), endTime: dayBefore(0) };
    const all = await call(`${F}/carInfo/getCarAlarmInfoList`, { body: { ...q, current: 1, size: 10 } });
    assert.equal(all.total, 7, JSON.stringify(all.records.map((r) => [r.carNo, r.kind, r.beginTime]))); // speeding, 2 collisions, overload, 2 faults, the battery
    await signInAsAdmin(backend.base);
    await openMenu('报警中心', '报警记录');
    await page.waitForURL(/\/alarm\/record$/);
    const inputs = page.locator('.report-filters .ant-picker-range input');
    assert.equal(await inputs.nth(0).inputValue(), dayBefore(6));
    assert.equal(await inputs.nth(1).inputValue(), dayBefore(0));
    await pickOrganisation();
    await search();
    await waitRows(7);
    const rows = await tableRows();
    assert.deepEqual(
      rows.map((r) => [r['车辆编号'], r['报警类型'], r['开始时间'], r['持续时长']]),
      // an open alarm's duration grows while the page is read: the page's own for those
      all.records.map((r, i) => [r.carNo, r.kindName, r.beginTime, r.open ? rows[i]['持续时长'] : fmt(r.durationS)]),
    );
    assert.equal(rows[0]['报警类型'], '电池低压');
    assert.equal(rows[0]['结束时间'], '进行中');
    assert.match(await page.getByTestId('alarm-totals').innerText(), /共 7 条报警, 2 辆车/);
  });

  it('shows the speeding list with its limit, speeds and duration, and exports the same rows', async () => {
    await page.getByTestId('alarm-lists').getByText('超速报警', { exact: true }).click();
    await waitRows(1);
    const [row] = await tableRows();
    assert.deepEqual(
      ['车辆编号', '开始时间', '限速(km/h)', '开始速度(km/h)', '最高速度(km/h)', '持续时长'].map((h) => row[h]),
      [A, `${day} 09:00:00`, '10.00', '14.00', '16.00', '50s'],
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('.report-card').getByRole('button', { name: /导\s*出/ }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `alarms-speeding_${dayBefore(6)}_${dayBefore(0)}.xlsx`, 'the period in its name');
    const path = join(OUT, 'alarm-speeding.xlsx');
    await download.saveAs(path);
    assert.equal(readFileSync(path).subarray(0, 2).toString(), 'PK');
    const table = readXlsx(path);
    assert.deepEqual(table[0], ['所属机构', '车辆编号', '终端设备号', '开始时间', '结束时间', '限速(km/h)', '开始速度(km/h)', '最高速度(km/h)', '持续时长(秒)', '司机']);
    assert.deepEqual(table.slice(1), [
      // (the reader drops a row's empty cells at its end: no driver)
      [orgName, A, DEVICE_A, `${day} 09:00:00`, `${day} 09:00:50`, 10, 14, 16, 50],
      ['合计', null, null, null, null, null, null, null, 50],
    ]);
  });

  it('filters the collisions by level', async () => {
    await page.getByTestId('alarm-lists').getByText('碰撞报警', { exact: true }).click();
    await waitRows(2);
    const rows = await tableRows();
    assert.deepEqual(
      rows.map((r) => [r['车辆编号'], r['碰撞等级'], r['碰撞阈值(g)'], r['碰撞实际值(g)'], r['碰撞方向(°)']]),
      [
        [A, '3', '1.50', '3.20', '90'],
        [B, '1', '1.50', '2.00', '180'],
      ],
    );
    await page.getByRole('combobox', { name: '碰撞等级' }).click();
    await page.locator('.ant-select-item-option', { hasText: '1 级' }).click();
    await search();
    await waitRows(1);
    assert.equal((await tableRows())[0]['车辆编号'], B);
  });

  it('refuses a range over 7 days, as the server does', async () => {
    const refused = await api(backend.base, `${F}/carInfo/getCarCollisionList`, {
      method: 'POST',
      token,
      body: { startTime: dayBefore(8), endTime: dayBefore(0) },
    });
    assert.equal(refused.code, 400);
    assert.match(refused.msg, /startTime\/endTime: 时间范围不能超过 7 天/);
    const inputs = page.locator('.report-filters .ant-picker-range input');
    await inputs.nth(0).click();
    await inputs.nth(0).fill(dayBefore(0));
    await inputs.nth(0).press('Enter');
    await inputs.nth(1).fill(dayBefore(2));
    await inputs.nth(1).press('Enter');
    await page.keyboard.press('Escape');
    // a start after its end is swapped by the picker or refused: never sent as it is
    const start = await inputs.nth(0).inputValue();
    const end = await inputs.nth(1).inputValue();
    if (start > end) {
      await page.getByTestId('alarm-range-problem').waitFor();
      assert.ok(await page.locator('.report-filters').getByRole('button', { name: /搜\s*索/ }).isDisabled());
    }
    await page.locator('.report-filters').getByRole('button', { name: /清\s*空/ }).click();
  });

  it('异常车辆 lists the vehicle with an open battery alarm and active fault codes, and opens its detail', async () => {
    const listed = await call(`${F}/abnormal/getCarAbnormalPage`, { params: { carNo: 'E2E-ALM' } });
    assert.deepEqual(
      listed.records.map((r) => [r.carNo, r.reasons]),
      [[A, ['battery', 'fault']]],
    );
    await openMenu('报警中心', '异常车辆');
    await page.waitForURL(/\/alarm\/abnormal$/);
    await page.getByTestId('abnormal-tree').getByText(`${orgName} (1)`).click();
    await settle();
    await waitRows(1, '.abnormal-page .crud-card');
    const [row] = await tableRows('.abnormal-page .crud-card');
    assert.equal(row['车辆编号'], A);
    assert.equal(row['异常类型'].replace(/\s+/g, ''), '电池报警故障码');
    assert.equal(row['异常开始'], listed.records[0].since);
    await page.locator('.abnormal-page .crud-card .ant-table-row').getByRole('button', { name: /查\s*看/ }).click();
    const drawer = page.getByTestId('abnormal-detail');
    await drawer.getByTestId('abnormal-open').getByText('电池低压').waitFor();
    const info = await call(`${F}/abnormal/getCarAbnormalInfo`, { params: { carId: cars.a.id } });
    assert.deepEqual(info.faultCodes, ['BMS-CELL_OVER_VOLTAGE', 'E12']);
    await drawer.getByText('BMS-CELL_OVER_VOLTAGE, E12').first().waitFor();
    await page.waitForTimeout(400); // the drawer slides in
    await page.screenshot({ path: shot('alarm-abnormal-detail') });
    await page.keyboard.press('Escape');
  });

  it('故障码 shows the faults by vehicle and by type, and exports them', async () => {
    await openMenu('报警中心', '故障码');
    await page.waitForURL(/\/alarm\/fault$/);
    await pickOrganisation();
    await search();
    await waitRows(1);
    const [car] = await tableRows();
    assert.deepEqual(
      ['车辆编号', '故障次数', '故障码', '最近故障时间', '当前故障码'].map((h) => car[h]),
      [A, '2', 'BMS-CELL_OVER_VOLTAGE, E12', `${day} 09:04:00`, 'BMS-CELL_OVER_VOLTAGE, E12'],
    );
    await page.getByRole('tab', { name: '按故障类型' }).click();
    await waitRows(2);
    const types = await tableRows();
    assert.deepEqual(
      types.map((r) => [r['故障类型'], r['故障码'], r['上报次数'], r['车辆数'], r['当前故障车辆数']]),
      [
        ['BMS', 'BMS-CELL_OVER_VOLTAGE', '1', '1', '1'],
        ['其他', 'E12', '1', '1', '1'],
      ],
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('.report-card').getByRole('button', { name: /导\s*出/ }).click(),
    ]);
    const path = join(OUT, 'alarm-fault-codes.xlsx');
    await download.saveAs(path);
    const table = readXlsx(path);
    assert.deepEqual(table[0], ['故障类型', '故障码', '故障次数', '车辆数', '最近故障时间', '当前故障车辆数']);
    assert.deepEqual(
      table.slice(1).map((r) => r.slice(0, 4)),
      [
        ['BMS', 'BMS-CELL_OVER_VOLTAGE', 1, 1],
        ['other', 'E12', 1, 1],
      ],
    );
  });

  /** Does `act` and waits for the answer of `path`: a success (the page's toast says so too, briefly). */
  async function answered(path, act) {
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === path);
    await act();
    const body = await (await answer).json();
    assert.equal(body.code, 200, `${path}: ${JSON.stringify(body)}`);
  }

  it('a manager acknowledges, handles and closes a collision, reads its steps and opens its track', async () => {
    // the bell's list names the vehicle of each alarm
    await page.locator('.message-bell').click();
    await page.locator('.message-drawer tr.ant-table-row', { hasText: `碰撞报警 · ${A}` }).first().waitFor();
    await page.locator('.message-drawer .ant-drawer-close').click();
    await page.locator('.message-drawer').waitFor({ state: 'hidden' });
    await openMenu('报警中心', '报警记录');
    await page.waitForURL(/\/alarm\/record$/);
    await pickOrganisation();
    await search();
    await page.getByTestId('alarm-lists').getByText('碰撞报警', { exact: true }).click();
    await waitRows(2);
    const row = () => page.locator('.report-card .ant-table-row', { hasText: A });
    const state = async () => (await tableRows()).find((r) => r['车辆编号'] === A)['处理状态'];
    const listed = async () =>
      (await call(`${F}/carInfo/getCarCollisionList`, { body: { carNo: A, startTime: dayBefore(6), endTime: dayBefore(0) } })).records[0];
    assert.equal(await state(), '未确认');

    // 确认: the selection, after a confirmation
    await row().locator('.ant-checkbox-input').check();
    await page.locator('.report-card').getByRole('button', { name: /确\s*认/ }).click();
    assert.equal(await page.locator('.ant-modal-confirm .ant-modal-confirm-title').innerText(), '确认所选的 1 条未确认报警?');
    await answered('/api/liftdesk/alarm/ack', () => page.locator('.ant-modal-confirm .ant-btn-primary').click());
    await page.waitForFunction(() => document.querySelector('.report-card')?.textContent?.includes('已确认'));
    assert.equal(await state(), '已确认');
    assert.equal((await listed()).workStatus, 1);

    // 处理: a note is required; a cause and an assignee are picked
    await row().getByRole('button', { name: /处\s*理/ }).click();
    const dialog = page.getByTestId('alarm-handle');
    await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
    await dialog.getByText('请填写处理说明').waitFor();
    await dialog.locator('textarea').fill('货叉变形, 已送修');
    await dialog.getByLabel('报警原因').click();
    await page.locator('.ant-select-item-option', { hasText: '车辆故障' }).click();
    await dialog.getByLabel('负责人').click();
    await page.locator('.ant-select-item-option', { hasText: '(admin)' }).first().click();
    await answered('/api/liftdesk/alarm/handle', () => dialog.locator('.ant-modal-footer .ant-btn-primary').click());
    await dialog.waitFor({ state: 'hidden' });
    await page.waitForFunction(() => document.querySelector('.report-card')?.textContent?.includes('已处理'));
    const handled = await listed();
    assert.deepEqual([handled.workStatus, handled.cause, handled.note], [2, '2', '货叉变形, 已送修']);
    assert.ok(handled.assigneeName);
    await page.screenshot({ path: shot('alarm-work-handled') });

    // 关闭 with a note; then its steps, oldest first
    await row().locator('.ant-checkbox-input').check();
    await page.locator('.report-card').getByRole('button', { name: /关\s*闭/ }).click();
    await page.locator('.ant-modal-confirm textarea').fill('已修复');
    await answered('/api/liftdesk/alarm/close', () => page.locator('.ant-modal-confirm .ant-btn-primary').click());
    await page.waitForFunction(() => document.querySelector('.report-card')?.textContent?.includes('已关闭'));
    assert.equal((await listed()).workStatus, 3);
    assert.equal(await row().getByRole('button', { name: /处\s*理/ }).count(), 0, 'a closed alarm takes no more steps');
    await row().getByRole('button', { name: /更\s*多/ }).click();
    await page.locator('.ant-dropdown-menu-item', { hasText: '处理记录' }).click();
    const steps = page.getByTestId('alarm-steps');
    await steps.getByText('货叉变形, 已送修').waitFor();
    const texts = await steps.locator('.ant-timeline-item').allInnerTexts();
    assert.deepEqual(texts.map((t) => t.split(' · ')[0].trim()), ['确认', '处理', '关闭']);
    assert.match(texts[1], /报警原因: 车辆故障/);
    await page.screenshot({ path: shot('alarm-work-steps') });
    await steps.getByRole('button', { name: /close|关闭/i }).first().click();
    await steps.waitFor({ state: 'hidden' });
    await page.screenshot({ path: shot('alarm-work-closed') });

    // its track, ten minutes either side, shown at once
    const track = page.waitForResponse((r) => r.url().includes('/positionTrailing/positionTrailing'));
    await row().getByRole('button', { name: /更\s*多/ }).click();
    await page.locator('.ant-dropdown-menu-item', { hasText: '查看前后轨迹' }).click();
    await page.waitForURL((url) => url.pathname === '/fleet/track' && url.searchParams.get('carId') === String(cars.a.id));
    const answer = await (await track).json();
    assert.equal(answer.code, 200);
    assert.ok(answer.data.points.length >= 2, `the track around the collision: ${answer.data.points.length} points`);
    const asked = new URL((await track).url()).searchParams;
    assert.deepEqual([asked.get('beginTime'), asked.get('endTime')], [`${day} 08:52:00`, `${day} 09:12:00`]);
    await settle();
    await page.screenshot({ path: shot('alarm-work-track') });
  });

  it('photographs each page at 1280 and 390 wide, without sideways scrolling', async () => {
    for (const [name, path, table] of [
      ['record', '/alarm/record', '[data-testid="alarm-table"]'],
      ['abnormal', '/alarm/abnormal', '[data-testid="abnormal-table"]'],
      ['fault', '/alarm/fault', '[data-testid="fault-table"]'],
    ]) {
      await page.goto(`${backend.base}${path}`);
      await page.locator(table).waitFor();
      await photograph(name);
    }
  });

  it('raised no uncaught page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
