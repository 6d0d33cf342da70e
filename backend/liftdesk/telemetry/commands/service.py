"""The command service: storing, cancelling and waiting for commands (:meth:`CommandService.create`,
:meth:`~CommandService.cancel`, :meth:`~CommandService.wait`), the transports of the terminals attached to
this process, sending with retries and expiry, and recovery after a restart. Answers complete commands
through its base class, :class:`~liftdesk.telemetry.commands.replies.CommandReplies`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.bus import BUS_RECONNECTED, Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.core.grouped import Grouped
from liftdesk.core.ids import next_id
from liftdesk.system.models import LogUsual, Param
from liftdesk.telemetry.codecs.jt808 import ParamValue
from liftdesk.telemetry.commands.catalog import validate
from liftdesk.telemetry.commands.recovery import MAX_ATTEMPTS, recover_sent, reply_timeout, stale_sent
from liftdesk.telemetry.commands.replies import CommandReplies
from liftdesk.telemetry.commands.settings import (
    LAST_VALUE_ROWS,
    SWITCHES_ALL,
    SWITCHES_PID,
    UnknownParameter,
    _param_in,
    switch_bits,
)
from liftdesk.telemetry.commands.state import (
    ACKNOWLEDGED,
    CANCELLED,
    CREATED_TOPIC,
    DEFAULT_EXPIRY_S,
    DEFAULT_REPLY_TIMEOUT_S,
    DONE_TOPIC,
    FAILED,
    PARAM_REPLY_TIMEOUT,
    PENDING,
    SENT,
    TIMEOUT,
    CommandView,
    OutboundCommand,
    Transport,
    _Inflight,
)
from liftdesk.telemetry.models import Command

log = logging.getLogger("liftdesk.commands")


class CommandService(CommandReplies):
    def __init__(
        self,
        db: Database,
        bus: Bus,
        *,
        reply_timeout_s: float | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        default_expiry_s: float = DEFAULT_EXPIRY_S,
        sweep_interval_s: float = 60.0,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.db = db
        self.bus = bus
        self.reply_timeout_s = reply_timeout_s if reply_timeout_s is not None else DEFAULT_REPLY_TIMEOUT_S
        self._timeout_from_param = reply_timeout_s is None
        self.max_attempts = max_attempts
        self.default_expiry_s = default_expiry_s
        self.sweep_interval_s = sweep_interval_s
        self._transports: dict[str, Transport] = {}
        self._inflight: dict[int, _Inflight] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiters: dict[int, set[asyncio.Event]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe: list[Callable[[], None]] = []
        self._started = False
        self._pending: Grouped[str, bool] = Grouped(self._pending_round, max_items=500, name="commands-pending")

    # ------------------------------------------------------------------ lifecycle

    async def start(self, *, recover: bool = True, sweep: bool | None = None) -> None:
        """Subscribe to the bus; with ``recover`` (the process that holds terminal connections) re-queue commands
        a previous process left in flight; with ``sweep`` (default: ``recover``; one of several gateway processes
        sweeps without recovering, its supervisor recovered before starting them) sweep expired pending commands
        periodically, and the sent ones a gone sibling process left (:func:`.recovery.stale_sent`)."""
        if self._started:
            return
        self._started = True
        if self._timeout_from_param:
            self.reply_timeout_s = await self._param_timeout()
        self._unsubscribe.append(self.bus.subscribe(CREATED_TOPIC, self._on_created))
        self._unsubscribe.append(self.bus.subscribe(DONE_TOPIC, self._on_done))
        if recover:
            await recover_sent(self.db, self.max_attempts)
        if recover if sweep is None else sweep:
            self._spawn(self._sweeper())
            # Back from a Redis outage: announcements of commands created meanwhile were lost; send them now.
            self._unsubscribe.append(self.bus.subscribe(BUS_RECONNECTED, self._on_reconnected))

    async def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        for inflight in self._inflight.values():
            if inflight.timer is not None:
                inflight.timer.cancel()
        self._inflight.clear()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._pending.stop()
        self._started = False

    def reply_timeout(self, attempt: int) -> float:
        """How long to wait for the answer to send number ``attempt`` (1-based): T·attempt!."""
        return reply_timeout(self.reply_timeout_s, attempt)

    async def _param_timeout(self) -> float:
        async with self.db.sessionmaker() as s:
            raw = (
                await s.execute(
                    select(Param.param_value).where(Param.param_key == PARAM_REPLY_TIMEOUT, Param.is_deleted == 0)
                )
            ).scalar_one_or_none()
        with contextlib.suppress(TypeError, ValueError):
            value = float(raw)  # type: ignore[arg-type]
            if value > 0:
                return value
        return DEFAULT_REPLY_TIMEOUT_S

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _sweeper(self) -> None:
        """Expire old pending commands, and send the pending commands of attached terminals: a command created in
        another process is announced on the bus, and a bus message can be lost (Redis pub/sub keeps nothing for a
        listener that was reconnecting), which would leave it waiting until the terminal reconnects."""
        while True:
            try:
                await self.expire_pending()
                for _, device in await stale_sent(
                    self.db, self.reply_timeout, self.max_attempts, self.sweep_interval_s, set(self._inflight)
                ):
                    await self.bus.publish(CREATED_TOPIC, {"device": device})  # its holder sends it again
                await self.dispatch_attached()
            except Exception:  # keep sweeping after a database hiccup
                log.exception("sweeping pending commands failed")
            await asyncio.sleep(self.sweep_interval_s)

    async def _on_reconnected(self, _: dict[str, Any]) -> None:
        try:
            await self.dispatch_attached()
        except Exception:
            log.exception("sending the pending commands after the bus came back failed")

    async def dispatch_attached(self) -> int:
        """Send the pending commands of every attached terminal; returns how many were sent."""
        if not self._transports:
            return 0
        async with self.db.sessionmaker() as s:
            devices = set(
                (await s.execute(select(Command.device_number).where(Command.status == PENDING).distinct()))
                .scalars()
                .all()
            )
        sent = 0
        for device in devices & set(self._transports):
            sent += await self.dispatch(device)
        return sent

    # ------------------------------------------------------------------ create / read / wait

    async def create(
        self,
        tenant_id: str,
        vehicle_id: int | None,
        device: str,
        name: str,
        msg_id: int,
        payload: dict[str, Any],
        user_id: int | None,
        *,
        expire_time: datetime | None = None,
        supersede: bool = False,
    ) -> int:
        """Store a pending command (ValueError if the payload does not build), audit it, announce it.

        ``supersede``: the device's pending commands of the same name are cancelled (``superseded``) in the same
        transaction: a state sent whole (a card list) needs only its latest version to reach the terminal."""
        if not device:
            raise ValueError("device: required")
        validate(msg_id, payload)
        now = utcnow()
        expire = expire_time or now + timedelta(seconds=self.default_expiry_s)
        command_id = next_id()
        payload_json = json.dumps(payload, ensure_ascii=False)
        superseded: list[int] = []
        async with self.db.sessionmaker() as s:
            if supersede:
                superseded = await self._supersede(s, device, name[:64], now)
            s.add(
                Command(
                    id=command_id,
                    tenant_id=tenant_id,
                    vehicle_id=vehicle_id,
                    device_number=device,
                    msg_id=msg_id,
                    name=name[:64],
                    payload=payload_json,
                    status=PENDING,
                    attempts=0,
                    create_user=user_id,
                    create_time=now,
                    expire_time=expire,
                )
            )
            s.add(
                LogUsual(
                    tenant_id=tenant_id,
                    service_id="telemetry",
                    log_level="INFO",
                    log_id="command.create",
                    log_data=json.dumps(
                        {
                            "commandId": str(command_id),
                            "device": device,
                            "vehicleId": str(vehicle_id) if vehicle_id else None,
                            "name": name,
                            "msgId": f"0x{msg_id:04x}",
                            "payload": payload,
                            "userId": str(user_id) if user_id else None,
                        },
                        ensure_ascii=False,
                    ),
                    create_by=str(user_id) if user_id is not None else None,
                    create_time=now,
                )
            )
            await s.commit()
        log.info("command %s %s (0x%04x) for %s created by %s", command_id, name, msg_id, device, user_id)
        for old in superseded:
            await self.bus.publish(DONE_TOPIC, {"id": str(old), "status": CANCELLED})
        await self.bus.publish(CREATED_TOPIC, {"id": str(command_id), "device": device})
        return command_id

    @staticmethod
    async def _supersede(s: AsyncSession, device: str, name: str, now: datetime) -> list[int]:
        """Cancel the device's pending commands named ``name`` (a newer one replaces them); their ids."""
        found = await s.execute(
            update(Command)
            .where(Command.device_number == device, Command.name == name, Command.status == PENDING)
            .values(status=CANCELLED, done_time=now, error="superseded")
            .returning(Command.id)
        )
        return list(found.scalars().all())

    async def get(self, command_id: int) -> CommandView | None:
        async with self.db.sessionmaker() as s:
            row = await s.get(Command, command_id)
            return CommandView.of(row) if row is not None else None

    async def cancel(self, tenant_id: str, command_ids: Sequence[int], user_id: int | None) -> bool:
        """Cancel pending commands of ``tenant_id``: all of them or none (False when one of them is not pending
        any more, e.g. the gateway claimed it meanwhile). Claiming (pending → sent) and cancelling are both
        conditional updates of the status, so a command is either sent or cancelled, never both."""
        ids = list(dict.fromkeys(command_ids))
        if not ids:
            return False
        now = utcnow()
        async with self.db.sessionmaker() as s:
            result = await s.execute(
                update(Command)
                .where(Command.id.in_(ids), Command.tenant_id == tenant_id, Command.status == PENDING)
                .values(status=CANCELLED, done_time=now, error="cancelled")
            )
            if result.rowcount != len(ids):  # type: ignore[attr-defined]
                await s.rollback()
                return False
            s.add(
                LogUsual(
                    tenant_id=tenant_id,
                    service_id="telemetry",
                    log_level="INFO",
                    log_id="command.cancel",
                    log_data=json.dumps(
                        {"commandIds": [str(i) for i in ids], "userId": str(user_id) if user_id else None}
                    ),
                    create_by=str(user_id) if user_id is not None else None,
                    create_time=now,
                )
            )
            await s.commit()
        for command_id in ids:
            log.info("command %s cancelled by %s", command_id, user_id)
            await self.bus.publish(DONE_TOPIC, {"id": str(command_id), "status": CANCELLED})
        return True

    async def last_param_value(self, device: str, pid: int) -> ParamValue | None:
        """The terminal's value of parameter ``pid`` as far as the command log knows it: the newest of the
        answers to parameter queries (0x8104/0x8106, as of their answer) and of the parameter sets not failed
        (0x8103 pending, sent or acknowledged, as of their creation: a queued set is applied before anything
        created after it, as the terminal receives commands oldest first). None when nothing is known."""
        async with self.db.sessionmaker() as s:
            rows = (
                (
                    await s.execute(
                        select(Command)
                        .where(
                            Command.device_number == device,
                            Command.msg_id.in_((0x8103, 0x8104, 0x8106)),
                            Command.status.in_((PENDING, SENT, ACKNOWLEDGED)),
                        )
                        .order_by(Command.create_time.desc(), Command.id.desc())
                        .limit(LAST_VALUE_ROWS)
                    )
                )
                .scalars()
                .all()
            )
        best: tuple[datetime, ParamValue] | None = None
        for row in rows:
            found = _param_in(row, pid)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
        return None if best is None else best[1]

    async def create_switches(
        self,
        tenant_id: str,
        vehicle_id: int | None,
        device: str,
        switches: Mapping[str, bool],
        user_id: int | None,
        *,
        name: str = "funcset",
    ) -> int:
        """Turn the named function switches (``FunctionSwitch`` names, e.g. ``{"fence": True, "dms": False}``) on
        or off and leave the others as they are: a read-modify-write of parameter 0xF008 starting from
        :meth:`last_param_value`. Raises :class:`UnknownParameter` when that value is unknown (unless every switch
        is named) - sending a guess would change switches nobody asked to change - and ValueError for an unknown
        switch name. Bits the table does not define are dropped (the terminal would refuse them)."""
        mask, on = switch_bits(switches)
        async with self._lock(f"switches {device}"):  # two requests of this process must not start from one value
            known = None if mask == SWITCHES_ALL else await self.last_param_value(device, SWITCHES_PID)
            if mask != SWITCHES_ALL and not isinstance(known, int):
                raise UnknownParameter(SWITCHES_PID, device)
            base = known if isinstance(known, int) else None
            value = ((base or 0) & ~mask | on) & SWITCHES_ALL
            payload = {
                "params": {"function_switches": value},
                "switches": {k.lower(): bool(v) for k, v in switches.items()},
                "base": base,
            }
            return await self.create(tenant_id, vehicle_id, device, name, 0x8103, payload, user_id)

    async def wait(self, command_id: int, timeout: float) -> CommandView | None:  # noqa: ASYNC109 - the API's own bound
        """Wait until the command is answered (or timed out/failed) or ``timeout`` seconds pass; return its
        latest state (None if there is no such command)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        event = asyncio.Event()
        self._waiters.setdefault(command_id, set()).add(event)
        try:
            while True:
                event.clear()
                view = await self.get(command_id)
                remaining = deadline - loop.time()
                if view is None or view.done or remaining <= 0:
                    return view
                # The bus wakes us; the re-read every second covers a completion message we did not receive.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(remaining, 1.0)):
                        await event.wait()
        finally:
            waiters = self._waiters.get(command_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[command_id]

    async def _on_done(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            for event in self._waiters.get(int(message["id"]), ()):
                event.set()

    async def _on_created(self, message: dict[str, Any]) -> None:
        device = message.get("device")
        if isinstance(device, str) and device in self._transports:
            self._spawn(self.dispatch(device))

    # ------------------------------------------------------------------ transports

    def attach(self, device: str, transport: Transport) -> None:
        """The terminal is reachable through ``transport`` (replacing any earlier one); its pending commands are
        sent in the background."""
        self._transports[device] = transport
        self._spawn(self._dispatch_if_pending(device))

    async def _dispatch_if_pending(self, device: str) -> None:
        """Whether a terminal that came has commands waiting is asked with others that came at the same time (one
        query for a round of them: 10,000 terminals reconnecting after a restart, few with anything pending)."""
        if await self._pending(device):
            await self.dispatch(device)

    async def _pending_round(self, devices: list[str]) -> list[bool]:
        async with self.db.sessionmaker() as s:
            waiting = set(
                (
                    await s.execute(
                        select(Command.device_number)
                        .where(Command.device_number.in_(sorted(set(devices))), Command.status == PENDING)
                        .distinct()
                    )
                ).scalars()
            )
        return [device in waiting for device in devices]

    def detach(self, device: str, transport: Transport | None = None) -> None:
        """The terminal is gone (only if ``transport`` is still the registered one, when given). Commands in
        flight keep their timers; a retry finding no transport puts the command back to pending."""
        current = self._transports.get(device)
        if current is not None and (transport is None or current == transport):
            del self._transports[device]

    def attached(self, device: str) -> bool:
        return device in self._transports

    def _lock(self, device: str) -> asyncio.Lock:
        lock = self._locks.get(device)
        if lock is None:
            lock = self._locks[device] = asyncio.Lock()
        return lock

    async def dispatch(self, device: str) -> int:
        """Send the device's pending commands (oldest first) if it is attached; returns how many were sent."""
        sent = 0
        async with self._lock(device):
            if device not in self._transports:
                return 0
            now = utcnow()
            async with self.db.sessionmaker() as s:
                rows = (
                    (
                        await s.execute(
                            select(Command)
                            .where(Command.device_number == device, Command.status == PENDING)
                            .order_by(Command.create_time, Command.id)
                        )
                    )
                    .scalars()
                    .all()
                )
            for row in rows:
                if row.expire_time is not None and row.expire_time <= now:
                    await self._finish(row.id, FAILED, error="expired", from_statuses=(PENDING,))
                    continue
                cmd = OutboundCommand(
                    row.id, device, row.name, row.msg_id, json.loads(row.payload or "{}"), row.attempts + 1
                )
                if await self._send(cmd, claim=True):
                    sent += 1
                if device not in self._transports:
                    break
        return sent

    async def _send(self, cmd: OutboundCommand, *, claim: bool) -> bool:
        """Send one attempt. ``claim``: move the row pending → sent first (skip it if someone else did)."""
        transport = self._transports.get(cmd.device)
        if transport is None:
            await self._requeue(cmd)
            return False
        now = utcnow()
        async with self.db.sessionmaker() as s:
            cond = Command.status == (PENDING if claim else SENT)
            result = await s.execute(
                update(Command)
                .where(Command.id == cmd.id, cond)
                .values(status=SENT, attempts=cmd.attempt, sent_time=now)
            )
            await s.commit()
        if not result.rowcount:  # type: ignore[attr-defined]
            return False
        inflight = self._inflight.get(cmd.id)
        if inflight is None:
            inflight = self._inflight[cmd.id] = _Inflight(cmd, transport)
        inflight.cmd, inflight.transport = cmd, transport
        try:
            serial = await transport(cmd)
        except ValueError as exc:  # cannot be encoded for this terminal (e.g. a 2019-only control on 2013)
            await self._finish(cmd.id, FAILED, error=f"cannot be sent: {exc}"[:255])
            return False
        except (ConnectionError, OSError) as exc:
            log.info("command %s to %s not sent (%s); back to pending", cmd.id, cmd.device, exc)
            self.detach(cmd.device, transport)
            await self._requeue(cmd)
            return False
        if serial is not None:
            async with self.db.sessionmaker() as s:
                await s.execute(update(Command).where(Command.id == cmd.id).values(serial=serial))
                await s.commit()
        if cmd.id not in self._inflight:  # answered already
            return True
        inflight.timer = asyncio.ensure_future(self._expect(cmd.id, cmd.attempt))
        log.debug("command %s sent to %s (attempt %d, serial %s)", cmd.id, cmd.device, cmd.attempt, serial)
        return True

    async def _requeue(self, cmd: OutboundCommand) -> None:
        """Back to pending (kept attempts): sent again when the terminal is attached again."""
        inflight = self._inflight.pop(cmd.id, None)
        if inflight is not None and inflight.timer is not None and inflight.timer is not asyncio.current_task():
            inflight.timer.cancel()
        async with self.db.sessionmaker() as s:
            await s.execute(
                update(Command)
                .where(Command.id == cmd.id, Command.status == SENT)
                .values(status=PENDING, attempts=max(0, cmd.attempt - 1))  # the attempt being made did not happen
            )
            await s.commit()
        if cmd.device in self._transports:
            # The terminal came back while this was being written: its dispatch may have missed the command.
            self._spawn(self.dispatch(cmd.device))
        else:  # it may be connected to another gateway process on the same port now: whoever holds it sends it
            await self.bus.publish(CREATED_TOPIC, {"id": str(cmd.id), "device": cmd.device})

    async def _expect(self, command_id: int, attempt: int) -> None:
        """Timer of one attempt: when it runs out, send again or give up."""
        await asyncio.sleep(self.reply_timeout(attempt))
        inflight = self._inflight.get(command_id)
        if inflight is None or inflight.cmd.attempt != attempt:
            return
        inflight.timer = None
        if attempt >= self.max_attempts:
            await self._finish(command_id, TIMEOUT, error=f"no reply after {attempt} attempts")
            return
        cmd = inflight.cmd
        async with self._lock(cmd.device):  # not concurrently with a dispatch for a terminal coming back
            if self._inflight.get(command_id) is not inflight:
                return  # answered meanwhile
            again = OutboundCommand(cmd.id, cmd.device, cmd.name, cmd.msg_id, cmd.payload, attempt + 1)
            if self._transports.get(cmd.device) == inflight.transport:
                again.serial, again.serials = cmd.serial, cmd.serials  # a retransmission keeps its serial
            log.info("command %s to %s: no reply, attempt %d", cmd.id, cmd.device, attempt + 1)
            await self._send(again, claim=False)

    async def expire_pending(self) -> int:
        """Fail pending commands whose expire time has passed."""
        now = utcnow()
        async with self.db.sessionmaker() as s:
            ids = (
                (
                    await s.execute(
                        select(Command.id).where(
                            Command.status == PENDING, Command.expire_time.is_not(None), Command.expire_time <= now
                        )
                    )
                )
                .scalars()
                .all()
            )
        done = 0
        for command_id in ids:
            if await self._finish(command_id, FAILED, error="expired", from_statuses=(PENDING,)):
                done += 1
        return done
