// 司机管理, against the real backend (issue 14): a driver added on /add/pilot with a main card and a face photo,
// authorized for two vehicles from the list, seen with both on /locks/lockPilot (its face fetched with the session's
// token, the card's password never shown); a serial already in use refused with the server's message; an
// application audited in a batch with a note. Photographed at 1280 and 390 px.
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, launchBrowser, newPage, photographAt, shot, startBackend, tokenFor, ui } from './harness.mjs';

const FICS = '/api/blade-fics-report/fics';
const NAME = '张师傅';
const PHONE = '13912345678';
const SERIAL = '3141592653';

/** A real PNG (the server judges the face photo by its content). */
function png(width = 24, height = 24) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const rows = Buffer.concat(Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x5a)])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

let backend;
let browser;
let page;
let token;
let cars;
let driverId;
const pageErrors = [];

const { expectToast, opened, signInAsAdmin, openMenu, settle } = ui(() => page);
const card = () => page.locator('.crud-card:visible').first();
const rowWith = (value) => card().locator('.ant-table-row:visible').filter({ hasText: value });

/** A row's button, directly or in its "more" menu. */
async function rowAction(row, name) {
  const direct = row.getByRole('button', { name: new RegExp(`(^|\\s)${[...name].join('\\s*')}$`) });
  if (await direct.count()) return direct.first().click();
  await row.getByRole('button', { name: /更多|more/i }).click();
  await page.locator('.ant-dropdown:visible .ant-dropdown-menu-item').filter({ hasText: name }).click();
}

/** Photographs `path` at 1280 and 390 px (harness `photographAt`). */
const photograph = (path, name, ready) => photographAt(page, `${backend.base}${path}`, name, ready, { fullPage: true });

before(async () => {
  backend = await startBackend({ name: 'drivers' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  cars = [];
  for (const [carNo, deviceNumber] of [
    ['叉车-A1', '861000000001'],
    ['叉车-A2', '861000000002'],
  ]) {
    const r = await api(backend.base, `${FICS}/carInfo/insertCarInfo`, { method: 'POST', token, body: { carNo, deviceNumber, carType: 4 } });
    assert.equal(r.code, 200, JSON.stringify(r));
    cars.push(r.data);
  }
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('a driver with a card and a face photo, authorized for two vehicles', () => {
  it('opens 司机管理 → 司机列表', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('司机管理', '司机列表');
    await page.waitForURL(/\/driver\/list$/);
    await page.getByTestId('pilot-add').waitFor();
  });

  it('adds the driver on /add/pilot: person, main card, face photo (previewed before saving)', async () => {
    await page.getByTestId('pilot-add').click();
    await page.waitForURL(/\/add\/pilot$/);
    const form = page.getByTestId('pilot-form');
    await form.locator('#name').fill(NAME);
    await form.locator('#phone').fill('1391234567');
    await form.locator('#jobNumber').fill('J-007');
    await form.locator('#mainCard_cardNumber').fill('IC-007');
    await form.locator('#mainCard_serialNumber').fill(SERIAL);
    await form.locator('#mainCard_password').fill('2468');
    await form.locator('#licenseNumber').fill('LIC-2024-07');
    await form.locator('input[type="file"]').setInputFiles({ name: 'face.png', mimeType: 'image/png', buffer: png() });
    await form.getByTestId('face-preview').waitFor();
    await form.getByRole('button', { name: /保\s*存/ }).click();
    // the phone's rule, before anything is sent
    await form.locator('.ant-form-item-explain-error', { hasText: '手机号长度不是11位' }).waitFor();
    await form.locator('#phone').fill(PHONE);
    const saved = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/personnel/addDriverInfo'));
    const face = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/driver/updateDriverFacePhoto'));
    await form.getByRole('button', { name: /保\s*存/ }).click();
    const body = await (await saved).json();
    assert.equal(body.code, 200, JSON.stringify(body));
    driverId = body.data.id;
    assert.equal(body.data.mainCard.serialNumber, SERIAL);
    assert.equal(body.data.mainCard.password, '******', 'the card password is never read back');
    assert.equal((await (await face).json()).code, 200);
    await expectToast('司机已保存');
    await page.waitForURL(/\/driver\/list$/);
    await rowWith(NAME).waitFor();
  });

  it('refuses a second driver with the same card serial, with the server message', async () => {
    const r = await api(backend.base, `${FICS}/personnel/addDriverInfo`, {
      method: 'POST',
      token,
      body: { name: '李四', phone: '13912345670', mainCard: { cardNumber: 'X', serialNumber: SERIAL, password: '1234' } },
    });
    assert.equal(r.code, 400);
    assert.match(r.msg, new RegExp(SERIAL));
  });

  it('authorizes two vehicles from the list, side by side with the limit shown', async () => {
    await settle();
    await rowAction(rowWith(NAME), '授权车辆');
    const dialog = page.locator('.ant-modal:visible');
    await opened(dialog);
    await dialog.getByTestId('bind-count').filter({ hasText: '/ 上限 200' }).waitFor();
    const unbound = dialog.getByTestId('bind-unbound');
    for (const car of cars) await unbound.locator('.ant-table-row', { hasText: car.carNo }).locator('.ant-checkbox-input').check();
    await unbound.getByRole('button', { name: /绑定 2 项/ }).click();
    await expectToast('已绑定 2 项');
    await dialog.getByTestId('bind-bound').locator('.ant-table-row', { hasText: cars[1].carNo }).waitFor();
    await page.screenshot({ path: shot('drivers-authorize-1440') });
    await dialog.locator('.ant-modal-footer').getByRole('button', { name: /关\s*闭/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    const listed = await api(backend.base, `${FICS}/personnel/queryAuthCar`, { token, params: { driverId } });
    assert.deepEqual(listed.data.records.map((r) => r.carNo).sort(), cars.map((c) => c.carNo).sort());
  });

  it('shows both vehicles, the card and the face on /locks/lockPilot', async () => {
    await settle();
    await rowAction(rowWith(NAME), '详情页');
    await page.waitForURL(/\/locks\/lockPilot\?id=/);
    const view = page.getByTestId('pilot-view');
    for (const car of cars) await view.getByTestId('pilot-cars').locator('.ant-table-row', { hasText: car.carNo }).waitFor();
    await view.getByText(SERIAL).waitFor();
    assert.equal(await view.getByText('2468').count(), 0, 'the card password is not shown');
    const image = view.getByTestId('face-image').locator('img');
    await image.waitFor();
    assert.ok(await image.evaluate((img) => img.complete && img.naturalWidth === 24), 'the stored face photo is shown');
    assert.deepEqual(pageErrors, []);
  });

  it('is photographed at 1280 and 390 px (list, view, edit)', async () => {
    await photograph('/driver/list', 'drivers-list', '.crud-card .ant-table-row');
    await photograph(`/locks/lockPilot?id=${driverId}`, 'drivers-view', '[data-testid="pilot-cars"] .ant-table-row');
    await photograph(`/add/pilot?id=${driverId}`, 'drivers-edit', '[data-testid="pilot-form"] #mainCard_serialNumber');
  });
});

describe('driver applications', () => {
  it('audits the selected applications in a batch with a note', async () => {
    for (const [name, phone] of [
      ['王申请', '13700000001'],
      ['赵申请', '13700000002'],
    ]) {
      const r = await api(backend.base, `${FICS}/driverApply/submit`, { method: 'POST', token, body: { name, phone } });
      assert.equal(r.code, 200, JSON.stringify(r));
    }
    await openMenu('司机管理', '司机申请');
    await page.waitForURL(/\/driver\/apply$/);
    for (const name of ['王申请', '赵申请']) await rowWith(name).locator('.ant-checkbox-input').check();
    await page.getByTestId('audit-batch').click();
    const dialog = page.locator('.ant-modal:visible').filter({ hasText: '审核 2 条申请' });
    await opened(dialog);
    await dialog.locator('#auditNote').fill('资料齐全');
    await dialog.getByRole('button', { name: /确\s*定/ }).click();
    await expectToast('已审核 2 条');
    await rowWith('王申请').filter({ hasText: '已通过' }).waitFor();
    const drivers = await api(backend.base, `${FICS}/personnel/queryPersonnelList`, { token, params: { phone_equal: '13700000001' } });
    assert.equal(drivers.data.total, 1, 'an approved application made its driver');
    // a batch that includes an audited application is refused in the page, before the call
    await rowWith('王申请').locator('.ant-checkbox-input').check();
    await page.getByTestId('audit-batch').click();
    await expectToast('非审核中');
  });
});
