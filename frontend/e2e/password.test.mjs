// The first sign-in of a fresh installation: admin / admin must choose a new password before anything else.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

let backend;
let browser;
let page;
const errors = [];
const { fillLogin, shellReady } = ui(() => page);

before(async () => {
  backend = await startBackend({ name: 'password', initialPassword: true });
  browser = await launchBrowser();
  page = await newPage(browser, errors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('first sign-in', () => {
  it('keeps the seeded administrator on the password page until a new password is chosen', async () => {
    await page.goto(`${backend.base}/login`);
    await fillLogin('admin', 'admin');
    await page.waitForURL(/\/password$/);
    await page.getByText('请设置新密码').waitFor();
    // nothing else opens: the shell's pages lead back here
    await page.goto(`${backend.base}/system/user`);
    await page.waitForURL(/\/password$/);
    // and the server serves nothing else to this token either
    const token = await tokenFor(backend.base, 'admin', 'admin');
    const refused = await api(backend.base, '/api/blade-system/tenant/list', { token });
    assert.equal(refused.code, 403);
    assert.equal(refused.msg, '请先修改初始密码');

    const form = page.locator('form');
    await form.getByLabel('原密码').fill('admin');
    await form.getByLabel('新密码').fill('weakpass');
    await form.getByLabel('确认密码').fill('weakpass');
    await form.getByRole('button', { name: '修改密码' }).click();
    await page.locator('.ant-form-item-explain-error', { hasText: '不符合上述要求' }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: shot('password-required-phone') });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.screenshot({ path: shot('password-required') });

    await form.getByLabel('新密码').fill('Chosen-pw#7');
    await form.getByLabel('确认密码').fill('Chosen-pw#7');
    await form.getByRole('button', { name: '修改密码' }).click();
    await shellReady();
    const after = await api(backend.base, '/api/blade-system/tenant/list', {
      token: await tokenFor(backend.base, 'admin', 'Chosen-pw#7'),
    });
    assert.equal(after.code, 200, 'the new password opens everything');
    assert.deepEqual(errors, []);
  });
});
