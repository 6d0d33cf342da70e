// 研发工具 → 代码生成 and 报表管理, against the real backend: a code generation record is added through the page's
// form with two fields (a text and an integer), saved, copied from its row, and its code downloaded as a zip that
// holds the four generated files (resource declaration, schemas, migration, web configuration); the server's
// refusal of an existing table is shown. A saved report definition is listed, opened and deleted. Photographed at 1280
// and 390 px.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, OUT, REPO, api, launchBrowser, newPage, photographAt, shot, startBackend, tokenFor, ui } from './harness.mjs';

const CODE = '/api/blade-develop/code';
const REPORT = '/api/blade-report/report/rest';
const PYTHON = join(REPO, '.venv', 'bin', 'python');
const PACKAGE = 'e2e_gadget';
const REPORT_NAME = '叉车月度报表';

let backend;
let browser;
let page;
let token;
const pageErrors = [];

const { expectToast, opened, signInAsAdmin, openMenu, settle } = ui(() => page);

const card = () => page.locator('.crud-card:visible').first();
const rowWith = (value) => card().locator('.ant-table-row:visible').filter({ hasText: value });
const rowButton = (row, name) => row.getByRole('button', { name: new RegExp(`(^|\\s)${[...name].join('\\s*')}$`) });
const formDialog = () => page.locator('.ant-modal:visible').filter({ has: page.locator('.crud-form') });

async function records() {
  const body = await api(backend.base, `${CODE}/list`, { token, params: { size: 100 } });
  assert.equal(body.code, 200, JSON.stringify(body));
  return body.data.records;
}

/** Runs Python (the backend's) on a script, with arguments; its output. */
function python(script, ...args) {
  return execFileSync(PYTHON, ['-c', script, ...args], { encoding: 'utf8' });
}

/** Photographs `path` at 1280 and 390 px (harness `photographAt`). */
const photograph = (path, name, ready) => photographAt(page, `${backend.base}${path}`, name, ready);

before(async () => {
  backend = await startBackend({ name: 'codegen' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('code generation', () => {
  it('opens 研发工具 → 代码生成, empty', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('研发工具', '代码生成');
    await page.waitForURL(/\/tool\/code$/);
    await card().waitFor();
    assert.equal((await records()).length, 0);
  });

  it('adds a record with two fields through the form, the existing table refused first', async () => {
    await card().locator('.crud-toolbar').getByRole('button', { name: /新\s*增/ }).click();
    const dialog = formDialog();
    await opened(dialog);
    await dialog.locator('[id="codeName"]').fill('叉车配件');
    await dialog.locator('[id="tableName"]').fill('blade_post');
    await dialog.locator('[id="entityName"]').fill('Gadget');
    await dialog.locator('[id="packageName"]').fill(PACKAGE);
    await dialog.locator('[id="serviceName"]').fill('blade-demo');
    await dialog.getByTestId('code-add-field').click();
    await dialog.getByTestId('code-add-field').click();
    await dialog.getByLabel('列名 1').fill('gadget_name');
    await dialog.getByLabel('显示名 1').fill('名称');
    await dialog.getByLabel('最大长度 1').fill('40');
    await dialog.getByLabel('必填 1').check();
    await dialog.getByLabel('查询 1').check();
    await dialog.getByLabel('列名 2').fill('stock');
    await dialog.getByLabel('显示名 2').fill('库存');
    await dialog.getByLabel('类型 2').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option[title="整数"]').click();
    await page.screenshot({ path: shot('codegen-form-1280') });

    const submit = (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `${CODE}/submit`;
    let answered = page.waitForResponse(submit);
    await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
    let body = await (await answered).json();
    assert.equal(body.code, 400, JSON.stringify(body));
    await expectToast('数据表已存在: blade_post');

    await dialog.locator('[id="tableName"]').fill('demo_gadget');
    answered = page.waitForResponse(submit);
    await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
    const response = await answered;
    body = await response.json();
    assert.equal(body.code, 200, JSON.stringify(body));
    const sent = response.request().postDataJSON();
    assert.deepEqual(
      sent.fields.map((f) => [f.column, f.name, f.type, f.required, f.inSearch]),
      [
        ['gadget_name', '名称', 'string', true, true],
        ['stock', '库存', 'int', false, false],
      ],
    );
    await dialog.waitFor({ state: 'hidden' });
    await rowWith('叉车配件').waitFor();
    const [saved] = await records();
    assert.equal(saved.fields[0].maxLength, 40);
  });

  it('downloads the zip of the generated code, holding the four files', async () => {
    await settle();
    await rowWith('叉车配件').getByRole('checkbox').check();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('code-generate').click()]);
    assert.match(download.suggestedFilename(), new RegExp(`^${PACKAGE}-\\d+\\.zip$`));
    const path = join(OUT, 'codegen-download.zip');
    await download.saveAs(path);
    const listed = python(
      'import json, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(json.dumps({n: z.read(n).decode() for n in z.namelist()}))',
      path,
    );
    const files = JSON.parse(listed);
    assert.deepEqual(Object.keys(files).sort(), [
      `backend/liftdesk/generated/${PACKAGE}.py`,
      `backend/liftdesk/generated/${PACKAGE}_schemas.py`,
      'backend/liftdesk/migrations/versions/gen_demo_gadget.py',
      'frontend/src/resources/generated/e2eGadget.ts',
    ]);
    assert.match(files[`backend/liftdesk/generated/${PACKAGE}.py`], /prefix="\/api\/blade-demo\/demoGadget"/);
    assert.match(files[`backend/liftdesk/generated/${PACKAGE}_schemas.py`], /stock: Annotated\[int \| None/);
    assert.match(files['frontend/src/resources/generated/e2eGadget.ts'], /prop: 'gadgetName', label: '名称', search: true/);
    await expectToast('已生成 1 条记录的代码');
  });

  it('copies a record from its row', async () => {
    await settle();
    await rowButton(rowWith('叉车配件').first(), '复制').click();
    const dialog = page.locator('.ant-modal-confirm:visible');
    await opened(dialog);
    await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
    await expectToast('已复制');
    await rowWith('叉车配件-副本').waitFor();
    const names = (await records()).map((r) => r.codeName).sort();
    assert.deepEqual(names, ['叉车配件', '叉车配件-副本']);
  });

  it('is photographed at 1280 and 390 px', async () => {
    await photograph('/tool/code', 'codegen-code', '.crud-card .ant-table-row');
  });
});

describe('report definitions', () => {
  it('lists a saved definition on 研发工具 → 报表管理 and opens it', async () => {
    // a definition as the report designer saves it (its own table, written here as the designer would)
    python(
      [
        'import sqlite3, sys, datetime',
        'db = sqlite3.connect(sys.argv[1])',
        'now = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M:%S.000000")',
        'db.execute("INSERT INTO blade_report_file (id, name, content, create_time, update_time, status, is_deleted) VALUES (?, ?, ?, ?, ?, 1, 0)", (1900000000000000001, sys.argv[2], "<ureport/>", now, now))',
        'db.commit()',
      ].join('\n'),
      join(OUT, 'codegen.db'),
      REPORT_NAME,
    );
    await openMenu('研发工具', '报表管理');
    await page.waitForURL(/\/tool\/report$/);
    await rowWith(REPORT_NAME).waitFor();
    await rowButton(rowWith(REPORT_NAME), '查看').click();
    const drawer = page.locator('.ant-drawer-open');
    await drawer.getByText('<ureport/>').waitFor();
    await drawer.locator('.ant-drawer-close').click();
    await drawer.waitFor({ state: 'detached' });
  });

  it('is photographed at 1280 and 390 px', async () => {
    await photograph('/tool/report', 'codegen-report', '.crud-card .ant-table-row');
  });

  it('deletes it after a confirmation', async () => {
    await settle();
    await rowButton(rowWith(REPORT_NAME), '删除').click();
    const dialog = page.locator('.ant-modal-confirm:visible');
    await opened(dialog);
    await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
    await expectToast('删除成功');
    await rowWith(REPORT_NAME).waitFor({ state: 'detached' });
    const body = await api(backend.base, `${REPORT}/list`, { token });
    assert.equal(body.data.total, 0);
    assert.deepEqual(pageErrors, []);
  });
});
