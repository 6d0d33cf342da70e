// 系统管理 → 机构管理 beyond the list: a row's 重置邀请码 (confirmed; the new code shown, and in the list), 移动到…
// (a tree select of the new parent, the organisation's own branch disabled; the branch follows) and 同级排序, against
// the real backend (POST /api/blade-system/dept/resetInviteCode, deptTransfer, orgSort).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const DEPT = '/api/blade-system/dept';
const EAST = 'E2E 华东';
const CITY = 'E2E 杭州';
const LAKE = 'E2E 西湖';
const SOUTH = 'E2E 华南';

let backend;
let browser;
let page;
let token;
const ids = {};
const pageErrors = [];

const { expectToast, confirm, opened, signInAsAdmin, openMenu, settle } = ui(() => page);

async function detail(id) {
  const body = await api(backend.base, `${DEPT}/detail`, { token, params: { id } });
  assert.equal(body.code, 200, JSON.stringify(body));
  return body.data;
}

async function create(deptName, parentId, sort) {
  const body = await api(backend.base, `${DEPT}/submit`, { method: 'POST', token, body: { deptName, parentId, sort, deptCategory: 2 } });
  assert.equal(body.code, 200, JSON.stringify(body));
  return String(body.data.id);
}

const row = (name) => page.locator('tbody tr.ant-table-row', { has: page.getByText(name, { exact: true }) }).first();

before(async () => {
  backend = await startBackend({ name: 'e2e-dept' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const tree = await api(backend.base, `${DEPT}/tree`, { token });
  ids.root = String(tree.data[0].id);
  ids.east = await create(EAST, ids.root, 90);
  ids.city = await create(CITY, ids.east, 1);
  ids.lake = await create(LAKE, ids.city, 1);
  ids.south = await create(SOUTH, ids.root, 91);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
  await page.setViewportSize({ width: 1280, height: 720 });
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('机构管理: invite codes, moving and ordering organisations', () => {
  it('lists the organisations with their invite codes', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('系统管理', '机构管理');
    await page.waitForURL(/\/system\/dept$/);
    await page.locator('thead th', { hasText: '邀请码' }).waitFor();
    const code = (await detail(ids.east)).inviteCode;
    assert.ok(code, 'a new organisation has an invite code');
    await row(EAST).getByText(code, { exact: true }).waitFor();
  });

  it('resets an invite code after a confirmation, and shows the new one', async () => {
    const old = (await detail(ids.east)).inviteCode;
    await row(EAST).getByRole('button', { name: '重置邀请码' }).click();
    await confirm(`重置「${EAST}」的邀请码? 旧邀请码将立即失效`);
    await expectToast('邀请码已重置');
    const shown = page.locator('.ant-modal-confirm', { hasText: `${EAST}:` });
    await opened(shown);
    const text = await shown.locator('.ant-modal-confirm-content').innerText();
    const code = text.split(':').pop().trim();
    assert.match(code, /^[A-HJ-NP-Z2-9]{8}$/);
    assert.notEqual(code, old);
    assert.equal((await detail(ids.east)).inviteCode, code, 'the code shown is the one saved');
    await page.screenshot({ path: shot('dept-invite-code') });
    await shown.getByRole('button', { name: /确\s*定/ }).click();
    await shown.waitFor({ state: 'hidden' });
    await row(EAST).getByText(code, { exact: true }).waitFor();
  });

  it('moves an organisation with its branch under another: its own branch cannot be chosen', async () => {
    await row(EAST).getByRole('button', { name: '移动到…' }).click();
    const dialog = page.getByRole('dialog', { name: `移动「${EAST}」` });
    await opened(dialog);
    await dialog.locator('.ant-select').click();
    const popup = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)');
    await popup.waitFor();
    for (const own of [EAST, CITY, LAKE]) {
      const node = popup.locator('.ant-select-tree-treenode', { has: page.getByTitle(own, { exact: true }) });
      assert.match((await node.getAttribute('class')) ?? '', /ant-select-tree-treenode-disabled/, `${own} is disabled`);
    }
    await popup.getByTitle(SOUTH, { exact: true }).click();
    await page.screenshot({ path: shot('dept-move') });
    await dialog.getByRole('button', { name: /确\s*定/ }).click();
    await expectToast('机构已移动');
    await dialog.waitFor({ state: 'hidden' });
    const east = await detail(ids.east);
    assert.equal(east.parentId, ids.south);
    const south = await detail(ids.south);
    assert.equal((await detail(ids.lake)).ancestors, `${south.ancestors},${ids.south},${ids.east},${ids.city}`);
  });

  it('orders the level of the selected organisation from the toolbar', async () => {
    // the root's level holds 华南 (sort 91) last: put it first
    await row(SOUTH).locator('.ant-checkbox-input').check();
    await page.getByRole('button', { name: '同级排序' }).click();
    const dialog = page.getByRole('dialog', { name: `调整「${SOUTH}」所在层级的顺序` });
    await opened(dialog);
    const items = dialog.getByTestId('dept-sort-item');
    await items.filter({ hasText: SOUTH }).waitFor();
    const names = async () => (await items.allInnerTexts()).map((t) => t.replace(/^\d+\.\s*/, '').trim());
    const before = await names();
    const at = before.indexOf(SOUTH);
    assert.ok(at > 0, JSON.stringify(before));
    for (let i = at; i > 0; i -= 1) await items.nth(i).getByRole('button', { name: '上移' }).click();
    assert.equal((await names())[0], SOUTH);
    await page.screenshot({ path: shot('dept-sort') });
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast('顺序已保存');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await detail(ids.south)).sort, 1);
    const level = await api(backend.base, `${DEPT}/page-list`, { token, params: { parentId_equal: ids.root, size: 100 } });
    assert.deepEqual(
      level.data.records.map((r) => r.sort),
      level.data.records.map((_r, i) => i + 1),
      'the level is numbered 1, 2, ... in its new order',
    );
  });

  it('fits a phone: the row actions are under 更多', async () => {
    await settle();
    await page.screenshot({ path: shot('dept-1280') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(500);
    await settle();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `no sideways scroll (${width} px)`);
    await page.screenshot({ path: shot('dept-390') });
    await row(SOUTH).getByRole('button', { name: '更多' }).click();
    const menu = page.locator('.ant-dropdown:not(.ant-dropdown-hidden)');
    await menu.getByRole('menuitem', { name: '重置邀请码' }).waitFor();
    await menu.getByRole('menuitem', { name: '移动到…' }).waitFor();
    await page.screenshot({ path: shot('dept-390-more') });
    assert.deepEqual(pageErrors, []);
  });
});
