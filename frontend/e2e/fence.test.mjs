// Electronic fences: the list (运营设置 → 电子围栏) and the map editor (/adds/addOperating), against the real
// backend. The map has no tiles here (no network): shapes draw on the plain background.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const F = '/api/blade-fics-report/fics/carInfo';
const NAME = 'E2E 仓库围栏';
const VEHICLE = 'E2E-叉车-01';

let backend;
let browser;
let page;
let token;
let vehicleId;
const pageErrors = [];

const { expectToast, confirm, settle, tabLabels, signInAsAdmin, openMenu } = ui(() => page);

/** Picks an option of the antd Select labelled `label` inside `scope`. */
async function choose(scope, label, option) {
  await scope.getByLabel(label, { exact: true }).click();
  await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').getByTitle(option, { exact: true }).click();
  await page.waitForFunction(() => document.querySelectorAll('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').length === 0);
}

/** The map's canvas box, once the map has loaded and its draw toolbar is there. */
async function mapBox() {
  const canvas = page.locator('.fence-editor-map canvas.maplibregl-canvas');
  await canvas.waitFor();
  await page.locator('.fence-map-toolbar button').first().waitFor();
  const box = await canvas.boundingBox();
  assert.ok(box && box.width > 300 && box.height > 300, `the map has room: ${JSON.stringify(box)}`);
  return box;
}

/**
 * How many pixels of the map look like the drawn shape (blue-tinted) rather than the plain background. A WebGL
 * canvas cannot be read back, so the page decodes a screenshot of the map instead.
 */
async function shapePixels() {
  const box = await page.locator('.fence-editor-map canvas.maplibregl-canvas').boundingBox();
  const png = (await page.screenshot({ clip: box })).toString('base64');
  return page.evaluate(async (data) => {
    const image = new Image();
    image.src = `data:image/png;base64,${data}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(image, 0, 0);
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 2] - pixels[i] > 25) n += 1;
    return n;
  }, png);
}

async function fences() {
  const body = await api(backend.base, `${F}/v2/getElectronicFence`, { method: 'POST', token, params: { current: 1, size: 50 } });
  assert.equal(body.code, 200, JSON.stringify(body));
  return body.data.records;
}

async function fence(id) {
  const body = await api(backend.base, `${F}/V2/getCarElectronicsInfo`, { token, params: { id } });
  assert.equal(body.code, 200, JSON.stringify(body));
  return body.data;
}

before(async () => {
  backend = await startBackend();
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const depts = await api(backend.base, '/api/blade-system/dept/tree', { token });
  const created = await api(backend.base, `${F}/insertCarInfo`, {
    method: 'POST',
    token,
    body: { carNo: VEHICLE, deviceNumber: '013912345678', carType: 4, mechanismId: depts.data[0].id },
  });
  assert.equal(created.code, 200, JSON.stringify(created));
  const cars = await api(backend.base, `${F}/page`, { token, params: { current: 1, size: 10, carNo: VEHICLE } });
  vehicleId = String(cars.data.records.find((c) => c.carNo === VEHICLE)?.id ?? '');
  assert.ok(vehicleId, 'the vehicle is listed');

  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('electronic fences', () => {
  it('signs in and opens 运营设置 → 电子围栏', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('运营设置', '电子围栏');
    await page.waitForURL(/\/operation\/fence$/);
    for (const header of ['围栏名称', '围栏类型', '报警方式', '启用状态', '限速', '车辆数', '所属机构', '创建时间'])
      await page.locator('.ant-table-thead').getByText(header, { exact: true }).waitFor();
    await page.locator('.ant-empty-description', { hasText: '暂无数据' }).waitFor();
    assert.deepEqual(await tabLabels(), ['首页', '电子围栏']);
  });

  it('adds a circular fence drawn on the map, with a speed limit and a vehicle', async () => {
    await page.locator('.crud-toolbar').getByRole('button', { name: /新\s*增/ }).click();
    await page.waitForURL(/\/adds\/addOperating$/);
    await page.locator('.fence-editor').getByText('新增电子围栏').first().waitFor();
    assert.deepEqual(await tabLabels(), ['首页', '电子围栏', '新增电子围栏']);
    const box = await mapBox();
    const panel = page.locator('.fence-editor-panel');

    // nothing filled in: the form and the map say what is missing
    await panel.getByRole('button', { name: /保\s*存/ }).click();
    await panel.getByText('请输入围栏名称').waitFor();
    await panel.getByLabel('围栏名称').fill(NAME);
    await panel.getByRole('button', { name: /保\s*存/ }).click();
    await panel.locator('.fence-problem', { hasText: '请在地图上绘制圆形围栏' }).waitFor();

    // draw: press on the centre, drag out the radius
    await page.getByRole('button', { name: '绘制圆形' }).click();
    await page.getByTestId('fence-hint').getByText('点击地图确定圆心').waitFor();
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 1; i <= 10; i += 1) await page.mouse.move(cx + i * 12, cy, { steps: 2 });
    await page.mouse.up();
    const radius = panel.getByLabel('半径');
    await radius.waitFor();
    const drawn = Number(await radius.inputValue());
    assert.ok(drawn > 10, `a radius was drawn: ${drawn}`);
    await panel.getByTestId('fence-center').getByText(/圆心：116\.\d+, 39\.\d+/).waitFor();
    assert.ok((await shapePixels()) > 200, 'the circle shows on the map');

    // the radius is typed exactly
    await radius.fill('800');
    await radius.press('Tab');
    assert.equal(await radius.inputValue(), '800');

    // speed-limit modes need a speed limit
    await choose(panel, '报警方式', '围栏内限速');
    await panel.getByRole('button', { name: /保\s*存/ }).click();
    await panel.getByText('请输入限速').waitFor();
    await panel.getByLabel('限速 (km/h)').fill('10');

    // bind the vehicle
    const transfer = panel.locator('.fence-transfer');
    await transfer.getByText(`${VEHICLE} (013912345678)`).click();
    await transfer.locator('.ant-transfer-actions button').first().click();
    await transfer.locator('.ant-transfer-section').nth(1).getByText(VEHICLE).waitFor();

    await settle();
    await page.screenshot({ path: shot('fence-editor-circle') });

    await panel.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast('保存成功');
    await page.waitForURL(/\/operation\/fence$/);
    const row = page.getByRole('row', { name: new RegExp(NAME) });
    await row.waitFor();
    for (const text of ['圆形', '围栏内限速', '启用', '10 km/h']) await row.getByText(text, { exact: true }).waitFor();
    assert.equal(await row.locator('td').nth(7).innerText(), '1', 'one vehicle');
    assert.deepEqual(await tabLabels(), ['首页', '电子围栏'], 'the editor tab closed');
    await settle();
    await page.screenshot({ path: shot('fence-list') });

    const [saved] = await fences();
    assert.equal(saved.name, NAME);
    const detail = await fence(saved.id);
    assert.equal(detail.fenceType, 1);
    assert.equal(detail.alarmMode, 4);
    assert.equal(Number(detail.speedLimit), 10);
    assert.equal(Number(detail.radius), 800);
    assert.ok(Math.abs(detail.centerLon - 116.397) < 0.1 && Math.abs(detail.centerLat - 39.909) < 0.1, JSON.stringify(detail));
    assert.deepEqual(detail.carIds.map(String), [vehicleId]);
  });

  it('edits it into a polygon with another alarm mode', async () => {
    const row = page.getByRole('row', { name: new RegExp(NAME) });
    await row.getByRole('button', { name: /编\s*辑/ }).click();
    await page.waitForURL(/\/adds\/addOperating\?id=/);
    const panel = page.locator('.fence-editor-panel');
    await panel.getByText('编辑电子围栏').first().waitFor();
    assert.deepEqual(await tabLabels(), ['首页', '电子围栏', '编辑电子围栏']);
    assert.equal(await panel.getByLabel('围栏名称').inputValue(), NAME);
    assert.equal(await panel.getByLabel('半径').inputValue(), '800');
    await panel.locator('.fence-transfer .ant-transfer-section').nth(1).getByText(VEHICLE).waitFor();
    const box = await mapBox();
    // the map fits the fence: the circle fills much of it
    await page.waitForFunction(() => document.querySelector('.fence-editor-map canvas') !== null);
    await page.waitForTimeout(300);
    assert.ok((await shapePixels()) > 2000, 'the stored circle is in view');

    // another type drops the circle; draw a polygon: three clicks, a double-click on the fourth vertex
    await panel.getByText('多边形', { exact: true }).click();
    await panel.getByText('尚未绘制').waitFor();
    await page.getByRole('button', { name: '绘制多边形' }).click();
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    const vertices = [
      [cx - 160, cy - 120],
      [cx + 170, cy - 110],
      [cx + 150, cy + 130],
    ];
    for (const [x, y] of vertices) {
      await page.mouse.click(x, y);
      await page.waitForTimeout(150);
    }
    await page.mouse.move(cx - 140, cy + 120, { steps: 4 });
    await page.mouse.dblclick(cx - 140, cy + 120);
    await panel.getByTestId('fence-vertices').getByText('顶点数：4').waitFor();
    assert.ok((await shapePixels()) > 2000, 'the polygon shows on the map');

    await choose(panel, '报警方式', '进出围栏报警');
    assert.equal(await panel.getByLabel('限速 (km/h)').count(), 0, 'no speed limit for this mode');
    await settle();
    await page.screenshot({ path: shot('fence-editor-polygon') });

    await panel.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast('保存成功');
    await page.waitForURL(/\/operation\/fence$/);
    const updated = page.getByRole('row', { name: new RegExp(NAME) });
    for (const text of ['多边形', '进出围栏报警']) await updated.getByText(text, { exact: true }).waitFor();

    const [saved] = await fences();
    const detail = await fence(saved.id);
    assert.equal(detail.fenceType, 2);
    assert.equal(detail.alarmMode, 3);
    assert.equal(detail.speedLimit, null);
    assert.equal(detail.points.length, 4);
    assert.deepEqual(detail.carIds.map(String), [vehicleId], 'the vehicle stays bound');
  });

  it('finishes a polygon with the button and asks before dropping changes', async () => {
    await page.locator('.crud-toolbar').getByRole('button', { name: /新\s*增/ }).click();
    await page.waitForURL(/\/adds\/addOperating$/);
    const box = await mapBox();
    const panel = page.locator('.fence-editor-panel');
    await panel.getByText('多边形', { exact: true }).click();
    await page.getByRole('button', { name: '绘制多边形' }).click();
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    await page.mouse.click(cx - 100, cy);
    await page.waitForTimeout(150);
    await page.mouse.click(cx + 100, cy);
    await page.waitForTimeout(150);
    // two vertices are not a polygon yet
    await page.getByRole('button', { name: /(^|\s)完\s*成$/ }).click();
    await panel.locator('.fence-problem', { hasText: '多边形至少需要 3 个顶点' }).waitFor();
    await page.mouse.click(cx, cy + 120);
    await page.waitForTimeout(150);
    await page.getByRole('button', { name: /(^|\s)完\s*成$/ }).click();
    await panel.getByTestId('fence-vertices').getByText('顶点数：3').waitFor();
    await page.getByRole('button', { name: '清除图形' }).click();
    await panel.getByText('尚未绘制').waitFor();

    await panel.getByRole('button', { name: /取\s*消/ }).click();
    await confirm('有未保存的修改，确定离开吗?');
    await page.waitForURL(/\/operation\/fence$/);
    assert.deepEqual(await tabLabels(), ['首页', '电子围栏']);
  });

  it('deletes it after a confirmation', async () => {
    const row = page.getByRole('row', { name: new RegExp(NAME) });
    await row.getByRole('button', { name: /删\s*除/ }).click();
    await confirm('确定将选择数据删除?');
    await expectToast('删除成功');
    await page.locator('.ant-empty-description', { hasText: '暂无数据' }).waitFor();
    assert.deepEqual(await fences(), []);
  });

  it('raised no uncaught page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
