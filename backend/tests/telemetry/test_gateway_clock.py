"""Terminals whose clock is wrong, and terminals that only send heartbeats: online and last-seen follow the
connection, not the times in the reports.

A terminal whose clock was never set (common among makers other than ours) reports positions dated years back, or
ahead of the server. Such a report stays out of the history (no position row, no daily aggregate, no alarm by its
device time) but its position is the vehicle's live one, marked with a terminal-clock fault (``clock_fault_time``
on the vehicle's state, ``clockFault`` in the live feed, an open ``terminal_clock`` event) until a plausible report
arrives.

Real sockets (``Jt808Client``), real databases, the real pipeline (helpers from ``test_gateway``). Every wait is for
an answer, a closed connection or a stored row, bounded so that a failure fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, update
from test_gateway import WAIT, Stack, ack, add_vehicle, close_stack, make_stack, online, positions, state

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database, utcnow
from liftdesk.core.schemas import format_time
from liftdesk.telemetry.codecs.jt808 import BatchType, Location, LocationBatch
from liftdesk.telemetry.messages import Fix, Report
from liftdesk.telemetry.models import DailyStat, Event, VehicleState
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.view import LIVE_TOPIC
from tests.conftest import Api, tenant_thresholds

#: The seeded tenant keeps 12 months of data: two years back is past its retention.
TWO_YEARS_BACK = -timedelta(days=730)
ONE_HOUR_AHEAD = timedelta(hours=1)


def at(when: datetime, lat: float = 31.2, lon: float = 121.5, speed: float = 6.0) -> Location:
    """A 0x0200 report dated ``when`` (naive UTC); JT/T 808 times have whole seconds."""
    return Location(0, 3, lat, lon, 12, speed, 90, when.replace(microsecond=0, tzinfo=UTC))


async def until(predicate: Any, what: str) -> None:
    """Poll an async predicate (bounded): for effects that have no answer to wait on."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while not await predicate():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def events(db: Database, vehicle_id: int, kind: str) -> list[Event]:
    async with db.sessionmaker() as s:
        stmt = select(Event).where(Event.vehicle_id == vehicle_id, Event.kind == kind).order_by(Event.create_time)
        return list((await s.execute(stmt)).scalars().all())


async def daily(db: Database, vehicle_id: int) -> list[DailyStat]:
    async with db.sessionmaker() as s:
        return list((await s.execute(select(DailyStat).where(DailyStat.vehicle_id == vehicle_id))).scalars().all())


def watch_live(stack: Stack, vehicle_id: int) -> list[dict[str, Any]]:
    """The live states the pipeline publishes for one vehicle, in order."""
    seen: list[dict[str, Any]] = []

    async def on_live(msg: dict[str, Any]) -> None:
        if msg["carId"] == str(vehicle_id):
            seen.append(msg)

    stack.pipeline.bus.subscribe(LIVE_TOPIC, on_live)
    return seen


async def current(db: Database, vehicle_id: int) -> VehicleState:
    st = await state(db, vehicle_id)
    assert st is not None, "the vehicle has a live state"
    return st


# --------------------------------------------------------------------------- last-seen and online


async def test_a_terminal_sending_only_heartbeats_is_online_and_its_last_seen_advances(db: Database) -> None:
    """No position ever: the vehicle is online from the authentication on, and every heartbeat moves its last-seen
    time (written by the gateway's watchdog, at most once per ``touch_interval_s``)."""
    stack = await make_stack(db, idle_timeout_s=60, touch_interval_s=0.1)
    try:
        vid, device = await add_vehicle(db)
        client = await online(stack, device)
        try:

            async def is_online() -> bool:  # marked once the authentication is answered
                st = await state(db, vid)
                return st is not None and st.online

            await until(is_online, "the vehicle to be online")
            first = await current(db, vid)
            assert first.last_seen is not None and first.device_time is None
            seen = first.last_seen
            for _ in range(3):
                await asyncio.sleep(0.15)  # past the touch interval: the next heartbeat is a newer frame
                assert await client.heartbeat(WAIT) == 0

                async def moved(after: datetime = seen) -> bool:
                    st = await state(db, vid)
                    return st is not None and st.last_seen is not None and st.last_seen > after

                await until(moved, "the heartbeat to move last-seen")
                st = await current(db, vid)
                assert st.online and st.last_seen is not None
                seen = st.last_seen
            assert await positions(db, vid) == []
        finally:
            await client.close()
    finally:
        await close_stack(stack)


@pytest.mark.parametrize("skew", [TWO_YEARS_BACK, ONE_HOUR_AHEAD], ids=["two-years-back", "one-hour-ahead"])
async def test_a_terminal_whose_clock_is_wrong_is_online_at_its_live_position(
    stack: Stack, db: Database, skew: timedelta
) -> None:
    """Reports dated past the tenant's retention, or an hour ahead of the server: acknowledged, no position row, no
    daily aggregate; the vehicle is online, at the reported position, marked with a clock fault and an open
    ``terminal_clock`` event. A plausible report then clears the fault and is stored as usual."""
    vid, device = await add_vehicle(db)
    live = watch_live(stack, vid)
    client = await online(stack, device)
    try:
        start = utcnow()
        assert await ack(client, at(start - timedelta(seconds=30), lat=31.2, lon=121.5)) == 0  # history so far
        assert len(await positions(db, vid)) == 1
        days_before = {(d.day, d.boot_s, d.distance_km) for d in await daily(db, vid)}

        wrong = (utcnow() + skew).replace(microsecond=0)
        assert await ack(client, at(wrong, lat=31.3, lon=121.6, speed=7.5)) == 0
        assert await ack(client, at(wrong + timedelta(seconds=5), lat=31.31, lon=121.61, speed=8.0)) == 0

        assert len(await positions(db, vid)) == 1, "no position row for a report dated beyond plausibility"
        assert {(d.day, d.boot_s, d.distance_km) for d in await daily(db, vid)} == days_before
        st = await current(db, vid)
        assert st.online and st.last_seen is not None and st.last_seen >= start
        assert (st.lat, st.lon, st.speed) == (31.31, 121.61, 8.0), "the reported position is the live one"
        assert st.clock_fault_time == wrong + timedelta(seconds=5), "the time the terminal's clock gave"
        assert st.device_time is not None and abs(st.device_time - utcnow()) < timedelta(minutes=1)
        assert "terminal_clock" in json.loads(st.open_events or "{}")
        [fault] = await events(db, vid, "terminal_clock")
        assert fault.end_time is None, "open while the clock is wrong"
        assert fault.begin_time >= start.replace(microsecond=0) - timedelta(seconds=1), "dated by the server"
        assert (fault.lat, fault.lon) == (31.3, 121.6)
        assert json.loads(fault.detail or "{}")["deviceTime"] == wrong.isoformat()
        shown = live[-1]
        assert shown["clockFault"] is True and shown["clockFaultTime"] == format_time(wrong + timedelta(seconds=5))
        assert (shown["lat"], shown["lon"], shown["speed"], shown["online"]) == (31.31, 121.61, 8.0, True)
        assert "terminal_clock" in shown["alarms"]

        fine = utcnow().replace(microsecond=0)
        assert await ack(client, at(fine, lat=31.4, lon=121.7, speed=3.0)) == 0
        assert [p.device_time for p in await positions(db, vid)][-1] == fine, "stored as usual"
        st = await current(db, vid)
        assert st.clock_fault_time is None and (st.lat, st.lon, st.device_time) == (31.4, 121.7, fine)
        assert "terminal_clock" not in json.loads(st.open_events or "{}")
        [fault] = await events(db, vid, "terminal_clock")
        assert fault.end_time is not None and fault.end_time >= fault.begin_time, "closed by the plausible report"
        assert live[-1]["clockFault"] is False and live[-1]["clockFaultTime"] is None
        assert "terminal_clock" not in live[-1]["alarms"]
    finally:
        await client.close()


async def test_a_terminal_whose_clock_was_never_set_shows_where_it_is(stack: Stack, db: Database) -> None:
    """No plausible report ever: the vehicle still has a live state (online, its position, the fault), nothing is
    stored, and one ``terminal_clock`` event stays open however many such reports come."""
    vid, device = await add_vehicle(db)
    client = await online(stack, device)
    try:
        wrong = (utcnow() + TWO_YEARS_BACK).replace(microsecond=0)
        for i in range(3):
            assert await ack(client, at(wrong + timedelta(seconds=i), lat=31.2 + i / 100)) == 0
        st = await current(db, vid)
        assert st.online and (st.lat, st.lon) == (31.22, 121.5) and st.clock_fault_time == wrong + timedelta(seconds=2)
        assert await positions(db, vid) == [] and await daily(db, vid) == []
        [fault] = await events(db, vid, "terminal_clock")
        assert fault.end_time is None
    finally:
        await client.close()


async def test_a_blind_zone_backfill_past_retention_is_no_clock_fault(stack: Stack, db: Database) -> None:
    """Positions a terminal kept while out of coverage (0x0704 type 1) are old by nature: past the retention they
    are dropped as before (acknowledged), without a clock fault and without moving the vehicle."""
    vid, device = await add_vehicle(db)
    client = await online(stack, device)
    try:
        now = utcnow().replace(microsecond=0)
        assert await ack(client, at(now, lat=31.2)) == 0
        old = now + TWO_YEARS_BACK
        backfill = LocationBatch(BatchType.BLIND_ZONE, (at(old, lat=30.0), at(old + timedelta(seconds=5), lat=30.1)))
        assert await ack(client, backfill) == 0
        st = await current(db, vid)
        assert st.clock_fault_time is None and st.lat == 31.2 and st.device_time == now
        assert await events(db, vid, "terminal_clock") == [] and len(await positions(db, vid)) == 1
    finally:
        await client.close()


@pytest.mark.parametrize("ending", ["closed", "closed-with-data-in-flight", "silent"])
async def test_the_vehicle_goes_offline_when_the_connection_ends(db: Database, ending: str) -> None:
    """Online while connected whatever its reports' dates; offline once the terminal closes the connection (also
    when it hangs up before its last report is answered: that report's batch, written after the connection ended,
    must not mark the vehicle online again), or once it stays silent past the idle timeout (the gateway closes
    it)."""
    # silent: 2 s, not less: under load the time from the authentication to the first report must stay within it
    stack = await make_stack(db, idle_timeout_s=2.0 if ending == "silent" else 60)
    try:
        vid, device = await add_vehicle(db)
        client = await online(stack, device)
        session = stack.gateway.sessions[device]
        assert await ack(client, at(utcnow() + TWO_YEARS_BACK)) == 0
        st = await current(db, vid)
        assert st.online and st.last_seen is not None
        if ending == "closed":
            await client.close()
        elif ending == "closed-with-data-in-flight":
            await client.send(at(utcnow()))
            await client.close()
        else:
            await asyncio.wait_for(client.closed.wait(), WAIT)  # the gateway hung up on the silent terminal
            await client.close()
        await asyncio.wait_for(session.finished.wait(), WAIT)
        await asyncio.wait_for(stack.pipeline.submit([]), WAIT)  # whatever was queued before is written now
        st = await current(db, vid)
        assert not st.online and st.last_seen is not None and st.last_seen >= st.device_time  # type: ignore[operator]
    finally:
        await close_stack(stack)


# --------------------------------------------------------------------------- the pipeline alone


async def test_the_last_report_to_arrive_decides_the_clock_verdict(db: Database) -> None:
    """Within one batch reports are ordered by device time for the history, but a wrong clock's dates cannot be
    ordered against right ones: the fault follows the order in which the reports arrived."""
    vid, device = await add_vehicle(db)
    p = Pipeline(db, LocalBus())
    now = utcnow().replace(microsecond=0)
    ahead = now + timedelta(minutes=15)  # beyond pipeline.CLOCK_AHEAD (10 minutes)
    try:
        # a plausible report, then one an hour ahead: the fault is open at the end
        await p.process(
            [
                Report(device, (Fix(time=now, lat=31.2, lon=121.5),), now),
                Report(device, (Fix(time=ahead, lat=31.3, lon=121.6),), now),
            ]
        )
        st = await current(db, vid)
        assert st.clock_fault_time == ahead and st.lat == 31.3
        # one ahead, then a plausible one (earlier by device time): the fault is closed at the end
        later = now + timedelta(seconds=10)
        await p.process(
            [
                Report(device, (Fix(time=ahead + timedelta(seconds=1), lat=31.4, lon=121.7),), later),
                Report(device, (Fix(time=later, lat=31.25, lon=121.55),), later),
            ]
        )
        st = await current(db, vid)
        assert st.clock_fault_time is None and (st.lat, st.device_time) == (31.25, later)
        assert [p.device_time for p in await positions(db, vid)] == [now, later]
        faults = await events(db, vid, "terminal_clock")
        assert len(faults) == 1 and faults[0].end_time is not None
        # a restarted pipeline reads the same state back: the next plausible report continues the history
        restarted = Pipeline(db, LocalBus())
        await restarted.process(
            [Report(device, (Fix(time=later + timedelta(seconds=10), lat=31.26, lon=121.55),), now)]
        )
        assert len(await positions(db, vid)) == 3
        await restarted.stop()
    finally:
        await p.stop()


async def test_a_restarted_pipeline_keeps_the_fault_and_the_history_apart(db: Database) -> None:
    """The vehicle's state row holds the live (faulty) report; the last plausible fix the history goes on from is
    kept beside it, so that a restart neither loses the fault nor takes the faulty report for history."""
    vid, device = await add_vehicle(db)
    now = utcnow().replace(microsecond=0)
    first = Pipeline(db, LocalBus())
    await first.process([Report(device, (Fix(time=now - timedelta(seconds=20), lat=31.2, lon=121.5),), now)])
    wrong = now + TWO_YEARS_BACK
    await first.process([Report(device, (Fix(time=wrong, lat=31.3, lon=121.6),), now)])
    await first.stop()
    again = Pipeline(db, LocalBus())
    try:
        await again.process([Report(device, (Fix(time=wrong + timedelta(seconds=1), lat=31.31, lon=121.6),), now)])
        assert len(await events(db, vid, "terminal_clock")) == 1, "the fault read back is still the open one"
        st = await current(db, vid)
        assert st.clock_fault_time == wrong + timedelta(seconds=1) and st.lat == 31.31
        await again.process([Report(device, (Fix(time=now - timedelta(seconds=10), lat=31.21, lon=121.5),), now)])
        st = await current(db, vid)
        assert st.clock_fault_time is None and st.device_time == now - timedelta(seconds=10)
        assert [p.device_time for p in await positions(db, vid)] == [
            now - timedelta(seconds=20),
            now - timedelta(seconds=10),
        ]
        assert all(e.end_time is not None for e in await events(db, vid, "terminal_clock"))
    finally:
        await again.stop()


@pytest.fixture
async def stack(db: Database) -> Any:
    s = await make_stack(db, idle_timeout_s=60)
    yield s
    await close_stack(s)


async def test_the_vehicle_detail_and_the_abnormal_list_show_the_clock_fault(api: Api) -> None:
    """Through the real gateway and the API: a terminal whose reports are dated two years back is shown in its
    vehicle's diagnosis (``clockFault``, not healthy) and in the abnormal vehicles under 终端时钟异常; a plausible
    report takes it out of both."""
    stack = await make_stack(api.db, idle_timeout_s=60)
    vid, device = await add_vehicle(api.db)
    client = await online(stack, device)
    today = {"carId": str(vid), "startTime": utcnow().date().isoformat(), "endTime": utcnow().date().isoformat()}
    abnormal = "/api/blade-fics-report/fics/abnormal/getCarAbnormalPage"
    try:
        assert await ack(client, at(utcnow() + TWO_YEARS_BACK)) == 0
        diag = (await api.get("/api/blade-fics-report/fics/carStatus/getDiagnoseReport", params=today))["data"]
        assert diag["clockFault"] is True and diag["healthy"] is False
        listed = (await api.get(abnormal, params={"carNo": f"FL-{device[-5:]}", "reason": "clock_fault"}))["data"]
        assert [r["carId"] for r in listed["records"]] == [str(vid)]

        assert await ack(client, at(utcnow().replace(microsecond=0))) == 0
        diag = (await api.get("/api/blade-fics-report/fics/carStatus/getDiagnoseReport", params=today))["data"]
        assert diag["clockFault"] is False
        listed = (await api.get(abnormal, params={"carNo": f"FL-{device[-5:]}", "reason": "clock_fault"}))["data"]
        assert listed["records"] == []
    finally:
        await client.close()
        await close_stack(stack)


async def _set_state(db: Database, vehicle_id: int, **values: Any) -> None:
    """Move a live state's times back (a terminal connected, or last located, minutes ago) instead of waiting."""
    async with db.sessionmaker() as s:
        await s.execute(update(VehicleState).where(VehicleState.vehicle_id == vehicle_id).values(**values))
        await s.commit()


async def test_a_connected_terminal_silent_on_positions_is_in_the_abnormal_list(api: Api) -> None:
    """Issue 13 part 4, through the real gateway and the API: a terminal that stays connected and sends heartbeats
    but no position for the tenant's ``silentMinutes`` (default 10) is listed under 在线无定位, counted from when it
    connected or from its latest position; a position takes it out, the setting 0 switches the check off, and a
    terminal that goes away is offline, not silent."""
    stack = await make_stack(api.db, idle_timeout_s=60, touch_interval_s=0.1)
    vid, device = await add_vehicle(api.db)
    abnormal = "/api/blade-fics-report/fics/abnormal/getCarAbnormalPage"
    query = {"carNo": f"FL-{device[-5:]}", "reason": "no_position"}

    async def listed() -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = (await api.get(abnormal, params=query))["data"]["records"]
        return records

    client = await online(stack, device)
    try:

        async def connected() -> bool:
            st = await state(api.db, vid)
            return st is not None and st.online and st.online_since is not None

        await until(connected, "the vehicle to be online")
        assert await client.heartbeat(WAIT) == 0
        assert await listed() == [], "just connected: not silent yet"

        eleven = utcnow().replace(microsecond=0) - timedelta(minutes=11)
        await _set_state(api.db, vid, online_since=eleven)
        assert await client.heartbeat(WAIT) == 0, "heartbeats keep it online; they are no positions"
        [car] = await listed()
        assert car["carId"] == str(vid) and car["online"] is True and car["reasons"] == ["no_position"]
        assert car["since"] == format_time(eleven) and car["reasonNames"] == "在线无定位"
        info = await api.get("/api/blade-fics-report/fics/abnormal/getCarAbnormalInfo", params={"carId": vid})
        [cond] = info["data"]["conditions"]
        assert cond["reason"] == "no_position" and cond["info"] == "", "it never sent a position"

        assert await ack(client, at(utcnow().replace(microsecond=0))) == 0
        assert await listed() == [], "a position takes it out"
        nine = utcnow().replace(microsecond=0) - timedelta(minutes=9)
        await _set_state(api.db, vid, server_time=nine)
        assert await listed() == [], "nine minutes without a position is within the default ten"
        await _set_state(api.db, vid, server_time=eleven)
        [car] = await listed()
        assert car["since"] == format_time(eleven), "counted from its latest position"
        async with tenant_thresholds(api.db, {"telemetry.silentMinutes": "0"}):
            assert await listed() == [], "0 switches the check off"
        async with tenant_thresholds(api.db, {"telemetry.silentMinutes": "20"}):
            assert await listed() == [], "the tenant's own silence"
    finally:
        await client.close()

    async def gone() -> bool:
        st = await state(api.db, vid)
        return st is not None and not st.online and st.online_since is None

    try:
        await until(gone, "the vehicle to be offline once its terminal left")
        assert await listed() == [], "an offline terminal is not silent: offline is its own condition"
    finally:
        await close_stack(stack)
