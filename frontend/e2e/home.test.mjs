// The fleet home page (首页 /wel/index) against the real backend: an organisation with three vehicles whose positions
// come in through the HTTP ingest (the telemetry pipeline: live states, alarms, daily aggregates). The cards, the
// warnings, the latest alarms and the terminals offline must show what the API answers (and, for the organisation,
// the numbers the data implies); a new position shows after 刷新 and after the 60 s refresh (the page's clock moved
// on); the page is photographed at 1280, 768 and 390 px (var/e2e/home-<width>.png) and its cards stack at 390 px.
// The home page is no menu page (every signed-in user lands on it): this file is its flow.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, fleetWith, launchBrowser, newPage, shot, startBackend, TIMEOUT, tokenFor, ui } from './harness.mjs';

const CAR = '/api/blade-fics-report/fics/carInfo';
const HOME = '/api/blade-fics-report/fics/carHome';

let backend;
let browser;
let page;
let token;
let org;
let orgName;
const cars = {};
const pageErrors = [];
const { signInAsAdmin, settle } = ui(() => page);

const here = (fixes) => fixes.map((f) => ({ lat: 31.2, lon: 121.5, ...f }));
const ingest = (car, fixes) => fleetWith(backend.base, token, { fixes: { [car.deviceNumber]: here(fixes) } });

const seconds = (hms) => hms.split(':').reduce((s, v) => s * 60 + Number(v), 0);
const kpi = async (id) => (await page.getByTestId(`home-kpi-${id}-value`).innerText()).trim();

before(async () => {
  backend = await startBackend({ name: 'e2e-home' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  orgName = `首页测试仓 ${Date.now() % 10_000}`;
  const t = Date.now() - 90_000;
  const fleet = await fleetWith(backend.base, token, {
    org: orgName,
    vehicles: [
      { carNo: 'E2E-HOME-01', carType: 3, deviceNumber: '013900000201' },
      { carNo: 'E2E-HOME-02', carType: 4, deviceNumber: '013900000202' },
      { carNo: 'E2E-HOME-03', carType: 5, deviceNumber: '013900000203' },
    ],
    fixes: {
      '013900000201': here([
        { time: t, speed: 20 },
        { time: t + 10_000, speed: 20 },
      ]),
      '013900000202': here([
        { time: t + 20_000, impactG: 3 },
        { time: t + 30_000, battery: { socPct: 10, voltageV: 40 } },
      ]),
    },
  });
  org = fleet.org;
  [cars.a, cars.b, cars.c] = ['E2E-HOME-01', 'E2E-HOME-02', 'E2E-HOME-03'].map((n) => fleet.cars[n]);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('fleet home page', () => {
  it('shows the whole fleet as the API counts it', async () => {
    await signInAsAdmin(backend.base);
    await page.getByTestId('home-kpi-total').waitFor();
    await page.waitForFunction(() => /^\d+$/.test(document.querySelector('[data-testid="home-kpi-total-value"]')?.textContent ?? ''));
    const all = await api(backend.base, `${HOME}/getCarHomeOnlineStatic`, { token });
    assert.equal(all.code, 200, JSON.stringify(all));
    assert.equal(await kpi('total'), String(all.data.total));
    assert.equal(await kpi('online'), String(all.data.online));
    assert.equal(await kpi('powered'), String(all.data.poweredOn));
    assert.equal(await kpi('alarm'), String(all.data.inAlarm));
    assert.equal(await kpi('terminal-offline'), String(all.data.terminalOffline));
    // the greeting, the account and the shortcuts stay
    await page.locator('.wel-hero h3').waitFor();
    await page.getByText('常用功能').waitFor();
    // the trend is drawn by ECharts and described for assistive technology
    const chart = page.getByTestId('home-trend-chart');
    await chart.locator('canvas').first().waitFor();
    assert.match((await chart.getAttribute('aria-label')) ?? '', /^在线趋势: 00:00 /);
    // the time of the reading on the tenant's clock (the sidebar's server clock), not the browser's
    const updated = (await page.locator('.home-updated').innerText()).match(/\d\d:\d\d:\d\d/)?.[0];
    const server = await page.locator('.app-sider').getByText(/^\d\d:\d\d:\d\d$/).first().innerText();
    assert.ok(updated && Math.abs(seconds(updated) - seconds(server)) < 120, `${updated} near ${server}`);
    assert.equal(pageErrors.length, 0, pageErrors.join('\n'));
  });

  it('narrows every block to an organisation', async () => {
    await page.locator('.home-filters .ant-select').click();
    await page.locator('.ant-select-tree-node-content-wrapper', { hasText: orgName }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="home-kpi-total-value"]')?.textContent === '3');
    await settle();
    const mine = await api(backend.base, `${HOME}/getCarHomeOnlineStatic`, { token, params: { deptId: org } });
    assert.deepEqual(
      [mine.data.total, mine.data.online, mine.data.poweredOn, mine.data.inAlarm, mine.data.terminalOffline],
      [3, 2, 2, 2, 1],
    );
    assert.deepEqual(
      [await kpi('total'), await kpi('online'), await kpi('powered'), await kpi('alarm'), await kpi('terminal-offline')],
      ['3', '2', '2', '2', '1'],
    );
    // today's alarms by type: a speeding (a), an impact and a low battery (b)
    const count = async (id) => (await page.getByTestId(`home-count-${id}`).locator('.home-count-value').innerText()).trim();
    assert.deepEqual([await count('collision'), await count('speeding'), await count('overload')], ['1', '1', '0']);
    assert.deepEqual([await count('battery_low_voltage'), await count('low-soc')], ['1', '1']);
    // the latest alarms, newest first
    const items = page.getByTestId('home-recent').locator('.home-alarm');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="home-recent"] .home-alarm').length === 3);
    const texts = await items.allInnerTexts();
    assert.match(texts[0], /电池低压\s*E2E-HOME-02/);
    assert.match(texts[1], /碰撞\s*E2E-HOME-02/);
    assert.match(texts[2], /超速\s*E2E-HOME-01/);
    // the terminal never heard from
    const off = page.getByTestId('home-offline').locator('.ant-table-row');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="home-offline"] .ant-table-row').length === 1);
    const row = await off.first().innerText();
    assert.match(row, /E2E-HOME-03/);
    assert.match(row, /013900000203/);
    assert.match(row, /电动搬运车/);
    assert.match(row, /从未上线/);
    // vehicles by type: one of each
    const types = await page.getByTestId('home-types-chart').getAttribute('aria-label');
    assert.match(types ?? '', /铅酸电动叉车 1 辆（在线 1）/);
    assert.match(types ?? '', /电动搬运车 1 辆（在线 0）/);
  });

  it('shows a new position after 刷新', async () => {
    await ingest(cars.c, [{ time: Date.now() - 5_000 }]);
    await page.getByTestId('home-refresh').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="home-kpi-online-value"]')?.textContent === '3');
    assert.equal(await kpi('terminal-offline'), '0');
    await page.getByTestId('home-offline').getByText('没有离线的终端').waitFor();
  });

  it('reads everything again every 60 s', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'zh-CN', storageState: await page.context().storageState() });
    const view = await context.newPage();
    view.setDefaultTimeout(TIMEOUT);
    await view.clock.install();
    await view.goto(`${backend.base}/wel/index`);
    await view.waitForFunction(() => /^\d+$/.test(document.querySelector('[data-testid="home-kpi-total-value"]')?.textContent ?? ''));
    const before = Number(await view.getByTestId('home-kpi-total-value').innerText());
    const r = await api(backend.base, `${CAR}/insertCarInfo`, {
      method: 'POST',
      token,
      body: { carNo: 'E2E-HOME-04', carType: 3, deviceNumber: '013900000204', mechanismId: org },
    });
    assert.equal(r.code, 200, JSON.stringify(r));
    await view.waitForTimeout(500);
    assert.equal(Number(await view.getByTestId('home-kpi-total-value').innerText()), before, 'not before the minute');
    await view.clock.fastForward(61_000);
    await view.waitForFunction(
      (n) => document.querySelector('[data-testid="home-kpi-total-value"]')?.textContent === String(n),
      before + 1,
    );
    await context.close();
  });

  for (const width of [1280, 768, 390]) {
    it(`fits ${width} px`, async () => {
      const context = await browser.newContext({
        viewport: { width, height: 900 },
        locale: 'zh-CN',
        storageState: await page.context().storageState(),
      });
      const view = await context.newPage();
      view.setDefaultTimeout(TIMEOUT);
      await view.goto(`${backend.base}/wel/index`);
      await view.getByTestId('home-trend-chart').locator('canvas').first().waitFor();
      await view.getByTestId('home-types-chart').locator('canvas').first().waitFor();
      await view.waitForTimeout(600); // the charts' animation
      await view.screenshot({ path: shot(`home-${width}`) });
      // the blocks below the fold, each on its own
      for (const block of ['home-warnings', 'home-recent', 'home-offline'])
        await view.getByTestId(block).screenshot({ path: shot(`home-${width}-${block.slice(5)}`) });
      const layout = await view.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
        cards: [...document.querySelectorAll('.home-kpi')].map((c) => c.getBoundingClientRect().toJSON()),
      }));
      assert.ok(layout.scroll <= layout.viewport + 1, `the page scrolls sideways at ${width}px (${layout.scroll})`);
      assert.equal(layout.cards.length, 5);
      if (width === 390) {
        // stacked: one card a row, each under the previous one
        const lefts = new Set(layout.cards.map((c) => Math.round(c.left)));
        assert.equal(lefts.size, 1, JSON.stringify(layout.cards));
        for (let i = 1; i < layout.cards.length; i++) assert.ok(layout.cards[i].top >= layout.cards[i - 1].bottom);
      }
      if (width === 1280) {
        const tops = new Set(layout.cards.map((c) => Math.round(c.top)));
        assert.equal(tops.size, 1, 'the five cards on one row');
      }
      await context.close();
    });
  }

  it('speaks English', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', storageState: await page.context().storageState() });
    const view = await context.newPage();
    view.setDefaultTimeout(TIMEOUT);
    // the language the shell saves when one is chosen (store/storage.ts: saber-<name>)
    await view.addInitScript(() =>
      window.localStorage.setItem('saber-language', JSON.stringify({ dataType: 'string', content: 'en', type: 'local', datetime: Date.now() })),
    );
    await view.goto(`${backend.base}/wel/index`);
    await view.getByText('Vehicles by type').waitFor();
    await view.getByText('Online trend').waitFor();
    await view.getByText('Terminals offline').waitFor();
    await context.close();
  });
});
