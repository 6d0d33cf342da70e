"""What a session does with the data a terminal sends: positions (0x0200, 0x0704), Liftdesk pass-through
(0x0900), CAN data (0x0705), driver identity (0x0702) and attributes (0x0107) go to the pipeline, the terminal
service or the command service; data is acknowledged only once stored, several data messages of a connection
are in flight at once (bounded), and a terminal found to have no vehicle any more is refused and closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Iterable
from typing import Any

from liftdesk.core.db import utcnow
from liftdesk.telemetry.codecs.jt808 import (
    BehaviorAlarm,
    CanData,
    CardReadResult,
    CardStatus,
    DriverIdentity,
    FaceComparison,
    ForkliftStatus,
    Header,
    LiftdeskBatteryReport,
    LiftdeskSnapshot,
    Location,
    PassThrough,
    ReplyResult,
    TerminalAttributes,
)
from liftdesk.telemetry.gateway.connection import PROTOCOL, Connection
from liftdesk.telemetry.gateway.mapping import forklift_fields, naive_utc, raw_items, to_fix
from liftdesk.telemetry.gateway.state import last_known
from liftdesk.telemetry.messages import Behavior, CanFrame, DriverChange, FaceSeen, Fix, Report, UnknownDevice
from liftdesk.telemetry.pipeline.drivers import DMS_KINDS
from liftdesk.telemetry.terminals import Known, clean

log = logging.getLogger("liftdesk.gateway")


class SessionData(Connection):
    """The data handlers of a :class:`~.session.Session` (its base class)."""

    # ------------------------------------------------------------------ data

    async def _spawn(self, work: Awaitable[None]) -> None:
        """Run a data handler concurrently (bounded): the read loop keeps reading while the pipeline commits."""
        await self._slots.acquire()
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._slots.release()
        if not task.cancelled() and task.exception() is not None:
            self.gateway.stats.handler_errors += 1
            log.error("%s: data handler failed", self.name, exc_info=task.exception())

    async def _drain(self) -> None:
        """Wait for the data handlers in progress (their acknowledgements go out first)."""
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _submit(self, reports: list[Report]) -> bool:
        """Hand reports to the pipeline; True once committed. False when not stored: after a failure (no answer:
        the terminal sends again), or when the terminal has no vehicle any more (:attr:`unknown` is then set: the
        caller answers result 1, and the connection is closed)."""
        try:
            await self.gateway.pipeline.submit(reports)
        except asyncio.CancelledError:
            raise
        except UnknownDevice:
            self.gateway.stats.unknown_device += 1
            log.warning("%s: the terminal has no vehicle any more; its data is refused", self.name)
            self.unknown = True
            return False
        except Exception:
            self.gateway.stats.submit_failures += 1
            log.exception("%s: %d fixes not stored, not acknowledged", self.name, sum(len(r.fixes) for r in reports))
            return False
        self.gateway.stats.positions += sum(len(r.fixes) for r in reports)
        return True

    async def _submit_pending(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, []
            await self._spawn(self._positions(pending))

    async def _positions(self, pending: list[tuple[Header, tuple[Fix, ...], bool, tuple[int, ...]]]) -> None:
        """Submit the positions of one read; once committed, acknowledge each message (all in one write)."""
        assert self.device is not None
        now = utcnow()
        reports = [
            Report(self.device, fixes, now, backfill=bf, source=PROTOCOL) for _, fixes, bf, _ in pending if fixes
        ]
        stored = not reports or await self._submit(reports)
        if not stored and not self.unknown:
            return
        result = int(ReplyResult.SUCCESS if stored else ReplyResult.FAILURE)
        replies = [
            (serial, header.msg_id, result)
            for header, _, _, serials in pending
            for serial in serials or (header.serial,)
        ]
        with contextlib.suppress(ConnectionError, OSError):
            await self._write(self._replies(replies, pending[-1][0]))
            if stored:
                self.gateway.stats.acknowledged += len(pending)
        if not stored:
            self._close_unknown()

    def _close_unknown(self) -> None:
        """The terminal has no vehicle any more: its refusals go out, then the connection closes."""
        with contextlib.suppress(Exception):
            self._flush()
        self.close()

    async def _stored(self, header: Header, reports: list[Report], serials: tuple[int, ...]) -> bool:
        """Submit, then answer: result 0 once stored, result 1 (and close) when the terminal has no vehicle, none
        when storing failed (the terminal sends again)."""
        if await self._submit(reports):
            await self._reply(header, serials=serials)
            return True
        if self.unknown:
            await self._reply(header, ReplyResult.FAILURE, serials)
            self._close_unknown()
        return False

    async def _unacknowledged(self, header: Header, locations: Iterable[Location]) -> None:
        """A position that came as an answer (0x0500, 0x0201): stored, not acknowledged."""
        assert self.device is not None
        now = utcnow()
        await self._submit([Report(self.device, tuple(to_fix(loc, now) for loc in locations), now)])
        if self.unknown:
            self._close_unknown()

    async def _pass_through(self, header: Header, body: PassThrough, serials: tuple[int, ...]) -> None:
        """Liftdesk battery report (0xF1) or status snapshot (0xF0): a fix at the last known position, or, before
        any position is known, a fix marked invalid (status bit 1 clear) at 0, 0 whose battery and forklift values
        the pipeline keeps on the vehicle's state without taking the place for a location. Acknowledged once stored.
        Other pass-through types are acknowledged only (we do not know what they carry)."""
        report = body.liftdesk
        if isinstance(report, FaceComparison | BehaviorAlarm) and self.known is not None:
            await self._vision(header, report, serials)
            return
        if report is None or self.known is None:
            await self._reply(header, serials=serials)
            return
        now = utcnow()
        last = await last_known(self.gateway.db, self.device or "", self.known.vehicle_id)
        kw: dict[str, Any]
        extra: dict[str, Any] = {"pass_through": int(body.kind)}
        if isinstance(report, LiftdeskBatteryReport):
            kw, more = forklift_fields(ForkliftStatus(battery=report.battery))
        else:
            assert isinstance(report, LiftdeskSnapshot)
            kw, more = forklift_fields(report.status)
            if report.unknown_items:
                raw_items(report.unknown_items, more)
        extra.update(more)
        when = naive_utc(report.time) if report.time is not None else now
        if last is None:
            extra["position"] = "none"
            fix = Fix(time=when, lat=0.0, lon=0.0, status=0, extra=extra, **kw)
        else:
            extra["position"] = "last known"
            kw.setdefault("load_kg", last.load_kg)
            fix = Fix(
                time=when,
                lat=last.lat,
                lon=last.lon,
                speed_kmh=last.speed_kmh,
                direction=last.direction,
                alarm=last.alarm,
                status=last.status,
                extra=extra,
                **kw,
            )
        if await self._stored(header, [Report(self.device or "", (fix,), now, source=PROTOCOL)], serials):
            self.gateway.stats.acknowledged += 1

    async def _can(self, header: Header, body: CanData, serials: tuple[int, ...]) -> None:
        """0x0705: the vehicle's latest value of each CAN id, acknowledged once stored."""
        frames = tuple(CanFrame(i.can_id, i.data, i.channel, i.extended) for i in body.items)
        await self._stored(header, [Report(self.device or "", (), self._read_at, source=PROTOCOL, can=frames)], serials)

    async def _driver(self, header: Header, body: DriverIdentity, serials: tuple[int, ...] = ()) -> None:
        """0x0702: a card presented (its serial in the certificate number field, docs/protocol.md §4.6) or pulled,
        checked and applied by the pipeline among the positions; acknowledged once stored. A card the reader could
        not read changes nothing (logged)."""
        if body.status == CardStatus.REMOVED:
            change = DriverChange(None, inserted=False, time=naive_utc(body.time) if body.time else None)
        elif body.read_result == CardReadResult.SUCCESS:
            change = DriverChange(
                (body.certificate_no or "").strip(),
                time=naive_utc(body.time) if body.time else None,
                name=body.driver_name,
            )
        else:
            log.info("%s: IC card read failed (%s)", self.name, body.read_result)
            await self._reply(header, serials=serials)
            return
        report = Report(self.device or "", (), self._read_at, source=PROTOCOL, driver=change)
        await self._stored(header, [report], serials)

    async def _vision(self, header: Header, body: FaceComparison | BehaviorAlarm, serials: tuple[int, ...]) -> None:
        """Pass-through 0xF2 (a face comparison) or 0xF3 (a driver behaviour alarm), acknowledged once stored. An
        alarm type we do not know is acknowledged and kept nowhere (logged)."""
        when = naive_utc(body.time) if body.time else None
        item: FaceSeen | Behavior
        if isinstance(body, FaceComparison):
            item = FaceSeen(when, int(body.result), body.similarity, body.serial, int(body.trigger), body.photo)
        else:
            kind = DMS_KINDS.get(int(body.alarm))
            if kind is None:
                log.info("%s: unknown driver behaviour alarm %s", self.name, int(body.alarm))
                await self._reply(header, serials=serials)
                return
            item = Behavior(when, kind, body.level, body.photo)
        report = Report(self.device or "", (), self._read_at, source=PROTOCOL, vision=(item,))
        await self._stored(header, [report], serials)

    async def _attributes(self, body: TerminalAttributes) -> None:
        assert self.device is not None
        attributes = {
            "terminalType": body.terminal_type,
            "maker": body.maker_id,
            "model": body.model,
            "terminalId": body.terminal_id,
            "iccid": body.iccid,
            "hardwareVersion": body.hardware_version,
            "firmwareVersion": body.firmware_version,
            "gnssModules": body.gnss_modules,
            "commModules": body.comm_modules,
        }
        await self.gateway.terminals.update_attributes(
            self.device,
            maker=body.maker_id,
            model=body.model,
            terminal_id=body.terminal_id,
            iccid=body.iccid,
            hardware_version=body.hardware_version,
            firmware_version=body.firmware_version,
        )
        maker = clean(body.maker_id, 32)
        if maker and self.known is not None and self.known.maker != maker:
            # A terminal that never registered here told us its maker: its vendor items are read accordingly now.
            self.known = Known(self.known.device_number, self.known.tenant_id, self.known.vehicle_id, maker)
            self.liftdesk = self.gateway.extension_for(maker)
        await self.gateway.commands.on_attributes(self.device, attributes)
