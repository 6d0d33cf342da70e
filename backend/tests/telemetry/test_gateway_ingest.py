"""HTTP ingest (``POST /api/liftdesk/ingest``) on the real app, real databases, real pipeline."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_gateway import add_vehicle, positions

from liftdesk.app import create_app
from liftdesk.core.bus import LocalBus
from liftdesk.core.config import Settings
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, own_organisation_user

T0 = datetime(2026, 3, 2, 1, 0, tzinfo=UTC)
URL = "/api/liftdesk/ingest"


@pytest.fixture(scope="module")
async def ingest(api: Api, database: tuple[str, str], tmp_root: Path) -> AsyncIterator[httpx.AsyncClient]:
    _, url = database
    settings = Settings(database_url=url, env="test", web_dir=tmp_root / "no-web", var_dir=tmp_root / "var")
    app = create_app(settings, db=api.db)
    pipeline = Pipeline(api.db, LocalBus())
    app.state.services.add(pipeline)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        yield client
    await pipeline.stop()


def fix(seconds: int, **kw: Any) -> dict[str, Any]:
    return {"time": (T0 + timedelta(seconds=seconds)).isoformat(), "lat": 31.2, "lon": 121.5, **kw}


async def test_ingest_stores_the_fixes_of_the_callers_terminals(api: Api, ingest: httpx.AsyncClient) -> None:
    headers = await api.headers()
    vid, device = await add_vehicle(api.db)
    vid2, device2 = await add_vehicle(api.db)
    r = await ingest.post(URL, json={"device": device, "fixes": [fix(0, speed=3, loadKg=500), fix(5)]}, headers=headers)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["success"] is True and body["data"] == {"reports": 1, "fixes": 2}
    rows = await positions(api.db, vid)
    assert [(p.speed, p.load_kg) for p in rows] == [(3.0, 500.0), (0.0, None)]

    many = [{"device": device, "fixes": [fix(10)]}, {"device": device2, "fixes": [fix(0), fix(1)], "backfill": True}]
    r = await ingest.post(URL, json=many, headers=headers)
    assert r.status_code == 200 and r.json()["data"] == {"reports": 2, "fixes": 3}
    assert len(await positions(api.db, vid)) == 3 and len(await positions(api.db, vid2)) == 2


async def test_ingest_takes_can_uploads_into_the_can_history(api: Api, ingest: httpx.AsyncClient) -> None:
    """CAN uploads (as MQTT's ``can``) after the fixes: each a sample of the decoded CAN history, dated on arrival;
    an id over 29 bits is a 400 naming the field, and nothing of the request is stored."""
    from sqlalchemy import select

    from liftdesk.telemetry.models import CanSample

    headers = await api.headers()
    vid, device = await add_vehicle(api.db)
    uploads = [
        {"frames": [{"id": "18FEF200", "data": "2C01FFFFFFFFFFFF"}, {"id": "CF00400", "data": "FFFF7D401FFFFFFF"}]}
    ]
    uploads.append({"frames": [{"id": "18FEF217", "data": "5802FFFFFFFFFFFF", "channel": 1}]})
    r = await ingest.post(URL, json={"device": device, "fixes": [fix(0)], "can": uploads}, headers=headers)
    assert r.status_code == 200 and r.json()["data"] == {"reports": 1, "fixes": 1}, r.text
    async with api.db.sessionmaker() as s:
        rows = (
            (await s.execute(select(CanSample).where(CanSample.vehicle_id == vid).order_by(CanSample.sample_time)))
            .scalars()
            .all()
        )
    assert [(x.fuel_lph, x.engine_rpm) for x in rows] == [(15.0, 1000.0), (30.0, None)]
    big = {"device": device, "fixes": [fix(1)], "can": [{"frames": [{"id": "3FFFFFFF", "data": "00"}]}]}
    r = await ingest.post(URL, json=big, headers=headers)
    assert r.status_code == 400 and "id" in r.json()["msg"], r.text
    assert len(await positions(api.db, vid)) == 1


async def test_ingest_refuses_other_tenants_devices_and_unknown_ones(api: Api, ingest: httpx.AsyncClient) -> None:
    headers = await api.headers()
    _, mine = await add_vehicle(api.db)
    vid_other, other = await add_vehicle(api.db, tenant="777777")
    for devices in ([other], [mine, other], ["000000000000"]):
        body = [{"device": d, "fixes": [fix(0)]} for d in devices]
        r = await ingest.post(URL, json=body, headers=headers)
        assert r.status_code == 403 and r.json()["success"] is False
    assert await positions(api.db, vid_other) == []


@pytest.mark.parametrize(
    "body",
    [
        {"device": "x", "fixes": []},
        {"device": "x", "fixes": [{"time": "yesterday", "lat": 1, "lon": 1}]},
        {"device": "x", "fixes": [{"time": "2026-03-02T01:00:00Z", "lat": 91, "lon": 1}]},
        {"fixes": [{"time": "2026-03-02T01:00:00Z", "lat": 1, "lon": 1}]},
        [],
        {"device": "x", "fixes": [{"time": "2026-03-02T01:00:00Z", "lat": 1, "lon": 1}], "can": [{"frames": []}]},
        {
            "device": "x",
            "fixes": [{"time": "2026-03-02T01:00:00Z", "lat": 1, "lon": 1}],
            "can": [{"frames": [{"id": "18FEF2", "data": "0G"}]}],
        },
    ],
)
async def test_ingest_validates_the_body(api: Api, ingest: httpx.AsyncClient, body: Any) -> None:
    r = await ingest.post(URL, json=body, headers=await api.headers())
    assert r.status_code == 400 and r.json()["success"] is False


async def test_ingest_needs_a_token(ingest: httpx.AsyncClient) -> None:
    r = await ingest.post(URL, json={"device": "x", "fixes": [fix(0)]})
    assert r.status_code == 401


async def test_ingest_needs_the_vehicles_edit_permission(api: Api, ingest: httpx.AsyncClient, driver: str) -> None:
    """A user of the tenant granted nothing (an ordinary driver) may not write a vehicle's telemetry."""
    vid, device = await add_vehicle(api.db)
    headers = await api.headers(driver, password="driver-1")
    r = await ingest.post(URL, json={"device": device, "fixes": [fix(0)]}, headers=headers)
    assert r.status_code == 403 and r.json()["success"] is False, r.text
    assert await positions(api.db, vid) == []


async def test_ingest_follows_the_vehicle_data_scope(api: Api, ingest: httpx.AsyncClient) -> None:
    """A user whose data scope is their own organisation writes telemetry for its vehicles only."""
    depts = (await api.get("/api/blade-system/dept/list"))["data"][0]
    east, south = depts["children"][0]["id"], depts["children"][1]["id"]
    cars = {}
    for dept in (east, south):
        device = f"{abs(hash(api.unique())) % 10**12:012d}"
        car = await api.post(
            "/api/blade-fics-report/fics/carInfo/insertCarInfo",
            json={"carNo": api.unique("IN-"), "deviceNumber": device, "mechanismId": dept},
        )
        assert car["code"] == 200, car
        cars[dept] = device
    async with own_organisation_user(api, east, buttons=("ingest_post",)) as user:
        headers = await api.headers(user["who"], password=user["password"])
        theirs = await ingest.post(URL, json={"device": cars[south], "fixes": [fix(0)]}, headers=headers)
        assert theirs.status_code == 403, theirs.text
        mine = await ingest.post(URL, json={"device": cars[east], "fixes": [fix(0)]}, headers=headers)
        assert mine.status_code == 200, mine.text


async def test_one_request_carries_at_most_5000_fixes(api: Api, ingest: httpx.AsyncClient) -> None:
    """Security finding 9: 100,000 fixes in one request (2.5 million were allowed) held the server for seconds."""
    headers = await api.headers()
    vid, device = await add_vehicle(api.db)
    reports = [{"device": device, "fixes": [fix(i * 11 + j) for j in range(11)]} for i in range(500)]
    r = await ingest.post(URL, json=reports, headers=headers)
    assert r.status_code == 400 and r.json()["msg"] == "fixes 一次最多 5000 条", r.text
    assert await positions(api.db, vid) == [], "nothing of a refused request is stored"
