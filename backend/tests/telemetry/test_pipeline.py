"""The pipeline on real databases: ordering, duplicates, same-time frames, backfill, invalid fixes, durations,
alarms, unknown terminals, restarts, partitions."""

from __future__ import annotations

import asyncio
import json
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, text

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Fence, FenceCar, Vehicle
from liftdesk.telemetry.messages import (
    ALARM_COLLISION,
    FAULTS_BMS,
    FAULTS_VEHICLE,
    Battery,
    DriverChange,
    Fix,
    Report,
    UnknownDevice,
)
from liftdesk.telemetry.models import DailyStat, Event, Position, Terminal, VehicleState
from liftdesk.telemetry.pipeline import LIVE_TOPIC, Pipeline
from liftdesk.telemetry.rules import collision_level
from tests.conftest import tenant_thresholds
from tests.telemetry.driver_fixtures import add_driver

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
    assert seen and seen[-1]["carId"] == str(vid) and seen[-1]["state"] == "idle"


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
    vid, dev = await vehicle(db)
    async with tenant_thresholds(db, {"telemetry.speedLimitKmh": "5"}):
        p = Pipeline(db, LocalBus())
        await p.process([report(dev, fix(0, speed_kmh=4), fix(10, speed_kmh=7), fix(20, speed_kmh=3))])
    [ev] = [e for e in await events(db, vid) if e.kind == "speeding"]
    assert ev.limit_value == 5 and ev.max_value == 7, "the tenant's 5 km/h, not the default 12 km/h"


async def test_a_driver_change_takes_its_place_among_the_positions(db: Database) -> None:
    """Positions before a card swipe are the previous driver's, those after the new one's; the state ends with the
    new driver even when the change and the positions share one batch (nothing writes the old one back)."""
    vid, dev = await vehicle(db)
    zhang = await add_driver(db, vehicles=(vid,), name="张三")
    li = await add_driver(db, vehicles=(vid,), name="李四")
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, fix(0))])
    await p.process(
        [
            Report(dev, (), T0, driver=DriverChange(zhang["serial"], time=T0)),
            report(dev, fix(10, impact_g=9.0)),
            Report(dev, (), T0, driver=DriverChange(li["serial"], time=T0)),
            report(dev, fix(20, impact_g=9.5)),
        ]
    )
    assert [(e.kind, e.driver_name, e.driver_id) for e in await events(db, vid)] == [
        ("collision", "张三", zhang["id"]),
        ("collision", "李四", li["id"]),
    ]
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
        drivers = (
            (
                await s.execute(
                    select(Position.driver_id).where(Position.vehicle_id == vid).order_by(Position.device_time)
                )
            )
            .scalars()
            .all()
        )
    assert st is not None and (st.driver_name, st.driver_id, st.driver_card) == ("李四", li["id"], li["serial"])
    assert drivers == [None, zhang["id"], li["id"]], "each position names the driver on duty when it was taken"
    await p.set_driver(dev, DriverChange(None, inserted=False))  # card pulled, through the running writer
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
    assert st is not None and (st.driver_name, st.driver_id) == (None, None)
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


async def test_an_unbound_terminal_fails_its_own_submission_only(db: Database) -> None:
    """A terminal whose vehicle is gone (or never was) must not be acknowledged: its submission raises
    UnknownDevice, while another terminal's submission written in the same batch succeeds."""
    vid, dev = await vehicle(db)
    unbound = f"{next_id() % 10**12:012d}"
    async with db.sessionmaker() as s:
        s.add(Terminal(tenant_id="000000", device_number=unbound, vehicle_id=None))
        await s.commit()
    p = Pipeline(db, LocalBus(), max_wait_s=0.5)
    try:
        results = await asyncio.gather(
            p.submit(report(dev, fix(0))),
            p.submit([report(dev, fix(10)), report(unbound, fix(10))]),
            return_exceptions=True,
        )
        assert p.batches == 1, "both submissions were written in one batch"
        assert results[0] is None
        assert isinstance(results[1], UnknownDevice) and results[1].devices == frozenset({unbound})
        assert await positions(db, vid) == 2, "the bound terminal's fixes of both submissions are stored"
        with pytest.raises(UnknownDevice):
            await p.set_driver(unbound, DriverChange("0123456789"))  # a driver change has nowhere to go either
    finally:
        await p.stop()
    with pytest.raises(UnknownDevice):
        await Pipeline(db, LocalBus()).process([report(unbound, fix(20))])


async def test_a_same_time_alarm_frame_raises_its_alarms_but_a_re_send_does_not(db: Database) -> None:
    """An alarm frame in the same second as the regular report goes through the alarm stages without a second
    row; the terminal re-sending either of them (also after a restart) raises nothing twice."""
    vid, dev = await vehicle(db, collision_threshold_g=1.0)
    p = Pipeline(db, LocalBus())
    regular = fix(10, speed_kmh=3)
    await p.process([report(dev, fix(0), regular)])
    frame = fix(
        10, speed_kmh=3, impact_g=2.2, impact_direction=180, alarm=ALARM_COLLISION | 1 << 8, fault_codes=("E12",)
    )
    batch = await p.process([report(dev, frame)])
    assert (batch.twins, batch.duplicates, batch.positions) == (1, 0, [])
    assert (await p.process([report(dev, frame)])).duplicates == 1, "the same frame again is a re-send"
    restarted = Pipeline(db, LocalBus())
    assert (await restarted.process([report(dev, regular, frame)])).duplicates == 2, "known after a restart too"
    got = [(e.kind, e.level, e.begin_time, e.end_time) for e in await events(db, vid)]
    at10 = T0 + timedelta(seconds=10)
    assert got == [("collision", 3, at10, at10), ("fault", 1, at10, None), ("jt808_power_cut", 1, at10, None)]
    assert await positions(db, vid) == 2, "one row per device time"
    [row] = await daily(db, vid)
    assert (row.collision_n, row.fault_n, row.other_n) == (1, 1, 1)
    await restarted.process([report(dev, fix(20, speed_kmh=3, fault_codes=("E12",)))])
    got = [(e.kind, e.end_time) for e in await events(db, vid)]
    assert got[-1] == ("jt808_power_cut", T0 + timedelta(seconds=20)), "power back: the bit's alarm ends"
    assert [k for k, _ in got].count("fault") == 1, "a fault still present raises nothing new"


async def test_a_fault_code_is_one_episode_until_its_list_is_reported_without_it(db: Database) -> None:
    """A controller reports E12 in its fault list; between those reports come positions without the list (a
    heartbeat, an event frame), which say nothing about faults. 20 such returns are one fault alarm, open, counted
    once, also across a restart; a battery report (its BMS flags) does not end a controller's code; the controller's
    own list without E12 ends it at that report's time; E12 coming back after that is a new episode."""
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus())
    for i in range(20):
        with_list = i % 2 == 0
        f = fix(10 * i, fault_codes=("E12",) if with_list else (), fault_families=FAULTS_VEHICLE if with_list else 0)
        await p.process([report(dev, f)])
        if i == 9:
            p = Pipeline(db, LocalBus())  # the open episode is remembered with the vehicle's state
    got = [(e.kind, json.loads(e.detail or "{}").get("code"), e.end_time) for e in await events(db, vid)]
    assert got == [("fault", "E12", None)], "one episode, still open"
    await p.process([report(dev, fix(200, fault_families=FAULTS_BMS))])
    assert [e.end_time for e in await events(db, vid)] == [None], "the battery's list says nothing about E12"
    await p.process([report(dev, fix(210, fault_families=FAULTS_VEHICLE))])
    [ended] = await events(db, vid)
    assert ended.end_time == T0 + timedelta(seconds=210), "the controller's empty list ends it"
    await p.process([report(dev, fix(220, fault_codes=("E12",), fault_families=FAULTS_VEHICLE))])
    got = [(e.begin_time, e.end_time) for e in await events(db, vid)]
    assert got[-1] == (T0 + timedelta(seconds=220), None) and len(got) == 2, "back after it ended: a new episode"
    [row] = await daily(db, vid)
    assert row.fault_n == 2


async def test_a_blind_zone_backfill_counts_once_and_raises_its_alarms(db: Database) -> None:
    """Live t0..t5, a blind zone, live t20, then the terminal's backfill of t6..t19 (10 s apart) with an
    overload in it: one overload event at its own time, the day's durations as if everything had come live (the
    cap the live stage assumed for t5 is taken back), and the live state still at t20."""
    vid, dev = await vehicle(db, rated_load_kg=3000.0)  # overload above 3000 kg, loaded from 150 kg (5 %)
    p = Pipeline(db, LocalBus())

    def t(i: int, speed: float, load: float) -> Fix:
        return fix(i * 10, speed_kmh=speed, load_kg=load)

    await p.process([report(dev, *(t(i, 5.0, 500.0) for i in range(6)))])
    await p.process([report(dev, t(20, 0.0, 0.0))])
    [row] = await daily(db, vid)
    assert (row.boot_s, row.move_s, row.load_s) == (170, 170, 170), "t5 held for the 120 s cap"
    backfill = [t(i, 5.0 if i < 15 else 0.0, 3500.0 if 10 <= i <= 13 else 500.0) for i in range(6, 20)]
    batch = await p.process([report(dev, *backfill, backfill=True)])
    assert (batch.late, len(batch.late_positions), batch.positions) == (14, 14, [])
    [row] = await daily(db, vid)
    # t0→t20 continuously: moving until t15, loaded until t20 (t19 is the last loaded sample)
    assert (row.boot_s, row.move_s, row.load_s, row.move_load_s, row.work_s) == (200, 150, 200, 150, 200)
    [over] = await events(db, vid)
    assert (over.kind, over.begin_time, over.end_time, over.max_value) == (
        "overload",
        T0 + timedelta(seconds=100),
        T0 + timedelta(seconds=140),
        3500,
    )
    assert row.overload_n == 1
    async with db.sessionmaker() as s:
        state = await s.get(VehicleState, vid)
        flags = [
            json.loads(extra or "{}").get("backfill", False)
            for extra in (
                await s.execute(select(Position.extra).where(Position.vehicle_id == vid).order_by(Position.device_time))
            ).scalars()
        ]
    assert state is not None and state.device_time == T0 + timedelta(seconds=200) and state.state == "idle"
    assert state.open_events == "{}"
    assert flags == [False] * 6 + [True] * 14 + [False], "the track can tell backfilled points"
    again = await p.process([report(dev, *backfill, backfill=True)])  # the acknowledgement was lost: re-sent
    assert (again.late, again.duplicates) == (0, 14)
    assert [(r.boot_s, r.overload_n) for r in await daily(db, vid)] == [(200, 1)]
    assert len(await events(db, vid)) == 1
    await p.process([report(dev, t(21, 0.0, 0.0))])  # live goes on from t20
    [row] = await daily(db, vid)
    assert row.boot_s == 210 and await positions(db, vid) == 22


async def test_a_fix_without_gnss_keeps_the_vehicle_where_it_was(db: Database) -> None:
    """Status bit 1 clear: the coordinates are garbage. The fix is stored (its status says so) and its time, speed
    and load count, but the vehicle's position, its events' places, distance and fences stay with the last
    valid fix - also after a restart."""
    vid, dev = await vehicle(db, rated_load_kg=2000.0)
    async with db.sessionmaker() as s:
        dock = Fence(
            tenant_id="000000", name="Dock", fence_type=1, alarm_mode=3, enable_status=1, area_id=next_id() % 10**9
        )
        dock.center_lon, dock.center_lat, dock.radius_m = 121.5, 31.2, 50.0
        s.add(dock)
        await s.flush()
        s.add(FenceCar(tenant_id="000000", fence_id=dock.id, vehicle_id=vid))
        await s.commit()
    p = Pipeline(db, LocalBus())
    seen: list[dict[str, Any]] = []

    async def on_live(msg: dict[str, Any]) -> None:
        seen.append(msg)

    p.bus.subscribe(LIVE_TOPIC, on_live)
    await p.process([report(dev, fix(0), fix(10, lat=0.0, lon=0.0, status=1, speed_kmh=4.0, load_kg=2600.0))])
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
        rows = (await s.execute(select(Position).where(Position.vehicle_id == vid))).scalars().all()
    assert st is not None and (st.lat, st.lon, st.speed, st.load_kg, st.status) == (31.2, 121.5, 4.0, 2600.0, 1)
    assert (seen[-1]["lat"], seen[-1]["lon"], seen[-1]["speed"]) == (31.2, 121.5, 4.0)
    assert sorted((r.lat, r.status) for r in rows) == [(0.0, 1), (31.2, ON)], "stored, marked invalid"
    [over] = await events(db, vid)
    assert over.kind == "overload" and (over.lat, over.lon) == (31.2, 121.5), "placed where the vehicle is"
    [row] = await daily(db, vid)
    assert row.distance_km == 0 and row.fence_n == 0, "no jump to (0, 0), no fence crossing"
    restarted = Pipeline(db, LocalBus())
    await restarted.process([report(dev, fix(20, lat=31.2009, load_kg=100.0))])  # 100 m north: out of the dock
    [row] = await daily(db, vid)
    assert row.distance_km == pytest.approx(0.1, abs=0.001), "measured from the last valid position"
    kinds = [e.kind for e in await events(db, vid)]
    assert kinds == ["overload", "fence_cross"], "the crossing is seen against the last valid position"


async def test_loaded_follows_the_rated_load_and_lift_time_counts_as_work(db: Database) -> None:
    """fleet-domain §4: loaded from max(50 kg, 5 % of the rated load), status bits 8-9 without a weight; work is
    move ∪ load ∪ lift."""
    vid, dev = await vehicle(db, rated_load_kg=2000.0)  # w_min = 100 kg
    p = Pipeline(db, LocalBus())
    load_bits = ON | 3 << 8  # no weight sensor, status says "full"
    await p.process(
        [
            report(
                dev,
                fix(0, load_kg=80.0),  # below 100 kg: empty forks      0-10
                fix(10, load_kg=120.0),  # loaded, still               10-20
                fix(20, status=load_bits),  # loaded by the status bits 20-30
                fix(30, lifting=True),  # lifting, empty                30-40
                fix(40, status=ON),
            )
        ]
    )
    [row] = await daily(db, vid)
    assert (row.boot_s, row.load_s, row.lift_s, row.work_s, row.move_s) == (40, 20, 10, 30, 0)
    assert row.idle_s == 10
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
    assert st is not None and st.state == "idle"
    await p.process([report(dev, fix(50, status=load_bits))])
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
    assert st is not None and st.state == "loaded"


def test_collision_levels_grade_the_peak_against_the_threshold() -> None:
    threshold = 2.0
    assert [collision_level(g, threshold) for g in (1.9, 2.0, 2.9, 3.0, 4.0, 5.9, 6.0, 8.0, 40.0)] == [
        0,
        1,
        1,
        2,
        3,
        3,
        4,
        5,
        5,
    ]
    assert collision_level(1.5, 0.0) == 1, "no threshold: graded against the default 1.5 g"


async def test_postgresql_events_are_partitioned_and_closed_in_their_partition(
    db: Database, database: tuple[str, str]
) -> None:
    if database[0] != "postgresql":
        pytest.skip("partitions exist on PostgreSQL only")
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus())
    may = datetime(2026, 5, 31, 23, 59, 50)
    await p.process([report(dev, Fix(time=may, lat=31.2, lon=121.5, speed_kmh=20.0, status=ON))])
    restarted = Pipeline(db, LocalBus())  # closes the alarm it read from the stored state, in June
    await restarted.process([report(dev, Fix(time=may + timedelta(seconds=20), lat=31.2, lon=121.5, status=ON))])
    [ev] = await events(db, vid)
    assert ev.kind == "speeding" and ev.end_time == may + timedelta(seconds=20)
    async with db.sessionmaker() as s:
        names = set(
            (await s.execute(text("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid")))
            .scalars()
            .all()
        )
        key = (
            await s.execute(text("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'pk_fics_event'"))
        ).scalar_one()
        where = (
            await s.execute(text("SELECT tableoid::regclass::text FROM fics_event WHERE id = :i"), {"i": ev.id})
        ).scalar_one()
    assert {"fics_event_t000000", "fics_event_t000000_202605"} <= names
    assert key == "PRIMARY KEY (id, tenant_id, begin_time)" and where == "fics_event_t000000_202605"


async def test_a_batch_writes_its_own_state_while_the_next_is_staged(db: Database) -> None:
    """The pipeline stages batch N+1 while N is being written. N's transaction must store the state after N's fixes,
    not N+1's: were it ahead and N+1 then lost (a crash), N+1's re-sent fixes would be dropped as duplicates."""
    vid, dev = await vehicle(db)
    p = Pipeline(db, LocalBus())
    published: list[dict[str, Any]] = []

    async def on_live(msg: dict[str, Any]) -> None:
        published.append(msg)

    p.bus.subscribe(LIVE_TOPIC, on_live)
    first = await p.stage([report(dev, fix(0), fix(10, speed_kmh=5.0))])
    second = await p.stage([report(dev, fix(20, speed_kmh=9.0, load_kg=900.0))])  # staged before first is written
    await p.commit(first)
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
    assert st is not None and (st.device_time, st.speed, st.load_kg) == (T0 + timedelta(seconds=10), 5.0, None)
    assert published[-1]["speed"] == 5.0, "the live feed shows what is written"
    # the second batch is lost; a new pipeline (a restart) takes its fixes when they are sent again
    del second
    restarted = Pipeline(db, LocalBus())
    done = await restarted.process([report(dev, fix(20, speed_kmh=9.0, load_kg=900.0))])
    assert done.duplicates == 0 and await positions(db, vid) == 3
