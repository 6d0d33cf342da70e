"""The live feed: one WebSocket per browser, receiving only its tenant's and data scope's vehicles.

Pipeline → bus → hub → clients. On connection (and after the bus between processes comes back) the fleet as it is
now: a ``snapshot`` (replaces what the page holds) with the first SNAPSHOT_PIECE vehicles, then ``vehicles`` with the
rest. Then three kinds of message (shapes in ``telemetry/view.py``):

* ``vehicles`` (``live.vehicle``): coalesced per vehicle - a client gets at most one update per vehicle per flush
  interval (1 s), however often the vehicle reports, so a large fleet does not flood a page;
* ``online`` (``live.online``): a terminal went online or offline, coalesced per vehicle the same way;
* ``event`` (``live.event``): new alarm events, each one (an impact matters even when another one follows), but at
  most ``max_events`` per flush interval per connection; the rest is summarised in one ``eventSummary`` (how many,
  by kind), so that an alarm storm cannot flood a page either.

Every message reaches only the browsers of its tenant whose data scope holds its vehicle. With several API
processes the bus is Redis and every process's hub sees every message.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from liftdesk.core.bus import BUS_RECONNECTED, Bus
from liftdesk.core.context import Ctx
from liftdesk.core.db import Database
from liftdesk.core.deps import AUTH_REVOKED, principal_of
from liftdesk.core.envelope import Forbidden, NotAuthenticated
from liftdesk.core.kv import KV
from liftdesk.core.manifest import add_schemas
from liftdesk.core.scope import Scope
from liftdesk.core.security import Principal
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.models import VehicleState
from liftdesk.telemetry.resources import LIVE
from liftdesk.telemetry.view import EVENT_TOPIC, FEED_MESSAGES, LIVE_TOPIC, ONLINE_TOPIC, event_summary, live_state

log = logging.getLogger("liftdesk.live")
router = APIRouter(tags=["live"])
LIVE_PATH = "/api/liftdesk/live"
# The fleet at connection goes in pieces of this many vehicles: a ``snapshot`` with the first, ``vehicles`` with the
# rest. A browser parses and merges each message in a task of its own; 2,000 vehicles in one message made one task of
# ~50 ms (its JSON.parse and merge) on a small machine, over the page's budget for a task.
SNAPSHOT_PIECE = 250


@dataclass(eq=False)
class Client:
    ws: WebSocket
    principal: Principal
    visible: set[str] | None  # vehicle ids, or None for the whole tenant
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)  # vehicle id → its latest live state
    online: dict[str, dict[str, Any]] = field(default_factory=dict)  # vehicle id → its latest online change
    events: list[dict[str, Any]] = field(default_factory=list)  # at most the hub's max_events
    dropped: dict[str, int] = field(default_factory=dict)  # kind → events beyond max_events in this interval
    token: str | None = None  # checked again when the bus comes back (a revocation may have been missed)
    syncing: bool = False  # its snapshot is being sent: flushes wait (an update must not precede an older piece)

    def accepts(self, msg: dict[str, Any]) -> bool:
        if msg.get("tenantId") != self.principal.tenant_id:
            return False
        return self.visible is None or str(msg.get("carId")) in self.visible


class LiveHub:
    def __init__(self, db: Database, bus: Bus, interval_s: float = 1.0, max_events: int = 20) -> None:
        self.db = db
        self.bus = bus
        self.interval_s = interval_s
        self.max_events = max_events  # events per connection per flush interval; the rest is summarised
        self.clients: set[Client] = set()
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: list[Any] = []
        self.sent = 0

    async def start(self) -> None:
        if self._task is None:
            self._unsubscribe = [
                self.bus.subscribe(LIVE_TOPIC, self._on_update),
                self.bus.subscribe(ONLINE_TOPIC, self._on_online),
                self.bus.subscribe(EVENT_TOPIC, self._on_event),
                self.bus.subscribe(AUTH_REVOKED, self._on_revoked),
                self.bus.subscribe(BUS_RECONNECTED, self._on_reconnected),
            ]
            self._task = asyncio.create_task(self._flush_loop(), name="live-hub")

    async def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _on_revoked(self, msg: dict[str, Any]) -> None:
        """A logout, password change or removal: close the sockets opened with the revoked tokens at once."""
        user, jti = msg.get("userId"), msg.get("jti")
        for client in list(self.clients):
            p = client.principal
            if (user is not None and str(p.user_id) == str(user)) or (jti is not None and p.jti == jti):
                self.clients.discard(client)
                with contextlib.suppress(Exception):
                    await client.ws.close(code=4401)

    async def _on_reconnected(self, _: dict[str, Any]) -> None:
        """The bus between processes was down (Redis): messages of other processes were missed. A token revoked
        meanwhile (a sign-out or password change in another process) closes its socket now; every other browser
        gets the fleet as it is now, as when it connected (a ``snapshot`` replaces what the page holds)."""
        for client in list(self.clients):
            client.pending.clear()
            client.online.clear()
            try:
                await check_token(self.db, client.token)
            except (NotAuthenticated, Forbidden):
                self.clients.discard(client)
                with contextlib.suppress(Exception):
                    await client.ws.close(code=4401)
                continue
            except Exception:  # the database is away too: keep the socket, check again at the next reconnection
                log.warning("checking a live socket's token after the bus came back failed", exc_info=True)
            try:
                await self.send_snapshot(client)
            except Exception:  # the socket went away, or the database with it: the browser connects again
                self.clients.discard(client)

    async def _on_update(self, msg: dict[str, Any]) -> None:
        for client in list(self.clients):
            if client.accepts(msg):
                client.pending[str(msg["carId"])] = msg

    async def _on_online(self, msg: dict[str, Any]) -> None:
        for client in list(self.clients):
            if client.accepts(msg):
                client.online[str(msg["carId"])] = msg

    async def _on_event(self, msg: dict[str, Any]) -> None:
        for client in list(self.clients):
            if client.accepts(msg):
                if len(client.events) < self.max_events:
                    client.events.append(msg)
                else:
                    kind = str(msg.get("kind"))
                    client.dropped[kind] = client.dropped.get(kind, 0) + 1

    async def _flush_loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            await self.flush()

    async def flush(self) -> None:
        for client in list(self.clients):
            if client.syncing:
                continue
            messages: list[dict[str, Any]] = []
            if client.pending:
                messages.append({"type": "vehicles", "data": list(client.pending.values())})
                client.pending = {}
            if client.online:
                messages.append({"type": "online", "data": list(client.online.values())})
                client.online = {}
            if client.events:
                messages.append({"type": "event", "data": client.events})
                client.events = []
            if client.dropped:
                messages.append({"type": "eventSummary", "data": event_summary(client.dropped)})
                client.dropped = {}
            try:
                for message in messages:
                    await client.ws.send_text(json.dumps(message, default=str))
                    self.sent += len(message["data"]) if isinstance(message["data"], list) else 1
            except Exception:  # the socket went away: forget the client
                self.clients.discard(client)

    async def scope_of(self, principal: Principal) -> set[str] | None:
        """The vehicles a principal may watch, through the same choke point as every query."""
        async with self.db.sessionmaker() as s:
            scope = await Scope.of(s, principal, "vehicle")
            if not scope.narrows(Vehicle):
                return None
            ids = (await s.execute(scope.select(Vehicle).with_only_columns(Vehicle.id))).scalars().all()
            return {str(i) for i in ids}

    async def snapshot(self, client: Client) -> list[dict[str, Any]]:
        async with self.db.sessionmaker() as s:
            scope = await Scope.of(s, client.principal, "vehicle")
            stmt = (
                scope.select(Vehicle)
                .join(VehicleState, VehicleState.vehicle_id == Vehicle.id)
                .with_only_columns(Vehicle, VehicleState)
            )
            rows = (await s.execute(stmt)).all()
        return [live_state(car, st).message() for car, st in rows]

    async def send_snapshot(self, client: Client) -> None:
        """The fleet as it is now, in pieces (SNAPSHOT_PIECE): a ``snapshot`` (which replaces what the page holds;
        sent even when empty), then ``vehicles`` (merged). Updates gathered meanwhile go in the next flush."""
        client.syncing = True
        try:
            data = await self.snapshot(client)
            for start in range(0, max(len(data), 1), SNAPSHOT_PIECE):
                kind = "snapshot" if start == 0 else "vehicles"
                piece = data[start : start + SNAPSHOT_PIECE]
                await client.ws.send_text(json.dumps({"type": kind, "data": piece}, default=str))
        finally:
            client.syncing = False


#: How long a ticket to the live feed stays valid: the page asks for one right before it connects.
TICKET_TTL = timedelta(seconds=30)


def ticket_key(ticket: str) -> str:
    """Where a ticket's access token is kept (by the ticket's hash: the store never holds a usable ticket)."""
    return "live-ticket:" + hashlib.sha256(ticket.encode()).hexdigest()


async def issue_ticket(kv: KV, token: str) -> str:
    """A single-use ticket to the live feed for the holder of ``token`` (valid ``TICKET_TTL``)."""
    ticket = secrets.token_urlsafe(32)
    await kv.set(ticket_key(ticket), token, TICKET_TTL)
    return ticket


async def authenticate(db: Database, ticket: str | None) -> tuple[Principal, str]:
    """The caller a ticket was issued to (taken: it opens one socket), with their access token, checked by
    :func:`check_token`."""
    async with db.sessionmaker() as s:
        token = await KV(s).take(ticket_key(ticket)) if ticket else None
        await s.commit()
    return await check_token(db, token), token or ""


async def check_token(db: Database, token: str | None) -> Principal:
    """The holder of ``token``, checked now (signed, not expired, not revoked), with the right to read the live
    state (the monitor's menu, as every read of the ``live`` resource): ``Forbidden`` without it. At connection, and
    again for an open socket when the bus between processes comes back (a revocation may have been missed)."""
    async with db.sessionmaker() as s:
        principal = await principal_of(s, token)
        ctx = await Ctx.build(s, principal, LIVE)
        await ctx.require("view")
        return principal


@router.websocket(LIVE_PATH)
async def live(ws: WebSocket) -> None:
    """Connect with ``?ticket=<ticket>`` (``POST /api/liftdesk/live/ticket`` with the access token: single use, valid
    30 s, so that no token is in a URL); receive ``{"type": "snapshot"|"vehicles"|"online"|"event", "data": [...]}``
    and ``{"type": "eventSummary", "data": {"dropped": n, "kinds": {...}}}``. Closed with 4401 for a missing, used,
    expired or revoked ticket, 4403 without the right to read the live state."""
    hub = ws.app.state.services.get(LiveHub)
    try:
        principal, token = await authenticate(hub.db, ws.query_params.get("ticket"))
    except NotAuthenticated:
        await ws.close(code=4401)
        return
    except Forbidden:
        await ws.close(code=4403)
        return
    await ws.accept()
    client = Client(ws=ws, principal=principal, visible=await hub.scope_of(principal), token=token)
    await hub.send_snapshot(client)
    hub.clients.add(client)
    try:
        while True:
            await ws.receive_text()  # pings from the browser; nothing else is expected
    except WebSocketDisconnect:
        pass
    finally:
        hub.clients.discard(client)


__all__ = ["LIVE_PATH", "LiveHub", "issue_ticket", "router"]


def document_feed(document: dict[str, Any]) -> None:
    """The live feed in the OpenAPI document: its message schemas as components, and ``x-liftdesk-live``: the
    socket's path and, by message ``type``, the schema of its ``data`` (a list of them or one)."""
    add_schemas(document, [model for model, _ in FEED_MESSAGES.values()])
    document["x-liftdesk-live"] = {
        "path": LIVE_PATH,
        "auth": "query parameter ticket: a single-use ticket from POST /api/liftdesk/live/ticket (valid 30 s)",
        "messages": {
            kind: {"data": {"type": "array", "items": ref} if many else ref}
            for kind, (model, many) in FEED_MESSAGES.items()
            for ref in [{"$ref": f"#/components/schemas/{model.__name__}"}]
        },
    }
