"""The pipeline on real databases: ordering, duplicates, durations, alarms, restarts, partitions."""

from __future__ import annotations

import asyncio
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, text

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.messages import Battery, DriverChange, Fix, Report
from liftdesk.telemetry.models import DailyStat, Event, Position, VehicleState
from liftdesk.telemetry.pipeline import LIVE_TOPIC, Pipeline

T0 = datetime(2026, 3, 2, 1, 0, 0)  # 09:00 in UTC+8
OFF = 0
ON = 1 | 2  # ACC on, fix valid


async def vehicle(db: Database, **limits: float) -> tuple[int, str]:
    device = f"{next_id() % 10**12:012d}"
    car = Vehicle(tenant_id="000000", car_no=f"FL-{device[-4:]}", device_number=device, car_type=4, **limits)
    async with db.sessionmaker() as s:
        s.add(car)
        await s.commit()
    return car.id, device


def fix(sec: float, **kw: object) -> Fix:
    base: dict[str, object] = {"lat": 31.2, "lon": 121.5, "status": ON}
    base.update(kw)
    return Fix(time=T0 + timedelta(seconds=sec), **base)  # type: ignore[arg-type]


def report(device: str, *fixes: Fix, backfill: bool = False) -> Report:
    return Report(device=device, fixes=tuple(fixes), received_at=T0, backfill=backfill)


async def daily(db: Database, vid: int) -> list[DailyStat]:
    async with db.sessionmaker() as s:
        return list(
            (await s.execute(select(DailyStat).where(DailyStat.vehicle_id == vid).order_by(DailyStat.day)))
            .scalars()
            .all()
        )


async def events(db: Database, vid: int) -> list[Event]:
    async with db.sessionmaker() as s:
        return list(
            (await s.execute(select(Event).where(Event.vehicle_id == vid).order_by(Event.begin_time, Event.kind)))
            .scalars()
            .all()
        )


async def positions(db: Database, vid: int) -> int:
    async with db.sessionmaker() as s:
        return int(
            (await s.execute(select(func.count()).select_from(Position).where(Position.vehicle_id == vid))).scalar_one()
        )


async def test_durations_follow_the_state_of_each_sample(db: Database) -> None:
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus())
    seen: list[dict[str, object]] = []

    async def on_live(msg: dict[str, object]) -> None:
        seen.append(msg)

    p.bus.subscribe(LIVE_TOPIC, on_live)
    await p.process(
        [
            report(
                dev,
                fix(0, speed_kmh=0),  # on, idle      0–10
                fix(10, speed_kmh=6),  # moving        10–20
                fix(20, speed_kmh=6, load_kg=800),  # moving loaded 20–30
                fix(30, speed_kmh=0, load_kg=800),  # loaded still  30–40
                fix(40, status=OFF),  # off           40–100 (not counted)
                fix(100, speed_kmh=0),
            )
        ]
    )
    [row] = await daily(db, vid)
    assert (row.boot_s, row.move_s, row.load_s, row.move_load_s, row.work_s) == (40, 20, 20, 10, 30)
    assert row.idle_s == 10
    async with db.sessionmaker() as s:
        state = await s.get(VehicleState, vid)
    assert (
        state is not None and state.state == "idle" and state.acc and state.device_time == T0 + timedelta(seconds=100)
    )
    assert seen and seen[-1]["vehicleId"] == str(vid) and seen[-1]["state"] == "idle"


async def test_gaps_are_capped_and_days_split_at_local_midnight(db: Database) -> None:
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus())
    midnight_local = datetime(2026, 3, 2, 16, 0, 0)  # 2026-03-03 00:00 in UTC+8
    start = midnight_local - timedelta(seconds=30)
    await p.process(
        [
            report(
                dev,
                Fix(time=start, lat=31.2, lon=121.5, status=ON, speed_kmh=5),
                Fix(time=start + timedelta(seconds=60), lat=31.2, lon=121.5, status=ON, speed_kmh=5),
                Fix(time=start + timedelta(hours=2), lat=31.2, lon=121.5, status=ON),  # a 2-hour silence
            )
        ]
    )
    rows = await daily(db, vid)
    assert [r.day for r in rows] == [date(2026, 3, 2), date(2026, 3, 3)]
    assert rows[0].move_s == 30 and rows[1].move_s == 30 + 120, "the gap counts only up to the cap (120 s)"


async def test_order_duplicates_and_exactly_once(db: Database) -> None:
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, fix(20), fix(0), fix(10))])  # out of order within a report
    await p.process([report(dev, fix(10), fix(20))])  # re-sent: nothing new
    assert await positions(db, vid) == 3
    batch = await p.process([report(dev, fix(5, speed_kmh=3), backfill=True)])  # late backfill
    assert batch.late == 1 and await positions(db, vid) == 4
    async with db.sessionmaker() as s:
        state = await s.get(VehicleState, vid)
    assert state is not None and state.device_time == T0 + timedelta(seconds=20), "late data does not rewind state"
    # a fresh pipeline (a restart) does not write the same positions twice either
    again = Pipeline(db, LocalBus())
    await again.process([report(dev, fix(0), fix(10), fix(20), fix(30))])
    assert await positions(db, vid) == 5


async def test_alarms_with_durations_levels_and_restart(db: Database) -> None:
    vid, dev = await vehicle(db, speed_limit_kmh=10.0, overload_threshold_kg=2000.0, collision_threshold_g=2.0)
    p = Pipeline(db, LocalBus())
    await p.process(
        [
            report(
                dev,
                fix(0, speed_kmh=8),
                fix(10, speed_kmh=12),
                fix(20, speed_kmh=15, impact_g=4.2, impact_direction=90),
                fix(30, speed_kmh=9, load_kg=2500),
            )
        ]
    )
    # the overload is still going on when the process restarts
    restarted = Pipeline(db, LocalBus())
    await restarted.process([report(dev, fix(40, load_kg=2600), fix(50, load_kg=100))])
    evs = {e.kind: e for e in await events(db, vid)}
    speeding, crash, over = evs["speeding"], evs["collision"], evs["overload"]
    assert (speeding.begin_time, speeding.end_time) == (T0 + timedelta(seconds=10), T0 + timedelta(seconds=30))
    assert speeding.value == 12 and speeding.max_value == 15 and speeding.limit_value == 10
    assert crash.level == 3 and crash.value == 4.2 and crash.end_time == crash.begin_time
    assert '"direction": 90' in (crash.detail or "")
    assert over.end_time == T0 + timedelta(seconds=50) and over.max_value == 2600
    [row] = await daily(db, vid)
    assert (row.speeding_n, row.collision_n, row.overload_n) == (1, 1, 1)


async def test_battery_alarms(db: Database) -> None:
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus())

    def bat(v: float, t: float = 30.0) -> Battery:
        return Battery(soc_pct=50, voltage_v=v, current_a=-20, temperatures_c=(t,))

    await p.process(
        [
            report(
                dev,
                fix(0, battery=bat(48)),
                fix(10, battery=bat(42)),
                fix(20, battery=bat(47, 70)),
                fix(30, battery=bat(48)),
            )
        ]
    )
    kinds = [(e.kind, e.end_time) for e in await events(db, vid)]
    assert ("battery_low_voltage", T0 + timedelta(seconds=20)) in kinds
    assert ("battery_over_temperature", T0 + timedelta(seconds=30)) in kinds


async def test_postgresql_partitions_by_tenant_and_month(db: Database, database: tuple[str, str]) -> None:
    if database[0] != "postgresql":
        pytest.skip("partitions exist on PostgreSQL only")
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, fix(0), Fix(time=datetime(2026, 4, 1, 1), lat=31.2, lon=121.5))])
    async with db.sessionmaker() as s:
        names = set(
            (await s.execute(text("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid")))
            .scalars()
            .all()
        )
        assert {"fics_position_t000000", "fics_position_t000000_202603", "fics_position_t000000_202604"} <= names
        dropped = await p.store.partitions.drop_before(s, "000000", date(2026, 4, 1))
        await s.commit()
    assert "fics_position_t000000_202603" in dropped
    assert await positions(db, vid) == 1, "retention dropped the March partition whole"


async def test_thresholds_are_configurable_per_tenant(db: Database) -> None:
    from liftdesk.system.models import DictBiz

    vid, dev = await vehicle(db)
    async with db.sessionmaker() as s:
        root = DictBiz(
            tenant_id="000000", parent_id=0, code="telemetry_threshold", dict_key="-1", dict_value="thresholds", sort=1
        )
        s.add(root)
        await s.flush()
        s.add(
            DictBiz(
                tenant_id="000000",
                parent_id=root.id,
                code="telemetry_threshold",
                dict_key="telemetry.speedLimitKmh",
                dict_value="5",
                sort=1,
            )
        )
        await s.commit()
    try:
        p = Pipeline(db, LocalBus())
        await p.process([report(dev, fix(0, speed_kmh=4), fix(10, speed_kmh=7), fix(20, speed_kmh=3))])
        [ev] = [e for e in await events(db, vid) if e.kind == "speeding"]
        assert ev.limit_value == 5 and ev.max_value == 7, "the tenant's 5 km/h, not the default 12 km/h"
    finally:
        async with db.sessionmaker() as s:
            await s.execute(text("DELETE FROM blade_dict_biz WHERE code = 'telemetry_threshold'"))
            await s.commit()


async def test_a_driver_change_takes_its_place_among_the_positions(db: Database) -> None:
    """Positions before a card swipe are the previous driver's, those after the new one's; the state ends with the
    new name even when the change and the positions share one batch (nothing writes the old name back)."""
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, fix(0))])
    await p.process(
        [
            Report(dev, (), T0, driver=DriverChange("张三")),
            report(dev, fix(10, impact_g=9.0)),
            Report(dev, (), T0, driver=DriverChange("李四")),
            report(dev, fix(20, impact_g=9.5)),
        ]
    )
    assert [(e.kind, e.driver_name) for e in await events(db, vid)] == [("collision", "张三"), ("collision", "李四")]
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
    assert st is not None and st.driver_name == "李四"
    await p.set_driver(dev, None)  # card pulled, through the running writer
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
    assert st is not None and st.driver_name is None
    await p.stop()


async def test_a_batch_staged_during_a_failed_write_fails_with_it(db: Database) -> None:
    """The next batch is staged while the previous one is written. When that write fails, the staged batch (built on
    the failed one's in-memory state) fails too, nothing of either is stored, and later data starts from the
    database again."""
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus(), max_wait_s=0.0)
    real_write = p.store.write
    release, writing = asyncio.Event(), asyncio.Event()
    writes = 0

    async def failing_first_write(batch: Any) -> None:
        nonlocal writes
        writes += 1
        if writes == 1:
            writing.set()
            await release.wait()
            raise RuntimeError("database went away")
        await real_write(batch)

    p.store.write = failing_first_write  # type: ignore[method-assign]
    await p.start()
    try:
        first = asyncio.create_task(p.submit(report(dev, fix(0), fix(10))))
        await asyncio.wait_for(writing.wait(), 5)
        second = asyncio.create_task(p.submit(report(dev, fix(20, impact_g=9.0))))
        await asyncio.sleep(0.1)  # staged, waiting for the first write
        assert not second.done()
        release.set()
        for task in (first, second):
            with pytest.raises(RuntimeError):
                await task
        assert await positions(db, vid) == 0 and await events(db, vid) == []
        await p.submit(report(dev, fix(30)))
        assert await positions(db, vid) == 1 and await events(db, vid) == []
        async with db.sessionmaker() as s:
            st = await s.get(VehicleState, vid)
        assert st is not None and st.device_time == T0 + timedelta(seconds=30)
    finally:
        await p.stop()
