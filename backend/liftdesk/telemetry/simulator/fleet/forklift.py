"""One simulated terminal (:class:`SimulatedForklift`): :meth:`~SimulatedForklift.run` starts the producer (see
:mod:`.outbox`) and the *connection*: connect, register (0x0100, only while it has no auth code), authenticate
(0x0102), re-send what the outbox holds, heartbeats when idle, read and answer the platform (:mod:`.answers`),
retry refusals and dropped links with exponential backoff, and deregister (0x0003) when stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from liftdesk.telemetry.codecs.jt808 import (
    Authentication,
    BodyError,
    FrameSplitter,
    Heartbeat,
    Jt808Error,
    Jt808Version,
    Logout,
    PlatformGeneralReply,
    Registration,
    RegistrationReply,
    RegistrationResult,
    ReplyResult,
    SubpackageAssembler,
    decode_packet,
    parse_packet,
)

from ..model import ForkliftModel
from .answers import MAKER_ID, SOFTWARE_VERSION, CommandAnswers
from .clock import _wait

log = logging.getLogger("liftdesk.simulator")


class _Refused(Exception):
    """The platform refused registration or authentication."""


class SimulatedForklift(CommandAnswers):
    """One terminal.  Run it with :meth:`run`; it stops when ``stop`` is set."""

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
                    part = decode_packet(frame)
                    packet = assembler.add(part)
                except Jt808Error as exc:
                    log.debug("%s: bad frame dropped: %s", self.spec.label, exc)
                    continue
                sub = part.header.subpackage
                last = None if sub is None else (part.header.serial - sub.index + sub.total) & 0xFFFF
                if sub is not None and part.header.serial != last:
                    # each sub-package is answered as it arrives; the last one's answer says what became of it all
                    await self._reply(part.header.serial, part.header.msg_id, ReplyResult.SUCCESS)
                if packet is None:
                    continue
                try:
                    message = parse_packet(packet)
                except BodyError as exc:
                    log.info("%s: cannot parse 0x%04x: %s", self.spec.label, packet.header.msg_id, exc)
                    serial = packet.header.serial if last is None else last
                    await self._reply(serial, packet.header.msg_id, ReplyResult.BAD_MESSAGE)
                    continue
                await self._dispatch(message, last)
