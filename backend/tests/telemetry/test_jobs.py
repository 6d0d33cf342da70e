"""Scheduled jobs with the pipeline that runs beside them: offline alarms (per-tenant threshold, closed by the same
long-lived pipeline) and retention (which never breaks a batch), wired as the server wires them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import delete, func, select, update

from liftdesk.app import create_app
from liftdesk.core.bus import LocalBus
from liftdesk.core.config import Settings
from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.system.messages import alarm_type
from liftdesk.system.models import SiteMessage, Tenant
from liftdesk.system.service import SETTINGS_CHANGED
from liftdesk.telemetry.can import encode
from liftdesk.telemetry.jobs import Jobs, apply_retention, mark_offline
from liftdesk.telemetry.messages import Fix, Report
from liftdesk.telemetry.models import CanSample, Event, Position, VehicleState
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.view import EVENT_TOPIC, ONLINE_TOPIC
from tests.conftest import tenant_thresholds


@pytest.fixture
async def app(database: tuple[str, str], db: Database, tmp_path: Path) -> AsyncIterator[FastAPI]:
    """The objects a server process wires (pipeline, bus and their subscriptions), without HTTP."""
    settings = Settings(database_url=database[1], env="test", web_dir=tmp_path / "web", var_dir=tmp_path / "var")
    application = create_app(settings, db=db)
    yield application
    await application.state.services.get(Pipeline).stop()


async def add_vehicle(db: Database, tenant: str = "000000") -> tuple[int, str]:
    device = f"{next_id() % 10**12:012d}"
    car = Vehicle(tenant_id=tenant, car_no=f"J-{device[-5:]}", device_number=device)
    async with db.sessionmaker() as s:
        s.add(car)
        await s.commit()
    return car.id, device


async def silent_since(db: Database, vid: int, when: datetime) -> None:
    async with db.sessionmaker() as s:
        await s.execute(update(VehicleState).where(VehicleState.vehicle_id == vid).values(last_seen=when))
        await s.commit()


async def events_of(db: Database, vid: int) -> list[Event]:
    async with db.sessionmaker() as s:
        stmt = select(Event).where(Event.vehicle_id == vid).order_by(Event.begin_time)
        return list((await s.execute(stmt)).scalars().all())


def at(when: datetime, **kw: Any) -> Fix:
    return Fix(time=when, lat=31.2, lon=121.5, **kw)


async def test_the_running_pipeline_closes_the_offline_alarm(app: FastAPI, db: Database) -> None:
    """The job writes the alarm into the stored state; the pipeline that cached the vehicle's context before
    (the server's, never restarted) hears of it on the bus and closes it with the vehicle's next report."""
    p: Pipeline = app.state.services.get(Pipeline)
    heard: list[tuple[str, dict[str, Any]]] = []

    async def listen(topic: str) -> None:
        async def on(msg: dict[str, Any]) -> None:
            heard.append((topic, msg))

        app.state.bus.subscribe(topic, on)

    await listen(EVENT_TOPIC)
    await listen(ONLINE_TOPIC)
    vid, dev = await add_vehicle(db)
    raced_vid, raced_dev = await add_vehicle(db)
    long_ago = (utcnow() - timedelta(days=9)).replace(microsecond=0)
    await p.submit([Report(dev, (at(long_ago),), long_ago), Report(raced_dev, (at(long_ago),), long_ago)])
    await silent_since(db, vid, long_ago)
    await silent_since(db, raced_vid, long_ago)
    # The second vehicle reports while the job runs: its batch is staged, the job marks it, then the batch commits.
    staged = await p.stage([Report(raced_dev, (at(long_ago + timedelta(days=8)),), utcnow())])
    await Jobs(db, app.state.bus).run_once()
    await p.commit(staged)
    assert await mark_offline(db, app.state.bus) == 0, "one alarm per silence"
    async with db.sessionmaker() as s:
        told = (await s.execute(select(SiteMessage).where(SiteMessage.business_id == vid))).scalars().all()
    # the tenant's administrators (the default receivers of 长时间离线) are told once each, naming the vehicle
    assert told and len({m.user_id for m in told}) == len(told), told
    assert all(m.msg_type == alarm_type("offline") and f"J-{dev[-5:]}" in m.content for m in told)
    mine = [m for _, m in heard if m["carId"] == str(vid)]
    assert [m["kind"] for m in mine if "kind" in m] == ["offline"], "the live feed hears of the alarm"
    assert [m["online"] for m in mine if "online" in m] == [False], "... and that the vehicle is offline"
    now = utcnow().replace(microsecond=0)
    await p.submit(Report(dev, (at(now),), now))
    [ev] = await events_of(db, vid)
    assert ev.kind == "offline" and ev.begin_time == long_ago and ev.end_time == now
    [raced] = await events_of(db, raced_vid)
    assert raced.end_time == long_ago + timedelta(days=8), "it reported after the job looked: not offline"
    async with db.sessionmaker() as s:
        states = {
            st.vehicle_id: st
            for st in (await s.execute(select(VehicleState).where(VehicleState.vehicle_id.in_([vid, raced_vid]))))
            .scalars()
            .all()
        }
    assert states[vid].open_events == "{}" and states[vid].online
    assert states[raced_vid].open_events == "{}", "the closed alarm is not written back by the next batch"


async def test_the_offline_threshold_is_the_tenants(app: FastAPI, db: Database) -> None:
    """``telemetry.offlineDays`` in the tenant's ``telemetry_threshold`` dictionary (default 7 days)."""
    vid, dev = await add_vehicle(db)
    three_days = (utcnow() - timedelta(days=3)).replace(microsecond=0)
    await app.state.services.get(Pipeline).submit(Report(dev, (at(three_days),), three_days))
    await silent_since(db, vid, three_days)
    await mark_offline(db)
    assert await events_of(db, vid) == [], "3 days is not offline by the default 7"
    async with tenant_thresholds(db, {"telemetry.offlineDays": "2"}):
        await mark_offline(db)
    [ev] = await events_of(db, vid)
    assert (ev.kind, ev.value, ev.begin_time, ev.end_time) == ("offline", 2.0, three_days, None)


async def positions_of(db: Database, vid: int) -> int:
    async with db.sessionmaker() as s:
        stmt = select(func.count()).select_from(Position).where(Position.vehicle_id == vid)
        return int((await s.execute(stmt)).scalar_one())


async def can_samples_of(db: Database, vid: int) -> int:
    async with db.sessionmaker() as s:
        stmt = select(func.count()).select_from(CanSample).where(CanSample.vehicle_id == vid)
        return int((await s.execute(stmt)).scalar_one())


async def test_retention_never_breaks_a_batch(app: FastAPI, db: Database, database: tuple[str, str]) -> None:
    """Months past a tenant's retention are dropped (positions, events and CAN samples). A late fix for such a month
    is not stored but acknowledged, and never fails the other terminals' fixes of its batch - in the pipeline that heard
    of the change (PostgreSQL: the retention run's notice; SQLite: the tenant's save), and in one that did not
    (another process) and still believes in the dropped month."""
    pg = database[0] == "postgresql"
    tenant = f"9{next_id() % 10**5:05d}"
    async with db.sessionmaker() as s:
        s.add(Tenant(tenant_id=tenant, tenant_name=f"Retention {tenant}", retention_months=12))
        await s.commit()
    (a, a_dev), (b, b_dev), (c, c_dev), (d, d_dev) = [await add_vehicle(db, tenant) for _ in range(4)]
    january = datetime(2026, 1, 15, 8)
    p: Pipeline = app.state.services.get(Pipeline)  # subscribed to the notices, as in a server
    other = Pipeline(db, LocalBus())  # another process's pipeline: it hears nothing
    try:
        await p.submit(Report(a_dev, (at(january, load_kg=9000.0), at(january + timedelta(seconds=10))), january))
        can = (encode("LFE1", {"EngFuelRate": 5.0}),)  # a CAN upload that month: the CAN history has it too
        await p.submit(Report(a_dev, (), january + timedelta(seconds=15), can=can))
        assert await can_samples_of(db, a) == 1
        await other.submit(Report(c_dev, (at(january),), january))
        async with db.sessionmaker() as s:
            await s.execute(update(Tenant).where(Tenant.tenant_id == tenant).values(retention_months=3))
            await s.commit()
        if not pg:  # what the tenant page's save publishes (system.service.TenantHooks)
            await app.state.bus.publish(SETTINGS_CHANGED, {"kind": "tenant", "tenantId": tenant, "code": None})
        dropped = await apply_retention(db, bus=app.state.bus)  # keeps from the 1st of the month 2 months ago
        if pg:
            months = {f"fics_position_t{tenant}_202601", f"fics_event_t{tenant}_202601"}
            assert months | {f"fics_can_sample_t{tenant}_202601"} <= set(dropped)
            assert await positions_of(db, a) == 0 and await events_of(db, a) == []
            assert await can_samples_of(db, a) == 0
        else:
            assert dropped == [], "SQLite keeps no partitions to drop"
        now = utcnow().replace(microsecond=0)
        one_batch = await asyncio.gather(
            p.submit(Report(a_dev, (at(january + timedelta(days=1)),), now, backfill=True)),  # past retention
            p.submit(Report(b_dev, (at(now),), now)),
        )
        assert one_batch == [None, None], "both acknowledged"
        assert (await positions_of(db, a), await positions_of(db, b)) == (0 if pg else 2, 1), "only B's is stored"
        # The other pipeline still believes in January (it wrote there, and nobody told it of the change): on
        # PostgreSQL its write fails for want of the partition, forgets what it believed and is written again.
        await asyncio.gather(
            other.submit(Report(c_dev, (at(january + timedelta(seconds=5)),), now)),
            other.submit(Report(d_dev, (at(now),), now)),
        )
        assert (await positions_of(db, c), await positions_of(db, d)) == (1 if pg else 2, 1)
    finally:
        await other.stop()
        async with db.sessionmaker() as s:
            await s.execute(delete(Tenant).where(Tenant.tenant_id == tenant))
            await s.commit()
