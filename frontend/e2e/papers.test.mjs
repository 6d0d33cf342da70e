// 司机管理 → 司机证件 and 到期提醒, against the real backend: a paper added through its form (holder picked, a picture
// uploaded and previewed), submitted and audited, lent (the dialog refuses it without its required fields) and
// returned, its loan records and history read; a selection that mixes loan states refused before any call; then
// the day's expiry reminders (`liftdesk remind`) on 到期提醒 and the home page's card, one ignored. Drivers are
// written into the database (their screens are another part of issue 14). Photographed at 1280 and 390 px.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, OUT, REPO, api, launchBrowser, newPage, photographAt, shot, startBackend, tokenFor, ui } from './harness.mjs';

const PAPER = '/api/blade-fics/fics/driverInfoPaper';
const DB = join(OUT, 'papers.db');
const PYTHON = join(REPO, '.venv', 'bin', 'python');
const LIFTDESK = join(REPO, '.venv', 'bin', 'liftdesk');
const env = { ...process.env, PYTHONPATH: join(REPO, 'backend'), LIFTDESK_DATABASE_URL: `sqlite+aiosqlite:///${DB}` };

let backend;
let browser;
let page;
let token;
const pageErrors = [];
const { expectToast, opened, signInAsAdmin, openMenu, settle } = ui(() => page);

const card = () => page.locator('.crud-card:visible').first();
const rowWith = (value) => card().locator('.ant-table-row:visible').filter({ hasText: value });
const rowButton = (row, name) => row.getByRole('button', { name: new RegExp(`(^|\\s)${[...name].join('\\s*')}$`) });
const dialog = () => page.locator('.ant-modal:visible').last();

/** A small valid PNG (grey pixels). */
function png(width = 8, height = 6) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (kind, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(kind), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  const rows = Buffer.concat(Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(width, 0x80)])));
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * Writes a driver of tenant 000000 (root organisation) whose licence expires in `days` days: at noon of that day in
 * the tenants' zone, so that the days left are `days` at any hour of the run (UTC now + days + 1 h was a day more
 * when the test ran in the zone's last hour of the day).
 */
function insertDriver(name, days) {
  const code = `
import asyncio, random, sys
from datetime import datetime, time, timedelta
from liftdesk.core.config import get_settings
from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Driver
from liftdesk.fleet.papers import local_today
def noon_in(days):
    local = datetime.combine(local_today() + timedelta(days=days), time(12))
    return local - timedelta(minutes=get_settings().tz_offset_minutes)
async def main():
    db = Database()
    async with db.sessionmaker() as s:
        s.add(Driver(id=next_id(), tenant_id="000000", name=sys.argv[1], phone=f"13{random.randint(0, 10**9 - 1):09d}",
                     mechanism_id=1123598813738675201,
                     create_dept=1123598813738675201, license_number="L" + sys.argv[1][-4:],
                     license_valid_until=noon_in(int(sys.argv[2]))))
        await s.commit()
    await db.dispose()
asyncio.run(main())
`;
  const done = spawnSync(PYTHON, ['-c', code, name, String(days)], { env, encoding: 'utf8' });
  assert.equal(done.status, 0, done.stderr);
}

/** Photographs `path` at 1280 and 390 px (harness `photographAt`). */
const photograph = (path, name, ready) => photographAt(page, `${backend.base}${path}`, name, ready);

async function paperState(number) {
  const body = await api(backend.base, `${PAPER}/page`, { token, params: { paperNumber_equal: number } });
  assert.equal(body.code, 200, JSON.stringify(body));
  return body.data.records[0];
}

/** Ticks the rows' check boxes (and only them). */
async function select(...numbers) {
  const boxes = card().locator('.ant-table-row:visible .ant-checkbox-input:checked');
  for (let i = await boxes.count(); i > 0; i--) await boxes.first().click();
  for (const n of numbers) await rowWith(n).locator('.ant-checkbox-input').check();
}

before(async () => {
  backend = await startBackend({ name: 'papers' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  insertDriver('张师傅', 5);
  insertDriver('李师傅', 400);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('driver papers', () => {
  const NUMBER = 'N1-E2E-0001';

  it('adds a paper with its holder and a picture through the form', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('司机管理', '司机证件');
    await page.waitForURL(/\/driver\/paper$/);
    await card().getByRole('button', { name: /新\s*增/ }).click();
    const form = dialog();
    await opened(form);
    await form.getByLabel('持证人').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: '张师傅' }).click();
    await form.getByLabel('证件编号').fill(NUMBER);
    await form.getByLabel('证件类别').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: '特种设备作业人员证' }).click();
    await form.getByLabel('有效期至').fill('2030-06-30');
    await page.keyboard.press('Enter');
    await form.getByLabel('发证机关').fill('市场监督管理局');
    const uploaded = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/blade-fics/file/upload');
    await form.locator('[data-testid="paper-pictures"] input[type="file"]').setInputFiles({ name: '正面.png', mimeType: 'image/png', buffer: png() });
    assert.equal((await (await uploaded).json()).code, 200);
    await form.locator('[data-testid="paper-pictures"] .ant-image img').waitFor();
    await form.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast('保存成功');
    await rowWith(NUMBER).waitFor();
    const row = await paperState(NUMBER);
    assert.equal(row.driverName, '张师傅');
    assert.equal(row.pictures.length, 1);
    assert.equal(row.pictures[0].side, 1, 'the first picture is the front');
    assert.equal(row.validUntil.slice(0, 10), '2030-06-30');
  });

  it('submits it for review and passes its first review with a note', async () => {
    await select(NUMBER);
    await page.getByTestId('paper-submit').click();
    await page.locator('.ant-modal-confirm:visible').getByRole('button', { name: /确\s*定/ }).click();
    await expectToast('已提交 1 个证件');
    await settle();
    await select(NUMBER);
    await page.getByTestId('paper-audit').click();
    const form = dialog();
    await opened(form);
    await form.getByLabel('审核意见').fill('证件清晰, 初审通过');
    await form.getByRole('button', { name: /确\s*定/ }).click();
    await expectToast('已审核 1 个证件');
    await rowWith(NUMBER).getByText('初审通过').waitFor();
    assert.equal((await paperState(NUMBER)).auditStatus, 2);
  });

  it('lends it (the dialog asks for every required field) and takes it back', async () => {
    await settle();
    await select(NUMBER);
    await page.getByTestId('paper-lend').click();
    const form = dialog();
    await opened(form);
    await form.getByRole('button', { name: /确\s*定/ }).click();
    await form.getByText('请输入借用单位').waitFor();
    assert.equal((await paperState(NUMBER)).loanStatus, 0, 'nothing was sent');
    await form.getByLabel('借用单位').fill('市特检院');
    await form.getByLabel('借用用途').fill('年度复审');
    const due = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    await form.getByLabel('归还日期').fill(due);
    await page.keyboard.press('Enter');
    await form.getByLabel('证件号码').fill('320102199001011234');
    await form.getByLabel('备注').fill('随车送检');
    await form.getByRole('button', { name: /确\s*定/ }).click();
    await expectToast('已借出 1 个证件');
    await rowWith(NUMBER).getByText('已借出').waitFor();
    const lent = await paperState(NUMBER);
    assert.equal(lent.loanStatus, 1);
    assert.equal(lent.loanOrg, '市特检院');
    await photograph('/driver/paper', 'papers-list', '.crud-card .ant-table-row');

    await settle();
    await select(NUMBER);
    await page.getByTestId('paper-return').click();
    const back = dialog();
    await opened(back);
    await back.getByLabel('备注').fill('已按时归还');
    await back.getByRole('button', { name: /确\s*定/ }).click();
    await expectToast('已归还 1 个证件');
    await rowWith(NUMBER).getByText('未借出').waitFor();
  });

  it('shows the loan records and the history with the picture', async () => {
    await settle();
    await rowButton(rowWith(NUMBER), '借出记录').click();
    const records = page.getByTestId('paper-loan-records');
    await records.locator('.ant-table-row').nth(1).waitFor();
    const texts = await records.locator('.ant-table-row').allInnerTexts();
    assert.match(texts[0], /归还[\s\S]*已按时归还/);
    assert.match(texts[1], /借出[\s\S]*市特检院[\s\S]*年度复审[\s\S]*320102199001011234/);
    await page.screenshot({ path: shot('papers-loan-records-1280') });
    await page.locator('.ant-drawer:visible .ant-drawer-close').click();
    await rowButton(rowWith(NUMBER), '证件详情').click();
    const view = page.getByTestId('paper-view');
    await view.locator('.ant-image img').waitFor();
    for (const event of ['新增', '提交审核', '审核通过', '借出', '归还']) await view.getByText(event, { exact: true }).first().waitFor();
    await page.screenshot({ path: shot('papers-view-1280') });
    await page.locator('.ant-drawer:visible .ant-drawer-close').click();
  });

  it('refuses a selection that mixes loan states before calling the server', async () => {
    const other = await api(backend.base, `${PAPER}/page`, { token });
    const holder = other.data.records[0].driverId;
    const second = 'N1-E2E-0002';
    const saved = await api(backend.base, `${PAPER}/save`, { method: 'POST', token, body: { driverId: holder, paperNumber: second } });
    assert.equal(saved.code, 200, JSON.stringify(saved));
    const lent = await api(backend.base, `${PAPER}/loan`, {
      method: 'POST',
      token,
      body: { ids: [saved.data.id], loanType: 1, loanOrg: '安监站', loanPurpose: '检查', returnDate: '2099-01-01 00:00:00', certificateNumber: 'X1' },
    });
    assert.equal(lent.code, 200, JSON.stringify(lent));
    await page.reload();
    await rowWith(second).waitFor();
    let calls = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === `${PAPER}/loan`) calls += 1;
    });
    await select(NUMBER, second);
    await page.getByTestId('paper-return').click();
    await expectToast('所选证件的借用状态不一致, 请重新选择');
    assert.equal(await page.locator('.ant-modal:visible').count(), 0, 'no dialog opened');
    assert.equal(calls, 0, 'nothing was sent');
  });
});

describe('expiry reminders', () => {
  it('lists the day reminders on the home page and on 到期提醒, and ignores one', async () => {
    const run = spawnSync(LIFTDESK, ['remind'], { env, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    await page.goto(`${backend.base}/wel/index`);
    const home = page.getByTestId('home-reminders');
    await home.getByText('张师傅').waitFor();
    assert.equal(await home.getByText('李师傅').count(), 0, 'a licence 400 days away is not due');
    await home.screenshot({ path: shot('reminders-home-card') });
    await home.getByRole('button', { name: '查看全部' }).click();
    await page.waitForURL(/\/driver\/reminder$/);
    await openMenu('司机管理', '到期提醒'); // the menu opens the same page
    const row = rowWith('张师傅');
    await row.getByText('即将到期').waitFor();
    await row.getByText(/5 天/).waitFor();
    await photograph('/driver/reminder', 'reminders-list', '.crud-card .ant-table-row');
    await rowButton(row, '忽略').click();
    const confirm = dialog();
    await opened(confirm);
    await confirm.getByRole('button', { name: /确\s*定/ }).click();
    await expectToast('已忽略该提醒');
    await row.getByText('已忽略').waitFor();
    assert.deepEqual(pageErrors, []);
  });
});
