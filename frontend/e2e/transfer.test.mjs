// The vehicle register's spreadsheets (车辆管理 → 车辆档案), against the real backend: download the import template,
// refuse a file that is not a spreadsheet before sending it, import a small .xlsx built from the template (one row
// saved, one refused with its reason), import it again over the existing vehicle, follow a large file's background
// job, find the imported vehicle by search and export the list with that search. Also the form's limits from the
// server's manifest (counter, required mark, range) and a server refusal landing on its field.
// The workbooks are written and read with the backend's own openpyxl (.venv), not an npm package.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fillTemplate, readSheet } from './sheets.mjs';
import { OUT, launchBrowser, newPage, shot, startBackend, ui } from './harness.mjs';

const FILES = join(OUT, 'transfer');
const CAR = 'E2E-导入-01';

let backend;
let browser;
let page;
const pageErrors = [];

const { expectToast, opened, signInAsAdmin, openMenu } = ui(() => page);


/** A row of the template: number, device number, SIM, type, status, organisation, frame, brand, model, plate, load, speed. */
const vehicleRow = (carNo, device, load = 1500) => [carNo, device, '', 3, 0, null, '', '林德', 'E20', '', load, 10];

const toolbar = () => page.locator('.crud-toolbar:visible');
const importDialog = () => page.getByRole('dialog', { name: '导入车辆' });
const fileInput = () => importDialog().locator('input[type="file"]');

/** Waits until the import dialog shows its result. */
async function result() {
  const box = importDialog().getByTestId('import-result');
  await box.waitFor({ timeout: 60_000 });
  return box;
}

before(async () => {
  mkdirSync(FILES, { recursive: true });
  backend = await startBackend({ name: 'e2e-transfer' });
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('vehicle import and export', () => {
  let template;

  it('opens 车辆档案 with its import and export buttons', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('车辆管理', '车辆档案');
    await page.waitForURL(/\/fleet\/vehicle$/);
    await toolbar().getByRole('button', { name: /导\s*入/ }).waitFor();
    await toolbar().getByRole('button', { name: /导\s*出/ }).waitFor();
    // the server's export replaces the CSV of the page
    assert.equal(await page.getByRole('button', { name: '导出当前页 (CSV)' }).count(), 0);
    await page.waitForFunction(() => !document.querySelector('.ant-spin-spinning, .ant-message-notice'));
    await page.screenshot({ path: shot('vehicle-transfer-toolbar') });
  });

  it('downloads the import template with the headers the server reads', async () => {
    await toolbar().getByRole('button', { name: /导\s*入/ }).click();
    await opened(importDialog());
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      importDialog().getByRole('button', { name: '下载导入模板' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'vehicles-template.xlsx');
    template = join(FILES, 'template.xlsx');
    await download.saveAs(template);
    const rows = readSheet(template);
    assert.equal(rows.length, 1, 'only the header row');
    assert.deepEqual(rows[0].slice(0, 4), ['车辆编号', '终端设备号', 'SIM卡号', '车辆类型']);
  });

  it('refuses a file that is not a spreadsheet before sending it', async () => {
    let sent = 0;
    const count = (request) => {
      if (request.url().includes('/carInfo/importCar')) sent += 1;
    };
    page.on('request', count);
    await fileInput().setInputFiles({ name: 'vehicles.csv', mimeType: 'text/csv', buffer: Buffer.from('车辆编号\nX-1\n') });
    await importDialog().getByTestId('import-problem').getByText('只能导入 .xls 或 .xlsx 文件:vehicles.csv').waitFor();
    page.off('request', count);
    assert.equal(sent, 0, 'nothing was sent');
  });

  it('imports two rows: one saved, one refused with its row number and reason', async () => {
    const file = join(FILES, 'vehicles.xlsx');
    // row 3: a load the server does not take (at most 100000 kg)
    fillTemplate(template, file, [vehicleRow(CAR, '013900000101'), vehicleRow('E2E-导入-02', '013900000102', 250000)]);
    const answered = page.waitForResponse((r) => r.url().includes('/carInfo/importCar'));
    await fileInput().setInputFiles(file);
    const query = new URL((await answered).url()).searchParams;
    assert.equal(query.get('isCovered'), '0');
    const box = await result();
    await box.getByText('共 2 行:新增 1 条,更新 0 条,失败 1 条').waitFor();
    const refused = box.locator('.ant-table-row');
    assert.equal(await refused.count(), 1);
    const [row, reason] = await refused.first().locator('td').allInnerTexts();
    assert.equal(row, '3');
    // the server's field name reads as the page's label
    assert.equal(reason, '额定载重 (kg) 超出允许范围');
    await page.waitForFunction(() => !document.querySelector('.ant-zoom-appear, .ant-zoom-enter, .ant-spin-spinning'));
    await page.screenshot({ path: shot('vehicle-import-result') });
    // the list shows the new vehicle (reloaded after the import)
    await importDialog().getByRole('button', { name: /关\s*闭/ }).last().click();
    await importDialog().waitFor({ state: 'hidden' });
    await page.locator('.ant-table-row', { hasText: CAR }).waitFor();
  });

  it('imports the same vehicle again: refused as a duplicate, then updated with "overwrite"', async () => {
    const file = join(FILES, 'again.xlsx');
    fillTemplate(template, file, [vehicleRow(CAR, '013900000101', 1700)]);
    await toolbar().getByRole('button', { name: /导\s*入/ }).click();
    await opened(importDialog());
    await importDialog().getByRole('button', { name: '继续导入' }).click();
    await fileInput().setInputFiles(file);
    let box = await result();
    await box.getByText('共 1 行:新增 0 条,更新 0 条,失败 1 条').waitFor();
    await box.locator('.ant-table-row', { hasText: `车辆简称 已存在: ${CAR}` }).waitFor();

    await importDialog().getByRole('button', { name: '继续导入' }).click();
    await importDialog().getByRole('switch', { name: '覆盖已有数据' }).click();
    await importDialog().getByText('与已有数据重复的行将更新已有数据').waitFor();
    const answered = page.waitForResponse((r) => r.url().includes('/carInfo/importCar'));
    await fileInput().setInputFiles(file);
    assert.equal(new URL((await answered).url()).searchParams.get('isCovered'), '1');
    box = await result();
    await box.getByText('共 1 行:新增 0 条,更新 1 条,失败 0 条').waitFor();
  });

  it('follows a large file in the background until its report is complete', async () => {
    const file = join(FILES, 'large.xlsx');
    const rows = Array.from({ length: 240 }, (_, i) => vehicleRow(`E2E-批量-${String(i + 1).padStart(3, '0')}`, `0139100${String(i + 1).padStart(5, '0')}`));
    fillTemplate(template, file, rows);
    await importDialog().getByRole('button', { name: '继续导入' }).click();
    // overwrite is still on: nothing here exists yet, every row is new
    await fileInput().setInputFiles(file);
    // more than 200 rows: the answer comes at once, the progress is polled
    await importDialog().getByTestId('import-running').waitFor();
    await importDialog().locator('.ant-progress').waitFor();
    const box = await result();
    await box.getByText('共 240 行:新增 240 条,更新 0 条,失败 0 条').waitFor();
    await importDialog().getByRole('button', { name: /关\s*闭/ }).last().click();
    await importDialog().waitFor({ state: 'hidden' });
  });

  it('finds the imported vehicle by search and exports the list with that search', async () => {
    const search = page.locator('.crud-search:visible');
    await search.getByLabel('车辆简称').fill('E2E-导入');
    await search.getByRole('button', { name: /搜\s*索/ }).click();
    await page.waitForFunction(() => document.querySelectorAll('.ant-table-tbody tr.ant-table-row').length === 1);
    await page.locator('.ant-table-row', { hasText: CAR }).waitFor();

    const exported = page.waitForRequest((r) => r.url().includes('/carInfo/exportCar?'));
    const [download] = await Promise.all([page.waitForEvent('download'), toolbar().getByRole('button', { name: /导\s*出/ }).click()]);
    const query = new URL((await exported).url()).searchParams;
    assert.equal(query.get('carNo_like'), 'E2E-导入');
    assert.ok(!query.has('current') && !query.has('size'), `the export is not paged: ${query}`);
    assert.match(download.suggestedFilename(), /\.xlsx$/);
    const path = join(FILES, 'export.xlsx');
    await download.saveAs(path);
    assert.equal(readFileSync(path).subarray(0, 2).toString(), 'PK', 'an .xlsx (zip) file');
    const rows = readSheet(path);
    assert.equal(rows.length, 2, JSON.stringify(rows));
    assert.equal(rows[0][0], '车辆编号');
    assert.equal(rows[1][0], CAR);
    assert.equal(Number(rows[1][10]), 1700, 'updated by the second import');
  });

  it('shows the server\'s limits in the form and puts a refusal of the server on its field', async () => {
    await toolbar().getByRole('button', { name: /新\s*增/ }).click();
    const dialog = page.getByRole('dialog', { name: '新增车辆' });
    await opened(dialog);
    // required mark, counter of the length limit, type and status preset to the server's defaults
    const carNo = dialog.locator('.ant-form-item', { has: page.getByLabel('车辆简称', { exact: true }) });
    await carNo.locator('label.ant-form-item-required').waitFor();
    await carNo.getByText('0 / 64').waitFor();
    await dialog.locator('.ant-form-item', { hasText: '车辆类型' }).locator('label.ant-form-item-required').waitFor();
    // a number out of the server's range is named before the save
    await dialog.getByLabel('额定载重 (kg)').fill('250000');
    await dialog.getByLabel('额定载重 (kg)').blur();
    await dialog.getByText('额定载重 (kg)应在 0 到 100000 之间').waitFor();
    await dialog.getByLabel('额定载重 (kg)').fill('1200');
    await dialog.getByText('额定载重 (kg)应在 0 到 100000 之间').waitFor({ state: 'detached' });
    // a number the server has: its refusal names carNo, told as 车辆简称 in the toast and under the field
    await dialog.getByLabel('车辆简称', { exact: true }).fill(CAR);
    await carNo.getByText(`${[...CAR].length} / 64`).waitFor();
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast(`车辆简称 已存在: ${CAR}`); // the field by its label, once
    await carNo.locator('.ant-form-item-explain-error', { hasText: `车辆简称 已存在: ${CAR}` }).waitFor();
    await page.screenshot({ path: shot('vehicle-form-server-error') });
    assert.ok(await dialog.isVisible(), 'the form stays open');
    await dialog.getByLabel('车辆简称', { exact: true }).fill(`${CAR}-b`);
    await carNo.locator('.ant-form-item-explain-error').waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: /取\s*消/ }).click();
  });

  it('raised no uncaught page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
