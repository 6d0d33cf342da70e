// 系统管理 → 行政区划 against the real backend: the seeded national list as a tree that loads one level at a time (the
// 34 provincial-level units first, a row's children when it is expanded), a town added under a district (its code
// checked against its parent's), found by the search, opened in the detail view, renamed, refused while it has a
// child and deleted; photographed at 1280 and 390 px wide (var/e2e/region-<width>.png). The generic page suite does not
// fit: a region's code must be a free code under its parent, and the list is a lazy tree rather than a page of rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const TOWN = '440305901';
const TOWN_NAME = 'E2E测试街道';
const VILLAGE = `${TOWN}001`;

let backend;
let browser;
let page;
let token;
const pageErrors = [];
const { signInAsAdmin, openMenu, opened, confirm, expectToast, settle } = ui(() => page);

const row = (code) => page.locator(`.crud-card tr.ant-table-row[data-row-key="${code}"]`);
const rowButton = (code, name) => row(code).getByRole('button', { name });
const dialog = () => page.locator('.ant-modal:not(.ant-modal-confirm)').filter({ has: page.locator('.ant-modal-footer') });

async function expand(code) {
  await row(code).locator('.ant-table-row-expand-icon').click();
}

before(async () => {
  backend = await startBackend({ name: 'e2e-region' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('regions', () => {
  it('opens from 系统管理 with the 34 provincial-level units', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('系统管理', '行政区划');
    await page.waitForURL(/\/system\/region$/);
    await row('110000').waitFor();
    assert.equal(await page.locator('.crud-card tr.ant-table-row').count(), 34);
    assert.match(await row('440000').innerText(), /广东省[\s\S]*440000[\s\S]*省级/);
  });

  it('loads the children of a row when it is expanded', async () => {
    await expand('440000');
    await row('440300').waitFor();
    assert.match(await row('440300').innerText(), /深圳市[\s\S]*地市级/);
    await expand('440300');
    await row('440305').waitFor();
    assert.match(await row('440305').innerText(), /南山区[\s\S]*区县级/);
    await settle();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 800 ? 800 : 844 });
      await page.waitForTimeout(300);
      await page.locator('.region-search').scrollIntoViewIfNeeded();
      await page.screenshot({ path: shot(`region-${width}`) });
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('adds a town under a district, refusing a code outside it', async () => {
    await rowButton('440305', /新增子项/).click();
    const form = dialog();
    await opened(form);
    const code = form.getByLabel('区划编号');
    assert.equal(await code.inputValue(), '440305', 'the code starts with the parent’s');
    assert.match(await form.locator('.ant-form-item').first().locator('input').inputValue(), /南山区 \(440305\)/);
    await code.fill('441305901');
    await form.getByLabel('区划名称').fill(TOWN_NAME);
    await form.locator('.ant-modal-footer .ant-btn-primary').click();
    await form.locator('.ant-form-item-explain-error', { hasText: '440305' }).waitFor();
    await code.fill(TOWN);
    await form.locator('.ant-modal-footer .ant-btn-primary').click();
    await expectToast('保存成功');
    await form.waitFor({ state: 'hidden' });
    await row(TOWN).waitFor();
    assert.match(await row(TOWN).innerText(), new RegExp(`${TOWN_NAME}[\\s\\S]*乡镇级`));
    // a village under it, through the API (the server checks the same rules)
    const village = await api(backend.base, '/api/blade-system/region/submit', {
      method: 'POST',
      token,
      body: { code: VILLAGE, parentCode: TOWN, name: 'E2E测试村' },
    });
    assert.equal(village.code, 200, JSON.stringify(village));
  });

  it('finds it by name and shows its detail', async () => {
    await page.getByTestId('region-search-name').fill('E2E测试');
    await page.locator('.crud-card').getByRole('button', { name: /搜\s*索/ }).click();
    await row(VILLAGE).waitFor();
    await row(TOWN).waitFor();
    assert.equal(await page.locator('.crud-card tr.ant-table-row').count(), 2);
    await rowButton(TOWN, /查看/).click();
    const detail = page.getByTestId('region-detail');
    await detail.waitFor();
    assert.match(await detail.innerText(), /广东省 \/ 深圳市 \/ 南山区 \/ E2E测试街道/);
    await page.locator('.ant-drawer-close').click();
    await detail.waitFor({ state: 'hidden' });
  });

  it('renames it', async () => {
    await rowButton(TOWN, /编辑/).click();
    const form = dialog();
    await opened(form);
    await page.waitForFunction(() => document.querySelector('.ant-modal input#name')?.value);
    assert.equal(await form.getByLabel('区划名称').inputValue(), TOWN_NAME);
    assert.ok(await form.getByLabel('区划编号').isDisabled(), 'a code does not change');
    await form.getByLabel('区划名称').fill('E2E新街道');
    await form.locator('.ant-modal-footer .ant-btn-primary').click();
    await expectToast('保存成功');
    await form.waitFor({ state: 'hidden' });
    // the search (by the old name) no longer finds it: back to the tree, where it stays under its district
    await page.locator('.crud-card').getByRole('button', { name: /清\s*空/ }).click();
    await row(TOWN).filter({ hasText: 'E2E新街道' }).waitFor();
    const stored = await api(backend.base, '/api/blade-system/region/detail', { token, params: { code: VILLAGE } });
    assert.equal(stored.data.townName, 'E2E新街道', 'the village’s path follows');
  });

  it('refuses to delete a region with children, then deletes it after its child', async () => {
    await rowButton(TOWN, /删除/).click();
    await confirm('确定将选择数据删除?');
    await expectToast('请先删除子节点');
    await expand(TOWN);
    await rowButton(VILLAGE, /删除/).click();
    await confirm('确定将选择数据删除?');
    await expectToast('删除成功');
    await row(VILLAGE).waitFor({ state: 'detached' });
    await rowButton(TOWN, /删除/).click();
    await confirm('确定将选择数据删除?');
    await row(TOWN).waitFor({ state: 'detached' });
    const gone = await api(backend.base, '/api/blade-system/region/detail', { token, params: { code: TOWN } });
    assert.equal(gone.code, 400);
    await row('440305').waitFor();
  });

  it('raised no uncaught page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
