"""The JT/T 808 gateway: an asyncio TCP server, one :class:`Session` per terminal connection.

Per connection: ``FrameSplitter`` → ``decode_packet`` (2011/2013 and 2019 headers on one port) → sub-package
reassembly → ``parse_packet`` → handling. A frame that does not decode (escape, checksum, header) is logged and
dropped; the connection carries on. Before authentication only registration (0x0100) and authentication (0x0102)
are accepted; anything else is answered 0x8001 result 1 and ignored. A refused registration or authentication is
answered (0x8100 with its result, 0x8001 result 1) and the connection is then closed.

Position data (0x0200, 0x0704, Liftdesk pass-through 0x0900) is acknowledged with 0x8001 result 0 only after
``Pipeline.submit`` returned, i.e. once it is committed; when the submit fails there is no acknowledgement and the
terminal sends again. Several data messages of one connection may be in the pipeline at once (``max_inflight``);
they are submitted in arrival order. When the pipeline says the terminal has no vehicle any more
(:class:`UnknownDevice`: the vehicle was deleted or renumbered meanwhile) the data is answered 0x8001 result 1 and
the connection is closed; the terminal's next authentication is refused. A vehicle deleted or renumbered through
the API (bus topic ``VEHICLE_CHANGED``, :meth:`Gateway.follow`) closes its terminal's connection at once.

Liftdesk's vendor extension (items 0xE0-0xFF, pass-through 0xF0/0xF1, ``docs/protocol.md`` §4) is decoded per
terminal: for makers in ``vendor_extension_makers`` (the maker id of its 0x0100, or of its 0x0107 answer); other
makers' vendor items, and those of terminals that never told us their maker, stay raw unless the list holds ``*``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.fleet.service import VEHICLE_CHANGED
from liftdesk.telemetry.codecs.jt808 import (
    Authentication,
    Body,
    BodyError,
    CanData,
    CardReadResult,
    CardStatus,
    DriverIdentity,
    ForkliftStatus,
    FrameSplitter,
    GeneralReply,
    Header,
    Heartbeat,
    Jt808Error,
    Jt808Version,
    LiftdeskBatteryReport,
    LiftdeskSnapshot,
    Location,
    LocationBatch,
    LocationQueryReply,
    Logout,
    Message,
    Packet,
    ParamQueryReply,
    PassThrough,
    ReassemblyBudget,
    Registration,
    RegistrationReply,
    ReplyResult,
    ResendRequest,
    SerialCounter,
    SubpackageAssembler,
    SubpackageError,
    TerminalAttributes,
    UpgradeResult,
    VehicleControlReply,
    decode_packet,
    encode_frames,
    encode_general_replies,
    parse_packet,
    subpackage_count,
)
from liftdesk.telemetry.commands import CommandService, OutboundCommand, build_body
from liftdesk.telemetry.gateway.mapping import (
    device_candidates,
    forklift_fields,
    location_to_fix,
    naive_utc,
    raw_items,
)
from liftdesk.telemetry.gateway.payloads import fix_json
from liftdesk.telemetry.gateway.state import last_known, set_driver
from liftdesk.telemetry.messages import CanFrame, Fix, Report, UnknownDevice
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import REG_OK, Known, RegistrationInfo, TerminalService, clean

log = logging.getLogger("liftdesk.gateway")

READ_SIZE = 64 * 1024
#: Bad frames (checksum, header, escaping) in a row, or bytes of garbage between frames, after which a connection
#: is closed: a terminal on a noisy line loses a frame now and then, a stream of noise is not a terminal.
MAX_BAD_FRAMES = 3
MAX_GARBAGE_BYTES = 64 * 1024
#: Frames handled before the read loop lets the event loop run others (the API shares it in ``liftdesk serve``).
FRAMES_PER_TURN = 64
#: Bytes of sub-package bodies held for reassembly: per connection, and by all connections of the gateway.
SUBPACKAGE_BYTES_PER_CONNECTION = 4 * 1024 * 1024
SUBPACKAGE_BYTES_TOTAL = 64 * 1024 * 1024
WRITE_HIGH_WATER = 256 * 1024
PROTOCOL = "jt808"
#: Seconds a session's end waits for the data it submitted to be written before marking its vehicle offline.
SETTLE_S = 5.0
DAY_S = 24 * 3600.0


@dataclass
class GatewayStats:
    """Counters since start (for logs and health checks)."""

    connections: int = 0
    frames: int = 0
    bad_frames: int = 0  #: escape, checksum, header or sub-package errors
    bad_bodies: int = 0  #: known messages whose body does not parse (answered 0x8001 result 2)
    refused: int = 0  #: registrations, authentications and messages before authentication refused
    unsupported: int = 0  #: messages we do not handle (answered 0x8001 result 3)
    positions: int = 0
    acknowledged: int = 0
    submit_failures: int = 0
    unknown_device: int = 0  #: data refused because the terminal's vehicle was gone (UnknownDevice)
    can_frames: int = 0
    resend_requests: int = 0  #: 0x8003 sent for sub-packages that did not arrive
    subpackages_dropped: int = 0  #: incomplete sub-packaged messages given up (after the re-send request)
    deregistrations: int = 0
    handler_errors: int = 0  #: unexpected exceptions while handling a message (a bug: logged with its traceback)
    garbage_closed: int = 0  #: connections closed for bad frames in a row or garbage between frames


class Gateway:
    """``Gateway(db, pipeline, terminals, commands, host, port)``; ``await start()`` binds (``port=0`` picks a free
    port, read it back from :attr:`port`), ``await stop()`` closes the listener and every connection."""

    def __init__(
        self,
        db: Database,
        pipeline: Pipeline,
        terminals: TerminalService,
        commands: CommandService,
        host: str = "0.0.0.0",  # terminals connect from anywhere
        port: int = 7808,
        idle_timeout_s: float = 300.0,
        *,
        max_inflight: int = 64,
        vendor_extension_makers: str | Iterable[str] = "LFTDK",
        subpackage_timeout_s: float = 60.0,
        touch_interval_s: float = 60.0,
        attributes_max_age_s: float | None = None,
    ) -> None:
        self.db = db
        self.pipeline = pipeline
        self.terminals = terminals
        self.commands = commands
        self.host = host
        self.port = port
        self.idle_timeout_s = idle_timeout_s
        self.max_inflight = max_inflight
        makers = (
            vendor_extension_makers.split(",") if isinstance(vendor_extension_makers, str) else vendor_extension_makers
        )
        #: Maker ids (upper case) whose terminals speak Liftdesk's vendor extension; ``*`` = every terminal.
        self.vendor_extension_makers = frozenset(m.strip().upper() for m in makers if m.strip())
        self.subpackage_timeout_s = subpackage_timeout_s
        self.touch_interval_s = touch_interval_s
        #: Ask a terminal for its attributes (0x8107) after it authenticated, unless asked within this many
        #: seconds (the server passes a day, ``DAY_S``); None: never (tests and benchmarks whose terminals must
        #: receive nothing but what they are measured on).
        self.attributes_max_age_s = attributes_max_age_s
        self.stats = GatewayStats()
        #: Memory for sub-package reassembly shared by every connection.
        self.reassembly = ReassemblyBudget(SUBPACKAGE_BYTES_TOTAL)
        #: Authenticated sessions by device number (one per terminal: a reconnect replaces the old one).
        self.sessions: dict[str, Session] = {}
        self._connections: set[Session] = set()
        self._serials: dict[str, SerialCounter] = {}
        self._server: asyncio.Server | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._unsubscribe: list[Callable[[], None]] = []

    def extension_for(self, maker: str | None) -> bool:
        """Whether a terminal of this maker (None: never told us) speaks Liftdesk's vendor extension."""
        makers = self.vendor_extension_makers
        if "*" in makers:
            return True
        return maker is not None and maker.strip().upper() in makers

    def follow(self, bus: Bus) -> None:
        """Close the connection of a terminal whose vehicle is deleted or renumbered (``VEHICLE_CHANGED``), at once
        rather than at its next position."""
        self._unsubscribe.append(bus.subscribe(VEHICLE_CHANGED, self._vehicle_changed))

    async def _vehicle_changed(self, message: dict[str, Any]) -> None:
        vehicle_id, device = str(message.get("vehicleId") or ""), str(message.get("deviceNumber") or "")
        for session in list(self.sessions.values()):
            known = session.known
            if known is None or session.device is None:
                continue
            if str(known.vehicle_id) != vehicle_id and session.device != device:
                continue
            self.pipeline.forget(session.device)  # the vehicle's context under this number, if it had one
            now = await self.terminals.resolve(session.device)
            if now is None:
                log.info("%s: its vehicle was deleted or renumbered, closing the connection", session.name)
                self.stats.unknown_device += 1
                session.close()
            else:
                session.known = now

    async def start(self) -> None:
        if self._server is not None:
            return
        self._server = await asyncio.start_server(self._accept, self.host, self.port, reuse_address=True)
        self._watchdog = asyncio.create_task(self._watch(), name="jt808-watchdog")
        sockets = self._server.sockets
        if self.port == 0 and sockets:
            self.port = int(sockets[0].getsockname()[1])
        log.info("JT/T 808 gateway listening on %s:%d", self.host, self.port)

    async def _watch(self) -> None:
        """One timer for every connection (a timeout around each read cost a timer per message): close those
        that sent nothing for ``idle_timeout_s`` (their vehicles go offline), and every ``touch_interval_s``
        record that the others were heard from.

        Last-seen: every frame of an authenticated session (heartbeats included, whatever the dates in its
        reports) moves its vehicle's last-seen time to the server time of the read that brought it
        (:attr:`Session.heard_at`), in memory. The database gets it here, coalesced: one transaction for every
        terminal heard from, at most once per ``touch_interval_s`` - so at most one last-seen write per terminal
        per ``touch_interval_s``, however many frames it sends, and the stored time trails the terminal's last
        frame by at most ``touch_interval_s`` plus this loop's period (at most 5 s). Positions also write it, with
        their batch (``store._states``), and authentication does when the terminal comes online."""
        loop = asyncio.get_running_loop()
        idle = self.idle_timeout_s
        touched = loop.time()
        while True:
            await asyncio.sleep(min(idle / 4, 5.0, self.touch_interval_s))
            now = loop.time()
            touch = now - touched >= self.touch_interval_s
            heard: dict[str, datetime] = {}
            for session in list(self._connections):
                if now - session.last_activity > idle:
                    log.info("%s: idle for %.0f s, closing", session.name, idle)
                    session.close()
                    continue
                if touch and session.device is not None and session.authenticated and session.last_activity > touched:
                    heard[session.device] = session.heard_at
                if len(session.assembler):  # sub-packages that stopped coming: ask once, then give up
                    try:
                        await session.check_subpackages()
                    except Exception:
                        log.exception("%s: checking its sub-packages failed", session.name)
            if touch:
                touched = now
                try:
                    await self.terminals.touch(heard)
                except Exception:
                    log.exception("recording when %d terminals were last heard from failed", len(heard))

    async def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watchdog
            self._watchdog = None
        server, self._server = self._server, None
        if server is not None:
            server.close()
        sessions = list(self._connections)
        for session in sessions:
            session.abort()
        if sessions:
            waits = [asyncio.ensure_future(s.finished.wait()) for s in sessions]
            _, late = await asyncio.wait(waits, timeout=10.0)  # a session stuck in the database must not block
            for w in late:
                w.cancel()
            if late:
                log.warning("JT/T 808 gateway stopped with %d sessions still closing", len(late))
        if server is not None:
            await server.wait_closed()
        log.info("JT/T 808 gateway stopped")

    @property
    def listening(self) -> bool:
        return self._server is not None

    def serials(self, device: str) -> SerialCounter:
        """The platform's message serials towards one terminal (kept across its reconnections)."""
        counter = self._serials.get(device)
        if counter is None:
            counter = self._serials[device] = SerialCounter()
        return counter

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = Session(self, reader, writer)
        self._connections.add(session)
        self.stats.connections += 1
        try:
            await session.run()
        finally:
            self._connections.discard(session)

    async def _online(self, session: Session, device: str) -> None:
        old = self.sessions.get(device)
        self.sessions[device] = session
        if old is not None and old is not session:
            log.info("%s reconnected from %s: closing its previous connection", device, session.peer)
            old.abort()
        await self.terminals.set_online(device, True, protocol=PROTOCOL, protocol_version=str(int(session.version)))
        self.commands.attach(device, session.send_command)

    async def _offline(self, session: Session, device: str) -> None:
        if self.sessions.get(device) is not session:
            return  # replaced by a newer connection of the same terminal
        del self.sessions[device]
        self.commands.detach(device, session.send_command)
        await self.terminals.set_online(device, False)


class Session:
    """One terminal connection."""

    def __init__(self, gateway: Gateway, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.gateway = gateway
        self.reader = reader
        self.writer = writer
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else str(peer)
        self.splitter = FrameSplitter()
        self.assembler = SubpackageAssembler(
            timeout=gateway.subpackage_timeout_s,
            ask_again=True,
            max_groups=32,
            max_parts=1024,
            max_bytes=SUBPACKAGE_BYTES_PER_CONNECTION,
            budget=gateway.reassembly,
        )
        self._bad_in_row = 0
        self._warned = False
        self.device: str | None = None
        self.known: Known | None = None
        #: Decode Liftdesk's vendor extension for this terminal (decided by its maker at authentication).
        self.liftdesk = False
        #: Terminal number as its header carries it (hex of the BCD field), used for downlink frames.
        self.terminal = ""
        self.version = Jt808Version.V2013
        self.protocol_version = 1
        self.finished = asyncio.Event()
        self.can_frames = 0
        #: The pipeline refused this terminal's data: it has no vehicle (any more).
        self.unknown = False
        self._evicted = 0  # sub-packaged messages the assembler gave up, counted into the stats so far
        self._terminal_key = ""
        self._serials = SerialCounter()
        self._slots = asyncio.Semaphore(gateway.max_inflight)
        self._tasks: set[asyncio.Task[None]] = set()
        self._devices: dict[str, str] = {}
        self._closing = False
        self._outbox: list[bytes] = []
        self._flush_scheduled = False
        #: Positions read but not yet submitted: (header, fixes, blind-zone backfill, sub-package serials).
        self._pending: list[tuple[Header, tuple[Fix, ...], bool, tuple[int, ...]]] = []
        self.last_activity = asyncio.get_running_loop().time()
        self._read_at = utcnow()  # when the bytes being handled were read (dates a position without a time)

    def __repr__(self) -> str:
        return f"<Session {self.device or '?'} {self.peer}>"

    @property
    def authenticated(self) -> bool:
        return self.known is not None

    @property
    def heard_at(self) -> datetime:
        """Server time of the last read from this terminal (whatever it carried): its last-seen time."""
        return self._read_at

    @property
    def name(self) -> str:
        return f"{self.device or '?'}@{self.peer}"

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

    def close(self) -> None:
        """Close the connection after what is queued for it has been written (idle timeout)."""
        self._closing = True
        self.writer.transport.close()

    def abort(self) -> None:
        """Drop the connection now (gateway stop, or the terminal connected again elsewhere)."""
        self._closing = True
        self.writer.transport.abort()

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

    # ------------------------------------------------------------------ writing

    def _counter(self) -> SerialCounter:
        return self.gateway.serials(self.device) if self.device is not None else self._serials

    async def _write(self, data: bytes) -> None:
        """Queue ``data``; everything queued in one turn of the event loop leaves in one write (a batch of
        acknowledgements completes together, so this saves a system call per message)."""
        if self.writer.is_closing():
            raise ConnectionError("connection closed")
        self._outbox.append(data)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)
        if self.writer.transport.get_write_buffer_size() > WRITE_HIGH_WATER:
            self._flush()
            await self.writer.drain()

    def _flush(self) -> None:
        self._flush_scheduled = False
        if self._outbox and not self.writer.is_closing():
            data = b"".join(self._outbox)
            self._outbox.clear()
            self.writer.write(data)

    async def _send(self, body: Body, header: Header | None = None) -> int:
        """Encode ``body`` for this terminal (its header version and number) and write it; returns the serial."""
        version = header.version if header is not None else self.version
        terminal = header.terminal if header is not None else self.terminal
        protocol_version = (header.protocol_version if header is not None else self.protocol_version) or 1
        raw = body.encode(version)
        serial = self._counter().next(subpackage_count(len(raw)))
        frames = encode_frames(
            body.msg_id, raw, terminal=terminal, serial=serial, version=version, protocol_version=protocol_version
        )
        await self._write(b"".join(frames))
        return serial

    def _replies(self, replies: list[tuple[int, int, int]], header: Header) -> bytes:
        """0x8001 frames for (reply serial, reply message id, result), in the version and number of ``header``."""
        return encode_general_replies(
            header.terminal,
            replies,
            first_serial=self._counter().next(len(replies)),
            version=header.version,
            protocol_version=header.protocol_version or 1,
        )

    async def _reply(self, header: Header, result: int = ReplyResult.SUCCESS, serials: Iterable[int] = ()) -> None:
        """0x8001 to the message with ``header`` (to each of ``serials`` when it came in sub-packages)."""
        replies = [(serial, header.msg_id, int(result)) for serial in tuple(serials) or (header.serial,)]
        with contextlib.suppress(ConnectionError, OSError):
            await self._write(self._replies(replies, header))

    async def send_command(self, cmd: OutboundCommand) -> int:
        """The command service's transport for this terminal. Raises ValueError when the command cannot be
        encoded for it, ConnectionError when the connection is gone."""
        if self._closing or self.writer.is_closing() or self.device is None:
            raise ConnectionError("terminal connection closed")
        body = build_body(cmd.msg_id, cmd.payload)
        raw = body.encode(self.version)
        count = subpackage_count(len(raw))
        retransmission = cmd.serial is not None and len(cmd.serials) == count
        serial = cmd.serial if retransmission and cmd.serial is not None else self._counter().next(count)
        frames = encode_frames(
            body.msg_id,
            raw,
            terminal=self.terminal,
            serial=serial,
            version=self.version,
            protocol_version=self.protocol_version or 1,
        )
        cmd.serial = serial
        cmd.serials = tuple((serial + i) & 0xFFFF for i in range(len(frames)))
        await self._write(b"".join(frames))
        return serial

    # ------------------------------------------------------------------ frames

    async def _on_frame(self, frame: bytes) -> None:
        stats = self.gateway.stats
        stats.frames += 1
        try:
            packet = decode_packet(frame)
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
        candidates = device_candidates(header)
        device = candidates[0]
        for candidate in candidates:
            if await self.gateway.terminals.lookup(candidate) is not None:
                device = candidate
                break
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
                self._pending.append((header, (location_to_fix(body, self._read_at),), False, serials))
            else:
                assert isinstance(body, LocationBatch)
                fixes = tuple(location_to_fix(loc, self._read_at) for loc in body.locations)
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
            await self._driver(header, body)
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
            fix = location_to_fix(body.location, utcnow())
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
            await self._spawn(self._query_attributes(known, self.gateway.attributes_max_age_s))

    async def _query_attributes(self, known: Known, max_age_s: float) -> None:
        """Ask the terminal what it is (0x8107 → 0x0107: model, ICCID, hardware and firmware versions) through the
        command service, as a command of no user, unless it was asked recently."""
        if not await self.gateway.terminals.attributes_due(known.device_number, max_age_s):
            return
        await self.gateway.commands.create(
            known.tenant_id, known.vehicle_id, known.device_number, "query_attributes", 0x8107, {}, None
        )

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
        await self._submit([Report(self.device, tuple(location_to_fix(loc, now) for loc in locations), now)])
        if self.unknown:
            self._close_unknown()

    async def _pass_through(self, header: Header, body: PassThrough, serials: tuple[int, ...]) -> None:
        """Liftdesk battery report (0xF1) or status snapshot (0xF0): a fix at the last known position, or, before
        any position is known, a fix marked invalid (status bit 1 clear) at 0, 0 whose battery and forklift values
        the pipeline keeps on the vehicle's state without taking the place for a location. Acknowledged once stored.
        Other pass-through types are acknowledged only (we do not know what they carry)."""
        report = body.liftdesk
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

    async def _driver(self, header: Header, body: DriverIdentity) -> None:
        assert self.known is not None and self.device is not None
        if body.status == CardStatus.REMOVED:
            name, card = None, None
        elif body.read_result == CardReadResult.SUCCESS:
            name, card = body.driver_name, body.certificate_no
        else:
            log.info("%s: IC card read failed (%s)", self.name, body.read_result)
            await self._reply(header)
            return
        known = self.known
        try:
            await set_driver(
                self.gateway.db, self.gateway.pipeline, self.device, known.tenant_id, known.vehicle_id, name, card
            )
        except UnknownDevice:
            self.gateway.stats.unknown_device += 1
            self.unknown = True
            await self._reply(header, ReplyResult.FAILURE)
            self._close_unknown()
            return
        await self._reply(header)

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


__all__ = ["Gateway", "GatewayStats", "Session"]
