// The fleet pages against the real backend with a real JT/T 808 gateway and simulated terminals: register a vehicle
// (车辆管理 → 车辆档案), then watch the simulated fleet live (车辆管理 → 实时监控), draw a vehicle's track of today
// and ask its terminal for its parameters (a real command, answered by the simulated terminal), then find that command
// in the command log (车辆管理 → 指令记录) and cancel one that waits for its terminal. No basemap tile can load (as
// on a plant network without internet; the tile server is cut off here even where there is internet): the map says
// so and draws the fleet on a plain grid, fitted to the vehicles and clustered, with the legend of their colours.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, api, fleetWith, launchBrowser, newPage, shot, startBackend, tokenFor, ui } from './harness.mjs';

const F = '/api/blade-fics-report/fics/carInfo';
const CMD = '/api/liftdesk/command';
const SIMULATED = 4;
const NEW_CAR = 'E2E-前移-07';

let backend;
let browser;
let page;
let token;
const pageErrors = [];

const { confirm, expectToast, opened, settle, tabLabels, signInAsAdmin, openMenu } = ui(() => page);

/** Waits until the drawer has slid in (its motion classes are gone). */
async function drawerStill() {
  await page.waitForFunction(() => !document.querySelector('.ant-drawer [class*="-motion-"]'));
}

before(async () => {
  backend = await startBackend({ gateway: true, vehicles: SIMULATED, name: 'e2e-monitor' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  // the simulated terminals register, authenticate and report within seconds of the start
  const deadline = Date.now() + 60_000;
  for (;;) {
    const body = await api(backend.base, `${F}/getCarLastGPSInfo`, { method: 'POST', token, body: {} });
    if (body.code === 200 && body.data.filter((v) => v.online && v.lat !== null).length === SIMULATED) break;
    if (Date.now() > deadline) throw new Error(`the simulated fleet did not report: ${JSON.stringify(body)}\n${backend.logs.join('')}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
  await page.context().route(/^https:\/\/tile\.openstreetmap\.org\//, (route) => route.abort('internetdisconnected'));
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('fleet', () => {
  it('signs in and opens 车辆管理 → 车辆档案 with the simulated vehicles', async () => {
    await signInAsAdmin(backend.base);

    await openMenu('车辆管理', '车辆档案');
    await page.waitForURL(/\/fleet\/vehicle$/);
    for (const header of ['车辆简称', '设备号', '车辆类型', '车辆状态', '所属机构', '在线'])
      await page.locator('.ant-table-thead').getByText(header, { exact: true }).waitFor();
    await page.locator('.ant-table-row', { hasText: 'FL-001' }).waitFor();
    assert.equal(await page.locator('.ant-table-row').count(), SIMULATED);
    assert.deepEqual(await tabLabels(), ['首页', '车辆档案']);
  });

  it('registers a vehicle with its terminal, refusing a device number that is not digits', async () => {
    await page.locator('.crud-toolbar').getByRole('button', { name: /新\s*增/ }).click();
    const dialog = page.getByRole('dialog', { name: '新增车辆' });
    await opened(dialog);
    await dialog.getByLabel('车辆简称').fill(NEW_CAR);
    await dialog.getByLabel('设备号').fill('01391234AB');
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await dialog.getByText('设备号只能是 1 到 20 位数字').waitFor();
    await dialog.getByLabel('设备号').fill('013912340007');
    await dialog.getByLabel('额定载重 (kg)').fill('1800');
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast('保存成功');
    await page.locator('.ant-table-row', { hasText: NEW_CAR }).waitFor();
    await settle();
    await page.screenshot({ path: shot('vehicle-list') });

    const found = await api(backend.base, `${F}/page`, { token, params: { current: 1, size: 10, carNo: NEW_CAR } });
    const row = found.data.records.find((c) => c.carNo === NEW_CAR);
    assert.equal(row?.deviceNumber, '013912340007');
    assert.equal(row?.ratedLoadKg, 1800);

    // the same device number twice is refused with the server's message
    await page.locator('.crud-toolbar').getByRole('button', { name: /新\s*增/ }).click();
    await opened(dialog);
    await dialog.getByLabel('车辆简称').fill(`${NEW_CAR}-2`);
    await dialog.getByLabel('设备号').fill('013912340007');
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await expectToast(`已绑定车辆 ${NEW_CAR}`);
    await dialog.getByRole('button', { name: /取\s*消/ }).click();

    // a replaced terminal: the administrator releases the device number for the next registration
    const listed = page.locator('.ant-table-row', { hasText: NEW_CAR }).first();
    await listed.getByRole('button', { name: '释放终端' }).click();
    await confirm(`释放车辆 ${NEW_CAR} 的终端`);
    await expectToast('终端已释放');
  });

  it('shows the simulated fleet live on 实时监控, by state', async () => {
    await openMenu('车辆管理', '实时监控');
    await page.waitForURL(/\/fleet\/monitor$/);
    await page.getByTestId('feed-status').getByText('实时').waitFor();
    // the registered vehicle has reported nothing yet: the feed knows the four that have
    for (let i = 1; i <= SIMULATED; i += 1) await page.getByTestId(`vehicle-row-FL-00${i}`).waitFor();
    const all = page.locator('.monitor-filters label').first();
    assert.match(await all.innerText(), new RegExp(`全部\\s*${SIMULATED}`));
    // a tab's count and the rows it shows agree
    const moving = page.locator('.monitor-filters label', { hasText: '熄火' });
    const count = Number((await moving.innerText()).replace(/\D+/g, ''));
    await moving.click();
    await page.waitForFunction(
      (n) => document.querySelectorAll('.monitor-list .ant-table-row').length === n,
      count,
    );
    await all.click();
    await page.locator('.monitor-list .ant-table-row').nth(SIMULATED - 1).waitFor();
    await page.getByPlaceholder('车辆简称 / 设备号').fill('FL-002');
    await page.waitForFunction(() => document.querySelectorAll('.monitor-list .ant-table-row').length === 1);
    await page.getByPlaceholder('车辆简称 / 设备号').fill('');
    await page.locator('.monitor-map canvas.map-vehicles').waitFor();
    await page.waitForTimeout(1500); // two live updates: the ages in the list tick
    await page.screenshot({ path: shot('monitor') });
  });

  it('draws the fleet without basemap tiles: a note, a grid, the view fitted to the vehicles, clusters, a legend', async () => {
    const map = page.locator('.monitor-map .map-view');
    const note = page.getByTestId('basemap-note');
    await note.getByText('底图不可用', { exact: true }).waitFor();
    await note.getByText(/tile\.openstreetmap\.org/).waitFor();
    await note.getByRole('button', { name: /重\s*试/ }).waitFor();
    // it says what to do without internet, and where (closed once read: below)
    assert.equal(await note.getByTestId('basemap-note-setting').getAttribute('href'), '/operation/map');
    assert.equal(await map.getAttribute('data-basemap'), 'failed');
    await map.locator('.maplibregl-ctrl-scale').waitFor();
    const legend = page.getByTestId('vehicle-legend');
    for (const label of ['行驶', '负载', '空闲', '熄火', '离线', '报警']) await legend.getByText(label, { exact: true }).waitFor();

    // where the server says the vehicles are, and what the map draws (each vehicle a dot or counted in a cluster)
    const body = await api(backend.base, `${F}/getCarLastGPSInfo`, { method: 'POST', token, body: {} });
    const positions = body.data.filter((v) => v.lat !== null && v.lon !== null).map((v) => [v.lon, v.lat]);
    assert.equal(positions.length, SIMULATED);
    const drawn = () =>
      page.evaluate(() => {
        const element = document.querySelector('.monitor-map [data-testid="map"]');
        const m = element.mapCamera;
        const c = m.getCenter();
        const nw = m.unproject([0, 0]);
        const se = m.unproject([element.clientWidth, element.clientHeight]);
        return {
          markers: element.vehicleMarkers(),
          width: element.clientWidth,
          height: element.clientHeight,
          center: [c.lng, c.lat],
          view: [nw.lng, se.lat, se.lng, nw.lat],
          zoom: m.getZoom(),
          maplibre: Boolean(element.maplibreMap),
        };
      });
    await page.waitForFunction(
      (n) => {
        const markers = document.querySelector('.monitor-map [data-testid="map"]')?.vehicleMarkers?.() ?? [];
        return markers.reduce((a, m) => a + m.count, 0) === n;
      },
      SIMULATED,
    );
    // nothing for WebGL to draw: no MapLibre map at all (no WebGL context), the grid and the vehicles are 2D
    assert.equal(await map.getAttribute('data-render'), 'plain');
    assert.equal(await map.locator('canvas.maplibregl-canvas').count(), 0);
    assert.equal(await map.locator('.map-plain').isVisible(), true);
    assert.equal(await map.locator('canvas.map-vehicles').isVisible(), true);
    const seen = await drawn();
    assert.equal(seen.maplibre, false, 'no MapLibre map while the map draws only in 2D');
    assert.equal(seen.markers.reduce((n, m) => n + m.count, 0), SIMULATED, JSON.stringify(seen));
    // the view was fitted to the fleet: its centre within the vehicles' bounds, every vehicle in view and no marker
    // squeezed against the map's edge
    const [w, s, e, n] = [
      Math.min(...positions.map((p) => p[0])),
      Math.min(...positions.map((p) => p[1])),
      Math.max(...positions.map((p) => p[0])),
      Math.max(...positions.map((p) => p[1])),
    ];
    const slack = 0.01; // the vehicles move while the test runs
    assert.ok(seen.center[0] >= w - slack && seen.center[0] <= e + slack, `centre ${seen.center} in ${[w, s, e, n]}`);
    assert.ok(seen.center[1] >= s - slack && seen.center[1] <= n + slack, `centre ${seen.center} in ${[w, s, e, n]}`);
    for (const [lon, lat] of positions) {
      assert.ok(lon > seen.view[0] && lon < seen.view[2] && lat > seen.view[1] && lat < seen.view[3], `${lon},${lat} in view ${seen.view}`);
    }
    for (const marker of seen.markers) {
      assert.ok(marker.x > 20 && marker.x < seen.width - 20 && marker.y > 20 && marker.y < seen.height - 20, `marker ${JSON.stringify(marker)} off the edge of ${seen.width}×${seen.height}`);
    }
    assert.ok(seen.zoom <= 17, `zoom ${seen.zoom}`);

    // the same, as the eye sees it, on a laptop and on a phone
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.waitForTimeout(500); // the map follows its container's new size
    await settle();
    await page.screenshot({ path: shot('monitor-no-basemap-1280x720') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(500);
    await note.waitFor();
    await settle();
    await page.screenshot({ path: shot('monitor-no-basemap-390x844') });
    // once read, the note is closed for the session
    await note.getByRole('button', { name: '关闭提示' }).click();
    await note.waitFor({ state: 'hidden' });
    // back to the desktop: the shell folded its menu on the phone (and remembers it); unfold it for what follows
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.waitForTimeout(500);
    if (!(await page.locator('.app-sider').getByText('车辆管理', { exact: true }).isVisible()))
      await page.getByRole('button', { name: '展开/收起菜单' }).click();
    await page.locator('.app-sider').getByText('车辆管理', { exact: true }).waitFor();

    // the plain camera's gestures: a drag moves the map with the pointer (the place grabbed stays under it), the
    // wheel zooms in; once the menu's unfolding has ended (the map's element moves and narrows while it runs)
    let box = null;
    for (let stable = 0; stable < 3; ) {
      const next = await page.locator('.monitor-map [data-testid="map"]').boundingBox();
      stable = box && next.x === box.x && next.width === box.width ? stable + 1 : 0;
      box = next;
      await page.waitForTimeout(100);
    }
    const camera = (what, arg) =>
      page.evaluate(
        ([w, a]) => {
          const m = document.querySelector('.monitor-map [data-testid="map"]').mapCamera;
          if (w === 'zoom') return m.getZoom();
          if (w === 'unproject') return ((p) => [p.lng, p.lat])(m.unproject(a));
          return ((p) => [p.x, p.y])(m.project(a));
        },
        [what, arg],
      );
    const from = [box.width / 2 + 13, box.height / 2 + 17];
    const grabbed = await camera('unproject', from);
    const zoomBefore = await camera('zoom');
    await page.mouse.move(box.x + from[0], box.y + from[1]);
    await page.mouse.down();
    await page.mouse.move(box.x + from[0] + 40, box.y + from[1] + 20, { steps: 4 });
    await page.mouse.move(box.x + from[0] + 80, box.y + from[1] + 40, { steps: 4 });
    await page.mouse.up();
    // where the pointer is now, on the map's element (which may have moved meanwhile: the list beside it grows)
    const boxNow = await page.locator('.monitor-map [data-testid="map"]').boundingBox();
    const pointer = [box.x + from[0] + 80 - boxNow.x, box.y + from[1] + 40 - boxNow.y];
    const now = await camera('project', grabbed);
    assert.ok(Math.abs(now[0] - pointer[0]) < 1.5 && Math.abs(now[1] - pointer[1]) < 1.5, `the grabbed place follows the pointer: ${now} for ${pointer}`);
    assert.equal(await camera('zoom'), zoomBefore, 'a drag does not zoom');
    await page.mouse.wheel(0, -450);
    await page.waitForFunction((z) => document.querySelector('.monitor-map [data-testid="map"]').mapCamera.getZoom() > z + 0.5, zoomBefore);
    // and back where it was: the wheel out at the same place, the drag back
    await page.mouse.wheel(0, 450);
    await page.waitForFunction((z) => Math.abs(document.querySelector('.monitor-map [data-testid="map"]').mapCamera.getZoom() - z) < 1e-6, zoomBefore);
    await page.mouse.down();
    await page.mouse.move(box.x + from[0], box.y + from[1], { steps: 8 });
    await page.mouse.up();
    const boxBack = await page.locator('.monitor-map [data-testid="map"]').boundingBox();
    const start = [box.x + from[0] - boxBack.x, box.y + from[1] - boxBack.y];
    const back = await camera('project', grabbed);
    assert.ok(Math.abs(back[0] - start[0]) < 1.5 && Math.abs(back[1] - start[1]) < 1.5, `back where it was: ${back} for ${start}`);

    // the overlay's own hit test: a click on a cluster zooms into it, a click on a vehicle opens its card
    let clickedVehicle = false;
    const tried = [];
    for (let i = 0; i < 8 && !clickedVehicle; i += 1) {
      const { markers, width, height, zoom } = await drawn();
      tried.push({ zoom, markers: markers.map((m) => `${m.kind}:${m.count}@${Math.round(m.x)},${Math.round(m.y)}`) });
      const single = markers.find((m) => m.kind === 'vehicle' && m.x > 30 && m.x < width - 30 && m.y > 30 && m.y < height - 30);
      const target = single ?? markers.find((m) => m.kind === 'cluster');
      assert.ok(target, `a marker to click: ${JSON.stringify(markers)}`);
      await page.mouse.click(box.x + target.x, box.y + target.y);
      if (single) clickedVehicle = true;
      else await page.waitForTimeout(900); // the zoom into the cluster
    }
    assert.ok(clickedVehicle, `clusters fell apart into vehicles: ${JSON.stringify(tried)}`);
    const card = page.getByTestId('vehicle-card');
    await card.getByText('设备号').waitFor();
    await card.getByRole('button', { name: '关闭' }).click();
    await card.waitFor({ state: 'detached' });
  });

  it('opens a vehicle, draws its track of today and asks its terminal for its parameters', async () => {
    await page.getByTestId('vehicle-row-FL-001').click();
    const card = page.getByTestId('vehicle-card');
    await card.getByText('FL-001', { exact: true }).waitFor();
    await card.getByText('设备号').waitFor();
    await card.getByRole('button', { name: /今日轨迹/ }).click();
    await card.getByText(/今日 \d+ 个轨迹点/).waitFor();
    // the track is a WebGL line: the map draws with WebGL while it shows
    await page.locator('.monitor-map .map-view[data-render="webgl"]').waitFor();
    const points = Number((await card.getByText(/今日 \d+ 个轨迹点/).innerText()).replace(/\D+/g, ''));
    assert.ok(points >= 1, `the track has positions: ${points}`);
    await page.screenshot({ path: shot('monitor-track') });

    await card.getByRole('button', { name: /查询参数/ }).click();
    const dialog = page.getByRole('dialog', { name: 'FL-001 的终端参数' });
    await opened(dialog);
    // the answer of the simulated terminal: its heartbeat interval and our vendor parameters
    await dialog.getByText('心跳间隔 (秒)').waitFor({ timeout: 20_000 });
    await dialog.getByText('锁车等级').waitFor();
    await settle();
    await page.screenshot({ path: shot('monitor-parameters') });
    await dialog.locator('.ant-modal-footer').getByRole('button', { name: /关\s*闭/ }).click();
    await dialog.waitFor({ state: 'hidden' });

    await card.getByRole('button', { name: '关闭' }).click();
    await card.waitFor({ state: 'detached' });
    // its track gone, the map has nothing for WebGL to draw again
    await page.locator('.monitor-map .map-view[data-render="plain"]').waitFor();
  });

  it('lists that parameter query on 指令记录, shows its answer and cancels a queued command', async () => {
    // a command for the vehicle registered above, whose terminal never connected: it waits in the queue
    const found = await api(backend.base, `${F}/page`, { token, params: { current: 1, size: 10, carNo: NEW_CAR } });
    const carId = found.data.records.find((c) => c.carNo === NEW_CAR).id;
    const queued = await api(backend.base, `${CMD}/send`, {
      method: 'POST',
      token,
      body: { carIds: [carId], name: 'text', payload: { text: '请减速慢行' }, wait: 0 },
    });
    assert.equal(queued.data?.[0]?.status, 'pending', JSON.stringify(queued));

    await openMenu('车辆管理', '指令记录');
    await page.waitForURL(/\/fleet\/command$/);
    for (const header of ['发起时间', '车辆简称', '指令', '状态', '发送次数', '发送人', '结果'])
      await page.locator('.ant-table-thead').getByText(header, { exact: true }).waitFor();
    // the query of the previous test: acknowledged, sent by the administrator, with the parameters it returned
    const query = page.locator('.ant-table-row', { hasText: '查询全部参数' }).filter({ hasText: 'FL-001' });
    await query.waitFor();
    assert.equal(await query.count(), 1);
    await query.locator('.ant-tag', { hasText: '已应答' }).waitFor();
    await query.getByText('管理员', { exact: true }).waitFor();
    await query.getByText(/返回 \d+ 个参数/).waitFor();
    const text = page.locator('.ant-table-row', { hasText: NEW_CAR });
    await text.locator('.ant-tag', { hasText: '待发送' }).waitFor();
    await text.getByText('文本信息', { exact: true }).waitFor();
    // what the platform asked by itself (the terminals' attributes after they connected) has no user
    await page.locator('.ant-table-row', { hasText: '查询终端属性' }).filter({ hasText: '平台自动' }).first().waitFor();
    // read-only: commands are not added, edited or deleted here
    const toolbar = page.locator('.crud-toolbar');
    assert.equal(await toolbar.getByRole('button', { name: /新\s*增|删\s*除/ }).count(), 0);
    assert.equal(await query.getByRole('button', { name: /编\s*辑|删\s*除/ }).count(), 0);
    await toolbar.getByRole('button', { name: '取消指令' }).waitFor();
    await settle();
    await page.screenshot({ path: shot('command-log') });

    // its detail: the terminal's answer as readable JSON
    await query.getByRole('button', { name: /查\s*看/ }).click();
    const drawer = page.getByRole('dialog', { name: '指令记录详情' });
    await drawer.getByText('终端应答', { exact: true }).waitFor();
    await drawer.locator('pre.command-json', { hasText: '"heartbeat_interval"' }).waitFor();
    await drawer.getByText('0x8104', { exact: true }).waitFor();
    await drawerStill();
    await settle();
    await page.screenshot({ path: shot('command-log-detail') });
    await drawer.locator('.ant-drawer-close').click();
    await drawer.waitFor({ state: 'hidden' });

    // by vehicle number: only the queued command; cancel it
    const search = page.locator('.crud-search');
    await search.getByPlaceholder('请输入车辆简称').fill(NEW_CAR);
    await search.getByRole('button', { name: /搜\s*索/ }).click();
    await page.waitForFunction(() => document.querySelectorAll('.ant-table-tbody .ant-table-row').length === 1);
    await text.getByRole('checkbox').check();
    await toolbar.getByRole('button', { name: '取消指令' }).click();
    await confirm('确定取消选中的 1 条待发送指令?');
    await expectToast('已取消 1 条指令');
    await text.locator('.ant-tag', { hasText: '已取消' }).waitFor();
    const after = await api(backend.base, `${CMD}/detail`, { token, params: { id: queued.data[0].id } });
    assert.equal(after.data.status, 'cancelled');
  });

  it('opens 实时报警 with the vehicles in alarm now; a line opens its vehicle, with the keyboard as with the mouse', async () => {
    // a vehicle whose battery is low now (an alarm in progress, from its last report through the HTTP ingest)
    const carNo = 'E2E-低压-01';
    const device = '013912340099';
    const { cars } = await fleetWith(backend.base, token, {
      vehicles: [{ carNo, deviceNumber: device }],
      fixes: { [device]: [{ time: Date.now() - 5_000, lat: 31.2, lon: 121.5, status: 3, battery: { socPct: 30, voltageV: 40 } }] },
    });
    // a fresh load of the page: the list opens with it, not only once an alarm comes while the page is open
    await page.goto(`${backend.base}/fleet/monitor`);
    const line = page.getByTestId('alarm-entry').filter({ hasText: carNo });
    await line.waitFor();
    assert.match(await line.innerText(), /电池低压/);
    assert.equal(await line.locator('[title="打开页面时已在报警"]').count(), 1, 'the line says the alarm was in progress when the page opened');

    const card = page.getByTestId('vehicle-card');
    await line.focus();
    await page.keyboard.press('Enter');
    await card.getByText(carNo, { exact: true }).waitFor();
    await card.getByRole('button', { name: '关闭' }).click();
    await card.waitFor({ state: 'detached' });
    await line.click();
    await card.getByText(carNo, { exact: true }).waitFor();
    // the map goes to it: its own marker, in the middle of the map once the flight ends
    const id = String(cars[carNo].id);
    const centred = await page
      .waitForFunction(
        (vehicle) => {
          const element = document.querySelector('.monitor-map [data-testid="map"]');
          const marker = element?.vehicleMarkers?.().find((m) => m.kind === 'vehicle' && m.id === vehicle);
          return !!marker && Math.abs(marker.x - element.clientWidth / 2) < 5 && Math.abs(marker.y - element.clientHeight / 2) < 5;
        },
        id,
        { timeout: 10_000 },
      )
      .then(() => true, () => false);
    const markers = await page.evaluate(() => document.querySelector('.monitor-map [data-testid="map"]')?.vehicleMarkers?.());
    assert.ok(centred, `vehicle ${id} drawn in the middle of the map: ${JSON.stringify(markers)}`);
    await page.screenshot({ path: shot('monitor-alarm-line') });
  });

  it('raised no uncaught page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
