"""A command's lifecycle vocabulary: its statuses and bus topics, the service's defaults, what a transport sends
(:class:`OutboundCommand`, :data:`Transport`), a stored command as read (:class:`CommandView`) and one attempt
in flight.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from liftdesk.telemetry.models import Command

PENDING, SENT, ACKNOWLEDGED, FAILED, TIMEOUT = "pending", "sent", "acknowledged", "failed", "timeout"
CANCELLED = "cancelled"
FINAL_STATUSES = frozenset({ACKNOWLEDGED, FAILED, TIMEOUT, CANCELLED})
CREATED_TOPIC = "telemetry.command.created"
DONE_TOPIC = "telemetry.command.done"
#: blade_param key of the platform reply timeout (seconds), read at start when no timeout is given.
PARAM_REPLY_TIMEOUT = "telemetry.commandReplyTimeoutSeconds"
DEFAULT_REPLY_TIMEOUT_S = 10.0
DEFAULT_EXPIRY_S = 24 * 3600.0


@dataclass(slots=True)
class OutboundCommand:
    """What a transport sends. A JT/T 808 transport sets ``serials`` (first = ``serial``) before writing."""

    id: int
    device: str
    name: str
    msg_id: int
    payload: dict[str, Any]
    attempt: int = 1
    serial: int | None = None
    serials: tuple[int, ...] = ()


#: Sends one command; returns the serial of the (first) frame, or None when the transport has no serials.
#: Raises ConnectionError (or OSError) when the terminal is gone, ValueError when the command cannot be encoded
#: for this terminal.
Transport = Callable[[OutboundCommand], Awaitable[int | None]]


@dataclass(frozen=True, slots=True)
class CommandView:
    id: int
    tenant_id: str
    vehicle_id: int | None
    device: str
    name: str
    msg_id: int
    payload: dict[str, Any]
    status: str
    attempts: int
    serial: int | None
    result: Any
    error: str | None
    create_user: int | None
    create_time: datetime
    sent_time: datetime | None
    done_time: datetime | None
    expire_time: datetime | None

    @property
    def done(self) -> bool:
        return self.status in FINAL_STATUSES

    @classmethod
    def of(cls, row: Command) -> CommandView:
        return cls(
            row.id,
            row.tenant_id,
            row.vehicle_id,
            row.device_number,
            row.name,
            row.msg_id,
            json.loads(row.payload or "{}"),
            row.status,
            row.attempts,
            row.serial,
            json.loads(row.result) if row.result else None,
            row.error,
            row.create_user,
            row.create_time,
            row.sent_time,
            row.done_time,
            row.expire_time,
        )


@dataclass(slots=True)
class _Inflight:
    cmd: OutboundCommand
    transport: Transport
    timer: asyncio.Task[None] | None = None
