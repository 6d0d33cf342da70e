"""10,000 positions from 50 terminals through real sockets; the gateway (and its pipeline) is killed midway and a
new one started on the same port. Terminals reconnect and send again whatever was not acknowledged. In the end
every position is stored exactly once, and every acknowledged one is among them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.codecs.jt808 import (
    BatchType,
    Jt808Version,
    Location,
    LocationBatch,
    PlatformGeneralReply,
)
from liftdesk.telemetry.commands import CommandService
from liftdesk.telemetry.gateway import Gateway
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.messages import Report
from liftdesk.telemetry.models import Position
from liftdesk.telemetry.pipeline import Batch, Pipeline
from liftdesk.telemetry.terminals import TerminalService

TERMINALS = 50
PER_TERMINAL = 200
WINDOW = 8  # messages a terminal has in flight
KILL_AFTER = 4000  # acknowledged positions before the gateway is killed
T0 = datetime(2026, 4, 1, 0, 0, tzinfo=UTC)
HOST = "127.0.0.1"
log = logging.getLogger("test.load")


class Crashable(Pipeline):
    """A pipeline that can die: after ``crash()`` nothing more is committed (what was queued is lost)."""

    crashed = False

    def crash(self) -> None:
        self.crashed = True

    async def process(self, reports: list[Report]) -> Batch:
        if self.crashed:
            raise RuntimeError("the process died")
        return await super().process(reports)


class Fleet:
    """Counts acknowledged positions and lets the test wait for a number of them."""

    def __init__(self) -> None:
        self.acked = 0
        self.halfway = asyncio.Event()
        self.up = asyncio.Event()
        self.reconnects = 0

    def add(self, n: int) -> None:
        self.acked += n
        if self.acked >= KILL_AFTER:
            self.halfway.set()


def location(second: int, lat: float) -> Location:
    return Location(0, 3, lat, 121.5 + second * 1e-5, 5, 4.5, 90, T0 + timedelta(seconds=second))


async def terminal(fleet: Fleet, port: int, index: int, device: str, acked: set[int]) -> None:
    version = Jt808Version.V2019 if index % 2 else Jt808Version.V2013
    number = device.rjust(20 if version is Jt808Version.V2019 else 12, "0")
    lat = 30.0 + index * 0.01
    code: str | None = None
    todo = set(range(PER_TERMINAL))
    while todo:
        await fleet.up.wait()
        client = Jt808Client(HOST, port, number, version)
        try:
            await client.connect()
            if code is None:
                reply = await client.register(registration(terminal_id=f"T{index}"))
                assert reply.result == 0 and reply.auth_code
                code = reply.auth_code
            if await client.authenticate(code) != 0:
                raise AssertionError(f"terminal {device} refused")
            window = asyncio.Semaphore(WINDOW)
            pending = sorted(todo)
            # odd terminals send batches of 5 (0x0704), even ones single positions (0x0200)
            size = 5 if index % 2 else 1
            chunks = [pending[i : i + size] for i in range(0, len(pending), size)]

            async def send(seconds: list[int], client: Jt808Client, window: asyncio.Semaphore) -> None:
                async with window:
                    body = (
                        location(seconds[0], lat)
                        if len(seconds) == 1
                        else LocationBatch(BatchType.NORMAL, tuple(location(s, lat) for s in seconds))
                    )
                    reply = await client.request(body, 30)
                    assert isinstance(reply, PlatformGeneralReply) and reply.result == 0
                    for s in seconds:
                        todo.discard(s)
                        acked.add(s)
                    fleet.add(len(seconds))

            results = await asyncio.gather(*(send(c, client, window) for c in chunks), return_exceptions=True)
            for r in results:
                if isinstance(r, AssertionError):
                    raise r
        except (ConnectionError, OSError, TimeoutError):
            pass
        finally:
            await client.close()
        if todo:
            fleet.reconnects += 1


async def test_10000_positions_survive_a_gateway_restart(db: Database) -> None:
    started = time.monotonic()
    cars = [
        Vehicle(tenant_id="000000", car_no=f"LOAD-{i}", device_number=f"{(next_id() + i) % 10**12:012d}", car_type=4)
        for i in range(TERMINALS)
    ]
    async with db.sessionmaker() as s:
        s.add_all(cars)
        await s.commit()

    bus = LocalBus()
    terminals = TerminalService(db)
    commands = CommandService(db, bus, reply_timeout_s=5.0)
    pipeline: Pipeline = Crashable(db, bus)
    gateway = Gateway(db, pipeline, terminals, commands, HOST, 0, idle_timeout_s=60)
    await gateway.start()
    port = gateway.port

    fleet = Fleet()
    fleet.up.set()
    acked: list[set[int]] = [set() for _ in cars]
    tasks = [
        asyncio.create_task(terminal(fleet, port, i, car.device_number or "", acked[i])) for i, car in enumerate(cars)
    ]
    try:
        await asyncio.wait_for(fleet.halfway.wait(), 60)
        # kill: nothing more committed (the queue is lost), every connection dropped, no new ones
        fleet.up.clear()
        assert isinstance(pipeline, Crashable)
        pipeline.crash()
        at_kill = fleet.acked
        await gateway.stop()
        await asyncio.wait_for(pipeline.stop(), 30)
        assert at_kill < TERMINALS * PER_TERMINAL, "the kill came too late to test anything"

        pipeline = Pipeline(db, bus)
        gateway = Gateway(db, pipeline, terminals, commands, HOST, port, idle_timeout_s=60)
        await gateway.start()
        fleet.up.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 120)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await gateway.stop()
        await asyncio.wait_for(pipeline.stop(), 30)
        await commands.stop()

    assert fleet.reconnects >= 1
    ids = [car.id for car in cars]
    async with db.sessionmaker() as s:
        rows = (
            await s.execute(
                select(Position.vehicle_id, Position.device_time, func.count())
                .where(Position.vehicle_id.in_(ids))
                .group_by(Position.vehicle_id, Position.device_time)
            )
        ).all()
    stored: dict[int, set[datetime]] = {vid: set() for vid in ids}
    for vid, when, count in rows:
        assert count == 1, f"vehicle {vid} has {count} rows at {when}"
        stored[vid].add(when)
    assert sum(len(v) for v in stored.values()) == TERMINALS * PER_TERMINAL
    for car, got in zip(cars, acked, strict=True):
        expected = {(T0 + timedelta(seconds=s)).replace(tzinfo=None) for s in got}
        assert len(got) == PER_TERMINAL
        assert expected <= stored[car.id]
    log.info(
        "load: %d positions, killed after %d acknowledged, %d reconnections, %.1f s",
        TERMINALS * PER_TERMINAL,
        at_kill,
        fleet.reconnects,
        time.monotonic() - started,
    )
