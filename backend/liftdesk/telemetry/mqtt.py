"""MQTT adapter: terminals that speak JSON over MQTT instead of JT/T 808 (contract: ``docs/mqtt.md``).

Topics (``<prefix>`` is ``liftdesk``):

* ``<prefix>/<device>/telemetry`` (terminal → platform): one fix, a list, or ``{"fixes": [...], "backfill": bool}``
* ``<prefix>/<device>/events`` (terminal → platform): ``{"type": "online" | "offline" | "driver" | "face" | "dms" |
  ...}`` (the driver's events: :mod:`.mqtt_events`)
* ``<prefix>/<device>/reply`` (terminal → platform): ``{"commandId", "result", "data"}``
* ``<prefix>/<device>/command`` (platform → terminal): ``{"commandId", "name", "msgId", "payload"}``

Only known terminals (``TerminalService.lookup``) are accepted. Messages are taken with QoS 1 and acknowledged
(PUBACK) only once processed — for telemetry, once ``Pipeline.submit`` returned. The adapter keeps a persistent
session (``clean_session=False``, a fixed client id), so what arrives while it is down, and what it did not
acknowledge, the broker delivers again when it reconnects; after a failed submit it reconnects on purpose.

Data of a terminal that has no vehicle (any more: the pipeline raises :class:`UnknownDevice`) is logged, counted
(:attr:`MqttAdapter.unknown_device`) and dropped: MQTT has no per-message failure answer, and redelivering it
would not find a vehicle either.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import aiomqtt
from pydantic import ValidationError

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.telemetry.commands import CommandService, OutboundCommand
from liftdesk.telemetry.gateway.payloads import TelemetryIn
from liftdesk.telemetry.messages import CanFrame, Report, UnknownDevice
from liftdesk.telemetry.mqtt_events import driver_change, vision_item
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import Known, TerminalService

log = logging.getLogger("liftdesk.mqtt")

PROTOCOL = "mqtt"
EVENT_TOPIC = "telemetry.terminal.event"
MAX_PAYLOAD = 1024 * 1024


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    host: str
    port: int
    username: str | None = None
    password: str | None = None
    tls: bool = False

    @classmethod
    def parse(cls, url: str) -> BrokerAddress:
        """``mqtt://[user[:password]@]host[:port]`` (1883) or ``mqtts://…`` (TLS, 8883)."""
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts", "tcp", "ssl"):
            raise ValueError(f"mqtt_url: unsupported scheme {parts.scheme!r} (use mqtt:// or mqtts://)")
        tls = parts.scheme in ("mqtts", "ssl")
        if not parts.hostname:
            raise ValueError("mqtt_url: no host")
        return cls(
            parts.hostname,
            parts.port or (8883 if tls else 1883),
            unquote(parts.username) if parts.username else None,
            unquote(parts.password) if parts.password else None,
            tls,
        )


class _Redeliver(Exception):
    """A message could not be processed for a transient reason: reconnect so the broker sends it again."""


def can_frames(raw: Any) -> tuple[CanFrame, ...] | None:
    """``[{"id": "18FF50E5" | 419385573, "data": "0011223344556677", "channel": 0}, ...]`` → frames (None: invalid)."""
    if not isinstance(raw, list) or not raw:
        return None
    out = []
    for item in raw:
        if not isinstance(item, dict):
            return None
        try:
            ident: Any = item.get("id")
            can_id = int(ident, 16) if isinstance(ident, str) else int(ident)
            data = bytes.fromhex(str(item.get("data", "")))
            channel = int(item.get("channel", 0))
        except (TypeError, ValueError):
            return None
        if not (0 <= can_id < 1 << 29 and 0 < len(data) <= 8 and channel in (0, 1)):
            return None
        out.append(CanFrame(can_id, data, channel))
    return tuple(out)


class MqttAdapter:
    """``MqttAdapter(url, pipeline, terminals, commands)``; ``await start()`` runs it in the background (reconnecting
    on its own), ``await stop()`` disconnects. :attr:`connected` is set while subscribed."""

    def __init__(
        self,
        url: str,
        pipeline: Pipeline,
        terminals: TerminalService,
        commands: CommandService | None = None,
        *,
        db: Database | None = None,
        bus: Bus | None = None,
        prefix: str = "liftdesk",
        client_id: str = "liftdesk-platform",
        reconnect_s: float = 2.0,
        max_inflight: int = 256,
        known_ttl_s: float = 60.0,
    ) -> None:
        self.address = BrokerAddress.parse(url)
        self.pipeline = pipeline
        self.terminals = terminals
        self.commands = commands
        self.db = db or terminals.db
        self.bus = bus
        self.prefix = prefix.strip("/")
        self.client_id = client_id
        self.reconnect_s = reconnect_s
        self.known_ttl_s = known_ttl_s
        self.connected = asyncio.Event()
        self.processed = 0
        self.rejected = 0
        #: Messages dropped because their terminal has no vehicle (UnknownDevice from the pipeline).
        self.unknown_device = 0
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._client: aiomqtt.Client | None = None
        self._slots = asyncio.Semaphore(max_inflight)
        self._tasks: set[asyncio.Task[None]] = set()
        self._locks: dict[str, asyncio.Lock] = {}
        self._lookups: dict[str, tuple[float, Known | None]] = {}
        self._attached: dict[str, Callable[[OutboundCommand], Awaitable[int | None]]] = {}
        self._redeliver = asyncio.Event()
        self._progress = asyncio.Condition()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        if self._task is None:
            self._stopping.clear()
            self._task = asyncio.create_task(self._run(), name="mqtt-adapter")

    async def stop(self) -> None:
        self._stopping.set()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for device in list(self._attached):
            self._detach(device)
        self.connected.clear()

    def topic(self, device: str, kind: str) -> str:
        return f"{self.prefix}/{device}/{kind}"

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                await self._session()
            except aiomqtt.MqttError as exc:
                log.warning("MQTT broker %s:%d: %s", self.address.host, self.address.port, exc)
            except _Redeliver:
                log.info("MQTT: reconnecting so that the broker re-sends unacknowledged messages")
            finally:
                self.connected.clear()
                self._client = None
                for device in list(self._attached):
                    self._detach(device)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.reconnect_s):
                    await self._stopping.wait()

    def _new_client(self) -> aiomqtt.Client:
        a = self.address
        client = aiomqtt.Client(
            a.host,
            a.port,
            username=a.username,
            password=a.password,
            identifier=self.client_id,
            clean_session=False,
            tls_context=ssl.create_default_context() if a.tls else None,
            keepalive=30,
        )
        # PUBACK only once processed (paho's manual acknowledgement, which aiomqtt does not expose).
        client._client.manual_ack_set(True)
        return client

    async def _session(self) -> None:
        self._redeliver.clear()
        async with self._new_client() as client:
            self._client = client
            for kind in ("telemetry", "events", "reply"):
                await client.subscribe(f"{self.prefix}/+/{kind}", qos=1)
            self.connected.set()
            log.info("MQTT adapter subscribed on %s:%d", self.address.host, self.address.port)
            reader = asyncio.create_task(self._read(client))
            redeliver = asyncio.create_task(self._redeliver.wait())
            try:
                await asyncio.wait({reader, redeliver}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (reader, redeliver):
                    task.cancel()
                await asyncio.gather(reader, redeliver, return_exceptions=True)
                if self._tasks:  # let the messages in progress finish (and be acknowledged) before disconnecting
                    await asyncio.gather(*list(self._tasks), return_exceptions=True)
            if reader.done() and not reader.cancelled() and reader.exception() is not None:
                raise reader.exception()  # type: ignore[misc]
            if self._redeliver.is_set():
                raise _Redeliver

    async def _read(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            await self._slots.acquire()
            task = asyncio.create_task(self._process(client, message))
            self._tasks.add(task)
            task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._slots.release()

    # ------------------------------------------------------------------ messages

    def _lock(self, device: str) -> asyncio.Lock:
        lock = self._locks.get(device)
        if lock is None:
            lock = self._locks[device] = asyncio.Lock()
        return lock

    async def _process(self, client: aiomqtt.Client, message: aiomqtt.Message) -> None:
        parts = message.topic.value.split("/")
        if len(parts) != 3 or not parts[1]:
            self._ack(client, message)
            return
        device, kind = parts[1], parts[2]
        async with self._lock(device):  # one device's messages in arrival order
            try:
                done = await self._handle(client, device, kind, message.payload)
            except Exception:
                log.exception("MQTT %s from %s: processing failed, not acknowledged", kind, device)
                done = False
        if done:
            self._ack(client, message)
            self.processed += 1
        else:
            self._redeliver.set()
        async with self._progress:
            self._progress.notify_all()

    async def until(self, predicate: Callable[[], bool], wait_s: float) -> None:
        """Wait (at most ``wait_s`` seconds) until ``predicate()`` holds, re-checked after every message handled
        (for health checks and tests: e.g. ``until(lambda: adapter.processed >= n, 5)``)."""
        async with self._progress:
            async with asyncio.timeout(wait_s):
                await self._progress.wait_for(predicate)

    def _ack(self, client: aiomqtt.Client, message: aiomqtt.Message) -> None:
        if message.qos > 0:
            client._client.ack(message.mid, message.qos)

    async def _known(self, device: str) -> Known | None:
        loop = asyncio.get_running_loop()
        cached = self._lookups.get(device)
        if cached is not None and cached[0] > loop.time():
            return cached[1]
        known = await self.terminals.lookup(device)
        if known is not None and cached is None:
            await self.terminals.ensure(known, PROTOCOL)
        self._lookups[device] = (loop.time() + self.known_ttl_s, known)
        return known

    async def _handle(self, client: aiomqtt.Client, device: str, kind: str, raw: Any) -> bool:
        """Process one message; True → acknowledge it (also for messages refused for good), False → redeliver."""
        known = await self._known(device)
        if known is None:
            self.rejected += 1
            log.warning("MQTT %s from unknown terminal %s dropped", kind, device)
            return True
        try:
            if not isinstance(raw, bytes | bytearray) or len(raw) > MAX_PAYLOAD:
                raise ValueError("payload missing or too large")
            data = json.loads(raw)
        except ValueError as exc:
            self.rejected += 1
            log.warning("MQTT %s from %s: not JSON (%s), dropped", kind, device, exc)
            return True
        self._attach(client, device)
        try:
            if kind == "telemetry":
                return await self._telemetry(device, data)
            if kind == "events":
                return await self._event(device, known, data)
            if kind == "reply":
                return await self._reply(device, data)
        except UnknownDevice:
            self.unknown_device += 1
            self._lookups.pop(device, None)  # look it up afresh next time (a vehicle may name it again)
            log.warning("MQTT %s from %s dropped: the terminal has no vehicle", kind, device)
        return True

    async def _telemetry(self, device: str, data: Any) -> bool:
        try:
            parsed = TelemetryIn.parse(data)
        except ValidationError as exc:
            self.rejected += 1
            log.warning("MQTT telemetry from %s refused: %s", device, exc.errors(include_url=False)[:3])
            return True
        report = Report(device, parsed.to_fixes(), utcnow(), backfill=parsed.backfill, source=PROTOCOL)
        await self.pipeline.submit(report)  # raising → not acknowledged, redelivered
        return True

    async def _event(self, device: str, known: Known, data: Any) -> bool:
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            self.rejected += 1
            log.warning("MQTT event from %s without a type, dropped", device)
            return True
        kind = data["type"]
        if kind == "online":
            await self.terminals.set_online(device, True, protocol=PROTOCOL)
        elif kind == "offline":
            self._detach(device)
            await self.terminals.set_online(device, False)
        elif kind == "driver":
            await self.pipeline.set_driver(device, driver_change(data))
        elif kind in ("face", "dms"):
            item = vision_item(data)
            if item is None:
                self.rejected += 1
                log.warning("MQTT %s event from %s not valid, dropped", kind, device)
                return True
            await self.pipeline.submit(Report(device, (), utcnow(), source=PROTOCOL, vision=(item,)))
        elif kind == "can":
            frames = can_frames(data.get("frames"))
            if frames is None:
                self.rejected += 1
                log.warning("MQTT can event from %s without valid frames, dropped", device)
                return True
            await self.pipeline.submit(Report(device, (), utcnow(), source=PROTOCOL, can=frames))
        if self.bus is not None:
            await self.bus.publish(EVENT_TOPIC, {"device": device, "protocol": PROTOCOL, "event": data})
        return True

    async def _reply(self, device: str, data: Any) -> bool:
        if self.commands is None:
            return True
        try:
            command_id = int(data["commandId"])
            result = int(data.get("result", 0))
        except (KeyError, TypeError, ValueError):
            self.rejected += 1
            log.warning("MQTT reply from %s without a valid commandId/result, dropped", device)
            return True
        if not await self.commands.on_reply(device, command_id, result, data.get("data")):
            log.info("MQTT reply from %s to command %s matched nothing", device, command_id)
        return True

    # ------------------------------------------------------------------ commands

    def _attach(self, client: aiomqtt.Client, device: str) -> None:
        """A terminal that talks to us can be sent commands (its ``command`` topic, QoS 1)."""
        if self.commands is None or device in self._attached:
            return

        async def send(cmd: OutboundCommand) -> None:
            if self._client is not client:
                raise ConnectionError("MQTT connection replaced")
            payload = {"commandId": str(cmd.id), "name": cmd.name, "msgId": cmd.msg_id, "payload": cmd.payload}
            try:
                await client.publish(self.topic(cmd.device, "command"), json.dumps(payload, ensure_ascii=False), qos=1)
            except aiomqtt.MqttError as exc:
                raise ConnectionError(str(exc)) from exc
            return None

        self._attached[device] = send
        self.commands.attach(device, send)

    def _detach(self, device: str) -> None:
        send = self._attached.pop(device, None)
        if send is not None and self.commands is not None:
            self.commands.detach(device, send)
