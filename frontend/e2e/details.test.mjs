// The details of the web app, proved in a browser against the real backend: no pop-up at sign-in; the greeting of
// the tenant's zone (the browser is far from it) and the roles by name; a top-level row's parent named; secrets
// masked with a reveal; delete confirmations naming the row; dictionary values in English; one live socket for the
// app, kept between visits of 实时监控 and closed on sign-out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, TIMEOUT, api, launchBrowser, startBackend, tokenFor, ui } from './harness.mjs';

const F = '/api/blade-fics-report/fics/carInfo';
const CAR = 'E2E-D-01';

let backend;
let browser;
let page;
let offset;
let token;
const pageErrors = [];

const { fillLogin, openMenu, opened, hoverMenu, chooseMenu, confirm } = ui(() => page);

/** The greeting of the server's clock in the tenant's zone, now. */
async function serverGreeting() {
  const clock = await api(backend.base, '/api/blade-fics-report/fics/common/getIpOffset', { token });
  const hour = new Date(clock.data.timestamp + clock.data.offset * 60_000).getUTCHours();
  return hour < 12 ? '早上好' : hour < 18 ? '下午好' : '晚上好';
}

before(async () => {
  backend = await startBackend({ name: 'e2e-details' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const depts = await api(backend.base, '/api/blade-system/dept/tree', { token });
  const created = await api(backend.base, `${F}/insertCarInfo`, {
    method: 'POST',
    token,
    body: { carNo: CAR, deviceNumber: '013912345699', carType: 4, carStatus: 0, mechanismId: depts.data[0].id },
  });
  assert.equal(created.code, 200, JSON.stringify(created));
  offset = (await api(backend.base, '/api/blade-fics-report/fics/common/getIpOffset', { token })).data.offset;
  browser = await launchBrowser();
  // a browser far from the tenant: UTC+14 (the tenant is at the server's offset)
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN', timezoneId: 'Pacific/Kiritimati' });
  page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('details', () => {
  it('signs in without a pop-up, greets in the tenant zone and names the roles', async () => {
    assert.notEqual(offset, 14 * 60, 'the browser is in another zone than the tenant');
    await page.goto(`${backend.base}/login`);
    await fillLogin('admin', ADMIN_PASSWORD);
    await page.waitForURL(/\/wel\/index$/);
    const before = await serverGreeting();
    const title = page.locator('.wel-hero h3');
    await page.waitForFunction(() => !/你好/.test(document.querySelector('.wel-hero h3')?.textContent ?? '你好'));
    const shown = (await title.innerText()).split(',')[0].trim();
    const after = await serverGreeting();
    assert.ok([before, after].includes(shown), `greeting "${shown}" is the tenant zone's (${before})`);
    const roles = page.locator('.ant-descriptions-item', { hasText: '角色' });
    await roles.getByText('超级管理员').waitFor();
    assert.ok(!(await roles.innerText()).includes('administrator'), 'the role by name, not alias');
    assert.equal(await page.locator('.ant-modal:visible').count(), 0, 'no pop-up after the sign-in');
  });

  it('names the parent of a top-level organisation "顶级" and its category in words', async () => {
    await openMenu('系统管理', '机构管理');
    await page.waitForURL(/\/system\/dept$/);
    const row = page.locator('tbody tr.ant-table-row', { hasText: 'Liftdesk 演示公司' }).first();
    await row.getByRole('button', { name: /查\s*看/ }).click();
    const drawer = page.getByRole('dialog', { name: '机构详情' });
    await drawer.locator('.ant-descriptions-row', { hasText: '上级机构' }).getByText('顶级', { exact: true }).waitFor();
    await drawer.locator('.ant-descriptions-row', { hasText: '机构类型' }).getByText('公司', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
  });

  it('masks secret parameters, revealed on demand to who may edit them', async () => {
    await openMenu('系统管理', '参数管理');
    await page.waitForURL(/\/system\/param$/);
    const secret = page.locator('tbody tr.ant-table-row', { hasText: '账号初始密码' });
    await secret.getByTestId('secret-value').getByText('••••').waitFor();
    assert.ok(!(await secret.innerText()).includes('123456'), 'the password is not shown');
    await secret.getByRole('button', { name: '显示' }).click();
    await secret.getByTestId('secret-value').getByText('123456').waitFor();
    await secret.getByRole('button', { name: '隐藏' }).click();
    await secret.getByTestId('secret-value').getByText('••••').waitFor();
    // not a secret: shown as it is
    await page.locator('tbody tr.ant-table-row', { hasText: '账号错误锁定次数' }).getByText('5', { exact: true }).waitFor();
  });

  it('names the row a delete confirmation is about', async () => {
    await openMenu('系统管理', '岗位管理');
    await page.waitForURL(/\/system\/post$/);
    await page.locator('tbody tr.ant-table-row', { hasText: '人力专员' }).getByRole('button', { name: /删\s*除/ }).click();
    const dialog = page.locator('.ant-modal-confirm');
    await opened(dialog);
    await dialog.getByTestId('delete-names').getByText('将删除岗位：「人力专员」').waitFor();
    await dialog.getByRole('button', { name: /取\s*消/ }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('shows dictionary values in English when the language is English', async () => {
    await hoverMenu(page.getByRole('button', { name: '语言' }));
    await chooseMenu('English');
    await page.waitForURL(/\/wel\/index$/);
    await openMenu('Fleet', 'Vehicles');
    const row = page.locator('tbody tr.ant-table-row', { hasText: CAR });
    await row.getByText('Lithium electric forklift', { exact: true }).waitFor();
    await row.getByText('Normal', { exact: true }).waitFor();
    // the search select too
    await page.locator('.crud-search').getByLabel('Type', { exact: true }).click();
    await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').getByTitle('Reach truck', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await hoverMenu(page.getByRole('button', { name: 'Language' }));
    await chooseMenu('简体中文');
    await page.waitForURL(/\/wel\/index$/);
  });

  it('keeps one live socket between visits of 实时监控 and closes it on sign-out', async () => {
    const sockets = [];
    page.on('websocket', (ws) => {
      if (!ws.url().includes('/api/liftdesk/live')) return;
      const socket = { closed: false };
      ws.on('close', () => (socket.closed = true));
      sockets.push(socket);
    });
    const live = () => page.getByTestId('feed-status').getByText('实时', { exact: true }).waitFor();
    await openMenu('车辆管理', '实时监控');
    await live();
    await openMenu('车辆管理', '车辆档案');
    await page.waitForURL(/\/fleet\/vehicle$/);
    await openMenu('车辆管理', '实时监控');
    await live();
    assert.equal(sockets.length, 1, 'one socket for both visits');
    assert.equal(sockets[0].closed, false);
    await hoverMenu(page.getByRole('button', { name: '用户菜单' }));
    await chooseMenu('退出登录');
    await confirm('退出系统, 是否继续?');
    await page.waitForURL(/\/login$/);
    const deadline = Date.now() + 10_000;
    while (!sockets[0].closed && Date.now() < deadline) await page.waitForTimeout(100);
    assert.equal(sockets[0].closed, true, 'the socket closes on sign-out');
    assert.equal(sockets.length, 1);
    assert.deepEqual(pageErrors, []);
  });
});
