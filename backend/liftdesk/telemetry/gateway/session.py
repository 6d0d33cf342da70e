"""A terminal's session (:class:`Session`): the read loop, frame decoding and sub-package reassembly, one
handler per message, registration and authentication, and the session's end (its data settled, the terminal
marked offline).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from liftdesk.core.db import utcnow
from liftdesk.telemetry.codecs.jt808 import (
    Authentication,
    BodyError,
    CanData,
    DriverIdentity,
    GeneralReply,
    Header,
    Heartbeat,
    Jt808Error,
    Location,
    LocationBatch,
    LocationQueryReply,
    Logout,
    Message,
    Packet,
    ParamQueryReply,
    PassThrough,
    Registration,
    RegistrationReply,
    ReplyResult,
    ResendRequest,
    SubpackageError,
    TerminalAttributes,
    UpgradeResult,
    VehicleControlReply,
    parse_packet,
    speedups,
)
from liftdesk.telemetry.gateway.mapping import device_candidates, to_fix
from liftdesk.telemetry.gateway.payloads import fix_json
from liftdesk.telemetry.gateway.uplink import SessionData
from liftdesk.telemetry.terminals import REG_OK, RegistrationInfo

log = logging.getLogger("liftdesk.gateway")

READ_SIZE = 64 * 1024
#: Bad frames (checksum, header, escaping) in a row, or bytes of garbage between frames, after which a connection
#: is closed: a terminal on a noisy line loses a frame now and then, a stream of noise is not a terminal.
MAX_BAD_FRAMES = 3
MAX_GARBAGE_BYTES = 64 * 1024
#: Frames handled before the read loop lets the event loop run others (the API shares it in ``liftdesk serve``).
FRAMES_PER_TURN = 64

#: Seconds a session's end waits for the data it submitted to be written before marking its vehicle offline.
SETTLE_S = 5.0


class Session(SessionData):
    """One terminal connection."""

    # ------------------------------------------------------------------ connection

    async def run(self) -> None:
        try:
            await self._read_loop()
        except (ConnectionError, OSError) as exc:
            log.info("%s: connection lost (%s)", self.name, exc)
        finally:
            try:
                await self._cleanup()
            finally:
                self.finished.set()

    async def _read_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closing:
            chunk = await self.reader.read(READ_SIZE)
            if not chunk:
                return
            self.last_activity = loop.time()
            self._read_at = utcnow()
            for n, frame in enumerate(self.splitter.feed(chunk), 1):
                await self._on_frame(frame)
                if self._closing:
                    return
                if n % FRAMES_PER_TURN == 0:
                    await asyncio.sleep(0)  # a burst from one connection does not hold the loop (API, others)
            if self.splitter.dropped_bytes > MAX_GARBAGE_BYTES:
                self._give_up(f"{self.splitter.dropped_bytes} bytes without frames")
                return
            await self._submit_pending()  # every position this read brought: one submission, one write of acks

    def _bad_frame(self, what: str, frame: bytes) -> None:
        """One warning per connection; a few bad frames in a row close it (noise, or not JT/T 808 at all)."""
        self.gateway.stats.bad_frames += 1
        self._bad_in_row += 1
        if not self._warned:
            self._warned = True
            log.warning("%s: frame dropped (%s): %s", self.name, what, frame[:48].hex())
        if self._bad_in_row >= MAX_BAD_FRAMES:
            self._give_up(f"{self._bad_in_row} bad frames in a row")

    def _give_up(self, why: str) -> None:
        self.gateway.stats.garbage_closed += 1
        log.info("%s: closed: %s", self.name, why)
        self.abort()

    async def _cleanup(self) -> None:
        self._closing = True
        self.assembler.clear()  # its bytes go back to the gateway's budget
        tasks = list(self._tasks)
        for task in tasks:  # their acknowledgements cannot be delivered any more; the terminal re-sends
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if tasks and self.known is not None:
            await self._settle()
        if self.device is not None and self.known is not None:
            try:
                await self.gateway._offline(self, self.device)
            except Exception:
                log.exception("%s: marking the terminal offline failed", self.name)
        with contextlib.suppress(Exception):
            self._flush()  # answers queued this turn (a logout's reply) go out before the close
            self.writer.close()
        log.debug("%s: closed", self.name)

    async def _settle(self) -> None:
        """Wait until the data this session submitted is written (or failed): a cancelled submission stays in the
        pipeline's queue, and its batch marks the vehicle online - written after the offline mark, it would leave
        the vehicle online with no connection. An empty submission is committed after every one queued before it
        (batches are written in order). Bounded: a stuck database must not hold the session's end."""
        try:
            async with asyncio.timeout(SETTLE_S):
                await self.gateway.pipeline.submit([])
        except Exception:
            log.warning("%s: its last data was not written in %.0f s; marking it offline anyway", self.name, SETTLE_S)

    # ------------------------------------------------------------------ frames

    async def _on_frame(self, frame: bytes) -> None:
        stats = self.gateway.stats
        stats.frames += 1
        try:
            packet = speedups.ACTIVE.decode_packet(frame)  # compiled where built (codecs/jt808/speedups.py)
            sub_total = packet.header.subpackage.total if packet.header.subpackage is not None else 1
            if sub_total > 1 and not self.authenticated:
                # Registration and authentication are never sub-packaged: nothing is buffered for a stranger.
                raise SubpackageError("sub-packages before authentication")
            whole = self.assembler.add(packet)
        except Jt808Error as exc:
            self._bad_frame(str(exc), frame)
            return
        self._bad_in_row = 0
        if whole is None:
            await self.check_subpackages(sweep=False)  # adding may have timed out an older group
            return  # more sub-packages to come
        sub = packet.header.subpackage
        serials: tuple[int, ...] = ()
        if sub is not None:
            serials = tuple((whole.header.serial + i) & 0xFFFF for i in range(sub.total))
        try:
            message = parse_packet(whole, liftdesk=self.liftdesk)
        except BodyError as exc:
            stats.bad_bodies += 1
            log.warning("%s: %s", self.name, exc)
            if self.authenticated:
                await self._reply(whole.header, ReplyResult.BAD_MESSAGE, serials)
            return
        try:
            await self._handle(message, whole, serials)
        except (ConnectionError, OSError):
            raise
        except Exception:
            stats.handler_errors += 1
            log.exception("%s: handling 0x%04x failed", self.name, message.header.msg_id)

    async def check_subpackages(self, *, sweep: bool = True) -> None:
        """Sub-packaged messages that stopped arriving: the first time a message times out, ask the terminal for
        its missing packages (0x8003, by their serials: the first package's serial + index - 1); the second time
        it is dropped (the terminal sends the whole message again when it gets no acknowledgement)."""
        if sweep:
            self.assembler.expire()
        self.gateway.stats.subpackages_dropped += self.assembler.evicted - self._evicted
        self._evicted = self.assembler.evicted
        for header, missing in self.assembler.take_requests():
            if not self.authenticated or header.terminal_key != self._terminal_key:
                continue
            serials = tuple((header.serial + i - 1) & 0xFFFF for i in missing)
            log.info(
                "%s: 0x%04x serial %d is missing %d packages, asking again",
                self.name,
                header.msg_id,
                header.serial,
                len(serials),
            )
            self.gateway.stats.resend_requests += 1
            with contextlib.suppress(ConnectionError, OSError, ValueError):
                await self._send(ResendRequest(header.serial, serials), header)

    async def _device_for(self, header: Header) -> str:
        """The device number the platform knows this terminal by (padded to 12 digits, or without zeros)."""
        cached = self._devices.get(header.terminal)
        if cached is not None:
            return cached
        device = await self.gateway.terminals.pick(device_candidates(header))
        self._devices[header.terminal] = device
        return device

    async def _handle(self, message: Message, packet: Packet, serials: tuple[int, ...]) -> None:
        header, body = message.header, message.body
        gather = isinstance(body, (Location, LocationBatch)) and self.known is not None
        if gather and header.terminal_key == self._terminal_key:
            # Positions wait for the end of this read: they go to the pipeline together (one future, one write
            # of acknowledgements instead of one each).
            self.version, self.protocol_version = header.version, header.protocol_version or 1
            if isinstance(body, Location):
                self._pending.append((header, (to_fix(body, self._read_at),), False, serials))
            else:
                assert isinstance(body, LocationBatch)
                fixes = tuple(to_fix(loc, self._read_at) for loc in body.locations)
                self._pending.append((header, fixes, body.blind_zone, serials))
            return
        await self._submit_pending()  # anything else keeps its place after the positions before it
        if isinstance(body, Registration):
            await self._register(header, body)
            return
        if isinstance(body, Authentication):
            await self._authenticate(header, body)
            return
        if self.known is None or self.device is None:
            log.info("%s: 0x%04x before authentication, refused", self.name, header.msg_id)
            self.gateway.stats.refused += 1
            await self._reply(header, ReplyResult.FAILURE)
            return
        if header.terminal_key != self._terminal_key:
            log.warning("%s: frame from terminal %s on this connection, refused", self.name, header.terminal)
            self.gateway.stats.refused += 1
            await self._reply(header, ReplyResult.FAILURE)
            return
        self.version, self.protocol_version = header.version, header.protocol_version or 1
        device = self.device
        commands = self.gateway.commands
        if isinstance(body, Heartbeat):
            await self._reply(header)
        elif isinstance(body, PassThrough):
            await self._spawn(self._pass_through(header, body, serials))
        elif isinstance(body, DriverIdentity):
            await self._spawn(self._driver(header, body, serials))
        elif isinstance(body, CanData):
            self.can_frames += len(body.items)
            self.gateway.stats.can_frames += len(body.items)
            await self._spawn(self._can(header, body, serials))
        elif isinstance(body, GeneralReply):
            await commands.on_general_reply(device, body.reply_serial, body.reply_msg_id, int(body.result))
        elif isinstance(body, ParamQueryReply):
            await commands.on_param_reply(device, body.reply_serial, body.as_dict())
        elif isinstance(body, TerminalAttributes):
            await self._attributes(body)
        elif isinstance(body, UpgradeResult):
            await commands.on_upgrade_result(device, int(body.upgrade_type), int(body.result))
            await self._reply(header)
        elif isinstance(body, VehicleControlReply | LocationQueryReply):
            answered = 0x8500 if isinstance(body, VehicleControlReply) else 0x8201
            fix = to_fix(body.location, utcnow())
            await commands.on_position_reply(device, answered, body.reply_serial, fix_json(fix))
            await self._spawn(self._unacknowledged(header, (body.location,)))
        elif isinstance(body, Logout):
            # Deregistration (0x0003; 0x0101 on 2011 terminals): the code is given up, the terminal must register
            # again. Data in flight is answered first.
            await self._drain()
            await self.gateway.terminals.deregister(device)
            self.gateway.stats.deregistrations += 1
            await self._reply(header)
            log.info("%s: deregistered", self.name)
            self._closing = True
        else:
            log.info("%s: unsupported message 0x%04x", self.name, header.msg_id)
            self.gateway.stats.unsupported += 1
            await self._reply(header, ReplyResult.UNSUPPORTED, serials)

    # ------------------------------------------------------------------ registration, authentication

    async def _register(self, header: Header, body: Registration) -> None:
        device = await self._device_for(header)
        info = RegistrationInfo(
            maker=body.maker_id,
            model=body.model,
            terminal_id=body.terminal_id,
            plate=body.plate,
            protocol_version=str(int(header.version)),
            plate_color=body.plate_color,
        )
        result, code = await self.gateway.terminals.register(device, info)
        await self._send(RegistrationReply(header.serial, result, code if result == REG_OK else None), header)
        if result != REG_OK:
            self.gateway.stats.refused += 1
            log.warning("%s: registration of %s refused (result %d)", self.name, device, result)
            self._closing = True
        else:
            self.gateway.pipeline.forget(device)  # it may have a vehicle now that it did not have before
            log.info("%s: %s registered (%s %s)", self.name, device, body.maker_id, body.model)

    async def _authenticate(self, header: Header, body: Authentication) -> None:
        device = await self._device_for(header)
        known = await self.gateway.terminals.authenticate(
            device, body.auth_code, imei=body.imei, software_version=body.software_version
        )
        if known is None:
            self.gateway.stats.refused += 1
            log.warning("%s: authentication of %s refused", self.name, device)
            await self._reply(header, ReplyResult.FAILURE)
            self._closing = True
            return
        self.version, self.protocol_version = header.version, header.protocol_version or 1
        self.terminal, self._terminal_key = header.terminal, header.terminal_key
        previous, self.device, self.known = self.device, device, known
        self.liftdesk = self.gateway.extension_for(known.maker)
        if previous != device:
            log.info("%s: authenticated (%s, JT/T 808-%d)", self.name, known.tenant_id, int(header.version))
            # Online and seen before the terminal hears it is in: from its answer on, its vehicle is online (with a
            # live state row, whatever it reports next) and its number is taken (``terminals._claimed_by_another``).
            # Its pending commands are sent in the background, after this answer.
            await self.gateway._online(self, device)
        await self._reply(header)
        if previous != device and self.gateway.attributes_max_age_s is not None:
            self.gateway.ask_attributes(known)
