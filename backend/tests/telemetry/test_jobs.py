"""Scheduled jobs: offline detection (opened once, closed by the next report) and retention."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlalchemy import select, text, update

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.jobs import apply_retention, mark_offline
from liftdesk.telemetry.messages import Fix, Report
from liftdesk.telemetry.models import Event, VehicleState
from liftdesk.telemetry.pipeline import Pipeline


async def test_offline_for_seven_days_opens_one_alarm_until_the_vehicle_reports(db: Database) -> None:
    device = f"{next_id() % 10**12:012d}"
    car = Vehicle(tenant_id="000000", car_no="OFF-1", device_number=device)
    async with db.sessionmaker() as s:
        s.add(car)
        await s.commit()
    long_ago = utcnow() - timedelta(days=9)
    p = Pipeline(db, LocalBus())
    await p.process([Report(device, (Fix(time=long_ago, lat=31.2, lon=121.5),), long_ago)])
    async with db.sessionmaker() as s:
        await s.execute(update(VehicleState).where(VehicleState.vehicle_id == car.id).values(last_seen=long_ago))
        await s.commit()
    assert await mark_offline(db) >= 1
    assert await mark_offline(db) == 0, "one alarm per silence"
    fresh = Pipeline(db, LocalBus())  # the restarted pipeline picks the open alarm up from the stored state
    now = utcnow().replace(microsecond=0)
    await fresh.process([Report(device, (Fix(time=now, lat=31.2, lon=121.5),), now)])
    async with db.sessionmaker() as s:
        [ev] = (await s.execute(select(Event).where(Event.vehicle_id == car.id))).scalars().all()
    assert ev.kind == "offline" and ev.end_time == now


async def test_retention_drops_whole_months(db: Database, database: tuple[str, str]) -> None:
    if database[0] != "postgresql":
        assert await apply_retention(db) == [], "SQLite keeps no partitions to drop"
        return
    device = f"{next_id() % 10**12:012d}"
    car = Vehicle(tenant_id="000000", car_no="RET-1", device_number=device)
    async with db.sessionmaker() as s:
        s.add(car)
        await s.commit()
    p = Pipeline(db, LocalBus())
    old = datetime(2024, 1, 15)
    await p.process([Report(device, (Fix(time=old, lat=31.2, lon=121.5),), old)])
    dropped = await apply_retention(db, today=date(2026, 1, 10))
    assert "fics_position_t000000_202401" in dropped
    async with db.sessionmaker() as s:
        left = (
            await s.execute(text("SELECT count(*) FROM fics_position WHERE vehicle_id = :v"), {"v": car.id})
        ).scalar_one()
    assert left == 0
