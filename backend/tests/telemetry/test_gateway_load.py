"""10,000 positions from 50 terminals over real sockets into a gateway *process* that is killed (SIGKILL) midway;
a new gateway process starts on the same port, every terminal reconnects, re-authenticates and sends again what
it has not had acknowledged. Runs on both databases.

What is proved, and why the test would catch an acknowledgement sent before the commit:

* **Acknowledged ⇒ durable, at the moment of the crash.** Once the killed process is gone and every terminal has
  seen its connection drop, every position any terminal had an acknowledgement for must already be in the
  database: that is checked *before* the second gateway starts, so nothing can have repaired a loss. The kill
  lands while 50 terminals keep 8 messages each in flight and the pipeline is staging one batch while writing the
  previous one; had the gateway answered before ``Pipeline.submit`` returned, the positions of those batches
  would have been acknowledged and then lost with the process (a terminal drops what was acknowledged, so nobody
  sends them again), and this check fails. A SIGKILL gives the process no chance to flush anything: it is the
  crash itself, not a stop. In the same breath: each vehicle's stored latest state must be one of its stored
  positions (they are written in one transaction). A state ahead of them would make the next process take the
  re-sent position of that time for a duplicate, drop it, and acknowledge it: lost for good.
* **Re-sent data is stored once.** Positions in flight at the kill are sent again; some of them had been committed
  with their acknowledgement lost in the crash. On top of that, every terminal takes the acknowledgements of its
  last two messages before the kill as lost on the way (mobile links drop the last packets) and sends those again
  too, so data known to be stored certainly comes back, through both of the pipeline's paths for it (same time as
  the vehicle's latest position: dropped as a duplicate; older: insert-or-ignore).
* **Nothing lost, nothing twice.** At the end each of the 10,000 positions is stored exactly once (per vehicle:
  rows == distinct times == 200, as sent), and the vehicles' latest state is their newest position, not a
  re-sent older one.

Terminals alternate single positions (0x0200) and batches of five (0x0704); odd ones speak JT/T 808-2019, even
ones 2013. The gateway process is ``gateway_process.py`` (strict authentication: the auth code each terminal got
from the first process must still open the second).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select

from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.codecs.jt808 import (
    BatchType,
    Jt808Version,
    Location,
    LocationBatch,
    PlatformGeneralReply,
    RegistrationResult,
)
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.models import Position, VehicleState

TERMINALS = 50
PER_TERMINAL = 200
WINDOW = 8  # messages a terminal keeps in flight, unacknowledged (its blind-zone buffer holds them)
KILL_AFTER = 3000  # acknowledged positions before the gateway process is killed
LOST_ACKS = 2  # per terminal: acknowledgements of its last messages before the kill, taken as lost on the way
T0 = datetime(2026, 4, 1, 0, 0, tzinfo=UTC)
HOST = "127.0.0.1"
WAIT = 30.0  # bound of one reply or one phase: a failure fails instead of hanging
CHILD = Path(__file__).with_name("gateway_process.py")
log = logging.getLogger("test.load")


@dataclass
class Phase:
    """What the terminals and the test share: progress, and where the kill is."""

    online: int = 0  # terminals authenticated with the first gateway
    all_online: asyncio.Event = field(default_factory=asyncio.Event)
    go: asyncio.Event = field(default_factory=asyncio.Event)  # the fleet is online: start reporting
    acked: int = 0
    halfway: asyncio.Event = field(default_factory=asyncio.Event)
    killing: asyncio.Event = field(default_factory=asyncio.Event)  # set just before the SIGKILL
    killed: asyncio.Event = field(default_factory=asyncio.Event)  # set once the process is gone
    dropped: int = 0  # terminals that have seen the kill drop their connection
    all_dropped: asyncio.Event = field(default_factory=asyncio.Event)
    early_drops: int = 0  # connections lost before the kill (the gateway must not drop anyone)
    timeouts: int = 0  # messages a live gateway never answered

    def add(self, n: int) -> None:
        self.acked += n
        if self.acked >= KILL_AFTER:
            self.halfway.set()


class GatewayProcess:
    """``gateway_process.py`` as a child process; its log goes to a file that failures quote."""

    def __init__(self, url: str, log_path: Path) -> None:
        self.url = url
        self.log_path = log_path
        self.proc: asyncio.subprocess.Process | None = None

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:] if self.log_path.exists() else ""

    async def start(self, port: int = 0) -> int:
        with self.log_path.open("ab") as err:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, str(CHILD), self.url, str(port), stdout=asyncio.subprocess.PIPE, stderr=err
            )
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), 60)
        assert line.strip().isdigit(), f"the gateway process did not start:\n{self.log_tail()}"
        return int(line)

    async def kill(self) -> None:
        assert self.proc is not None and self.proc.returncode is None, f"gateway died early:\n{self.log_tail()}"
        self.proc.send_signal(signal.SIGKILL)
        assert await asyncio.wait_for(self.proc.wait(), WAIT) == -signal.SIGKILL

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


def location(second: int, lat: float) -> Location:
    return Location(0, 3, lat, 121.5 + second * 1e-5, 5, 4.5, 90, T0 + timedelta(seconds=second))


class Terminal:
    """A terminal with a blind-zone buffer: it keeps every position until the platform acknowledges it, and on
    reconnecting sends again whatever is still there."""

    def __init__(self, phase: Phase, port: int, index: int, device: str) -> None:
        self.phase = phase
        self.port = port
        self.index = index
        self.version = Jt808Version.V2019 if index % 2 else Jt808Version.V2013
        self.number = device.rjust(20 if self.version is Jt808Version.V2019 else 12, "0")
        self.lat = 30.0 + index * 0.01
        self.todo: set[int] = set(range(PER_TERMINAL))  # seconds after T0 not acknowledged (as far as it knows)
        self.acked: set[int] = set()  # every position an acknowledgement was received for
        self.acked_messages: list[list[int]] = []  # in the order their acknowledgements came
        self.resent_acked: set[int] = set()  # acknowledged, then sent again (the acknowledgement "lost")
        self.code: str | None = None
        self.connections = 0
        self.saw_kill = False

    def messages(self) -> list[list[int]]:
        """What is left, oldest first: alternately one position and a batch of five."""
        pending = sorted(self.todo)
        out: list[list[int]] = []
        while pending:
            size = 5 if len(out) % 2 else 1
            out.append(pending[:size])
            pending = pending[size:]
        return out

    async def connect(self) -> Jt808Client:
        """Connect, retrying while no gateway listens (between the kill and the restart), as terminals do."""
        delay = 0.05
        while True:
            try:
                return await Jt808Client(HOST, self.port, self.number, self.version).connect()
            except OSError:
                await asyncio.sleep(delay)
                delay = min(0.5, delay * 2)

    async def run(self) -> None:
        while True:
            client = await self.connect()
            self.connections += 1
            try:
                if self.code is None:
                    reply = await client.register(registration(terminal_id=f"T{self.index}"), WAIT)
                    assert reply.result == RegistrationResult.SUCCESS and reply.auth_code, reply
                    self.code = reply.auth_code
                result = await client.authenticate(self.code, WAIT)
                assert result == 0, f"terminal {self.number} refused (result {result})"
                second_gateway = self.phase.killed.is_set()  # the first one is gone: this is the new process
                if self.connections == 1:
                    # The whole fleet comes online first, so that the kill finds every terminal reporting.
                    self.phase.online += 1
                    if self.phase.online == TERMINALS:
                        self.phase.all_online.set()
                    await self.phase.go.wait()
                await self.send_all(client, resend=self.saw_kill)
                if second_gateway:
                    return
                await client.closed.wait()  # everything acknowledged: stay online until the gateway goes away
            except (ConnectionError, OSError):
                pass
            finally:
                await client.close()
            self.dropped()

    async def send_all(self, client: Jt808Client, resend: bool) -> None:
        window = asyncio.Semaphore(WINDOW)

        async def send(seconds: list[int]) -> None:
            async with window:
                body = (
                    location(seconds[0], self.lat)
                    if len(seconds) == 1
                    else LocationBatch(
                        BatchType.BLIND_ZONE if resend else BatchType.NORMAL,
                        tuple(location(s, self.lat) for s in seconds),
                    )
                )
                try:
                    reply = await client.request(body, WAIT)
                except TimeoutError:
                    if not self.phase.killing.is_set():
                        self.phase.timeouts += 1
                    raise
                assert isinstance(reply, PlatformGeneralReply) and reply.result == 0, reply
                self.todo.difference_update(seconds)
                self.acked.update(seconds)
                self.acked_messages.append(seconds)
                self.phase.add(len(seconds))

        results = await asyncio.gather(*(send(m) for m in self.messages()), return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, ConnectionError | OSError):
                raise r
        if self.todo:
            raise ConnectionError("connection lost with positions unacknowledged")

    def dropped(self) -> None:
        if not self.phase.killing.is_set():
            self.phase.early_drops += 1
            return
        if self.saw_kill:
            return
        self.saw_kill = True
        for seconds in self.acked_messages[-LOST_ACKS:]:
            self.todo.update(seconds)
            self.resent_acked.update(seconds)
        self.phase.dropped += 1
        if self.phase.dropped == TERMINALS:
            self.phase.all_dropped.set()


def stamp(second: int) -> datetime:
    return (T0 + timedelta(seconds=second)).replace(tzinfo=None)


def sec(when: datetime) -> int:
    return int((when - stamp(0)).total_seconds())


async def latest(db: Database, ids: list[int]) -> dict[int, datetime | None]:
    """vehicle → device time of its latest state."""
    async with db.sessionmaker() as s:
        rows = await s.execute(
            select(VehicleState.vehicle_id, VehicleState.device_time).where(VehicleState.vehicle_id.in_(ids))
        )
        return {vid: when for vid, when in rows.all()}


async def until(event: asyncio.Event, tasks: list[asyncio.Task[None]], wait_s: float, what: Callable[[], str]) -> None:
    """Wait for ``event``; a terminal that fails meanwhile fails the test at once (with its own error)."""
    waiter = asyncio.ensure_future(event.wait())
    done, _ = await asyncio.wait([waiter, *tasks], timeout=wait_s, return_when=asyncio.FIRST_COMPLETED)
    if waiter in done:
        return
    waiter.cancel()
    for task in done:
        task.result()
    raise AssertionError(f"{what()} within {wait_s:.0f} s")


async def stored(db: Database, ids: list[int]) -> dict[int, dict[datetime, tuple[int, float]]]:
    """vehicle → device time → (rows at that time, longitude)."""
    async with db.sessionmaker() as s:
        rows = (
            await s.execute(
                select(Position.vehicle_id, Position.device_time, func.count(), func.min(Position.lon))
                .where(Position.vehicle_id.in_(ids))
                .group_by(Position.vehicle_id, Position.device_time)
            )
        ).all()
    out: dict[int, dict[datetime, tuple[int, float]]] = {vid: {} for vid in ids}
    for vid, when, count, lon in rows:
        out[vid][when] = (count, lon)
    return out


async def test_10000_positions_survive_a_killed_gateway_process(db: Database, tmp_path: Path) -> None:
    started = time.monotonic()
    cars = [
        Vehicle(tenant_id="000000", car_no=f"LOAD-{i}", device_number=f"{(next_id() + i) % 10**12:012d}", car_type=4)
        for i in range(TERMINALS)
    ]
    async with db.sessionmaker() as s:
        s.add_all(cars)
        await s.commit()
    ids = [car.id for car in cars]

    first = GatewayProcess(db.url, tmp_path / "gateway-1.log")
    second = GatewayProcess(db.url, tmp_path / "gateway-2.log")
    port = await first.start()
    phase = Phase()
    terminals = [Terminal(phase, port, i, car.device_number or "") for i, car in enumerate(cars)]
    tasks = [asyncio.create_task(t.run()) for t in terminals]
    try:
        await until(phase.all_online, tasks, 60, lambda: f"every terminal online (got {phase.online})")
        phase.go.set()
        await until(phase.halfway, tasks, 60, lambda: f"{KILL_AFTER} positions acknowledged (got {phase.acked})")
        phase.killing.set()
        await first.kill()
        phase.killed.set()
        await until(
            phase.all_dropped, tasks, WAIT, lambda: f"every terminal saw its connection drop (got {phase.dropped})"
        )
        at_kill = {car.id: set(t.acked) for car, t in zip(cars, terminals, strict=True)}
        acked_at_kill = sum(len(a) for a in at_kill.values())
        assert acked_at_kill < TERMINALS * PER_TERMINAL, "the kill came too late to test anything"

        # Before anything can send again: whatever was acknowledged is in the database.
        after_kill = await stored(db, ids)
        for car in cars:
            missing = sorted(s for s in at_kill[car.id] if stamp(s) not in after_kill[car.id])
            assert not missing, f"{car.car_no}: {len(missing)} acknowledged, then lost with the process: {missing[:10]}"
        # The latest state is written in the same transaction as the positions, so it must name one of them: a
        # state ahead of the stored positions makes the next process take the terminal's re-sent position for a
        # duplicate of what it believes stored, drop it and acknowledge it.
        states = await latest(db, ids)
        ahead = {
            car.car_no: sec(when)
            for car in cars
            if (when := states.get(car.id)) is not None and when not in after_kill[car.id]
        }
        assert not ahead, f"latest state of a position that is not stored (vehicle: second): {ahead}"
        committed_unacked = sum(len(after_kill[vid]) - len(at_kill[vid]) for vid in ids)

        await second.start(port)
        await asyncio.wait_for(asyncio.gather(*tasks), 120)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await first.stop()
        await second.stop()

    assert (phase.early_drops, phase.timeouts) == (0, 0), second.log_tail() or first.log_tail()
    assert all(t.connections >= 2 and t.saw_kill for t in terminals), "every terminal reconnected after the kill"
    final = await stored(db, ids)
    for car, term in zip(cars, terminals, strict=True):
        rows = final[car.id]
        assert term.acked == set(range(PER_TERMINAL)) and not term.todo
        twice = {when: n for when, (n, _) in rows.items() if n != 1}
        assert not twice, f"{car.car_no}: stored more than once: {twice}"
        lost = sorted(s for s in range(PER_TERMINAL) if stamp(s) not in rows)
        assert not lost, f"{car.car_no}: acknowledged, never stored: seconds {lost}"
        assert len(rows) == PER_TERMINAL
        moved = {when: lon for when, (_, lon) in rows.items() if round(lon, 6) != round(121.5 + sec(when) * 1e-5, 6)}
        assert not moved, f"{car.car_no}: stored other data than sent: {moved}"
        assert len(term.resent_acked) >= LOST_ACKS  # acknowledged, sent again, and still stored once
    async with db.sessionmaker() as s:
        per_vehicle = dict(
            (
                await s.execute(
                    select(Position.vehicle_id, func.count() - func.count(func.distinct(Position.device_time)))
                    .where(Position.vehicle_id.in_(ids))
                    .group_by(Position.vehicle_id)
                )
            ).all()
        )
    assert per_vehicle == dict.fromkeys(ids, 0), "rows per vehicle == distinct times"
    assert await latest(db, ids) == dict.fromkeys(ids, stamp(PER_TERMINAL - 1)), (
        "the latest state is the newest position"
    )
    log.info(
        "load: %d positions, killed after %d acknowledged (%d more committed without an acknowledgement), "
        "%d re-sent after their acknowledgement, %d connections, %.1f s",
        TERMINALS * PER_TERMINAL,
        acked_at_kill,
        committed_unacked,
        sum(len(t.resent_acked) for t in terminals),
        sum(t.connections for t in terminals),
        time.monotonic() - started,
    )
