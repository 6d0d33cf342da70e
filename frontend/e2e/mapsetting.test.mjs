// 运营设置 → 地图设置: a tenant's basemap (a tile URL template, tested against its server) and a site plan image
// placed by two corners, then drawn under the vehicles on 实时监控's map; against the real backend. There is no
// network here: the tile servers are answered by the browser's routes (one that serves tiles, one that is down).
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const MAP = '/api/liftdesk/map';
const GOOD = 'https://tiles.e2e.test/{z}/{x}/{y}.png';
const DOWN = 'https://down.e2e.test/{z}/{x}/{y}.png';
// around the default centre of the maps (website.ts): Beijing
const CORNERS = { south: 39.9, west: 116.38, north: 39.92, east: 116.41 };

let backend;
let browser;
let page;
let token;
const pageErrors = [];

const { expectToast, tabLabels, signInAsAdmin, openMenu } = ui(() => page);

function crc32(buf) {
  let c;
  let crc = 0xffffffff;
  for (const byte of buf) {
    c = (crc ^ byte) & 0xff;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A PNG of `width` × `height` RGB pixels, `pixel(x, y)` giving [r, g, b]. */
function png(width, height, pixel) {
  const chunk = (kind, data) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(kind, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = [];
  for (let y = 0; y < height; y += 1) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x += 1) row.set(pixel(x, y), 1 + x * 3);
    rows.push(row);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

// a tile: light green with a darker border; the plan: an orange yard with grey aisles
const TILE = png(256, 256, (x, y) => (x < 2 || y < 2 ? [150, 190, 150] : [214, 236, 214]));
const PLAN = png(160, 100, (x, y) => (x % 40 < 6 || y % 25 < 4 ? [120, 120, 120] : [245, 160, 60]));

async function setting() {
  const body = await api(backend.base, `${MAP}/setting`, { token });
  assert.equal(body.code, 200, JSON.stringify(body));
  return body.data;
}

/** The site plan of the map inside `scope` as MapLibre has it: its corners, whether its image loaded, its opacity. */
async function planOnMap(scope) {
  return page.evaluate((selector) => {
    const m = document.querySelector(`${selector} [data-testid="map"]`)?.maplibreMap;
    if (!m) return { map: false };
    const source = m.getSource('siteplan');
    if (!source) return { map: true, source: false };
    const layers = m.getStyle().layers.map((l) => l.id);
    return {
      map: true,
      source: true,
      coordinates: source.coordinates,
      loaded: source.loaded() && !!source.image,
      opacity: m.getPaintProperty('siteplan', 'raster-opacity'),
      index: layers.indexOf('siteplan'),
      layers,
    };
  }, scope);
}

/** Routes of the tile servers (no network here). */
async function routeTiles(context) {
  await context.route(/^https:\/\/tiles\.e2e\.test\//, (route) =>
    route.fulfill({ status: 200, contentType: 'image/png', headers: { 'Access-Control-Allow-Origin': '*' }, body: TILE }),
  );
  await context.route(/^https:\/\/down\.e2e\.test\//, (route) => route.abort('connectionrefused'));
  await context.route(/^https:\/\/tile\.openstreetmap\.org\//, (route) => route.abort('internetdisconnected'));
}

/** Waits until the map inside `scope` has drawn the site plan's image. */
async function planDrawn(view, scope) {
  await view.waitForFunction((selector) => {
    const m = document.querySelector(`${selector} [data-testid="map"]`)?.maplibreMap;
    const s = m?.getSource('siteplan');
    return !!s && s.loaded() && !!s.image;
  }, scope);
}

/**
 * Photographs `path` at 1280 and 390 px in a window of its own (signed in as the page is), after `ready`; `fit`
 * moves the map of `scope` onto the plan first. Returns how wide the page is at 390 px.
 */
async function photograph(path, name, scope, fit) {
  const widths = {};
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    const context = await browser.newContext({ viewport, locale: 'zh-CN', storageState: await page.context().storageState() });
    await routeTiles(context);
    const view = await context.newPage();
    view.setDefaultTimeout(30_000);
    try {
      await view.goto(`${backend.base}${path}`);
      await view.locator(`${scope} .map-view[data-siteplan="on"][data-basemap="ok"]`).waitFor();
      await planDrawn(view, scope);
      if (fit)
        await view.evaluate(
          ([selector, c]) => {
            const m = document.querySelector(`${selector} [data-testid="map"]`).maplibreMap;
            m.fitBounds(
              [
                [c.west, c.south],
                [c.east, c.north],
              ],
              { padding: 40, animate: false },
            );
          },
          [scope, CORNERS],
        );
      await view.waitForFunction(() => !document.querySelector('.page-loading, .ant-spin-spinning, .ant-message-notice'));
      await view.waitForTimeout(800);
      widths[viewport.width] = await view.evaluate(() => document.documentElement.scrollWidth);
      await view.screenshot({ path: shot(`${name}-${viewport.width}`) });
      if (viewport.width < 768) {
        // on a phone the map comes below the form: photographed scrolled to it
        await view.locator(`${scope} [data-testid="map"]`).scrollIntoViewIfNeeded();
        await view.waitForTimeout(300);
        await view.screenshot({ path: shot(`${name}-${viewport.width}-map`) });
      }
    } finally {
      await context.close();
    }
  }
  return widths;
}

before(async () => {
  backend = await startBackend({ name: 'mapsetting' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
  await routeTiles(page.context());
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('map settings', () => {
  it('opens 运营设置 → 地图设置 with the defaults', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('运营设置', '地图设置');
    await page.waitForURL(/\/operation\/map$/);
    await page.locator('.map-setting canvas.maplibregl-canvas').waitFor({ state: 'attached' });
    assert.deepEqual(await tabLabels(), ['首页', '地图设置']);
    assert.equal(await page.getByLabel('瓦片地址模板').inputValue(), '');
    await page.getByTestId('plan-info').getByText('尚未上传平面图').waitFor();
  });

  it('tests a tile URL template: refuses a bad one, names a server that is down, accepts one that serves tiles', async () => {
    const panel = page.locator('.fence-editor-panel');
    const template = panel.getByLabel('瓦片地址模板');
    await template.fill('ftp://tiles.e2e.test/{z}/{x}.png');
    await panel.getByRole('button', { name: /测\s*试/ }).click();
    await panel.getByText('须为 http(s) 地址，并包含 {z}、{x}、{y}').waitFor();

    await template.fill(DOWN);
    await panel.getByRole('button', { name: /测\s*试/ }).click();
    const failed = panel.getByTestId('tile-test');
    await failed.getByText(/无法从 down\.e2e\.test 加载瓦片/).waitFor();
    assert.match(await failed.getAttribute('class'), /ant-alert-error/);

    await template.fill(GOOD);
    await panel.getByRole('button', { name: /测\s*试/ }).click();
    await panel.getByTestId('tile-test').getByText(/瓦片加载成功（tiles\.e2e\.test）/).waitFor();
    // the preview now draws that basemap, and its tiles load
    await page.locator('.map-setting .map-view[data-basemap="ok"]').waitFor();
    await panel.getByLabel('版权说明').fill('© E2E Tiles');
    await panel.getByLabel('最大缩放级别').fill('20');
  });

  it('uploads a site plan, places it by its corners and saves', async () => {
    const panel = page.locator('.fence-editor-panel');
    // not an image: refused by the server, whatever its name says
    await panel.locator('input[type="file"]').setInputFiles({ name: 'plan.png', mimeType: 'image/png', buffer: Buffer.from('not an image') });
    await expectToast('file 只能是 JPG、PNG 或 WebP 图片');
    await panel.locator('input[type="file"]').setInputFiles({ name: 'yard.png', mimeType: 'image/png', buffer: PLAN });
    await expectToast('平面图已上传：请调整位置后保存');
    await panel.getByTestId('plan-info').getByText(/已上传：PNG/).waitFor();
    // placed where the preview stood; then exactly where the yard is
    assert.notEqual(await panel.getByLabel('西南角纬度').inputValue(), '');
    await page.locator('.map-setting .map-view[data-siteplan="on"]').waitFor();
    for (const [label, value] of [
      ['西南角纬度', CORNERS.south],
      ['西南角经度', CORNERS.west],
      ['东北角纬度', CORNERS.north],
      ['东北角经度', CORNERS.east],
    ])
      await panel.getByLabel(label).fill(String(value));
    // reversed corners are refused before saving
    await panel.getByLabel('东北角纬度').fill('39.8');
    await panel.getByRole('button', { name: /保\s*存/ }).click();
    await panel.getByText('西南角须在东北角的西南方').first().waitFor();
    await panel.getByLabel('东北角纬度').fill(String(CORNERS.north));
    await panel.getByRole('button', { name: /显示|定位到平面图/ }).click();
    await panel.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast('地图设置已保存，所有地图已生效');

    const saved = await setting();
    assert.equal(saved.tileUrl, GOOD);
    assert.equal(saved.attribution, '© E2E Tiles');
    assert.equal(saved.maxZoom, 20);
    assert.equal(saved.hasPlan, true);
    assert.equal(saved.planType, 'image/png');
    assert.deepEqual([saved.planSouth, saved.planWest, saved.planNorth, saved.planEast], Object.values(CORNERS));
  });

  it('keeps it after a reload, and is photographed at 1280 and 390', async () => {
    await page.reload();
    await page.locator('.map-setting canvas.maplibregl-canvas').waitFor({ state: 'attached' });
    const panel = page.locator('.fence-editor-panel');
    assert.equal(await panel.getByLabel('瓦片地址模板').inputValue(), GOOD);
    assert.equal(await panel.getByLabel('东北角经度').inputValue(), CORNERS.east.toFixed(6));
    await page.locator('.map-setting .map-view[data-siteplan="on"][data-basemap="ok"]').waitFor();
    await planDrawn(page, '.map-setting');
    const widths = await photograph('/operation/map', 'mapsetting', '.map-setting', false);
    assert.ok(widths[390] <= 391, `the page does not scroll sideways at 390 px (${widths[390]})`);
  });

  it('draws the plan on 实时监控’s map, under the vehicles, over the tenant’s basemap', async () => {
    await openMenu('车辆管理', '实时监控');
    await page.waitForURL(/\/fleet\/monitor$/);
    await page.locator('.monitor-map .map-view[data-siteplan="on"]').waitFor();
    await planDrawn(page, '.monitor-map');
    const plan = await planOnMap('.monitor-map');
    assert.deepEqual(plan.coordinates, [
      [CORNERS.west, CORNERS.north],
      [CORNERS.east, CORNERS.north],
      [CORNERS.east, CORNERS.south],
      [CORNERS.west, CORNERS.south],
    ]);
    assert.equal(plan.loaded, true);
    assert.equal(plan.opacity, 0.8);
    assert.deepEqual(plan.layers.slice(0, 3), ['background', 'basemap', 'siteplan'], 'right over the basemap, under the rest');
    // the plan is drawn by WebGL, the vehicles on their 2D canvas over the map
    await page.locator('.monitor-map .map-view[data-render="webgl"]').waitFor();
    assert.ok(await page.locator('.monitor-map canvas.map-vehicles').isVisible(), 'the vehicles over the plan');
    const tiles = await page.evaluate(() => {
      const m = document.querySelector('.monitor-map [data-testid="map"]').maplibreMap;
      return m.getSource('basemap').tiles;
    });
    assert.deepEqual(tiles, [GOOD]);
    await page.locator('.monitor-map .map-view[data-basemap="ok"]').waitFor();
    await photograph('/fleet/monitor', 'mapsetting-monitor', '.monitor-map', true);
  });

  it('removes the plan after a confirmation: the maps no longer draw it', async () => {
    await openMenu('运营设置', '地图设置');
    await page.waitForURL(/\/operation\/map$/);
    const panel = page.locator('.fence-editor-panel');
    await panel.getByRole('button', { name: /删除平面图/ }).click();
    const pop = page.locator('.ant-popconfirm', { hasText: '确定删除场地平面图吗？' });
    await pop.waitFor();
    await pop.getByRole('button', { name: /删除平面图/ }).click();
    await expectToast('平面图已删除');
    await panel.getByTestId('plan-info').getByText('尚未上传平面图').waitFor();
    const removed = await setting();
    assert.equal(removed.hasPlan, false);
    assert.equal(removed.planSouth, null);
    assert.equal(removed.tileUrl, GOOD, 'the basemap stays');

    await openMenu('车辆管理', '实时监控');
    await page.locator('.monitor-map .map-view[data-siteplan="off"]').waitFor();
    // the basemap's tiles load: MapLibre draws them (made once a probe tile has loaded), without the plan
    await page.locator('.monitor-map .map-view[data-basemap="ok"][data-render="webgl"]').waitFor();
    assert.deepEqual(await planOnMap('.monitor-map'), { map: true, source: false });
    assert.deepEqual(pageErrors, []);
  });
});
