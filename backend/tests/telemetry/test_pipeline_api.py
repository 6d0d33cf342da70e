"""The pipeline seen through the HTTP API of a real app: ingest of an unbound terminal, thresholds that follow the
settings pages without a restart, and a track without the fixes that had no GNSS position."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from liftdesk.app import create_app
from liftdesk.core.bus import LocalBus
from liftdesk.core.config import Settings
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.messages import Fix, Report
from liftdesk.telemetry.models import Event, Position, Terminal
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api

T0 = datetime(2026, 4, 7, 2, 0, 0)  # 10:00 in the tenant zone (UTC+8)
SYS = "/api/blade-system"


@pytest.fixture(scope="module")
async def served(api: Api, database: tuple[str, str], tmp_root: Path) -> AsyncIterator[tuple[FastAPI, Api]]:
    """An app of its own (its pipeline, bus and their subscriptions as a server wires them) and a client on it
    that signs in like ``api``."""
    settings = Settings(database_url=database[1], env="test", web_dir=tmp_root / "no-web", var_dir=tmp_root / "var")
    app = create_app(settings, db=api.db)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        yield app, Api(client=client, db=api.db, backend=api.backend, tokens=api.tokens)
    await app.state.services.get(Pipeline).stop()


async def add_vehicle(api: Api, **columns: Any) -> tuple[int, str]:
    device = f"{next_id() % 10**12:012d}"
    car = Vehicle(tenant_id="000000", car_no=f"A-{device[-5:]}", device_number=device, **columns)
    async with api.db.sessionmaker() as s:
        s.add(car)
        await s.commit()
    return car.id, device


def at(sec: float, **kw: Any) -> Fix:
    return Fix(time=T0 + timedelta(seconds=sec), **{"lat": 31.2, "lon": 121.5, **kw})


async def kinds_and_limits(api: Api, vid: int) -> list[tuple[str, float | None]]:
    async with api.db.sessionmaker() as s:
        rows = await s.execute(
            select(Event.kind, Event.limit_value).where(Event.vehicle_id == vid).order_by(Event.begin_time)
        )
        return [(k, v) for k, v in rows.all()]


async def test_ingest_refuses_a_terminal_bound_to_no_vehicle(served: tuple[FastAPI, Api]) -> None:
    """Its fixes have nowhere to go: 400 naming the device, not an acknowledgement; the request's other device's
    fixes are stored (a re-send is harmless)."""
    _, client = served
    vid, device = await add_vehicle(client)
    unbound = f"{next_id() % 10**12:012d}"
    async with client.db.sessionmaker() as s:
        s.add(Terminal(tenant_id="000000", device_number=unbound, vehicle_id=None))
        await s.commit()
    fixes = [{"time": T0.isoformat() + "Z", "lat": 31.2, "lon": 121.5}]
    body = [{"device": device, "fixes": fixes}, {"device": unbound, "fixes": fixes}]
    r = await client.client.post("/api/liftdesk/ingest", json=body, headers=await client.headers(lang="en-GB,en;q=0.9"))
    assert r.status_code == 400, r.text
    answer = r.json()
    assert answer["code"] == 400 and answer["success"] is False
    assert answer["msg"] == f"device: the terminal is bound to no vehicle, its data was not stored: {unbound}"
    async with client.db.sessionmaker() as s:
        stored = (await s.execute(select(Position.vehicle_id).where(Position.vehicle_id == vid))).scalars().all()
    assert stored == [vid]


async def test_thresholds_follow_the_settings_pages(served: tuple[FastAPI, Api]) -> None:
    """The pipeline caches thresholds per tenant; saving the tenant's ``telemetry_threshold`` dictionary or a
    ``telemetry.*`` parameter drops what it cached (a bus message after the commit), no restart needed."""
    app, client = served
    pipeline: Pipeline = app.state.services.get(Pipeline)
    vid, device = await add_vehicle(client)
    await pipeline.submit(Report(device, (at(0, speed_kmh=7.0), at(10, speed_kmh=3.0)), T0))
    assert await kinds_and_limits(client, vid) == [], "7 km/h is below the default 12 km/h"
    root = await client.post(
        f"{SYS}/dict-biz/submit",
        json={"parentId": 0, "code": "telemetry_threshold", "dictKey": "-1", "dictValue": "Thresholds", "sort": 1},
    )
    assert root["code"] == 200, root
    entry = await client.post(
        f"{SYS}/dict-biz/submit",
        json={
            "parentId": root["data"]["id"],
            "code": "telemetry_threshold",
            "dictKey": "telemetry.speedLimitKmh",
            "dictValue": "5",
            "sort": 1,
        },
    )
    param = await client.post(
        f"{SYS}/param/submit",
        json={"paramName": "Collision threshold", "paramKey": "telemetry.collisionG", "paramValue": "6"},
    )
    try:
        assert entry["code"] == 200 and param["code"] == 200, (entry, param)
        await pipeline.submit(Report(device, (at(20, speed_kmh=7.0), at(30, speed_kmh=3.0, impact_g=4.0)), T0))
        assert await kinds_and_limits(client, vid) == [("speeding", 5.0)], "the tenant's 5 km/h; 4 g < 6 g"
    finally:
        removed = await client.post(f"{SYS}/dict-biz/remove?ids={entry['data']['id']},{root['data']['id']}")
        dropped = await client.post(f"{SYS}/param/remove?ids={param['data']['id']}")
    assert removed["code"] == 200 and dropped["code"] == 200, (removed, dropped)
    await pipeline.submit(Report(device, (at(40, speed_kmh=7.0), at(50, speed_kmh=3.0, impact_g=4.0)), T0))
    assert await kinds_and_limits(client, vid) == [("speeding", 5.0), ("collision", 1.5)], "defaults again"


async def test_the_track_leaves_out_fixes_without_gnss(served: tuple[FastAPI, Api]) -> None:
    _, client = served
    vid, device = await add_vehicle(client)
    no_fix = at(10, lat=0.0, lon=0.0, status=1)  # ACC on, status bit 1 clear: the terminal's coordinates are garbage
    await Pipeline(client.db, LocalBus()).process([Report(device, (at(0), no_fix, at(20)), T0)])
    r = await client.get(
        "/api/blade-fics-report/fics/positionTrailing/positionTrailing",
        params={"carId": str(vid), "beginTime": "2026-04-07 09:00:00", "endTime": "2026-04-07 11:00:00"},
    )
    assert r["code"] == 200, r
    points = r["data"]["points"]
    assert [(p["lat"], p["lon"]) for p in points] == [(31.2, 121.5), (31.2, 121.5)] and r["data"]["count"] == 2
