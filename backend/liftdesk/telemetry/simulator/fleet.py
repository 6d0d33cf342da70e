"""Simulated JT/T 808 terminals on forklifts, talking TCP to the Liftdesk gateway.

Each :class:`SimulatedForklift` runs two loops:

* the *producer* moves its :class:`~.model.ForkliftModel` through simulated time and stores a position
  every report interval (0x0029 while working, 0x0027 with ACC off, 0x0028 during an alarm) and at
  once on ACC changes and impacts; positions go to a small outbox until the platform acknowledges them
  (0x8001 whose reply-serial matches);
* the *connection* connects, registers (0x0100, only while it has no auth code), authenticates (0x0102),
  re-sends what the outbox still holds as 0x0704 blind-zone backfill, sends heartbeats when idle, and
  answers platform commands.  Refusals and dropped links are retried with exponential backoff.  When it
  stops it deregisters (0x0003) and forgets its code, as a terminal being switched off for good does.

Simulated time runs ``speedup`` times faster than the wall clock and starts at ``start`` (default: now),
so report times are simulated times.  Network timeouts and backoff are wall-clock seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from liftdesk.telemetry.codecs.jt808 import (
    MAX_BODY,
    AlarmConfirmation,
    AreaSetMode,
    Authentication,
    BatchType,
    Body,
    BodyError,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    FrameSplitter,
    GeneralReply,
    Heartbeat,
    Jt808Error,
    Jt808Version,
    LiftdeskBatteryReport,
    Location,
    LocationBatch,
    LocationQueryReply,
    Logout,
    Message,
    ParamId,
    ParamItem,
    ParamQueryReply,
    PassThrough,
    PlatformGeneralReply,
    QueryAllParams,
    QueryParams,
    Registration,
    RegistrationReply,
    RegistrationResult,
    ReplyResult,
    SetCircleAreas,
    SetParams,
    SetPolygonArea,
    SetRectangleAreas,
    SubpackageAssembler,
    TerminalAttributes,
    TerminalCommand,
    TerminalControl,
    TextMessage,
    VehicleControl,
    VehicleControlReply,
    VehicleControlType,
    decode_packet,
    encode_frames,
    parse_packet,
    subpackage_count,
)

from .model import ForkliftModel, ReportSchedule
from .params import TerminalParams, default_params
from .schedule import LOCAL_TZ
from .specs import DeviceSpec

DeleteAreas = DeleteCircleAreas | DeleteRectangleAreas | DeletePolygonAreas

log = logging.getLogger("liftdesk.simulator")

MSG_LOCATION = 0x0200
MSG_BATCH = 0x0704
MSG_AUTH = 0x0102
MSG_QUERY_LOCATION = 0x8201
MSG_DRIVER_REQUEST = 0x8702
MSG_QUERY_ATTRIBUTES = 0x8107
HARDWARE_VERSION = "LD-T808-B"
MAKER_ID = "LFTDK"
SOFTWARE_VERSION = "LD-SIM 1.0"


class SimClock:
    """Simulated time (epoch seconds) running ``speedup`` times faster than the wall clock from ``start``."""

    def __init__(self, start: datetime | None = None, speedup: float = 1.0) -> None:
        if not speedup > 0:
            raise ValueError("speedup must be positive")
        if start is not None and start.tzinfo is None:
            raise ValueError("start must be timezone-aware")
        self.start = (start or datetime.now(UTC)).timestamp()
        self.speedup = float(speedup)
        self._t0 = time.monotonic()

    def now(self) -> float:
        return self.start + (time.monotonic() - self._t0) * self.speedup

    def wall(self, sim_seconds: float) -> float:
        """Wall-clock seconds that ``sim_seconds`` of simulated time take."""
        return max(0.0, sim_seconds / self.speedup)

    def wall_until(self, t: float) -> float:
        return self.wall(t - self.now())


@dataclass
class ForkliftStats:
    connects: int = 0  #: TCP connections opened
    sessions: int = 0  #: sessions that authenticated
    registrations: int = 0  #: successful registrations (0x8100 result 0)
    registration_refused: int = 0
    auth_failed: int = 0
    locations: int = 0  #: positions produced
    sent_live: int = 0  #: positions sent as 0x0200
    sent_backfill: int = 0  #: positions sent inside 0x0704 blind-zone batches
    batches: int = 0
    acked: int = 0
    dropped: int = 0  #: positions lost to a full outbox
    heartbeats: int = 0
    commands: int = 0


class _Refused(Exception):
    """The platform refused registration or authentication."""


@dataclass
class _Pending:
    seq: int
    location: Location
    live: bool  #: produced while online and not yet sent: goes out as a plain 0x0200
    sent: bool = False


class SimulatedForklift:
    """One terminal.  Run it with :meth:`run`; it stops when ``stop`` is set."""

    def __init__(
        self,
        spec: DeviceSpec,
        host: str,
        port: int,
        *,
        clock: SimClock | None = None,
        speedup: float = 1.0,
        report_interval_s: float = 10.0,
        backoff_s: tuple[float, float] = (1.0, 60.0),
        connect_timeout_s: float = 10.0,
        outbox_size: int = 500,
        battery_reports: bool = True,
    ) -> None:
        self.spec = spec
        self.host = host
        self.port = port
        self.clock = clock or SimClock(speedup=speedup)
        self.backoff_s = backoff_s
        self.connect_timeout_s = connect_timeout_s
        self.outbox_size = max(1, outbox_size)
        #: Send Liftdesk battery reports (0x0900 type 0xF1) between position reports while charging.
        self.battery_reports = battery_reports
        self.params = TerminalParams(
            default_params(
                host=host,
                port=port,
                version=spec.version,
                report_interval_s=max(1, round(report_interval_s)),
                province_id=spec.province_id,
                city_id=spec.city_id,
                plate=spec.frame_number,
            )
        )
        self.model = ForkliftModel(spec, self.params, self.clock.now())
        self.stats = ForkliftStats()
        self.auth_code: str | None = None
        #: Text messages received (0x8300), newest last.
        self.texts: list[str] = []
        #: Areas the platform set, by shape (0x8600 circles, 0x8602 rectangles, 0x8604 polygons) and id.
        self.areas: dict[int, dict[int, Any]] = {0x8600: {}, 0x8602: {}, 0x8604: {}}
        self._online = False
        self._started = False
        self._writer: asyncio.StreamWriter | None = None
        self._serials = 0
        self._send_lock = asyncio.Lock()
        self._flush_lock = asyncio.Lock()
        self._outbox: OrderedDict[int, _Pending] = OrderedDict()
        self._inflight: dict[int, tuple[int, list[int]]] = {}
        self._seq = 0
        self._queued: list[Body] = []
        self._reg_reply: asyncio.Future[RegistrationReply] | None = None
        self._auth_reply: asyncio.Future[PlatformGeneralReply] | None = None
        self._drop = asyncio.Event()
        self._first_attempt = asyncio.Event()
        self._last_tx = 0.0
        self._net_rng = random.Random(f"net:{spec.device}:{spec.seed}")

    # ------------------------------------------------------------------ public

    @property
    def device(self) -> str:
        return self.spec.device

    @property
    def version(self) -> Jt808Version:
        return self.spec.version

    @property
    def online(self) -> bool:
        """Connected and authenticated."""
        return self._online

    @property
    def unacked(self) -> int:
        """Positions the platform has not acknowledged yet."""
        return len(self._outbox)

    def reconnect(self) -> None:
        """Drop the present connection; the terminal reconnects after the shortest backoff."""
        self._drop.set()

    async def run(self, stop: asyncio.Event | None = None) -> None:
        stop = stop or asyncio.Event()
        if not self._started:
            self._started = True
            # Start the shift model now rather than when the object was built (fleets start staggered).
            self.model = ForkliftModel(self.spec, self.params, self.clock.now())
        tasks = [
            asyncio.create_task(self._connection_loop(stop), name=f"sim-conn-{self.device}"),
            asyncio.create_task(self._produce(stop), name=f"sim-produce-{self.device}"),
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    # ------------------------------------------------------------------ producer

    async def _sleep_until(self, t: float, stop: asyncio.Event) -> bool:
        """Wait until simulated time ``t``; True when ``stop`` was set meanwhile."""
        return await _wait(stop, self.clock.wall_until(t))

    async def _produce(self, stop: asyncio.Event) -> None:
        with contextlib.suppress(TimeoutError):
            # Let the first connection attempt finish so the first positions go out live.
            await asyncio.wait_for(self._first_attempt.wait(), self.connect_timeout_s + 2 * self.params.reply_timeout_s)
        m = self.model
        schedule = ReportSchedule(m)
        next_battery = math.inf
        while not stop.is_set():
            due = schedule.due()
            if next_battery < due - 1.0:
                # Charging while parked: a BMS report (0x0900) half-way between two position reports.
                target, next_battery = next_battery, math.inf
                if await self._sleep_until(target, stop):
                    break
                if not schedule.idle_to(target) and self._online:
                    await self._battery_report()
                continue
            if await self._sleep_until(due, stop):
                break
            location = schedule.run_to(due)
            for event in m.take_events():
                await self._send_event(event)
            if location is None:
                continue
            await self._store(location)
            if m.battery is not None and m.on_charger and self.battery_reports:
                next_battery = m.t + schedule.interval() / 2

    async def _battery_report(self) -> None:
        info = self.model.battery_info()
        if info is not None:
            stamp = datetime.fromtimestamp(math.floor(self.model.t), UTC)
            await self._try_send(PassThrough.of(LiftdeskBatteryReport(stamp, info)))

    async def _store(self, location: Location) -> None:
        self._seq += 1
        self._outbox[self._seq] = _Pending(self._seq, location, live=self._online)
        self.stats.locations += 1
        while len(self._outbox) > self.outbox_size:
            self._outbox.popitem(last=False)
            self.stats.dropped += 1
            if self.stats.dropped in (1, 10, 100) or self.stats.dropped % 1000 == 0:
                log.warning("%s: outbox full, %d positions dropped so far", self.spec.label, self.stats.dropped)
        if self._online:
            # On a write error the connection loop notices and reconnects; the outbox keeps the positions.
            with contextlib.suppress(OSError, ConnectionError):
                await self._flush()

    async def _send_event(self, body: Body) -> None:
        if self._online and await self._try_send(body):
            return
        self._queued.append(body)
        del self._queued[:-20]

    async def _try_send(self, body: Body) -> bool:
        try:
            await self._send(body)
        except (OSError, ConnectionError):
            return False
        return True

    # ------------------------------------------------------------------ sending

    async def _send(self, body: Body, track: list[int] | None = None) -> int:
        """Encode and write ``body``; with ``track``, remember which positions its serial carries."""
        writer = self._writer
        if writer is None:
            raise ConnectionError("not connected")
        raw = body.encode(self.version)
        count = subpackage_count(len(raw))
        serial = self._serials
        self._serials = (serial + count) & 0xFFFF
        frames = encode_frames(
            body.msg_id, raw, terminal=self.device, serial=serial, version=self.version, protocol_version=1
        )
        if track is not None:
            self._inflight[serial] = (body.msg_id, track)
        async with self._send_lock:
            for frame in frames:
                writer.write(frame)
            self._last_tx = time.monotonic()
            await writer.drain()
        log.debug("%s → 0x%04x serial %d", self.spec.label, body.msg_id, serial)
        return serial

    async def _flush(self) -> None:
        """Send every position not yet sent on this connection: backlog as blind-zone batches, new ones live."""
        async with self._flush_lock:
            if not self._online:
                return
            backlog = [p for p in self._outbox.values() if not p.sent and not p.live]
            live = [p for p in self._outbox.values() if not p.sent and p.live]
            for batch in _batches(backlog, self.version):
                for p in batch:
                    p.sent = True
                await self._send(
                    LocationBatch(BatchType.BLIND_ZONE, tuple(p.location for p in batch)), [p.seq for p in batch]
                )
                self.stats.batches += 1
                self.stats.sent_backfill += len(batch)
            for p in live:
                p.sent = True
                await self._send(p.location, [p.seq])
                self.stats.sent_live += 1

    def _on_ack(self, reply: PlatformGeneralReply) -> None:
        if reply.reply_msg_id == MSG_AUTH:
            if self._auth_reply is not None and not self._auth_reply.done():
                self._auth_reply.set_result(reply)
            return
        entry = self._inflight.get(reply.reply_serial)
        if entry is None or entry[0] != reply.reply_msg_id:
            return
        del self._inflight[reply.reply_serial]
        if reply.result == ReplyResult.FAILURE:
            for seq in entry[1]:  # the platform could not take them now: re-send with the next flush
                p = self._outbox.get(seq)
                if p is not None:
                    p.sent = p.live = False
            return
        if reply.result not in (ReplyResult.SUCCESS, ReplyResult.ALARM_CONFIRMED):
            log.warning("%s: platform rejected positions (result %s)", self.spec.label, reply.result)
        for seq in entry[1]:
            if self._outbox.pop(seq, None) is not None:
                self.stats.acked += 1

    # ------------------------------------------------------------------ connection

    def _backoff(self, failures: int) -> float:
        low, high = self.backoff_s
        delay = low if failures <= 0 else min(high, low * 2 ** (failures - 1))
        return delay * self._net_rng.uniform(0.8, 1.2)

    async def _connection_loop(self, stop: asyncio.Event) -> None:
        failures = 0
        while not stop.is_set():
            ok = False
            try:
                ok = await self._session(stop)
            except _Refused as exc:
                log.warning("%s: %s; retrying later", self.spec.label, exc)
            except (OSError, ConnectionError, TimeoutError, Jt808Error) as exc:
                level = logging.INFO if failures % 10 == 0 else logging.DEBUG  # first failure, then every 10th
                log.log(
                    level, "%s: connection to %s:%d failed: %s", self.spec.label, self.host, self.port, exc or type(exc)
                )
            finally:
                self._first_attempt.set()
            if stop.is_set():
                break
            failures = 0 if ok else failures + 1
            if await _wait(stop, self._backoff(failures)):
                break

    async def _session(self, stop: asyncio.Event) -> bool:
        """One connection; True when it authenticated (a later drop then reconnects quickly)."""
        self.stats.connects += 1
        reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), self.connect_timeout_s)
        self._writer = writer
        self._drop.clear()
        reader_task = asyncio.create_task(self._read_loop(reader), name=f"sim-read-{self.device}")
        waiters: list[asyncio.Task[Any]] = []
        try:
            if self.auth_code is None:
                await self._register(reader_task)
            await self._authenticate(reader_task)
            self._online = True
            self.stats.sessions += 1
            log.info("%s (%s) online as %s", self.spec.label, self.spec.vehicle_type.name.lower(), self.device)
            queued, self._queued = self._queued, []
            for body in queued:
                await self._send(body)
            await self._flush()
            self._first_attempt.set()
            waiters = [
                asyncio.create_task(self._heartbeat_loop()),
                asyncio.create_task(stop.wait()),
                asyncio.create_task(self._drop.wait()),
            ]
            await asyncio.wait([reader_task, *waiters[1:]], return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set() and not reader_task.done():
                with contextlib.suppress(OSError, ConnectionError, TimeoutError):
                    await asyncio.wait_for(self._send(Logout()), 1.0)
                self.auth_code = None  # deregistered: the platform no longer takes that code
            return True
        finally:
            self._online = False
            for task in [reader_task, *waiters]:
                task.cancel()
            await asyncio.gather(reader_task, *waiters, return_exceptions=True)
            self._writer = None
            writer.close()
            with contextlib.suppress(OSError, ConnectionError, TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), 1.0)
            for p in self._outbox.values():
                p.sent = p.live = False
            self._inflight.clear()
            for fut in (self._reg_reply, self._auth_reply):
                if fut is not None and not fut.done():
                    fut.cancel()
            self._reg_reply = self._auth_reply = None

    async def _await_reply(self, fut: asyncio.Future[Any], reader_task: asyncio.Task[None], what: str) -> None:
        done, _ = await asyncio.wait(
            [fut, reader_task], timeout=self.params.reply_timeout_s, return_when=asyncio.FIRST_COMPLETED
        )
        if fut not in done:
            raise ConnectionError(f"no {what} reply" if not reader_task.done() else "connection closed")

    async def _register(self, reader_task: asyncio.Task[None]) -> None:
        spec = self.spec
        v2019 = self.version is Jt808Version.V2019
        fut: asyncio.Future[RegistrationReply] = asyncio.get_running_loop().create_future()
        self._reg_reply = fut
        await self._send(
            Registration(
                province_id=spec.province_id,
                city_id=spec.city_id,
                maker_id=MAKER_ID,
                model=self._attributes().model,
                terminal_id=spec.device if v2019 else spec.device[-7:],
                plate_color=0,
                plate=spec.frame_number or spec.label,
            )
        )
        await self._await_reply(fut, reader_task, "registration")
        reply = fut.result()
        if reply.result != RegistrationResult.SUCCESS or not reply.auth_code:
            self.stats.registration_refused += 1
            result = reply.result
            name = result.name.lower() if isinstance(result, RegistrationResult) else str(result)
            raise _Refused(f"registration refused ({name})")
        self.stats.registrations += 1
        self.auth_code = reply.auth_code

    async def _authenticate(self, reader_task: asyncio.Task[None]) -> None:
        code = self.auth_code or ""
        fut: asyncio.Future[PlatformGeneralReply] = asyncio.get_running_loop().create_future()
        self._auth_reply = fut
        imei = ("86" + self.device)[-15:].rjust(15, "0")
        await self._send(Authentication(code, imei, SOFTWARE_VERSION))
        await self._await_reply(fut, reader_task, "authentication")
        reply = fut.result()
        if reply.result != ReplyResult.SUCCESS:
            self.stats.auth_failed += 1
            self.auth_code = None  # register again next time
            raise _Refused(f"authentication refused (result {int(reply.result)})")

    async def _heartbeat_loop(self) -> None:
        try:
            while True:
                interval = self.clock.wall(self.params.heartbeat_s)
                idle = time.monotonic() - self._last_tx
                if idle >= interval:
                    await self._send(Heartbeat())
                    self.stats.heartbeats += 1
                    idle = 0.0
                await asyncio.sleep(max(0.001, interval - idle))
        except (OSError, ConnectionError):
            return

    # ------------------------------------------------------------------ receiving

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        splitter = FrameSplitter()
        assembler = SubpackageAssembler()
        while True:
            try:
                chunk = await reader.read(4096)
            except (OSError, ConnectionError):
                return
            if not chunk:
                return
            for frame in splitter.feed(chunk):
                try:
                    packet = assembler.add(decode_packet(frame))
                except Jt808Error as exc:
                    log.debug("%s: bad frame dropped: %s", self.spec.label, exc)
                    continue
                if packet is None:
                    continue
                try:
                    message = parse_packet(packet)
                except BodyError as exc:
                    log.info("%s: cannot parse 0x%04x: %s", self.spec.label, packet.header.msg_id, exc)
                    await self._reply(packet.header.serial, packet.header.msg_id, ReplyResult.BAD_MESSAGE)
                    continue
                await self._dispatch(message)

    async def _reply(self, serial: int, msg_id: int, result: ReplyResult) -> None:
        await self._send(GeneralReply(serial, msg_id, result))

    async def _dispatch(self, message: Message) -> None:
        header, body = message.header, message.body
        if isinstance(body, PlatformGeneralReply):
            self._on_ack(body)
            return
        if isinstance(body, RegistrationReply):
            if self._reg_reply is not None and not self._reg_reply.done():
                self._reg_reply.set_result(body)
            return
        self.stats.commands += 1
        serial = header.serial
        log.debug("%s ← 0x%04x serial %d", self.spec.label, header.msg_id, serial)
        if isinstance(body, SetParams):
            await self._set_params(serial, body)
        elif isinstance(body, QueryAllParams):
            await self._send(ParamQueryReply(serial, self._param_items(None)))
        elif isinstance(body, QueryParams):
            await self._send(ParamQueryReply(serial, self._param_items(body.param_ids)))
        elif isinstance(body, TerminalControl):
            await self._terminal_control(serial, body)
        elif isinstance(body, VehicleControl):
            await self._vehicle_control(serial, body)
        elif isinstance(body, TextMessage):
            self.texts.append(body.text)
            del self.texts[:-50]
            log.info("%s display: %s", self.spec.label, body.text)
            await self._reply(serial, header.msg_id, ReplyResult.SUCCESS)
        elif isinstance(body, AlarmConfirmation):
            log.info("%s: alarms 0x%08x confirmed by the platform", self.spec.label, body.alarm_types)
            await self._reply(serial, header.msg_id, ReplyResult.SUCCESS)
        elif isinstance(body, SetCircleAreas | SetRectangleAreas | SetPolygonArea | DeleteAreas):
            self._areas(body)
            await self._reply(serial, header.msg_id, ReplyResult.SUCCESS)
        elif header.msg_id == MSG_QUERY_LOCATION:
            self.model.sync(self.clock.now())
            await self._send(LocationQueryReply(serial, self.model.location(consume=False)))
        elif header.msg_id == MSG_QUERY_ATTRIBUTES:
            await self._send(self._attributes())
        elif header.msg_id == MSG_DRIVER_REQUEST:
            self.model.sync(self.clock.now())
            await self._send(self.model.card_identity())
        else:
            await self._reply(serial, header.msg_id, ReplyResult.UNSUPPORTED)

    def _areas(self, body: SetCircleAreas | SetRectangleAreas | SetPolygonArea | DeleteAreas) -> None:
        """Keep the areas as a terminal does (the platform raises the fence alarms from the positions)."""
        if isinstance(body, DeleteCircleAreas | DeleteRectangleAreas | DeletePolygonAreas):
            held = self.areas[body.msg_id - 1]
            if body.area_ids:
                for area_id in body.area_ids:
                    held.pop(area_id, None)
            else:
                held.clear()
            return
        if isinstance(body, SetPolygonArea):
            self.areas[0x8604][body.area.area_id] = body.area
            return
        held = self.areas[body.msg_id]
        if body.mode == AreaSetMode.UPDATE:
            held.clear()
        for area in body.areas:
            held[area.area_id] = area

    def _attributes(self) -> TerminalAttributes:
        """0x0107: what this terminal is (model, ICCID, versions, GPS+BeiDou, LTE)."""
        spec = self.spec
        v2019 = self.version is Jt808Version.V2019
        return TerminalAttributes(
            terminal_type=0,
            maker_id=MAKER_ID,
            model=f"LD808-{spec.vehicle_type.name[:12]}",
            terminal_id=spec.device if v2019 else spec.device[-7:],
            iccid=("8986" + spec.device)[-20:].rjust(20, "0"),
            hardware_version=HARDWARE_VERSION,
            firmware_version=SOFTWARE_VERSION,
            gnss_modules=0b11,  # GPS, BeiDou
            comm_modules=0b100000,  # TD-LTE
        )

    def _param_items(self, ids: Sequence[int] | None) -> tuple[ParamItem, ...]:
        self.params.values[ParamId.ODOMETER] = min(0xFFFFFFFF, round(self.model.mileage_km * 10))
        return self.params.query(ids)

    async def _set_params(self, serial: int, body: SetParams) -> None:
        self.model.sync(self.clock.now())  # changes apply from now, not from the last report
        problems = self.params.apply(body.params)
        if problems:
            log.warning("%s: refused parameters: %s", self.spec.label, "; ".join(problems))
            await self._reply(serial, SetParams.msg_id, ReplyResult.FAILURE)
            return
        values = body.as_dict()
        odometer = values.get(ParamId.ODOMETER)
        if isinstance(odometer, int):
            self.model.mileage_km = odometer / 10
        if ParamId.LOCK_LEVEL in values:
            log.info("%s: lock level %s", self.spec.label, values[ParamId.LOCK_LEVEL])
        await self._reply(serial, SetParams.msg_id, ReplyResult.SUCCESS)

    async def _terminal_control(self, serial: int, body: TerminalControl) -> None:
        command = body.command
        if command not in (TerminalCommand.RESET, TerminalCommand.FACTORY_RESET, TerminalCommand.CLOSE_DATA_LINK):
            await self._reply(serial, TerminalControl.msg_id, ReplyResult.UNSUPPORTED)
            return
        await self._reply(serial, TerminalControl.msg_id, ReplyResult.SUCCESS)
        if command == TerminalCommand.FACTORY_RESET:
            self.model.sync(self.clock.now())
            self.params.reset()
            self.auth_code = None
        log.info("%s: terminal control %s, reconnecting", self.spec.label, TerminalCommand(command).name.lower())
        self._drop.set()

    async def _vehicle_control(self, serial: int, body: VehicleControl) -> None:
        """2013: the door-lock bit locks (level 2) or unlocks; 2019: DOORS likewise, or the Liftdesk lock level."""
        level: int | None = None
        for item in body.controls:
            if len(item.param) != 1:
                level = None
                break
            if item.control_type == VehicleControlType.DOORS:
                level = 2 if item.param[0] & 1 else 0
            elif item.control_type == VehicleControlType.LIFTDESK_LOCK_LEVEL:
                level = item.param[0]
            else:
                await self._reply(serial, VehicleControl.msg_id, ReplyResult.UNSUPPORTED)
                return
        if level is None or not 0 <= level <= 2:
            await self._reply(serial, VehicleControl.msg_id, ReplyResult.FAILURE)
            return
        self.model.sync(self.clock.now())
        self.params.values[ParamId.LOCK_LEVEL] = level
        log.info("%s: vehicle control, lock level %d", self.spec.label, level)
        await self._reply(serial, VehicleControl.msg_id, ReplyResult.SUCCESS)
        # The standard answer to 0x8500 is 0x0500 (serial + position showing the new state).
        await self._send(VehicleControlReply(serial, self.model.location(consume=False)))


async def _wait(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep ``seconds`` (wall) unless ``stop`` gets set first; True when it did."""
    if stop.is_set():
        return True
    if seconds <= 0:
        await asyncio.sleep(0)
        return stop.is_set()
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        return False
    return True


def _batches(pending: list[_Pending], version: Jt808Version) -> list[list[_Pending]]:
    """Group positions into 0x0704 bodies that fit one frame."""
    out: list[list[_Pending]] = []
    batch: list[_Pending] = []
    size = 3
    for p in pending:
        item = 2 + len(p.location.encode(version))
        if batch and size + item > MAX_BODY:
            out.append(batch)
            batch, size = [], 3
        batch.append(p)
        size += item
    if batch:
        out.append(batch)
    return out


# ---------------------------------------------------------------------- fleet


class Fleet:
    """Many forklifts sharing one simulated clock."""

    def __init__(
        self,
        host: str,
        port: int,
        devices: Sequence[DeviceSpec],
        speedup: float = 1.0,
        report_interval_s: float = 10.0,
        *,
        start: datetime | None = None,
        backoff_s: tuple[float, float] = (1.0, 60.0),
        connect_timeout_s: float = 10.0,
        outbox_size: int = 500,
        stagger_s: float | None = None,
    ) -> None:
        if len({d.device for d in devices}) != len(devices):
            raise ValueError("device numbers must be unique")
        self.clock = SimClock(start, speedup)
        self.stagger_s = min(2.0, 0.02 * len(devices)) if stagger_s is None else stagger_s
        self.forklifts = [
            SimulatedForklift(
                spec,
                host,
                port,
                clock=self.clock,
                report_interval_s=report_interval_s,
                backoff_s=backoff_s,
                connect_timeout_s=connect_timeout_s,
                outbox_size=outbox_size,
            )
            for spec in devices
        ]

    def by_device(self, device: str) -> SimulatedForklift:
        for f in self.forklifts:
            if f.device == device:
                return f
        raise KeyError(device)

    def summary(self) -> str:
        fs = self.forklifts
        online = sum(f.online for f in fs)
        working = sum(f.model.acc_on for f in fs)
        sent = sum(f.stats.sent_live + f.stats.sent_backfill for f in fs)
        acked = sum(f.stats.acked for f in fs)
        backlog = sum(f.unacked for f in fs)
        sim = datetime.fromtimestamp(self.clock.now(), LOCAL_TZ).strftime("%Y-%m-%d %H:%M:%S")
        return (
            f"sim {sim}: {online}/{len(fs)} online, {working} powered on, "
            f"{sent} positions sent, {acked} acknowledged, {backlog} waiting"
        )

    async def run(self, stop_event: asyncio.Event | None = None, *, status_interval_s: float = 60.0) -> None:
        stop = stop_event or asyncio.Event()
        n = len(self.forklifts)

        async def one(i: int, forklift: SimulatedForklift) -> None:
            if n > 1 and self.stagger_s > 0 and await _wait(stop, self.stagger_s * i / n):
                return
            try:
                await forklift.run(stop)
            except Exception:
                log.exception("%s: simulator crashed", forklift.spec.label)

        async def status() -> None:
            while not await _wait(stop, status_interval_s):
                log.info("%s", self.summary())

        reporter = asyncio.create_task(status())
        try:
            await asyncio.gather(*(one(i, f) for i, f in enumerate(self.forklifts)))
        finally:
            reporter.cancel()
            await asyncio.gather(reporter, return_exceptions=True)


async def run_fleet(
    host: str,
    port: int,
    devices: Sequence[DeviceSpec],
    speedup: float = 1.0,
    report_interval_s: float = 10.0,
    stop_event: asyncio.Event | None = None,
    *,
    start: datetime | None = None,
    backoff_s: tuple[float, float] = (1.0, 60.0),
    status_interval_s: float = 60.0,
) -> list[SimulatedForklift]:
    """Run one simulated terminal per spec against the gateway at host:port until ``stop_event`` is set.

    Reports go out every ``report_interval_s`` simulated seconds, i.e. ``report_interval_s / speedup``
    wall seconds (the interval is the terminal parameter 0x0029, whole seconds, at least 1).  Returns
    the forklifts (with their stats) once stopped.
    """
    fleet = Fleet(host, port, devices, speedup, report_interval_s, start=start, backoff_s=backoff_s)
    await fleet.run(stop_event, status_interval_s=status_interval_s)
    return fleet.forklifts
