"""The JT/T 808 gateway through real sockets, on real databases, with the real pipeline.

Terminals are played by ``Jt808Client`` with frames built by the codec, and by frames captured from devices
(``jt808_samples``). Nothing here waits on a clock: every wait is for a reply, a closed connection or an event,
bounded by a timeout so a failure fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from jt808_samples import sample
from sqlalchemy import select

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.codecs.jt808 import (
    Authentication,
    BatchType,
    BatteryInfo,
    CanData,
    CanItem,
    CardReadResult,
    CardStatus,
    ChargeState,
    DriverIdentity,
    ForkliftStatus,
    Forks,
    ForkState,
    Heartbeat,
    Impact,
    Jt808Version,
    LiftdeskBatteryReport,
    Location,
    LocationBatch,
    LockLevel,
    Logout,
    PassThrough,
    PlatformGeneralReply,
    RegistrationResult,
    SeatBelt,
    checksum,
    encode_frames,
    escape,
    unescape,
)
from liftdesk.telemetry.commands import CommandService
from liftdesk.telemetry.gateway import Gateway, device_of
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.messages import STATUS_FIX, Report
from liftdesk.telemetry.models import Event, Position, Terminal, VehicleState
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import TerminalService
from tests.telemetry.driver_fixtures import add_driver

V2013, V2019 = Jt808Version.V2013, Jt808Version.V2019
#: A recent whole hour: the pipeline does not store positions older than their tenant's retention period.
T0 = (datetime.now(UTC) - timedelta(days=3)).replace(minute=0, second=0, microsecond=0)
#: The tenant of the vehicles that receive captured frames. Captures carry the dates they were made on (2018 for
#: some), older than any retention period once time goes by; a tenant without a tenant row has none.
CAPTURES = "captures"
HOST = "127.0.0.1"
WAIT = 10.0


@dataclass
class Stack:
    db: Database
    pipeline: Pipeline
    terminals: TerminalService
    commands: CommandService
    gateway: Gateway

    def client(self, device: str, version: Jt808Version = V2013, **kw: int) -> Jt808Client:
        return Jt808Client(HOST, self.gateway.port, terminal_number(device, version), version, **kw)


def terminal_number(device: str, version: Jt808Version) -> str:
    return device.rjust(20 if version is V2019 else 12, "0")


async def make_stack(
    db: Database,
    pipeline: Pipeline | None = None,
    reply_timeout_s: float = 5.0,
    terminals: TerminalService | None = None,
    attributes_max_age_s: float | None = None,
    **gateway_kw: Any,
) -> Stack:
    """A gateway on a free port with its pipeline, terminal and command services, following vehicle changes on its
    bus. Like the gateway's default, it does not ask terminals for their attributes unless told to
    (``attributes_max_age_s``): tests that read the commands a terminal receives would find that query first."""
    bus = LocalBus()
    pipeline = pipeline or Pipeline(db, bus)
    terminals = terminals or TerminalService(db)
    commands = CommandService(db, bus, reply_timeout_s=reply_timeout_s)
    await commands.start(recover=False)
    gateway = Gateway(
        db, pipeline, terminals, commands, HOST, 0, attributes_max_age_s=attributes_max_age_s, **gateway_kw
    )
    gateway.follow(bus)
    await gateway.start()
    return Stack(db, pipeline, terminals, commands, gateway)


async def close_stack(stack: Stack) -> None:
    await stack.gateway.stop()
    await stack.commands.stop()
    await stack.pipeline.stop()


@pytest.fixture
async def stack(db: Database) -> AsyncIterator[Stack]:
    s = await make_stack(db, idle_timeout_s=60)
    yield s
    await close_stack(s)


async def add_vehicle(
    db: Database, device: str | None = None, tenant: str = "000000", auth_code: str | None = None
) -> tuple[int, str]:
    """A vehicle naming ``device`` (a new number by default); ``auth_code``: its terminal's code on the old
    platform, imported with it (a terminal that never registered here authenticates with it)."""
    device = device or f"{next_id() % 10**12:012d}"
    car = Vehicle(
        tenant_id=tenant, car_no=f"FL-{device[-5:]}", device_number=device, car_type=4, terminal_auth_code=auth_code
    )
    async with db.sessionmaker() as s:
        s.add(car)
        await s.commit()
    return car.id, device


async def positions(db: Database, vehicle_id: int) -> list[Position]:
    async with db.sessionmaker() as s:
        rows = await s.execute(select(Position).where(Position.vehicle_id == vehicle_id).order_by(Position.device_time))
        return list(rows.scalars().all())


async def terminal_row(db: Database, device: str) -> Terminal | None:
    async with db.sessionmaker() as s:
        return (await s.execute(select(Terminal).where(Terminal.device_number == device))).scalar_one_or_none()


async def state(db: Database, vehicle_id: int) -> VehicleState | None:
    async with db.sessionmaker() as s:
        return await s.get(VehicleState, vehicle_id)


def loc(seconds: float, lat: float = 31.2, lon: float = 121.5, speed: float = 6.0, **kw: object) -> Location:
    return Location(0, 3, lat, lon, 12, speed, 90, T0 + timedelta(seconds=seconds), **kw)  # type: ignore[arg-type]


def naive(t: datetime) -> datetime:
    return t.astimezone(UTC).replace(tzinfo=None)


async def online(stack: Stack, device: str, version: Jt808Version = V2013) -> Jt808Client:
    """A connected, registered and authenticated terminal."""
    client = await stack.client(device, version).connect()
    reply = await client.register(registration())
    assert reply.result == RegistrationResult.SUCCESS and reply.auth_code
    assert await client.authenticate(reply.auth_code, imei="866496077582164", software="1.0") == 0
    return client


async def ack(client: Jt808Client, body: object) -> int:
    reply = await client.request(body, WAIT)  # type: ignore[arg-type]
    assert isinstance(reply, PlatformGeneralReply)
    return int(reply.result)


# --------------------------------------------------------------------------- registration, authentication, data


@pytest.mark.parametrize("version", [V2013, V2019])
async def test_register_authenticate_and_report_a_forklift_position(stack: Stack, version: Jt808Version) -> None:
    vid, device = await add_vehicle(stack.db)
    battery = BatteryInfo(82, 51.2, -35.5, ChargeState.DISCHARGING, (31, 33), (3300, 3310))
    forklift = ForkliftStatus(
        load_kg=1250,
        impact=Impact(2.35, 180),
        seat_belt=SeatBelt.FASTENED,
        forks=Forks(ForkState.RAISED, 1500),
        lock_level=LockLevel.SOFT,
        speed_limit_kmh=10,
        battery=battery,
    )
    client = await online(stack, device, version)
    try:
        assert await ack(client, loc(0, mileage_km=12.5, forklift=forklift, satellites=9)) == 0
    finally:
        await client.close()

    [row] = await positions(stack.db, vid)
    assert row.device_time == naive(T0)
    assert (row.lat, row.lon, row.speed, row.direction, row.altitude) == (31.2, 121.5, 6.0, 90, 12)
    assert (row.status, row.mileage_km, row.load_kg) == (3, 12.5, 1250.0)
    extra = json.loads(row.extra or "{}")
    assert extra["impact_g"] == 2.35 and extra["impact_direction"] == 180
    assert extra["seat_belt"] is True and extra["fork_height_mm"] == 1500 and extra["fork_state"] == "raised"
    assert extra["lock_level"] == 1 and extra["speed_limit_kmh"] == 10.0 and extra["satellites"] == 9
    assert extra["battery"] == {
        "soc": 82.0,
        "v": 51.2,
        "a": -35.5,
        "state": "discharging",
        "t": [31.0, 33.0],
        "cells": [3300, 3310],
    }
    st = await state(stack.db, vid)
    assert st is not None and st.soc_pct == 82.0 and st.lock_level == 1
    term = await terminal_row(stack.db, device)
    assert term is not None and term.protocol_version == str(int(version)) and term.maker == "LFTDK"


async def test_2019_batch_backfill_is_one_report(db: Database) -> None:
    reports: list[Report] = []

    class Recording(Pipeline):
        async def submit(self, report: Report | Sequence[Report]) -> None:
            reports.extend([report] if isinstance(report, Report) else report)
            await super().submit(report)

    stack = await make_stack(db, Recording(db, LocalBus()))
    try:
        vid, device = await add_vehicle(db)
        client = await online(stack, device, V2019)
        batch = LocationBatch(BatchType.BLIND_ZONE, tuple(loc(s) for s in (30, 10, 20)))
        assert await ack(client, batch) == 0
        await client.close()
    finally:
        await close_stack(stack)
    assert [len(r.fixes) for r in reports] == [3] and reports[0].backfill and reports[0].device == device
    assert [p.device_time for p in await positions(db, vid)] == [naive(T0 + timedelta(seconds=s)) for s in (10, 20, 30)]


async def test_captured_2013_frames(stack: Stack) -> None:
    """Device captures: registration + authentication of one terminal, then a position of another.

    The captured authentication carries the code the capture's platform issued ("authentication"); this terminal
    registered here and was given another one, so only that one passes (0x8001 result 1, then the connection is
    closed, for the captured one)."""
    await add_vehicle(stack.db, "013511221122", CAPTURES)
    async with stack.client("013511221122") as client:
        reg = client.expect(5, 0x0100)
        await client.write(sample("traccar_0100_2013"))
        reply = await asyncio.wait_for(reg, WAIT)
        assert reply.result == RegistrationResult.SUCCESS and reply.auth_code != "authentication"
        auth = client.expect(6, 0x0102)
        await client.write(sample("traccar_0102_2013"))
        assert (await asyncio.wait_for(auth, WAIT)).result == 1
        await asyncio.wait_for(client.closed.wait(), WAIT)
    async with stack.client("013511221122") as client:
        assert reply.auth_code is not None and await client.authenticate(reply.auth_code) == 0
        assert await client.heartbeat(WAIT) == 0
    term = await terminal_row(stack.db, "013511221122")
    assert term is not None and term.registered_at is not None and term.auth_code == reply.auth_code

    vid, _ = await add_vehicle(stack.db, "123456789012", CAPTURES, auth_code="anything")
    async with stack.client("123456789012") as client:
        assert await client.authenticate("anything") == 0
        done = client.expect(126, 0x0200)
        await client.write(sample("smallchi_0200_escaped"))  # serial 126 and an extra item are escaped on the wire
        assert (await asyncio.wait_for(done, WAIT)).result == 0
    [row] = await positions(stack.db, vid)
    assert (row.device_time, row.lat, row.lon, row.speed, row.mileage_km) == (
        datetime(2018, 10, 15, 2, 10, 10),
        12.222222,
        132.444444,
        6.0,
        10.0,
    )


async def test_captured_south_west_position_keeps_its_signs(stack: Stack) -> None:
    vid, _ = await add_vehicle(stack.db, "794308010679", CAPTURES, auth_code="x")
    async with stack.client("794308010679") as client:
        assert await client.authenticate("x") == 0
        done = client.expect(312, 0x0200)
        await client.write(sample("traccar_0200_south_west"))
        assert (await asyncio.wait_for(done, WAIT)).result == 0
    [row] = await positions(stack.db, vid)
    assert (row.lat, row.lon) == (-25.269608, -57.602956)
    assert row.device_time == datetime(2025, 11, 18, 3, 26, 11)


async def test_captured_2019_registration_and_batch(stack: Stack) -> None:
    """A 2019 terminal whose number is a 15-digit IMEI; its registration and batch are device captures."""
    vid, device = await add_vehicle(stack.db, "866496077582164", CAPTURES)
    async with Jt808Client(HOST, stack.gateway.port, "00000866496077582164", V2019) as client:
        reg = client.expect(21016, 0x0100)
        await client.write(sample("traccar_0100_2019"))
        reply = await asyncio.wait_for(reg, WAIT)
        assert reply.result == RegistrationResult.SUCCESS and reply.auth_code
        assert await client.authenticate(reply.auth_code, imei="866496077582164", software="2.1") == 0
        done = client.expect(34845, 0x0704)
        await client.write(sample("traccar_0704_2019"))
        assert (await asyncio.wait_for(done, WAIT)).result == 0
        term = await terminal_row(stack.db, device)
        assert term is not None and term.protocol_version == "2019" and term.online
    [row] = await positions(stack.db, vid)
    assert row.device_time == datetime(2026, 5, 9, 8, 42, 27)
    assert json.loads(row.extra or "{}")["satellites"] == 14


def test_device_numbers_are_the_same_for_2013_and_2019_headers() -> None:
    from liftdesk.telemetry.codecs.jt808 import Header

    assert device_of(Header(0x0200, "013511221122", 1)) == "013511221122"
    assert device_of(Header(0x0200, "00000000013511221122", 1, V2019)) == "013511221122"
    assert device_of(Header(0x0200, "00000866496077582164", 1, V2019)) == "866496077582164"


async def test_a_vehicle_numbered_without_the_leading_zero_is_found(stack: Stack) -> None:
    vid, eleven = await add_vehicle(stack.db, f"1{next_id() % 10**10:010d}")  # an 11-digit SIM number
    client = await online(stack, "0" + eleven)
    try:
        assert await ack(client, loc(0)) == 0
    finally:
        await client.close()
    assert len(await positions(stack.db, vid)) == 1
    assert await terminal_row(stack.db, eleven) is not None


# --------------------------------------------------------------------------- refusals and bad input


async def test_unknown_terminal_is_refused(stack: Stack) -> None:
    device = f"{next_id() % 10**12:012d}"
    async with stack.client(device) as client:
        reply = await client.register(registration())
        assert reply.result == RegistrationResult.TERMINAL_UNKNOWN and reply.auth_code is None
        await asyncio.wait_for(client.closed.wait(), WAIT)
    async with stack.client(device) as client:
        assert await client.authenticate("guess") == 1
        await asyncio.wait_for(client.closed.wait(), WAIT)
    assert await terminal_row(stack.db, device) is None


async def test_nothing_but_registration_and_authentication_before_authentication(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db, auth_code="any")
    async with stack.client(device) as client:
        assert await ack(client, loc(0)) == 1
        assert await ack(client, Heartbeat()) == 1
        assert await client.authenticate("any") == 0  # the connection is still usable
        assert await ack(client, loc(1)) == 0
    assert [p.device_time for p in await positions(stack.db, vid)] == [naive(T0 + timedelta(seconds=1))]


async def test_a_frame_with_a_bad_checksum_is_dropped_and_the_connection_keeps_working(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    try:
        serial, [frame] = client.frames(loc(0))
        raw = bytearray(unescape(frame[1:-1]))  # header + body + checksum, without the flags and escapes
        raw[-1] ^= 0x01  # a wrong checksum, whatever value it had (it may have been escaped on the wire)
        bad = b"\x7e" + escape(bytes(raw)) + b"\x7e"
        assert checksum(bytes(raw[:-1])) != raw[-1]
        before = stack.gateway.stats.bad_frames
        never = client.expect(serial, 0x0200)
        await client.write(bytes(bad))
        assert await client.heartbeat(WAIT) == 0  # answered after the bad frame was read: it got no answer
        assert not never.done()
        assert stack.gateway.stats.bad_frames == before + 1
        assert await ack(client, loc(1)) == 0
    finally:
        await client.close()
    assert [p.device_time for p in await positions(stack.db, vid)] == [naive(T0 + timedelta(seconds=1))]


async def test_garbage_on_one_connection_does_not_disturb_another(
    stack: Stack, caplog: pytest.LogCaptureFixture
) -> None:
    """Security finding 9: 20 MB of garbage once held the event loop and wrote a warning per frame. A noisy
    connection is now closed after a few bad frames with one warning, while a good terminal is served."""
    vid, device = await add_vehicle(stack.db)
    good = await online(stack, device)
    junk = await Jt808Client(HOST, stack.gateway.port, "000000000001").connect()
    sent = 0
    try:
        with caplog.at_level(logging.INFO, logger="liftdesk.gateway"):
            results = []
            for i in range(20):
                results.append(await ack(good, loc(i)))
                with contextlib.suppress(ConnectionError):
                    for _ in range(20):  # about 400 KB of noise in all, if the gateway let it all in
                        await junk.write(os.urandom(997) + b"\x7e" + bytes(range(256)))
                        sent += 1
            assert results == [0] * 20
            await asyncio.wait_for(junk.closed.wait(), WAIT)
        assert sent < 400, "the gateway closed the noisy connection before it had sent everything"
        junk_name = [r for r in caplog.records if r.levelno == logging.WARNING and "frame dropped" in r.getMessage()]
        assert len(junk_name) == 1, [r.getMessage() for r in junk_name]
        assert stack.gateway.stats.garbage_closed >= 1
        late = await online(stack, device)
        await late.close()
    finally:
        await good.close()
        await junk.close()
    assert len(await positions(stack.db, vid)) == 20


async def test_no_sub_packages_are_kept_for_a_stranger(stack: Stack) -> None:
    """Security finding 5: sub-packages were reassembled before authentication (300,000 parts took 280 MB). A
    connection that has not authenticated keeps nothing; the gateway's reassembly budget is shared and bounded."""
    stranger = await Jt808Client(HOST, stack.gateway.port, "000000000002").connect()
    try:
        parts = encode_frames(0x0801, b"x" * 90_000, terminal="000000000002", serial=1, max_body=900)
        with contextlib.suppress(ConnectionError):
            await stranger.write(b"".join(parts[:2]))  # two parts: fewer than the bad frames that close it
        await until_true(lambda: stack.gateway.stats.bad_frames >= 2)
        assert stack.gateway.reassembly.used == 0
        assert all(len(s.assembler) == 0 for s in stack.gateway._connections)
    finally:
        await stranger.close()
    _vid, device = await add_vehicle(stack.db)
    terminal = await online(stack, device)
    try:
        budget = stack.gateway.reassembly
        budget.max_bytes = 5_000  # a small budget for the test: the sixth part of 900 bytes does not fit
        parts = encode_frames(0x0801, b"y" * 90_000, terminal=terminal.terminal, serial=100, max_body=900)
        await terminal.write(b"".join(parts[:7]))
        await until_true(lambda: stack.gateway.reassembly.refused >= 1)
        assert budget.used <= budget.max_bytes
    finally:
        await terminal.close()
    await until_true(lambda: stack.gateway.reassembly.used == 0)


async def until_true(predicate: Any) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_no_acknowledgement_before_the_data_is_committed(db: Database) -> None:
    gate = asyncio.Event()
    submitted = asyncio.Event()

    class Gated(Pipeline):
        async def submit(self, report: Report | Sequence[Report]) -> None:
            submitted.set()
            await gate.wait()
            await super().submit(report)

    stack = await make_stack(db, Gated(db, LocalBus()))
    try:
        vid, device = await add_vehicle(db)
        client = await online(stack, device)
        serial = await client.send(loc(0))
        answer = client.expect(serial, 0x0200)
        await asyncio.wait_for(submitted.wait(), WAIT)
        assert await client.heartbeat(WAIT) == 0  # the connection is served while the data waits
        assert not answer.done() and await positions(db, vid) == []
        gate.set()
        reply = await asyncio.wait_for(answer, WAIT)
        assert isinstance(reply, PlatformGeneralReply) and reply.result == 0
        assert len(await positions(db, vid)) == 1
        await client.close()
    finally:
        await close_stack(stack)


async def test_a_failed_submit_is_not_acknowledged(db: Database) -> None:
    failed = asyncio.Event()
    calls = 0

    class Failing(Pipeline):
        async def submit(self, report: Report | Sequence[Report]) -> None:
            nonlocal calls
            calls += 1
            if calls == 1:
                failed.set()
                raise RuntimeError("database is down")
            await super().submit(report)

    stack = await make_stack(db, Failing(db, LocalBus()))
    try:
        vid, device = await add_vehicle(db)
        client = await online(stack, device)
        serial = await client.send(loc(0))
        answer = client.expect(serial, 0x0200)
        await asyncio.wait_for(failed.wait(), WAIT)
        assert await client.heartbeat(WAIT) == 0
        assert not answer.done()
        assert await ack(client, loc(0)) == 0  # the terminal sends it again
        await client.close()
        assert stack.gateway.stats.submit_failures == 1
    finally:
        await close_stack(stack)
    assert len(await positions(db, vid)) == 1


# --------------------------------------------------------------------------- sessions


async def test_reconnecting_terminal_replaces_its_old_session(stack: Stack) -> None:
    _, device = await add_vehicle(stack.db)
    first = await online(stack, device)
    second = await online(stack, device)
    try:
        await asyncio.wait_for(first.closed.wait(), WAIT)
        assert await second.heartbeat(WAIT) == 0
        session = stack.gateway.sessions[device]
        term = await terminal_row(stack.db, device)
        assert term is not None and term.online  # the old session's end did not mark it offline
    finally:
        await first.close()
        await second.close()
    await asyncio.wait_for(session.finished.wait(), WAIT)
    term = await terminal_row(stack.db, device)
    assert term is not None and not term.online and device not in stack.gateway.sessions


async def test_idle_connections_are_closed(db: Database) -> None:
    stack = await make_stack(db, idle_timeout_s=0.2)
    try:
        _, device = await add_vehicle(db)
        client = await online(stack, device)
        session = stack.gateway.sessions[device]
        await asyncio.wait_for(client.closed.wait(), WAIT)
        await asyncio.wait_for(session.finished.wait(), WAIT)
        term = await terminal_row(db, device)
        assert term is not None and not term.online
        await client.close()
    finally:
        await close_stack(stack)


async def test_heartbeats_keep_a_parked_terminal_seen(db: Database) -> None:
    """A terminal that only sends heartbeats (parked, no positions) has its last-seen time moved on, in the
    terminal and in the vehicle's state, so the 7-day offline job does not take it for silent."""
    stack = await make_stack(db, idle_timeout_s=60, touch_interval_s=0.1)
    try:
        vid, device = await add_vehicle(db)
        client = await online(stack, device)
        assert await ack(client, loc(0)) == 0  # the vehicle's state exists from its first position
        await asyncio.sleep(0.4)  # the watchdog has recorded that activity; nothing else comes in
        before = await state(db, vid)
        assert before is not None and before.last_seen is not None
        await asyncio.sleep(0.3)
        assert (await state(db, vid)).last_seen == before.last_seen  # type: ignore[union-attr]
        assert await client.heartbeat(WAIT) == 0
        deadline = asyncio.get_running_loop().time() + WAIT
        while True:
            term, after = await terminal_row(db, device), await state(db, vid)
            assert term is not None and after is not None and after.last_seen is not None
            if after.last_seen > before.last_seen and term.last_seen is not None and term.last_seen > before.last_seen:
                break
            assert asyncio.get_running_loop().time() < deadline, "last_seen was not refreshed by the heartbeat"
            await asyncio.sleep(0.05)
        assert after.device_time == before.device_time  # seen, but no new position
        await client.close()
    finally:
        await close_stack(stack)


@pytest.mark.parametrize("msg_id", [0x0003, 0x0101])  # 2011 terminals deregister with 0x0101
async def test_deregistration_is_answered_then_the_terminal_must_register_again(stack: Stack, msg_id: int) -> None:
    from liftdesk.telemetry.codecs.jt808 import RawBody

    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    code = client.auth_code
    serial = await client.send(loc(0))
    stored = client.expect(serial, 0x0200)
    assert await ack(client, Logout() if msg_id == 0x0003 else RawBody(0x0101, b"")) == 0
    assert stored.done()  # data in flight was answered before the deregistration
    await asyncio.wait_for(client.closed.wait(), WAIT)
    await client.close()
    assert len(await positions(stack.db, vid)) == 1
    assert stack.gateway.stats.deregistrations >= 1
    async with stack.client(device) as again:
        assert code is not None and await again.authenticate(code) == 1  # its code was given up
        await asyncio.wait_for(again.closed.wait(), WAIT)
    again = await online(stack, device)  # registering again gives it a new one
    try:
        assert again.auth_code != code and await again.heartbeat(WAIT) == 0
    finally:
        await again.close()


# --------------------------------------------------------------------------- other messages


async def test_sub_packaged_batch_is_reassembled_and_each_package_acknowledged(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    client.max_body = 100
    try:
        batch = LocationBatch(BatchType.NORMAL, tuple(loc(s) for s in range(12)))
        first, frames = client.frames(batch)
        assert len(frames) > 3
        answers = [client.expect((first + i) & 0xFFFF, 0x0704) for i in range(len(frames))]
        for frame in reversed(frames):  # in any order
            await client.write(frame)
        replies = await asyncio.wait_for(asyncio.gather(*answers), WAIT)
        assert [r.result for r in replies] == [0] * len(frames)
    finally:
        await client.close()
    assert len(await positions(stack.db, vid)) == 12


async def test_driver_identity_is_checked_and_stored_on_the_vehicle_state(stack: Stack) -> None:
    """The card's serial (certificate number field) names the platform's driver; an unknown card names nobody and
    raises ``card_refused``; a card-out clears the driver. Each report is acknowledged once stored."""
    vid, device = await add_vehicle(stack.db)
    driver = await add_driver(stack.db, vehicles=(vid,), name="张三")
    client = await online(stack, device)
    try:
        assert await ack(client, loc(0)) == 0
        card_in = DriverIdentity(
            CardStatus.INSERTED, T0, CardReadResult.SUCCESS, "卡上的名字", driver["serial"], "杭州", None
        )
        assert await ack(client, card_in) == 0
        st = await state(stack.db, vid)
        assert st is not None and (st.driver_name, st.driver_card, st.driver_id) == (
            "张三",
            driver["serial"],
            driver["id"],
        )
        assert await ack(client, loc(5)) == 0  # the pipeline keeps the driver
        st = await state(stack.db, vid)
        assert st is not None and st.driver_name == "张三"
        assert (await positions(stack.db, vid))[-1].driver_id == driver["id"]
        assert await ack(client, DriverIdentity(CardStatus.REMOVED, T0 + timedelta(seconds=9))) == 0
        st = await state(stack.db, vid)
        assert st is not None and (st.driver_name, st.driver_card, st.driver_id) == (None, None, None)
        stranger = DriverIdentity(
            CardStatus.INSERTED, T0, CardReadResult.SUCCESS, "张三", "330100199001011234", "", None
        )
        assert await ack(client, stranger) == 0
        st = await state(stack.db, vid)
        assert st is not None and st.driver_name is None, "a card the platform does not know names nobody"
        async with stack.db.sessionmaker() as s:
            refused = (
                (await s.execute(select(Event).where(Event.vehicle_id == vid, Event.kind == "card_refused")))
                .scalars()
                .all()
            )
        assert [json.loads(e.detail or "{}")["reason"] for e in refused] == ["unknown_card"]
    finally:
        await client.close()


async def test_battery_pass_through_becomes_a_fix_at_the_last_position(stack: Stack) -> None:
    """0xF1 is stored as a fix at the last known position; before any position is known, as a fix marked invalid
    (status bit 1 clear) at 0, 0, whose battery values still reach the vehicle's state. Acknowledged once stored."""
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    early = PassThrough.of(
        LiftdeskBatteryReport(T0 - timedelta(seconds=30), BatteryInfo(61, 49.5, 100.0, ChargeState.CHARGING))
    )
    battery = BatteryInfo(64, 49.8, 120.0, ChargeState.CHARGING)
    report = PassThrough.of(LiftdeskBatteryReport(T0 + timedelta(seconds=30), battery))
    try:
        assert await ack(client, early) == 0  # no position yet: stored without one
        [first] = await positions(stack.db, vid)
        assert first.status & STATUS_FIX == 0 and (first.lat, first.lon) == (0.0, 0.0)
        assert json.loads(first.extra or "{}")["position"] == "none"
        st = await state(stack.db, vid)
        assert st is not None and st.soc_pct == 61.0 and (st.lat, st.lon) == (None, None)  # no place yet
        assert await ack(client, loc(0, lat=30.5, lon=120.25)) == 0
        assert await ack(client, report) == 0
    finally:
        await client.close()
    _, _, third = await positions(stack.db, vid)
    assert (third.lat, third.lon, third.device_time) == (30.5, 120.25, naive(T0 + timedelta(seconds=30)))
    assert json.loads(third.extra or "{}")["battery"]["state"] == "charging"
    st = await state(stack.db, vid)
    assert st is not None and st.soc_pct == 64.0


async def test_can_data_keeps_the_latest_value_of_each_id(stack: Stack) -> None:
    """0x0705 is acknowledged once stored; the vehicle's state keeps the latest frame of each CAN id (also across a
    restart of the pipeline, which reloads it), which is what the vehicle's live state shows."""
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    try:
        assert await ack(client, loc(0)) == 0
        items = tuple(CanItem(0, True, False, 0x18FF50E5 + i, bytes([i]) * 8) for i in range(3))
        before = stack.gateway.stats.can_frames
        assert await ack(client, CanData(None, items)) == 0
        assert stack.gateway.stats.can_frames == before + 3
        assert stack.gateway.sessions[device].can_frames == 3
        st = await state(stack.db, vid)
        assert st is not None
        can = json.loads(st.extra or "{}")["can"]
        assert {k: v["data"] for k, v in can.items()} == {
            "18FF50E5": "0000000000000000",
            "18FF50E6": "0101010101010101",
            "18FF50E7": "0202020202020202",
        }
        stack.pipeline.forget(device)  # the next frames start from what is stored
        newer = (CanItem(1, True, False, 0x18FF50E6, b"\xab" * 8),)
        assert await ack(client, CanData(None, newer)) == 0
        assert await ack(client, loc(10)) == 0  # a position afterwards does not drop the CAN values
        st = await state(stack.db, vid)
        assert st is not None
        can = json.loads(st.extra or "{}")["can"]
        assert len(can) == 3 and can["18FF50E6"]["data"] == "AB" * 8 and can["18FF50E6"]["channel"] == 1
    finally:
        await client.close()


async def test_unsupported_message_is_answered_unsupported(stack: Stack) -> None:
    from liftdesk.telemetry.codecs.jt808 import RawBody

    _, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    try:
        assert await ack(client, RawBody(0x0F00, b"\x01\x02")) == 3
        # authenticating again on a live session is answered and changes nothing
        assert client.auth_code is not None and await ack(client, Authentication(client.auth_code)) == 0
        assert await client.heartbeat(WAIT) == 0
    finally:
        await client.close()
