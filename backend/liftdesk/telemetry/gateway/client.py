"""A JT/T 808 *terminal* over asyncio: what the tests, the benchmark and a device simulator talk to the gateway with.

Replies that carry the serial they answer (0x8001, 0x8100) resolve the future of the message they answer; every
other platform message (commands) goes to :attr:`Jt808Client.inbox`.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import Callable

from liftdesk.telemetry.codecs.jt808 import (
    Authentication,
    Body,
    FrameSplitter,
    Heartbeat,
    Jt808Error,
    Jt808Version,
    Message,
    PlatformGeneralReply,
    Registration,
    RegistrationReply,
    SerialCounter,
    decode_message,
    encode_frames,
    subpackage_count,
)

Reply = PlatformGeneralReply | RegistrationReply


class Jt808Client:
    def __init__(
        self,
        host: str,
        port: int,
        terminal: str,
        version: Jt808Version = Jt808Version.V2013,
        *,
        max_body: int = 1023,
    ) -> None:
        self.host = host
        self.port = port
        self.terminal = terminal
        self.version = version
        self.max_body = max_body
        self.serials = SerialCounter(1)
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        #: Called with each platform message that is not a reply, instead of queueing it in :attr:`inbox` (a
        #: terminal that answers commands by itself: see :meth:`send_nowait`).
        self.on_message: Callable[[Message], None] | None = None
        self.closed = asyncio.Event()
        #: The code of the last successful registration (what to authenticate with).
        self.auth_code: str | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None
        self._waiting: dict[tuple[int, int], asyncio.Future[Reply]] = {}

    async def connect(self, local: tuple[str, int] | None = None) -> Jt808Client:
        """Open the connection, from the ``local`` address and port when given (port 0: the kernel picks one)."""
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port, local_addr=local)
        self.closed.clear()
        self._task = asyncio.create_task(self._read())
        return self

    async def __aenter__(self) -> Jt808Client:
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await self._writer.wait_closed()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._fail_waiting()

    def abort(self) -> None:
        """Drop the TCP connection without a goodbye (a terminal losing its signal)."""
        if self._writer is not None:
            self._writer.transport.abort()

    @property
    def local_port(self) -> int:
        """The port this end of the connection has (0 before it connected)."""
        name = self._writer.get_extra_info("sockname") if self._writer is not None else None
        return int(name[1]) if isinstance(name, tuple) else 0

    def reset(self) -> None:
        """Drop the connection with a reset (SO_LINGER 0): nothing of it lingers in TIME_WAIT, so its local port can
        connect again at once (a terminal whose modem resets reconnects from the same port)."""
        if self._writer is not None:
            sock = self._writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self._writer.transport.abort()

    async def _read(self) -> None:
        assert self._reader is not None
        splitter = FrameSplitter()
        try:
            while chunk := await self._reader.read(65536):
                for frame in splitter.feed(chunk):
                    try:
                        message = decode_message(frame)
                    except Jt808Error:
                        continue
                    body = message.body
                    if isinstance(body, PlatformGeneralReply | RegistrationReply):
                        reply_id = body.reply_msg_id if isinstance(body, PlatformGeneralReply) else 0x0100
                        fut = self._waiting.pop((body.reply_serial, reply_id), None)
                        if fut is not None and not fut.done():
                            fut.set_result(body)
                            continue
                    if self.on_message is not None:
                        self.on_message(message)
                    else:
                        self.inbox.put_nowait(message)
        except (ConnectionError, OSError):
            pass
        finally:
            self.closed.set()
            self._fail_waiting()

    def _fail_waiting(self) -> None:
        waiting, self._waiting = self._waiting, {}
        for fut in waiting.values():
            if not fut.done():
                fut.set_exception(ConnectionError("connection closed"))

    # ------------------------------------------------------------------ sending

    async def write(self, data: bytes) -> None:
        if self._writer is None or self._writer.is_closing():
            raise ConnectionError("not connected")
        self._writer.write(data)
        await self._writer.drain()

    def frames(self, body: Body, serial: int | None = None) -> tuple[int, list[bytes]]:
        raw = body.encode(self.version)
        if serial is None:
            serial = self.serials.next(subpackage_count(len(raw), self.max_body))
        frames = encode_frames(
            body.msg_id, raw, terminal=self.terminal, serial=serial, version=self.version, max_body=self.max_body
        )
        return serial, frames

    def send_nowait(self, body: Body) -> int:
        """Queue a message on the connection without waiting for the buffer to drain; returns its serial."""
        if self._writer is None or self._writer.is_closing():
            raise ConnectionError("not connected")
        serial, frames = self.frames(body)
        self._writer.write(b"".join(frames))
        return serial

    async def send(self, body: Body, serial: int | None = None) -> int:
        """Send without waiting for an answer; returns the (first) serial."""
        serial, frames = self.frames(body, serial)
        await self.write(b"".join(frames))
        return serial

    def expect(self, serial: int, msg_id: int) -> asyncio.Future[Reply]:
        """A future for the platform's reply to our message ``msg_id`` sent with ``serial`` (fails with
        ConnectionError when the connection closes first)."""
        fut: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        if self.closed.is_set() or self._task is None:
            fut.set_exception(ConnectionError("not connected"))
        else:
            self._waiting[(serial, msg_id)] = fut
        return fut

    async def request(self, body: Body, wait_s: float = 5.0) -> Reply:
        """Send and wait for the 0x8001 (0x8100 for a registration) answering it (the last sub-package)."""
        serial, frames = self.frames(body)
        key = ((serial + len(frames) - 1) & 0xFFFF, body.msg_id)
        fut = self.expect(*key)
        try:
            await self.write(b"".join(frames))
            async with asyncio.timeout(wait_s):
                return await fut
        finally:
            if self._waiting.get(key) is fut:
                del self._waiting[key]
            if not fut.done():
                fut.cancel()
            elif not fut.cancelled():
                fut.exception()  # retrieved: no "exception never retrieved" noise

    async def next_message(self, wait_s: float = 5.0) -> Message:
        async with asyncio.timeout(wait_s):
            return await self.inbox.get()

    # ------------------------------------------------------------------ conversations

    async def register(self, registration: Registration, wait_s: float = 5.0) -> RegistrationReply:
        reply = await self.request(registration, wait_s)
        assert isinstance(reply, RegistrationReply)
        if reply.auth_code:
            self.auth_code = reply.auth_code
        return reply

    async def authenticate(self, auth_code: str, wait_s: float = 5.0, imei: str = "", software: str = "") -> int:
        """Returns the 0x8001 result (0 = accepted)."""
        reply = await self.request(Authentication(auth_code, imei or None, software or None), wait_s)
        assert isinstance(reply, PlatformGeneralReply)
        return int(reply.result)

    async def heartbeat(self, wait_s: float = 5.0) -> int:
        reply = await self.request(Heartbeat(), wait_s)
        assert isinstance(reply, PlatformGeneralReply)
        return int(reply.result)


def registration(plate: str = "", maker: str = "LFTDK", model: str = "LD-1", terminal_id: str = "T1") -> Registration:
    return Registration(31, 100, maker, model, terminal_id, 1 if plate else 0, plate or "LSVAU2180N2183294")
