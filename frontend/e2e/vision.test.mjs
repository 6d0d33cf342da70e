// 司机行为 against the real backend: a vehicle's driver camera reports, through the telemetry pipeline, three face
// comparisons (a match naming the driver whose card it was, a mismatch, no face) and five behaviour alarms over two
// days; then 人脸识别记录 lists the comparisons with the driver, result and similarity and finds the mismatch by its
// result, and 司机行为分析 shows the counts by type and the daily trend (two ECharts charts) as the API answers them.
// Both pages are photographed at 1280 and 390 wide (var/e2e/vision-<page>-<width>.png).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, OUT, REPO, api, launchBrowser, newPage, photographAt, startBackend, tokenFor, ui } from './harness.mjs';

const F = '/api/blade-fics-report/fics';
const BEHAVIOR = '/api/blade-fics/fics/driverBehaviorAnalysis';
const PYTHON = join(REPO, '.venv', 'bin', 'python');
const DB = join(OUT, 'e2e-vision.db');
const env = { ...process.env, PYTHONPATH: join(REPO, 'backend'), LIFTDESK_DATABASE_URL: `sqlite+aiosqlite:///${DB}` };
const CAR = 'E2E-VIS-01';
const DEVICE = '013900003301';
const DRIVER = '王摄像';

let backend;
let browser;
let page;
let token;
const pageErrors = [];
const { signInAsAdmin, openMenu } = ui(() => page);

/** Yesterday in the tenant zone (UTC+8), yyyy-MM-dd. */
const yesterday = new Date(Date.now() + 8 * 3_600_000 - 86_400_000).toISOString().slice(0, 10);

/** What the vehicle's driver camera sent, through the pipeline (the gateway's path is tested in the backend suite). */
function cameraReports(carId) {
  const code = `
import asyncio, sys
from datetime import datetime, timedelta
from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Driver, DriverCar, DriverCard
from liftdesk.telemetry.messages import Behavior, FaceSeen, Report
from liftdesk.telemetry.pipeline import Pipeline
async def main():
    db = Database()
    car, device, day = int(sys.argv[1]), sys.argv[2], datetime.fromisoformat(sys.argv[3])
    t0 = day - timedelta(hours=8) + timedelta(hours=9)  # 09:00 local
    driver = next_id()
    async with db.sessionmaker() as s:
        s.add(Driver(id=driver, tenant_id="000000", name=sys.argv[4], phone="13800000001"))
        s.add(DriverCard(id=next_id(), tenant_id="000000", driver_id=driver, card_number="C1", serial_number="0012345678"))
        s.add(DriverCar(tenant_id="000000", driver_id=driver, vehicle_id=car))
        await s.commit()
    seen = (
        FaceSeen(t0, 0, 97.0, "0012345678", 2, "face/e2e-1.jpg"),
        FaceSeen(t0 + timedelta(minutes=5), 1, 38.5, None, 1, "face/e2e-2.jpg"),
        FaceSeen(t0 + timedelta(days=1), 2, None, None, 0, None),
        Behavior(t0, "dms_fatigue"),
        Behavior(t0 + timedelta(minutes=1), "dms_phone", 2),
        Behavior(t0 + timedelta(minutes=2), "dms_phone"),
        Behavior(t0 + timedelta(days=1), "dms_smoking"),
        Behavior(t0 + timedelta(days=1, minutes=3), "dms_distraction"),
    )
    await Pipeline(db, LocalBus()).process([Report(device, (), t0, vision=seen)])
    await db.dispose()
asyncio.run(main())
`;
  const done = spawnSync(PYTHON, ['-c', code, carId, DEVICE, yesterday, DRIVER], { env, encoding: 'utf8' });
  assert.equal(done.status, 0, done.stderr);
}

async function call(path, { body, params } = {}) {
  const r = await api(backend.base, path, body ? { method: 'POST', token, body } : { token, params });
  assert.equal(r.code, 200, `${path}: ${JSON.stringify(r)}`);
  return r.data;
}

/** Photographs `path` at 1280 and 390 px (harness `photographAt`). */
const photograph = (path, name, ready) => photographAt(page, `${backend.base}${path}`, `vision-${name}`, ready);

before(async () => {
  backend = await startBackend({ name: 'e2e-vision' });
  token = await tokenFor(backend.base, 'admin', ADMIN_PASSWORD);
  const car = await call(`${F}/carInfo/insertCarInfo`, { body: { carNo: CAR, deviceNumber: DEVICE, carType: 4 } });
  cameraReports(car.id);
  browser = await launchBrowser();
  page = await newPage(browser, pageErrors);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe('driver behaviour', () => {
  it('lists the face comparisons and finds the mismatch by its result', async () => {
    await signInAsAdmin(backend.base);
    await openMenu('司机管理', '人脸识别记录');
    const rows = page.locator('.ant-table-row:visible');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 3);
    const matched = rows.filter({ hasText: '匹配' }).filter({ hasText: DRIVER });
    await matched.first().waitFor();
    assert.match(await matched.first().innerText(), /97\.0 %/);
    assert.match(await matched.first().innerText(), /刷卡/);
    // the result filter: 不匹配 only
    const search = page.locator('.crud-search');
    await search.getByLabel('识别结果').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: /^不匹配$/ }).click();
    await search.getByRole('button', { name: /搜\s*索/ }).click();
    await page.waitForFunction(() => [...document.querySelectorAll('.ant-table-row')].filter((r) => r.offsetParent).length === 1);
    assert.match(await rows.first().innerText(), /不匹配/);
    assert.match(await rows.first().innerText(), /38\.5 %/);
    const api = await call('/api/blade-fics/faceRecognitionLog/page', { params: { result: 1 } });
    assert.equal(api.total, 1);
    await photograph('/vision/face', 'face', '.ant-table-row');
  });

  it('shows the alarms by type and per day as the API counts them', async () => {
    await openMenu('司机管理', '司机行为分析');
    const counts = page.getByTestId('behavior-counts');
    await counts.locator('[data-type="phone"]').waitFor();
    const expected = await call(`${BEHAVIOR}/getFaceAlarmTypeCount`, { body: {} });
    for (const c of expected) {
      assert.match(await counts.locator(`[data-type="${c.type}"]`).innerText(), new RegExp(`${c.typeName}\\s*${c.count}`));
    }
    assert.deepEqual(
      Object.fromEntries(expected.filter((c) => c.count).map((c) => [c.type, c.count])),
      { fatigue: 1, phone: 2, smoking: 1, distraction: 1 },
    );
    assert.equal((await page.getByTestId('behavior-total').innerText()).trim(), '5');
    await page.getByTestId('behavior-counts-chart').locator('canvas').waitFor();
    await page.getByTestId('behavior-trend-chart').locator('canvas').waitFor();
    const trend = await call(`${BEHAVIOR}/getFaceAlarmTypeCountTrend`, { body: {} });
    assert.equal(trend.length, 7, 'the default range: the last seven days');
    assert.equal(trend.find((d) => d.day === yesterday)?.total, 3);
    // the server's range rules, in the user's language
    const refused = await api(backend.base, `${BEHAVIOR}/getFaceAlarmTypeCount`, {
      method: 'POST',
      token,
      body: { startTime: '2026-01-01', endTime: '2026-03-01' },
    });
    assert.equal(refused.code, 400);
    assert.match(refused.msg, /startTime\/endTime/);
    await photograph('/vision/behavior', 'behavior', '[data-testid="behavior-trend-chart"] canvas');
    assert.deepEqual(pageErrors, []);
  });
});
