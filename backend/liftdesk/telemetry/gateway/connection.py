"""One terminal connection's state and what is written to it (the base of
:class:`~liftdesk.telemetry.gateway.session.Session`): frames encoded in the terminal's header version and
number with the platform's serials, everything queued in one event-loop turn written at once, general replies
(0x8001), and the command service's transport (:meth:`Connection.send_command`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from liftdesk.core.db import utcnow
from liftdesk.telemetry.codecs.jt808 import (
    Body,
    FrameSplitter,
    Header,
    Jt808Version,
    ReplyResult,
    SerialCounter,
    SubpackageAssembler,
    encode_frames,
    encode_general_replies,
    subpackage_count,
)
from liftdesk.telemetry.commands import OutboundCommand, build_body
from liftdesk.telemetry.messages import Fix
from liftdesk.telemetry.terminals import Known

if TYPE_CHECKING:
    from liftdesk.telemetry.gateway.server import Gateway  # which imports this module

#: Bytes of sub-package bodies held for reassembly: per connection, and by all connections of the gateway.
SUBPACKAGE_BYTES_PER_CONNECTION = 4 * 1024 * 1024
SUBPACKAGE_BYTES_TOTAL = 64 * 1024 * 1024
WRITE_HIGH_WATER = 256 * 1024
PROTOCOL = "jt808"


class Connection:
    """One terminal connection: its state and its writing side (see :class:`~.session.Session`)."""

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

    def close(self) -> None:
        """Close the connection after what is queued for it has been written (idle timeout)."""
        self._closing = True
        self.writer.transport.close()

    def abort(self) -> None:
        """Drop the connection now (gateway stop, or the terminal connected again elsewhere)."""
        self._closing = True
        self.writer.transport.abort()

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
