// Phone sign-in (手机号登录), against the real backend: the tenant's enabled SMS configuration points at a stand-in of
// aliyun's SMS API on localhost, which keeps the code it is asked to send. A bad number is refused by the form, the
// send button counts down 60 s, a wrong code is named on the code field, and the right one signs the admin in.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const SMS = '/api/blade-resource/sms';
const PHONE = '13912345678';

let backend;
let browser;
let page;
let provider;
const received = [];
const pageErrors = [];

const { shellReady } = ui(() => page);

const form = () => page.locator('.login-card [role="tabpanel"][aria-hidden="false"]');
const fieldError = (id) => form().locator('.ant-form-item').filter({ has: page.locator(`#${id}`) }).locator('.ant-form-item-explain-error');

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
  backend = await startBackend({ name: 'phone', privateEndpoints: true }); // the provider stand-in is on 127.0.0.1
  const token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const made = await api(backend.base, `${SMS}/submit`, {
    token,
    method: 'POST',
    body: {
      category: 3,
      smsCode: 'e2e-signin',
      templateId: 'SMS_CODE',
      accessKey: 'e2e-access',
      secretKey: 'e2e-very-secret',
      signName: '叉车云',
      endpoint: `http://127.0.0.1:${provider.address().port}`,
    },
  });
  assert.equal(made.code, 200, JSON.stringify(made));
  const enabled = await api(backend.base, `${SMS}/enable`, { token, method: 'POST', params: { id: made.data.id } });
  assert.equal(enabled.code, 200, JSON.stringify(enabled));
  const me = (await api(backend.base, '/api/blade-user/info', { token })).data;
  const saved = await api(backend.base, '/api/blade-user/update-info', {
    token,
    method: 'POST',
    body: { name: me.name || 'admin', realName: '管理员', phone: PHONE, email: me.email || null },
  });
  assert.equal(saved.code, 200, JSON.stringify(saved));
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
  provider?.close();
});

describe('phone sign-in', () => {
  it('refuses a bad number in the form, before anything is sent', async () => {
    await page.goto(`${backend.base}/login`);
    await page.getByRole('tab', { name: '手机号登录' }).click();
    await form().locator('#loginPhone').fill('1391234567');
    await form().getByRole('button', { name: /获取验证码/ }).click();
    await fieldError('loginPhone').getByText('手机号格式不正确').waitFor();
    assert.equal(received.length, 0);
  });

  it('sends a code, counts down, names a wrong code on its field and signs in with the right one', async () => {
    await form().locator('#loginPhone').fill(PHONE);
    await form().getByRole('button', { name: /获取验证码/ }).click();
    await form().getByRole('button', { name: /秒后重新获取/ }).waitFor();
    assert.ok(await form().locator('.login-send-code').isDisabled(), 'the button waits out its countdown');
    for (let i = 0; i < 50 && received.length === 0; i += 1) await new Promise((r) => setTimeout(r, 100));
    assert.equal(received.length, 1);
    assert.equal(received[0].PhoneNumbers, PHONE);
    assert.equal(received[0].TemplateCode, 'SMS_CODE');
    const { code } = JSON.parse(received[0].TemplateParam);
    assert.match(code, /^\d{6}$/);
    await page.screenshot({ path: shot('phone-signin-sent') });

    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    await form().locator('#loginSmsCode').fill(wrong);
    await form().getByRole('button', { name: /登\s*录/ }).click();
    await form().getByText('验证码不正确, 还可尝试 4 次').waitFor();
    assert.match(page.url(), /\/login/);

    await form().locator('#loginSmsCode').fill(code);
    await form().getByRole('button', { name: /登\s*录/ }).click();
    await shellReady();
    assert.deepEqual(pageErrors, []);
  });
});
