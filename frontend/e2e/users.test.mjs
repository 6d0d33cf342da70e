// 用户管理 and 个人信息 against the real backend: the user list's import (template, an .xlsx with one bad row whose
// reason names the row and the column), its export with the list's search, 授权角色 on a selected user, and the
// signed-in user's own profile (the spec's mobile number rule, saved and shown again), photographed at 1280 and 390.
// The workbooks are written and read with the backend's own openpyxl (.venv), not an npm package.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fillTemplate, readSheet } from './sheets.mjs';
import { OUT, launchBrowser, newPage, shot, startBackend, ui } from './harness.mjs';

const FILES = join(OUT, 'users');
const GOOD = 'e2e-imp-01';
const BAD = 'e2e-imp-02';

let backend;
let browser;
let page;
const pageErrors = [];

const { expectToast, opened, signInAsAdmin, openMenu, hoverMenu, chooseMenu, settle } = ui(() => page);


const toolbar = () => page.locator('.crud-toolbar:visible');
const importDialog = () => page.getByRole('dialog', { name: '导入用户' });

before(async () => {
  mkdirSync(FILES, { recursive: true });
  backend = await startBackend({ name: 'e2e-users' });
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Photographs `path` at 1280 and 390 px in a window of its own, signed in as the page is. */
async function photograph(path, name, ready) {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    const context = await browser.newContext({ viewport, locale: 'zh-CN', storageState: await page.context().storageState() });
    const view = await context.newPage();
    try {
      await view.goto(`${backend.base}${path}`);
      await ready(view);
      await view.waitForFunction(() => !document.querySelector('.page-loading, .ant-spin-spinning, .ant-message-notice'));
      await view.waitForTimeout(600); // the page's fade-in
      await view.screenshot({ path: shot(`${name}-${viewport.width}`), fullPage: true });
      const width = await view.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= viewport.width, `${name} at ${viewport.width}: the page is ${width} px wide`);
    } finally {
      await context.close();
    }
  }
}

describe('users: import, export, grant', () => {
  let template;

  it('opens 用户管理 with its import, export and 授权角色 buttons', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('系统管理', '用户管理');
    await page.waitForURL(/\/system\/user$/);
    await toolbar().getByRole('button', { name: /导\s*入/ }).waitFor();
    await toolbar().getByRole('button', { name: /导\s*出/ }).waitFor();
    await toolbar().getByRole('button', { name: '授权角色' }).waitFor();
  });

  it('downloads the template and imports an .xlsx: one row saved, one refused with its row and column', async () => {
    await toolbar().getByRole('button', { name: /导\s*入/ }).click();
    await opened(importDialog());
    const [download] = await Promise.all([page.waitForEvent('download'), importDialog().getByRole('button', { name: '下载导入模板' }).click()]);
    assert.equal(download.suggestedFilename(), 'users-template.xlsx');
    template = join(FILES, 'template.xlsx');
    await download.saveAs(template);
    const [header] = readSheet(template);
    assert.deepEqual(header, ['账号', '昵称', '姓名', '手机号码', '电子邮箱', '性别', '所属角色', '所属机构', '所属岗位']);

    const file = join(FILES, 'users.xlsx');
    fillTemplate(template, file, [
      [GOOD, '导入', '张导入', '13800138000', 'imp@example.com', '男', '普通司机', '华东仓储中心', '技术经理'],
      [BAD, '坏行', '李坏行', null, null, null, '不存在的角色', '华东仓储中心', null],
    ]);
    await importDialog().locator('input[type="file"]').setInputFiles(file);
    const box = importDialog().getByTestId('import-result');
    await box.waitFor({ timeout: 60_000 });
    await box.getByText('共 2 行:新增 1 条,更新 0 条,失败 1 条').waitFor();
    const refused = box.locator('.ant-table-row');
    assert.equal(await refused.count(), 1);
    const [row, reason] = await refused.first().locator('td').allInnerTexts();
    assert.equal(row, '3');
    assert.equal(reason, '所属角色: 未找到 不存在的角色');
    await page.waitForFunction(() => !document.querySelector('.ant-zoom-appear, .ant-zoom-enter, .ant-spin-spinning'));
    await page.screenshot({ path: shot('user-import-result') });
    await importDialog().getByRole('button', { name: /关\s*闭/ }).last().click();
    await importDialog().waitFor({ state: 'hidden' });
    await page.locator('.ant-table-row', { hasText: GOOD }).waitFor();
    assert.equal(await page.locator('.ant-table-row', { hasText: BAD }).count(), 0);
  });

  it('exports the list with its search', async () => {
    const search = page.locator('.crud-search:visible');
    await search.getByLabel('登录账号').fill(GOOD);
    const listed = page.waitForResponse((r) => r.url().includes('/blade-user/page') && r.url().includes(GOOD));
    await search.getByRole('button', { name: /搜\s*索/ }).click();
    await listed;
    await page.locator('.ant-pagination-total-text:visible', { hasText: '共 1 条' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), toolbar().getByRole('button', { name: /导\s*出/ }).click()]);
    const path = join(FILES, 'export.xlsx');
    await download.saveAs(path);
    const rows = readSheet(path);
    assert.equal(rows.length, 2, JSON.stringify(rows));
    assert.equal(rows[1][0], GOOD);
    assert.equal(rows[1][6], '普通司机');
  });

  it('grants roles to the selected user', async () => {
    await page.locator('.ant-table-row', { hasText: GOOD }).locator('.ant-checkbox-input').check();
    await toolbar().getByRole('button', { name: '授权角色' }).click();
    const dialog = page.getByRole('dialog', { name: '授权角色' });
    await opened(dialog);
    await dialog.locator('.ant-tree-treenode', { hasText: '维修人员' }).locator('.ant-tree-checkbox').click();
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast('角色已授权');
    await dialog.waitFor({ state: 'hidden' });
    await page.locator('.ant-table-row', { hasText: GOOD }).getByText(/普通司机,维修人员|维修人员,普通司机/).waitFor();
  });
});

describe('个人信息', () => {
  it('opens from the avatar menu, checks the mobile number and saves the profile', async () => {
    await hoverMenu(page.getByRole('button', { name: '用户菜单' }));
    await chooseMenu('个人信息');
    await page.waitForURL(/\/info\/index$/);
    const form = page.getByRole('form', { name: '个人信息' });
    await page.waitForFunction(() => document.querySelector('input#realName')?.value === '管理员');
    await form.getByLabel('手机号码').fill('1380013800');
    await form.getByRole('button', { name: /保\s*存/ }).click();
    await form.getByText('手机号长度不是11位').waitFor();
    await form.getByLabel('手机号码').fill('010-12345678');
    await form.getByText('手机号格式不正确').waitFor();
    await form.getByLabel('手机号码').fill('13912345678');
    await form.getByLabel('用户姓名').fill('王管理');
    const saved = page.waitForResponse((r) => r.url().includes('/blade-user/update-info'));
    await form.getByRole('button', { name: /保\s*存/ }).click();
    assert.equal((await saved).status(), 200);
    await expectToast('个人信息已保存');
    // the top bar shows the new name; a reload reads the profile back from the server
    await page.locator('.top-user-name', { hasText: '王管理' }).waitFor();
    await page.reload();
    await page.getByRole('form', { name: '个人信息' }).getByLabel('手机号码').waitFor();
    await page.waitForFunction(() => document.querySelector('input#phone')?.value === '13912345678');
    assert.equal(await page.getByRole('form', { name: '个人信息' }).getByLabel('用户姓名').inputValue(), '王管理');
    await settle();
    await photograph('/info/index', 'user-info', (view) => view.getByRole('form', { name: '个人信息' }).getByLabel('用户姓名').waitFor());
    await photograph('/system/user', 'user-list', (view) => view.locator('.ant-table-row').first().waitFor());
  });

  it('raised no uncaught page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
