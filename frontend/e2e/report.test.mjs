// 智能报表 → 车辆效率报表 against the real backend: two vehicles of a new organisation get known daily aggregates
// (written into the backend's SQLite file, as the telemetry pipeline would write them), then the page is opened, the
// organisation and a range are chosen, the rows, the totals row and the chart of daily hours are checked, the export
// is downloaded and read back (an .xlsx with the same rows and the totals), and the page is photographed at three
// widths (var/e2e/report-efficiency-<width>.png, and its table: report-efficiency-<width>-table.png; the chart with a
// day's tooltip: report-efficiency-chart-tooltip.png; the organisation select open: report-organisations-open.png).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, OUT, REPO, api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const NAME = 'e2e-report';
const CAR = '/api/blade-fics-report/fics/carInfo';
const H = 3600;
const PYTHON = join(REPO, '.venv', 'bin', 'python');

let backend;
let browser;
let page;
let token;
const pageErrors = [];
const { signInAsAdmin, openMenu, settle } = ui(() => page);

/** A day `back` days before today in the tenant zone (UTC+8 by default), yyyy-MM-dd. */
const dayBefore = (back) => new Date(Date.now() + 8 * H * 1000 - back * 86_400_000).toISOString().slice(0, 10);
const FIRST = dayBefore(5);
const SECOND = dayBefore(4);
const LAST = dayBefore(3);

/** Writes daily aggregates into the backend's database (the table the pipeline fills: fics_car_daily). */
function writeDaily(rows) {
  const script = `
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=30)
con.executemany(
    "INSERT INTO fics_car_daily (tenant_id, vehicle_id, day, mechanism_id, boot_s, move_s, load_s, move_load_s, lift_s,"
    " work_s, distance_km, collision_n, speeding_n, overload_n, fence_n, battery_n, fault_n, other_n)"
    " VALUES ('000000', :vehicle, :day, :org, :boot, :move, :load, :move_load, 0, :work, 0, 0, 0, 0, 0, 0, 0, 0)",
    # ids are 64-bit: they come as text (a JavaScript number would round them)
    [{**r, "vehicle": int(r["vehicle"]), "org": int(r["org"])} for r in json.loads(sys.argv[2])],
)
con.commit()
`;
  execFileSync(PYTHON, ['-c', script, join(OUT, `${NAME}.db`), JSON.stringify(rows)]);
}

/** The rows of the first sheet of an .xlsx, read back with the backend's own reader (openpyxl). */
function readXlsx(path) {
  const script = `
import json, sys
from openpyxl import load_workbook
sheet = load_workbook(sys.argv[1], read_only=True).worksheets[0]
print(json.dumps([list(r) for r in sheet.iter_rows(values_only=True)], ensure_ascii=False))
`;
  return JSON.parse(execFileSync(PYTHON, ['-c', script, path], { encoding: 'utf8' }));
}

let org;
let orgName;
const cars = {};

before(async () => {
  backend = await startBackend({ name: NAME });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const depts = await api(backend.base, '/api/blade-system/dept/list', { token });
  orgName = `效率报表测试仓 ${Date.now() % 10_000}`;
  const made = await api(backend.base, '/api/blade-system/dept/submit', {
    method: 'POST',
    token,
    body: { deptName: orgName, parentId: depts.data[0].id, deptCategory: 2, sort: 9 },
  });
  assert.equal(made.code, 200, JSON.stringify(made));
  org = made.data.id;
  for (const [key, number, type, device] of [
    ['a', 'E2E-EFF-01', 3, '013900000101'],
    ['b', 'E2E-EFF-02', 4, '013900000102'],
  ]) {
    const r = await api(backend.base, `${CAR}/insertCarInfo`, {
      method: 'POST',
      token,
      body: { carNo: number, carType: type, deviceNumber: device, mechanismId: org },
    });
    assert.equal(r.code, 200, JSON.stringify(r));
    cars[key] = r.data;
  }
  const row = (car, day, boot, move, load, moveLoad, work) => ({
    vehicle: car.id,
    day,
    org,
    boot: boot * H,
    move: move * H,
    load: load * H,
    move_load: moveLoad * H,
    work: work * H,
  });
  writeDaily([
    row(cars.a, FIRST, 8, 4, 2, 1, 6),
    row(cars.b, LAST, 4, 1, 1, 0.5, 2),
    // before the range: not counted
    row(cars.a, dayBefore(6), 100, 100, 100, 100, 100),
  ]);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

/**
 * The chart as the page shows it: the role and aria-label ECharts puts on its box, the size of its canvas and how many
 * of its pixels have the work (#52c41a) and idle (#faad14) colours.
 */
async function chartState() {
  await page.getByTestId('report-chart-canvas').locator('canvas').first().waitFor();
  await page.waitForTimeout(500); // the bars grow in (ECharts' animation)
  return page.evaluate(() => {
    const box = document.querySelector('[data-testid="report-chart-canvas"]');
    const canvas = box.querySelector('canvas');
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const near = (i, [r, g, b]) => Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < 24 && data[i + 3] > 200;
    const pixels = { work: 0, idle: 0 };
    for (let i = 0; i < data.length; i += 4) {
      if (near(i, [0x52, 0xc4, 0x1a])) pixels.work += 1;
      else if (near(i, [0xfa, 0xad, 0x14])) pixels.idle += 1;
    }
    const rect = canvas.getBoundingClientRect();
    return {
      role: box.getAttribute('role'),
      label: box.getAttribute('aria-label') ?? '',
      canvas: { width: Math.round(rect.width), height: Math.round(rect.height) },
      pixels,
    };
  });
}

/** The text of the cells of a table row, by column header. */
async function rowCells(row) {
  const headers = await page.locator('.report-card .ant-table-thead th').allInnerTexts();
  const cells = await row.locator('td').allInnerTexts();
  return Object.fromEntries(headers.map((h, i) => [h.trim(), cells[i]?.trim()]));
}

describe('vehicle efficiency report', () => {
  it('opens from 智能报表 with the last 7 days and a chart slot', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('智能报表', '车辆效率报表');
    await page.waitForURL(/\/report\/efficiency$/);
    await page.locator('.report-card .ant-table').waitFor();
    for (const header of ['所属机构', '车辆编号', '终端设备号', '车辆类型', '累计开机时长(h)', '行驶效率(%)'])
      await page.locator('.report-card .ant-table-thead').getByText(header, { exact: true }).waitFor();
    const inputs = page.locator('.report-filters .ant-picker-range input');
    assert.equal(await inputs.nth(0).inputValue(), dayBefore(6));
    assert.equal(await inputs.nth(1).inputValue(), dayBefore(0));
    await page.getByTestId('report-chart').waitFor();
    // the fleet's days of the whole tenant: drawn by ECharts, described day by day (7 days)
    const chart = await chartState();
    assert.equal(chart.role, 'img');
    assert.ok(chart.canvas.width > 0 && chart.canvas.height > 0, JSON.stringify(chart.canvas));
    assert.match(chart.label, /^车队每日时长: /);
    for (let back = 6; back >= 0; back--) assert.ok(chart.label.includes(`${dayBefore(back)}: 开机 `), chart.label);
  });

  it('shows the rows and the totals of the organisation over the range chosen', async () => {
    // the organisation, from the organisations the caller may see (common/getMechanismParamList): searched by its
    // path, shown under its parent
    const organisations = page.locator('.report-filters .ant-select').first();
    await organisations.click();
    await page.locator('.ant-select-item-option').first().waitFor();
    await page.waitForTimeout(400); // the list's opening animation
    await page.screenshot({ path: shot('report-organisations-open') });
    await page.keyboard.type(orgName);
    const option = page.locator('.ant-select-item-option', { hasText: orgName });
    await option.first().waitFor();
    assert.equal(await option.count(), 1);
    const indent = await option.getByTestId('mechanism-option').evaluate((el) => getComputedStyle(el).paddingInlineStart);
    assert.notEqual(indent, '0px', 'an organisation under the root is indented');
    await option.click();
    assert.ok((await organisations.innerText()).includes(orgName), 'the organisation chosen shows in the box');
    // the range: typed into the picker
    const inputs = page.locator('.report-filters .ant-picker-range input');
    await inputs.nth(0).click();
    await inputs.nth(0).fill(FIRST);
    await inputs.nth(0).press('Enter');
    await inputs.nth(1).fill(LAST);
    await inputs.nth(1).press('Enter');
    assert.equal(await inputs.nth(0).inputValue(), FIRST);
    assert.equal(await inputs.nth(1).inputValue(), LAST);
    await page.locator('.report-filters').getByRole('button', { name: /搜\s*索/ }).click();
    await page.waitForFunction(() => document.querySelectorAll('.report-card .ant-table-row').length === 2);
    await settle();

    const first = await rowCells(page.locator('.report-card .ant-table-row', { hasText: 'E2E-EFF-01' }));
    assert.equal(first['所属机构'], orgName);
    assert.equal(first['终端设备号'], '013900000101');
    assert.equal(first['车辆类型'], '铅酸电动叉车');
    assert.deepEqual(
      ['累计开机时长(h)', '负载时长(h)', '行驶时长(h)', '空闲时长(h)', '带载行驶时长(h)', '行驶效率(%)'].map((h) => first[h]),
      ['8.00', '2.00', '4.00', '2.00', '1.00', '50.00'],
    );
    const second = await rowCells(page.locator('.report-card .ant-table-row', { hasText: 'E2E-EFF-02' }));
    assert.equal(second['车辆类型'], '锂电电动叉车');
    assert.equal(second['行驶效率(%)'], '25.00');

    assert.match(await page.getByTestId('report-totals-label').innerText(), /合计.*2/);
    const totals = {};
    for (const key of ['cumulativeBootTime', 'loadTime', 'mobileTime', 'freeTime', 'movingLoadTime', 'mobileEfficiency'])
      totals[key] = await page.getByTestId(`report-total-${key}`).innerText();
    assert.deepEqual(totals, {
      cumulativeBootTime: '12.00',
      loadTime: '3.00',
      mobileTime: '5.00',
      freeTime: '4.00',
      movingLoadTime: '1.50',
      mobileEfficiency: '41.67',
    });
    // the chart: one day per day of the range, described (ECharts' aria) with the seeded figures, and drawn
    await page.waitForFunction(
      (first) => document.querySelector('[data-testid="report-chart-canvas"]')?.getAttribute('aria-label')?.includes(`${first}: 开机 8.00`),
      FIRST,
    );
    const chart = await chartState();
    assert.equal(
      chart.label,
      `车队每日时长: ${FIRST}: 开机 8.00 h,工作 6.00 h,行驶 4.00 h,空闲 2.00 h,工作车辆 1 辆; ` +
        `${SECOND}: 开机 0.00 h,工作 0.00 h,行驶 0.00 h,空闲 0.00 h,工作车辆 0 辆; ` +
        `${LAST}: 开机 4.00 h,工作 2.00 h,行驶 1.00 h,空闲 2.00 h,工作车辆 1 辆`,
    );
    assert.ok(chart.canvas.width > 0 && chart.canvas.height > 0, JSON.stringify(chart.canvas));
    // the bars are painted: the canvas holds pixels of the work (green) and idle (amber) colours
    assert.ok(chart.pixels.work > 50 && chart.pixels.idle > 50, JSON.stringify(chart.pixels));
    // a day's tooltip (hours to 2 decimals), pointing at the first day's bar
    const box = await page.getByTestId('report-chart-canvas').boundingBox();
    await page.mouse.move(box.x + box.width / 6, box.y + box.height - 60);
    const tip = page.getByTestId('report-chart-canvas').locator('div', { hasText: FIRST }).first();
    await tip.waitFor();
    const text = (await tip.innerText()).replace(/\s+/g, ' ');
    for (const part of [FIRST, '工作时长(h) 6.00', '空闲时长(h) 2.00', '累计开机时长(h) 8.00', '工作车辆 1']) assert.ok(text.includes(part), text);
    await page.getByTestId('report-chart').screenshot({ path: shot('report-efficiency-chart-tooltip') });
    await page.mouse.move(0, 0);
  });

  it('exports the same rows and the totals as .xlsx', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('.report-card').getByRole('button', { name: /导\s*出/ }).click(),
    ]);
    assert.match(download.suggestedFilename(), /\.xlsx$/);
    const path = join(OUT, 'report-efficiency.xlsx');
    await download.saveAs(path);
    assert.equal(readFileSync(path).subarray(0, 2).toString(), 'PK'); // a zip: an .xlsx workbook
    const table = readXlsx(path);
    assert.deepEqual(table[0], [
      '所属机构',
      '车辆编号',
      '终端设备号',
      '车辆类型',
      '累计开机时长(h)',
      '负载时长(h)',
      '行驶时长(h)',
      '空闲时长(h)',
      '带载行驶时长(h)',
      '行驶效率(%)',
    ]);
    assert.deepEqual(table.slice(1), [
      [orgName, 'E2E-EFF-01', '013900000101', '铅酸电动叉车', 8, 2, 4, 2, 1, 50],
      [orgName, 'E2E-EFF-02', '013900000102', '锂电电动叉车', 4, 1, 1, 2, 0.5, 25],
      ['合计', null, null, null, 12, 3, 5, 4, 1.5, 41.67],
    ]);
  });

  it('is photographed at 1280, 768 and 390 wide without sideways scrolling', async () => {
    for (const width of [1280, 768, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : width === 768 ? 1024 : 800 });
      await page.waitForTimeout(400); // the layout and the chart follow the width
      await settle();
      await page.screenshot({ path: shot(`report-efficiency-${width}`) });
      // the table with its totals row, below the chart (the shell scrolls its content, not the window)
      await page.locator('.report-card').screenshot({ path: shot(`report-efficiency-${width}-table`) });
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wide <= 1, `the page scrolls sideways at ${width}px (${wide}px)`);
    }
  });

  it('raised no uncaught page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
