// The third-party registration dialog and the organisation logo, against the real backend: a newcomer registers on the
// sign-in page (the dialog's checks, a server refusal under its field, the 注册提示 alert), is refused at sign-in
// until approved, is approved in 用户管理 with a role and an organisation and signs in; an administrator uploads the
// organisation's logo in 机构管理 (a 6 MB file and a .png that is no picture refused with a visible message) and the
// top bar shows it, to the newcomer too (the nearest ancestor's logo). Photographed at 1280 and 390.
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, choosePassword, launchBrowser, md5, newPage, photographAt, shot, startBackend, tokenFor, ui } from './harness.mjs';

const ACCOUNT = 'newcomer1';
const PASSWORD = 'New-user#1';
const BRANCH = 'E2E 注册分部';
const SUBMITTED = '注册申请已提交,请耐心等待管理员通过!';

let backend;
let browser;
let page;
let token;
const ids = {};
const pageErrors = [];

const { expectToast, opened, fillLogin, signInAsAdmin, openMenu, settle } = ui(() => page);

/** A PNG of `width`×`height` pixels in one colour (the logo). */
function png(width, height, [r, g, b]) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, tail]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

before(async () => {
  backend = await startBackend({ name: 'e2e-register' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  // self-registration is switched off until an administrator turns it on (参数管理: account.registerUser)
  const params = await api(backend.base, '/api/blade-system/param/list', { token, params: { paramKey_equal: 'account.registerUser' } });
  const opened_ = await api(backend.base, '/api/blade-system/param/submit', {
    method: 'POST',
    token,
    body: { id: params.data.records[0].id, paramValue: 'true' },
  });
  assert.equal(opened_.code, 200, JSON.stringify(opened_));
  const tree = await api(backend.base, '/api/blade-system/dept/tree', { token });
  ids.root = String(tree.data[0].id);
  ids.rootName = tree.data[0].title;
  const branch = await api(backend.base, '/api/blade-system/dept/submit', {
    method: 'POST',
    token,
    body: { deptName: BRANCH, fullName: BRANCH, parentId: ids.root, sort: 99, deptCategory: 2 },
  });
  assert.equal(branch.code, 200, JSON.stringify(branch));
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
  await page.setViewportSize({ width: 1280, height: 800 });
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

const registerDialog = () => page.getByRole('dialog', { name: '第三方注册' });
const field = (label) => registerDialog().locator('.ant-form-item', { has: page.locator(`label:text-is("${label}")`) });

describe('third-party registration, approval and the organisation logo', () => {
  it('registers a newcomer through the dialog: its checks, a server refusal under its field, the alert', async () => {
    await page.goto(`${backend.base}/login`);
    await page.getByRole('tab', { name: '第三方登录' }).click();
    await page.getByTestId('social-register').click();
    await opened(registerDialog());
    // the dialog's own checks, before anything is sent
    await registerDialog().getByRole('button', { name: /确\s*定/ }).click();
    await field('账号名称').getByText('请先输入账号名称').waitFor();
    await field('账号密码').getByText('请先输入密码').waitFor();
    await field('账号名称').locator('input').fill(ACCOUNT);
    await field('用户姓名').locator('input').fill('新来的同事啊');
    await field('账号密码').locator('input').fill('short');
    await field('确认密码').locator('input').fill('other');
    await registerDialog().getByRole('button', { name: /确\s*定/ }).click();
    await field('用户姓名').getByText('用户姓名长度在 2 到 5 个字符').waitFor();
    await field('账号密码').getByText('密码不符合要求').waitFor();
    await field('确认密码').getByText('两次密码输入不一致').waitFor();
    await page.screenshot({ path: shot('register-dialog-checks') });
    // the server's refusal lands on the field it names (no such tenant)
    await field('用户姓名').locator('input').fill('新同事');
    await field('账号密码').locator('input').fill(PASSWORD);
    await field('确认密码').locator('input').fill(PASSWORD);
    await field('租户编号').locator('input').fill('999999');
    await registerDialog().getByRole('button', { name: /确\s*定/ }).click();
    await field('租户编号').getByText('租户编号: 租户ID未找到').waitFor();
    await field('租户编号').locator('input').fill('000000');
    await registerDialog().getByRole('button', { name: /确\s*定/ }).click();
    const alert = page.locator('.ant-modal-confirm', { hasText: '注册提示' });
    await opened(alert);
    await alert.getByText(SUBMITTED).waitFor();
    await page.screenshot({ path: shot('register-submitted-1280') });
    await alert.getByRole('button', { name: /确\s*定/ }).click();
    await alert.waitFor({ state: 'hidden' });
    assert.match(page.url(), /\/login/);
  });

  it('refuses the newcomer at sign-in with the alert until an administrator approves', async () => {
    await page.getByRole('tab', { name: '账号密码' }).click();
    await fillLogin(ACCOUNT, PASSWORD);
    const alert = page.locator('.ant-modal-confirm', { hasText: '注册提示' });
    await opened(alert);
    await alert.getByText(SUBMITTED).waitFor();
    await alert.getByRole('button', { name: /确\s*定/ }).click();
    assert.match(page.url(), /\/login/);
  });

  it('approves the newcomer in 用户管理 with a role and an organisation', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('系统管理', '用户管理');
    await page.waitForURL(/\/system\/user$/);
    const row = page.locator('tbody tr.ant-table-row', { has: page.getByText(ACCOUNT, { exact: true }) });
    await row.getByText('待审核').waitFor();
    await row.getByRole('button', { name: '审核通过' }).click();
    const dialog = page.getByRole('dialog', { name: `审核通过「${ACCOUNT}」` });
    await opened(dialog);
    await dialog.getByRole('button', { name: /审核通过/ }).click();
    await dialog.getByText('请选择所属角色').waitFor();
    await dialog.locator('.ant-form-item', { hasText: '所属角色' }).locator('.ant-select').click();
    let popup = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)');
    await popup.getByTitle('维修人员', { exact: true }).click();
    await page.keyboard.press('Escape');
    await dialog.locator('.ant-form-item', { hasText: '所属部门' }).locator('.ant-select').click();
    popup = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)');
    await popup.getByTitle(BRANCH, { exact: true }).click();
    await page.keyboard.press('Escape');
    await page.screenshot({ path: shot('register-approve') });
    await dialog.getByRole('button', { name: /审核通过/ }).click();
    await expectToast(`${ACCOUNT} 已审核通过`);
    await row.getByText('正常').waitFor();
    assert.equal(await row.getByRole('button', { name: '审核通过' }).count(), 0, 'an approved user has no approval button');
  });

  it('uploads the organisation logo in 机构管理: a 6 MB file and a .png that is no picture are refused', async () => {
    await openMenu('系统管理', '机构管理');
    await page.waitForURL(/\/system\/dept$/);
    const row = page.locator('tbody tr.ant-table-row', { has: page.getByText(ids.rootName, { exact: true }) }).first();
    await row.getByRole('button', { name: /编\s*辑/ }).click();
    const dialog = page.getByRole('dialog', { name: /编辑/ });
    await opened(dialog);
    const input = dialog.locator('.logo-input input[type=file]');
    const error = dialog.getByTestId('logo-error');
    await input.setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(6 * 1024 * 1024, 1) });
    await error.getByText('Logo 大小不能超过 5MB').waitFor();
    await input.setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('this is a text file, not a picture') });
    await error.getByText('file: 文件内容不是 PNG 图片, 与扩展名不符').waitFor();
    await page.screenshot({ path: shot('register-logo-refused') });
    await input.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png(160, 48, [48, 100, 199]) });
    await dialog.getByTestId('logo-preview').waitFor();
    assert.equal(await error.count(), 0, 'the message goes once a picture is taken');
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast('保存成功');
    const saved = await api(backend.base, '/api/blade-system/dept/detail', { token, params: { id: ids.root } });
    assert.match(saved.data.deptLogo, /^\/api\/blade-resource\/attach\/download\?id=\d+$/);
    // the top bar shows it once the page loads again
    await page.reload();
    const logo = page.getByTestId('org-logo').first();
    await logo.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="org-logo"]');
      return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 160;
    });
    await settle();
    await photographAt(page, `${backend.base}/system/dept`, 'register-logo', '[data-testid="org-logo"]:visible');
  });

  it('signs the approved newcomer in: the top bar shows the nearest ancestor’s logo', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'zh-CN' });
    const newcomer = await context.newPage();
    newcomer.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      await newcomer.goto(`${backend.base}/login`);
      const form = newcomer.locator('.login-card [role="tabpanel"][aria-hidden="false"]');
      await form.getByPlaceholder('租户ID').fill('000000');
      await form.getByPlaceholder('账号').fill(ACCOUNT);
      await form.getByPlaceholder('密码', { exact: true }).fill(PASSWORD);
      await form.getByRole('button', { name: /登\s*录/ }).click();
      await newcomer.waitForURL(/\/wel\/index$/);
      await newcomer.waitForFunction(() => {
        const img = document.querySelector('[data-testid="org-logo"]');
        return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 160;
      });
      await newcomer.screenshot({ path: shot('register-newcomer-1280') });
      await photographAt(newcomer, `${backend.base}/wel/index`, 'register-newcomer', '[data-testid="org-logo"]:visible');
    } finally {
      await context.close();
    }
    // another tenant reads no byte of it; made in 租户管理, which shows its administrator's random password once
    await openMenu('系统管理', '租户管理');
    await page.waitForURL(/\/system\/tenant$/);
    await page.getByRole('button', { name: /新\s*增/ }).click();
    const form = page.getByRole('dialog', { name: '新增租户' });
    await opened(form);
    await form.getByLabel('租户名称').fill('E2E 其他租户');
    await form.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast('保存成功');
    const shown = page.locator('.ant-modal-confirm', { hasText: '租户已创建' });
    await opened(shown);
    const told = (await shown.innerText()).match(/租户 (\d{6}) 的管理员账号 admin 的初始密码: (\S{8,15}) \(只显示这一次/);
    assert.ok(told, `the password is shown: ${await shown.innerText()}`);
    const [, tenantId, initial] = told;
    await page.screenshot({ path: shot('tenant-created-password') });
    await shown.getByRole('button', { name: /确\s*定/ }).click();
    await shown.waitFor({ state: 'hidden' });
    const listed = await api(backend.base, '/api/blade-system/tenant/list', { token, params: { tenantId } });
    assert.equal(listed.data.records[0]?.adminPassword, null, 'no later call shows it');
    // the shared default of old opens nothing; its administrator chooses a password first
    const oldDefault = await api(backend.base, '/api/blade-auth/oauth/token', {
      method: 'POST',
      tenantId,
      params: { tenantId, username: 'admin', password: md5('admin'), grant_type: 'password' },
    });
    assert.equal(oldDefault.error_description, '用户名或密码错误', JSON.stringify(oldDefault));
    await choosePassword(backend.base, 'admin', initial, ADMIN_PASSWORD, tenantId);
    const theirToken = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD, tenantId);
    const them = await api(backend.base, '/api/blade-user/info', { token: theirToken, tenantId });
    assert.equal(them.data?.tenantId, tenantId, `the token is the other tenant's: ${JSON.stringify(them)}`);
    const link = (await api(backend.base, '/api/blade-system/dept/detail', { token, params: { id: ids.root } })).data.deptLogo;
    const theirs = await fetch(new URL(link, backend.base), { headers: { 'Blade-Auth': `bearer ${theirToken}`, 'Tenant-Id': tenantId } });
    assert.equal((await theirs.json()).code, 400, 'another tenant gets no file of this one');
    const anonymous = await fetch(new URL(link, backend.base));
    assert.equal(anonymous.status, 401, 'no token, no logo');
  });

  it('photographs the sign-in page and the dialog at 1280 and 390', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'zh-CN' });
    const view = await context.newPage();
    try {
      await view.goto(`${backend.base}/login`);
      await view.getByRole('tab', { name: '账号密码' }).waitFor();
      await view.getByTestId('open-register').click();
      await view.getByRole('dialog', { name: '第三方注册' }).waitFor();
      await view.waitForTimeout(400); // the dialog's opening animation
      await view.screenshot({ path: shot('register-dialog-390') });
      const width = await view.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 391, `the dialog fits 390 px (scroll width ${width})`);
    } finally {
      await context.close();
    }
    assert.deepEqual(pageErrors, []);
  });
});
