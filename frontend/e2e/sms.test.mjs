// 资源管理 → 短信配置, against the real backend: a configuration listed with its secret key masked, enabled from its
// row, and a message sent from its 发送短信 dialog to a stand-in of aliyun's SMS API on localhost (the signature itself
// is verified by backend/tests/system/test_sms.py); a bad number is refused by the form, and a provider that cannot be
// reached is named in the server's message. Photographed at 1280 and 390 px.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const SMS = '/api/blade-resource/sms';

let backend;
let browser;
let page;
let token;
let provider;
const received = [];
const pageErrors = [];

const { expectToast, opened, signInAsAdmin, openMenu, settle } = ui(() => page);

const card = () => page.locator('.crud-card:visible').first();
const rowWith = (value) => card().locator('.ant-table-row:visible').filter({ hasText: value });
const rowButton = (row, name) => row.getByRole('button', { name: new RegExp(`(^|\\s)${[...name].join('\\s*')}$`) });

async function configuration(code, endpoint) {
  const made = await api(backend.base, `${SMS}/submit`, {
    token,
    method: 'POST',
    body: { category: 3, smsCode: code, templateId: 'SMS_1', accessKey: 'e2e-access', secretKey: 'e2e-very-secret', signName: '叉车云', endpoint },
  });
  assert.equal(made.code, 200, JSON.stringify(made));
  return made.data;
}

before(async () => {
  // answers as aliyun's dysmsapi does when it accepts a message
  provider = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push(Object.fromEntries(new URLSearchParams(body)));
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ Code: 'OK', Message: 'OK', BizId: '900619746936498440^0', RequestId: 'e2e' }));
    });
  });
  await new Promise((resolve) => provider.listen(0, '127.0.0.1', resolve));
  backend = await startBackend({ name: 'sms', privateEndpoints: true }); // the provider stand-in is on 127.0.0.1
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
  provider?.close();
});

describe('SMS configurations', () => {
  it('lists a configuration with its secret key masked, and enables it from its row', async () => {
    await configuration('e2e-aliyun', `http://127.0.0.1:${provider.address().port}`);
    await signInAsAdmin(backend.base);
    await openMenu('资源管理', '短信配置');
    await page.waitForURL(/\/resource\/sms$/);
    const row = rowWith('e2e-aliyun');
    await row.waitFor();
    assert.match(await row.innerText(), /未启用/);
    assert.ok(!(await page.content()).includes('e2e-very-secret'), 'the secret key is not in the page');
    await settle();
    await rowButton(row, '启用').click();
    const dialog = page.locator('.ant-modal-confirm:visible');
    await opened(dialog);
    await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
    await expectToast('已启用');
    await row.getByText('已启用', { exact: true }).waitFor();
  });

  it('sends a message from the row: a bad number is refused by the form, good ones reach the provider', async () => {
    await settle();
    await rowButton(rowWith('e2e-aliyun'), '发送短信').click();
    const dialog = page.locator('.ant-modal:visible').filter({ hasText: 'e2e-aliyun' });
    await opened(dialog);
    await dialog.locator('#smsPhones').fill('13800138000,0755123');
    await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
    await dialog.getByText('手机号长度不是11位').waitFor();
    assert.equal(received.length, 0);
    await dialog.locator('#smsPhones').fill('13800138000, 13900139000');
    await dialog.locator('#smsParams').fill('{"code": "6688"}');
    await dialog.locator('.ant-form-item-explain-error').first().waitFor({ state: 'detached' });
    await page.screenshot({ path: shot('sms-send-1280') });
    await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
    await expectToast('短信已发送');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(received.length, 1);
    assert.equal(received[0].PhoneNumbers, '13800138000,13900139000');
    assert.equal(received[0].TemplateParam, '{"code":"6688"}');
    assert.ok(received[0].Signature, 'the request is signed');
  });

  it('names why a provider that cannot be reached did not send', async () => {
    await configuration('e2e-nowhere', 'http://127.0.0.1:9');
    await page.reload();
    await rowWith('e2e-nowhere').waitFor();
    await settle();
    await rowButton(rowWith('e2e-nowhere'), '发送短信').click();
    const dialog = page.locator('.ant-modal:visible').filter({ hasText: 'e2e-nowhere' });
    await opened(dialog);
    await dialog.locator('#smsPhones').fill('13800138000');
    await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
    await expectToast('短信发送失败');
  });

  it('is photographed at 1280 and 390 px', async () => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const context = await browser.newContext({ viewport, locale: 'zh-CN', storageState: await page.context().storageState() });
      const view = await context.newPage();
      try {
        await view.goto(`${backend.base}/resource/sms`);
        await view.locator('.crud-card .ant-table-row').first().waitFor();
        await view.waitForFunction(() => !document.querySelector('.page-loading, .ant-spin-spinning, .ant-message-notice'));
        const width = await view.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= viewport.width + 1, `fits ${viewport.width} px (scroll width ${width})`);
        await view.screenshot({ path: shot(`sms-${viewport.width}`) });
      } finally {
        await context.close();
      }
    }
    assert.deepEqual(pageErrors, []);
  });
});
