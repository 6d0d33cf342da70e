// The bind / unbind page part, on its first page: 运营设置 → 电子围栏 → a fence's "绑定车辆" (the vehicles not
// bound and bound side by side, each searched and paged; selected rows bound or unbound; the limit shown), against
// the real backend (GET /api/liftdesk/fence/boundCars, unboundCars; POST bindCars, unbindCars).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const F = '/api/blade-fics-report/fics/carInfo';
const FENCE = 'E2E 绑定围栏';
const CARS = ['E2E-B-01', 'E2E-B-02', 'E2E-B-03'];

let backend;
let browser;
let page;
let token;
let fenceId;
const carIds = {};
const pageErrors = [];

const { expectToast, confirm, opened, fillLogin, openMenu } = ui(() => page);

/** The vehicles the server has bound to the fence (car numbers, sorted). */
async function boundCars() {
  const body = await api(backend.base, '/api/liftdesk/fence/boundCars', { token, params: { fenceId, current: 1, size: 100 } });
  assert.equal(body.code, 200, JSON.stringify(body));
  return body.data.records.map((r) => r.carNo).sort();
}

/** A side of the dialog: the unbound (left) or bound (right) list. */
const side = (name) => page.getByRole('dialog', { name: `绑定车辆 · ${FENCE}` }).getByTestId(`bind-${name}`);
const carRow = (name, carNo) => side(name).locator('tbody tr.ant-table-row', { hasText: carNo });

/** The car numbers a side lists now. */
async function listed(name) {
  const cells = side(name).locator('tbody tr.ant-table-row');
  return (await cells.allInnerTexts()).map((text) => CARS.find((c) => text.includes(c)) ?? text).sort();
}

/** Waits until a side lists exactly `cars`. */
async function waitListed(name, cars) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const now = await listed(name);
    if (JSON.stringify(now) === JSON.stringify([...cars].sort())) return;
    if (Date.now() > deadline) assert.deepEqual(now, [...cars].sort(), `the ${name} list`);
    await page.waitForTimeout(200);
  }
}

before(async () => {
  backend = await startBackend({ name: 'e2e-bind' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const depts = await api(backend.base, '/api/blade-system/dept/tree', { token });
  const mechanismId = depts.data[0].id;
  for (const [i, carNo] of CARS.entries()) {
    const created = await api(backend.base, `${F}/insertCarInfo`, {
      method: 'POST',
      token,
      body: { carNo, deviceNumber: `01391234560${i}`, carType: 4, mechanismId },
    });
    assert.equal(created.code, 200, JSON.stringify(created));
  }
  const cars = await api(backend.base, `${F}/page`, { token, params: { current: 1, size: 50, carNo_like: 'E2E-B-' } });
  for (const car of cars.data.records) carIds[car.carNo] = String(car.id);
  assert.deepEqual(Object.keys(carIds).sort(), CARS);
  const fence = await api(backend.base, `${F}/v2/addCarElectronicsSet`, {
    method: 'POST',
    token,
    body: {
      name: FENCE,
      alarmMode: 1,
      enableStatus: 1,
      speedLimit: null,
      mechanismId,
      remark: '',
      carIds: [],
      fenceType: 1,
      centerLon: 116.397,
      centerLat: 39.909,
      radius: 500,
      points: null,
    },
  });
  assert.equal(fence.code, 200, JSON.stringify(fence));
  const fences = await api(backend.base, `${F}/v2/getElectronicFence`, { method: 'POST', token, params: { current: 1, size: 50 } });
  fenceId = String(fences.data.records.find((f) => f.name === FENCE)?.id ?? '');
  assert.ok(fenceId, 'the fence is listed');

  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('binding vehicles to an electronic fence', () => {
  it('opens the fence list with no pop-up after the sign-in', async () => {
    await page.goto(`${backend.base}/login`);
    await fillLogin('admin', ADMIN_PASSWORD);
    await page.waitForURL(/\/wel\/index$/);
    // no notice is published: none shows
    await page.waitForTimeout(1_000);
    assert.equal(await page.locator('.ant-modal:visible').count(), 0, 'no dialog after the sign-in');
    await openMenu('运营设置', '电子围栏');
    await page.waitForURL(/\/operation\/fence$/);
    await page.locator('tbody tr.ant-table-row', { hasText: FENCE }).waitFor();
  });

  it('shows the unbound and bound vehicles side by side, with the limit', async () => {
    await page.locator('tbody tr.ant-table-row', { hasText: FENCE }).getByRole('button', { name: '绑定车辆' }).click();
    await opened(page.getByRole('dialog', { name: `绑定车辆 · ${FENCE}` }));
    await page.getByTestId('bind-count').getByText('已绑定 0 / 上限 2000').waitFor();
    await waitListed('unbound', CARS);
    await side('bound').locator('.ant-empty').waitFor();
    // each side is searched with the vehicle list's filters
    await side('unbound').getByLabel('车辆简称').fill('E2E-B-03');
    await side('unbound').getByRole('button', { name: /搜\s*索/ }).click();
    await waitListed('unbound', ['E2E-B-03']);
    await side('unbound').getByRole('button', { name: /清\s*空/ }).click();
    await waitListed('unbound', CARS);
  });

  it('binds two selected vehicles: they move to the bound list', async () => {
    for (const car of CARS.slice(0, 2)) await carRow('unbound', car).locator('.ant-checkbox-input').check();
    await side('unbound').getByRole('button', { name: '绑定 2 项' }).click();
    await expectToast('已绑定 2 项');
    await waitListed('bound', CARS.slice(0, 2));
    await waitListed('unbound', CARS.slice(2));
    await page.getByTestId('bind-count').getByText('已绑定 2 / 上限 2000').waitFor();
    assert.deepEqual(await boundCars(), CARS.slice(0, 2));
    await page.screenshot({ path: shot('bind-fence-vehicles') });
  });

  it('unbinds one after a confirmation naming the fence', async () => {
    await carRow('bound', CARS[0]).locator('.ant-checkbox-input').check();
    await side('bound').getByRole('button', { name: '解绑 1 项' }).click();
    await confirm(`确定从「${FENCE}」解绑选中的 1 项?`);
    await expectToast('已解绑 1 项');
    await waitListed('bound', [CARS[1]]);
    await waitListed('unbound', [CARS[0], CARS[2]]);
    await page.getByTestId('bind-count').getByText('已绑定 1 / 上限 2000').waitFor();
    assert.deepEqual(await boundCars(), [CARS[1]]);
  });

  it('closes, and the fence list counts the vehicle bound', async () => {
    await page.getByRole('dialog', { name: `绑定车辆 · ${FENCE}` }).getByRole('button', { name: /关\s*闭/ }).last().click();
    await page.getByRole('dialog', { name: `绑定车辆 · ${FENCE}` }).waitFor({ state: 'hidden' });
    const fences = await api(backend.base, `${F}/v2/getElectronicFence`, { method: 'POST', token, params: { current: 1, size: 50 } });
    assert.equal(fences.data.records.find((f) => f.name === FENCE)?.carCount, 1);
    assert.deepEqual(pageErrors, []);
  });
});
