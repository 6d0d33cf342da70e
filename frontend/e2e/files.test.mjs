// 资源管理 → 附件管理 and 对象存储, against the real backend: a file uploaded through the page is listed, downloaded
// (with the session's token) byte for byte and deleted after a confirmation, its stored file with it; a file of a
// kind the server refuses (told by its content) is named in the server's message; an object storage configuration is
// enabled from its row, its secret key never shown. Photographed at 1280 and 390 px.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, OUT, api, launchBrowser, newPage, photographAt, startBackend, tokenFor, ui } from './harness.mjs';

const ATTACH = '/api/blade-resource/attach';
const OSS = '/api/blade-resource/oss';
// a small PDF-looking file (the server tells kinds by their first bytes) and a Windows program named as an image
const PDF = Buffer.from('%PDF-1.4\n% liftdesk e2e\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');
const PROGRAM = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64, 0xff)]);
const NAME = '叉车保养记录.pdf';

let backend;
let browser;
let page;
let token;
const pageErrors = [];

const { expectToast, opened, signInAsAdmin, openMenu, settle } = ui(() => page);

const card = () => page.locator('.crud-card:visible').first();
const rowWith = (value) => card().locator('.ant-table-row:visible').filter({ hasText: value });
const rowButton = (row, name) => row.getByRole('button', { name: new RegExp(`(^|\\s)${[...name].join('\\s*')}$`) });

async function attachments() {
  const body = await api(backend.base, `${ATTACH}/list`, { token, params: { size: 100 } });
  assert.equal(body.code, 200, JSON.stringify(body));
  return body.data.records;
}

/** Photographs `path` at 1280 and 390 px (harness `photographAt`). */
const photograph = (path, name, ready) => photographAt(page, `${backend.base}${path}`, name, ready);

before(async () => {
  backend = await startBackend({ name: 'files' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('attachments', () => {
  it('opens 资源管理 → 附件管理, empty', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('资源管理', '附件管理');
    await page.waitForURL(/\/resource\/attach$/);
    await page.getByTestId('attach-upload').waitFor();
    assert.equal((await attachments()).length, 0);
  });

  it('uploads a file through the page and lists it', async () => {
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/blade-fics/file/upload');
    await page.locator('.crud-card input[type="file"]').setInputFiles({ name: NAME, mimeType: 'application/pdf', buffer: PDF });
    const body = await (await answered).json();
    assert.equal(body.code, 200, JSON.stringify(body));
    assert.equal(body.data.originalName, NAME);
    await expectToast(`已上传 ${NAME}`);
    const row = rowWith(NAME);
    await row.waitFor();
    assert.match(await row.innerText(), /pdf/);
    const [stored] = await attachments();
    assert.equal(stored.originalName, NAME);
    assert.equal(stored.domain, 'local');
    assert.equal(stored.attachSize, PDF.length);
  });

  it('downloads it, byte for byte, under its name', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), rowWith(NAME).getByRole('button', { name: NAME }).click()]);
    assert.equal(download.suggestedFilename(), NAME);
    const path = join(OUT, 'files-download.pdf');
    await download.saveAs(path);
    assert.deepEqual(readFileSync(path), PDF);
  });

  it('names what it refuses: a program is not accepted, whatever it is called', async () => {
    await settle();
    await page.locator('.crud-card input[type="file"]').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: PROGRAM });
    await expectToast('不支持此类文件');
    assert.equal((await attachments()).length, 1, 'nothing was kept');
  });

  it('is photographed at 1280 and 390 px', async () => {
    await photograph('/resource/attach', 'files-attach', '.crud-card .ant-table-row');
  });

  it('deletes it after a confirmation, and its file is gone', async () => {
    const [stored] = await attachments();
    await settle();
    await rowButton(rowWith(NAME), '删除').click();
    const dialog = page.locator('.ant-modal-confirm:visible');
    await opened(dialog);
    await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
    await expectToast('删除成功');
    await rowWith(NAME).waitFor({ state: 'detached' });
    assert.equal((await attachments()).length, 0);
    const res = await fetch(`${backend.base}${stored.link}`, { headers: { 'Blade-Auth': `bearer ${token}` } });
    const body = await res.json();
    assert.equal(body.code, 400, 'the file is gone with its attachment');
  });
});

describe('object storage', () => {
  let made;

  it('lists a configuration with its secret key masked, and enables it from its row', async () => {
    made = await api(backend.base, `${OSS}/submit`, {
      token,
      method: 'POST',
      body: {
        category: 1,
        ossCode: 'e2e-minio',
        endpoint: 'http://127.0.0.1:9',
        accessKey: 'e2e-access',
        secretKey: 'e2e-very-secret',
        bucketName: 'e2e-bucket',
      },
    });
    assert.equal(made.code, 200, JSON.stringify(made));
    await openMenu('资源管理', '对象存储');
    await page.waitForURL(/\/resource\/oss$/);
    const row = rowWith('e2e-minio');
    await row.waitFor();
    assert.match(await row.innerText(), /未启用/);
    assert.ok(!(await page.content()).includes('e2e-very-secret'), 'the secret key is not in the page');

    await rowButton(row, '查看').click();
    const drawer = page.locator('.ant-drawer-open');
    await drawer.locator('.ant-descriptions').waitFor();
    // the eye shows what the server sent: its mask, never the key
    for (const eye of await drawer.locator('.crud-secret button').all()) await eye.click();
    const shown = await drawer.innerText();
    assert.ok(!shown.includes('e2e-very-secret') && shown.includes('******'), shown);
    await drawer.locator('.ant-drawer-close').click();
    await drawer.waitFor({ state: 'detached' });

    await settle();
    await rowButton(row, '启用').click();
    const dialog = page.locator('.ant-modal-confirm:visible');
    await opened(dialog);
    await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
    await expectToast('已启用');
    await row.getByText('已启用', { exact: true }).waitFor();
    const detail = await api(backend.base, `${OSS}/detail`, { token, params: { id: made.data.id } });
    assert.equal(detail.data.status, 2);
    assert.equal(detail.data.secretKey, '******');
  });

  it('tests the connection and says why it fails: an internal address is refused by default', async () => {
    await settle();
    await rowButton(rowWith('e2e-minio'), '测试连接').click();
    const dialog = page.locator('.ant-modal-confirm:visible');
    await opened(dialog);
    await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
    await expectToast('指向内部网络');
  });

  it('is photographed at 1280 and 390 px', async () => {
    await photograph('/resource/oss', 'files-oss', '.crud-card .ant-table-row');
    // back to the local disk, so the other suites' uploads work
    const gone = await api(backend.base, `${OSS}/remove`, { token, method: 'POST', params: { ids: made.data.id } });
    assert.equal(gone.code, 200);
    assert.deepEqual(pageErrors, []);
  });
});
