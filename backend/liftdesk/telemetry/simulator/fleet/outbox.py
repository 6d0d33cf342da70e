"""A simulated terminal's state and its positions (:class:`TerminalOutbox`, the base of
:class:`~liftdesk.telemetry.simulator.fleet.forklift.SimulatedForklift`): the *producer* moving the model
through simulated time and storing a position at every report, and the outbox that keeps them until the
platform acknowledges them - sent live (0x0200) or as blind-zone batches (0x0704).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from liftdesk.telemetry.codecs.jt808 import (
    MAX_BODY,
    BatchType,
    Body,
    Jt808Version,
    LiftdeskBatteryReport,
    Location,
    LocationBatch,
    PassThrough,
    PlatformGeneralReply,
    RegistrationReply,
    ReplyResult,
    encode_frames,
    subpackage_count,
)

from ..model import ForkliftModel, ReportSchedule
from ..params import TerminalParams, default_params
from ..specs import DeviceSpec
from .clock import SimClock, _wait

log = logging.getLogger("liftdesk.simulator")

MSG_LOCATION = 0x0200
MSG_BATCH = 0x0704
MSG_AUTH = 0x0102


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


@dataclass
class _Pending:
    seq: int
    location: Location
    live: bool  #: produced while online and not yet sent: goes out as a plain 0x0200
    sent: bool = False


class TerminalOutbox:
    """One terminal's state, the positions it produces and its outbox (see :class:`SimulatedForklift`)."""

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
            can = m.can_data()
            if can is not None and self._online:  # the latest values only: not kept for a re-send
                await self._try_send(can)
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
