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

The gateway (this module: :class:`Gateway`, listening, the watchdog, online and offline) hands each connection to
a :class:`~liftdesk.telemetry.gateway.session.Session`, built in layers: :mod:`.connection` (its state and what
is written to it), :mod:`.uplink` (data messages → pipeline, acknowledged once stored) and :mod:`.session` (the
read loop, frames, dispatch, registration and authentication).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database
from liftdesk.fleet.service import VEHICLE_CHANGED
from liftdesk.telemetry.codecs.jt808 import ReassemblyBudget, SerialCounter
from liftdesk.telemetry.commands import CommandService
from liftdesk.telemetry.gateway.connection import PROTOCOL, SUBPACKAGE_BYTES_TOTAL
from liftdesk.telemetry.gateway.session import Session
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import Known, TerminalService

log = logging.getLogger("liftdesk.gateway")

DAY_S = 24 * 3600.0
#: Attribute queries (0x8107) created per second at most, and looked up per round. They are an inventory, asked
#: at most once a day per terminal: after a restart, 10,000 terminals authenticating at once must not become
#: 10,000 commands competing with their positions for the database (the command service's connections and the
#: pipeline's are one pool; on SQLite they take turns to write). Each costs about six short transactions (command,
#: audit, sent, serial, answer, terminal row): measured with bench/terminals.py, at 20 a second they were most of
#: the gateway's work under the sizing load. At 10 the last of 10,000 is asked within about 17 minutes.
ATTRIBUTE_QUERIES_PER_S = 10.0
ATTRIBUTE_ROUND = 100
#: Connections a listening socket lets wait to be accepted (the kernel caps it at ``net.core.somaxconn``): a storm
#: of terminals connecting at once is not met with dropped SYNs and their retransmission delays (1 s, 3 s, ...).
BACKLOG = 4096
#: Bus topic: a terminal came online on a gateway process (``{"device", "gateway"}``). Its sessions on the other
#: processes sharing the port are closed, as a reconnection within one process closes the previous connection.
TERMINAL_TAKEN = "gateway.terminal_taken"


def instance_name() -> str:
    """This process among gateway processes (stored with the terminals it holds): host and process id."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}"


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
        reuse_port: bool = False,
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
        #: Listen with SO_REUSEPORT: one of several gateway processes on one port (the kernel spreads connections).
        self.reuse_port = reuse_port
        #: This process, as the terminal rows name the gateway process holding them (``Terminal.gateway``).
        self.instance = instance_name()
        self.bus: Bus | None = None
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
        self._asking: deque[Known] = deque()
        self._ask_wake = asyncio.Event()
        self._asker: asyncio.Task[None] | None = None

    def extension_for(self, maker: str | None) -> bool:
        """Whether a terminal of this maker (None: never told us) speaks Liftdesk's vendor extension."""
        makers = self.vendor_extension_makers
        if "*" in makers:
            return True
        return maker is not None and maker.strip().upper() in makers

    def follow(self, bus: Bus) -> None:
        """Close the connection of a terminal whose vehicle is deleted or renumbered (``VEHICLE_CHANGED``), at once
        rather than at its next position; and the session of a terminal that came online on another gateway
        process (``TERMINAL_TAKEN``): it reconnected there while this connection was still open."""
        self.bus = bus
        self._unsubscribe.append(bus.subscribe(VEHICLE_CHANGED, self._vehicle_changed))
        self._unsubscribe.append(bus.subscribe(TERMINAL_TAKEN, self._taken))

    async def _taken(self, message: dict[str, Any]) -> None:
        if message.get("gateway") == self.instance:
            return
        session = self.sessions.get(str(message.get("device") or ""))
        if session is not None:
            log.info("%s reconnected to gateway %s: closing its connection here", session.name, message.get("gateway"))
            session.abort()

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
        self._server = await asyncio.start_server(
            self._accept, self.host, self.port, reuse_address=True, reuse_port=self.reuse_port or None, backlog=BACKLOG
        )
        self._watchdog = asyncio.create_task(self._watch(), name="jt808-watchdog")
        self._asker = asyncio.create_task(self._ask(), name="jt808-attributes")
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

    def ask_attributes(self, known: Known) -> None:
        """Ask an authenticated terminal what it is (0x8107 → 0x0107: model, ICCID, hardware and firmware
        versions) through the command service, as a command of no user, unless it was asked within
        ``attributes_max_age_s``: queued, and created at most ``ATTRIBUTE_QUERIES_PER_S``."""
        self._asking.append(known)
        self._ask_wake.set()

    async def _ask(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._ask_wake.wait()
            self._ask_wake.clear()
            while self._asking and self.attributes_max_age_s is not None:
                started = loop.time()
                round_ = [self._asking.popleft() for _ in range(min(ATTRIBUTE_ROUND, len(self._asking)))]
                try:
                    due = await self.terminals.attributes_due_many(
                        [k.device_number for k in round_], self.attributes_max_age_s
                    )
                    asked = 0
                    for known in round_:
                        if known.device_number in due and known.device_number in self.sessions:
                            await self.commands.create(
                                known.tenant_id,
                                known.vehicle_id,
                                known.device_number,
                                "query_attributes",
                                0x8107,
                                {},
                                None,
                            )
                            asked += 1
                except Exception:
                    log.exception("asking %d terminals for their attributes failed", len(round_))
                    continue
                if self._asking:  # more waiting: keep the pace
                    await asyncio.sleep(max(0.0, asked / ATTRIBUTE_QUERIES_PER_S - (loop.time() - started)))

    async def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        for task in (self._watchdog, self._asker):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._watchdog = self._asker = None
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
        await self.terminals.set_online(
            device, True, protocol=PROTOCOL, protocol_version=str(int(session.version)), gateway=self.instance
        )
        self.commands.attach(device, session.send_command)
        if self.bus is not None and self.reuse_port:
            await self.bus.publish(TERMINAL_TAKEN, {"device": device, "gateway": self.instance})

    async def _offline(self, session: Session, device: str) -> None:
        if self.sessions.get(device) is not session:
            return  # replaced by a newer connection of the same terminal
        del self.sessions[device]
        self.commands.detach(device, session.send_command)
        await self.terminals.set_online(device, False, owner=self.instance)


__all__ = ["TERMINAL_TAKEN", "Gateway", "GatewayStats", "Session", "instance_name"]
