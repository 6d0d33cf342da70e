"""The API and error logs, written off the request path.

* ``AuditLog`` (ASGI middleware): every mutating call under ``/api`` made by a known caller becomes an
  :class:`ApiEntry`: who (the request's principal, or the verified token of a public call), the tenant, method,
  path, the query and the JSON or form parameters with passwords and secrets masked, the client's address, the
  status and the duration. Which calls mutate is :func:`records`' decision: a declared route by what it is declared
  to do (reads served with POST write no log; a GET that changes something writes one), any other by its method.
  Not recorded: reads, the sign-in call (it carries the credentials and has no caller yet; failures are counted by
  the sign-in lock), terminal ingest, and calls with no known caller (an anonymous flood must not fill a table).
* ``CatchAll`` (``core.http``) hands every unhandled error to :meth:`AuditWriter.error`, which returns the error
  log's id for the 500 answer's reference; the trace goes to the log, never to the client.
* ``AuditWriter`` puts entries on a bounded queue (full: the entry is dropped and counted, the request never
  waits) drained by one background task that writes them in batches, in a session of its own, through the
  ``LogStore`` the system context installs (``core`` imports no context).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import socket
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol
from urllib.parse import parse_qsl

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.core.registry import REGISTRY
from liftdesk.core.security import decode_token

log = logging.getLogger("liftdesk.audit")

#: Parameter names whose values are masked (anywhere in a nested body).
SECRET_KEY = re.compile(r"password|secret|token|captcha", re.IGNORECASE)
MASK = "******"
MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: GET calls that change state, recorded like the mutating ones.
STATE_CHANGING_GETS = frozenset({"/api/blade-auth/oauth/logout"})
#: Calls never recorded (see the module's notes).
NOT_RECORDED = frozenset({"/api/blade-auth/oauth/token", "/api/liftdesk/ingest"})
#: Most characters of a request's parameters kept in its log.
MAX_PARAMS = 10_000
#: Most bytes of a request body looked at for its parameters.
MAX_BODY = 64 * 1024
HOST = socket.gethostname()


def mask(value: Any) -> Any:
    """``value`` with the values of secret-looking keys (:data:`SECRET_KEY`) masked, at any depth."""
    if isinstance(value, Mapping):
        return {k: MASK if SECRET_KEY.search(str(k)) else mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    return value


@dataclass
class Request:
    """What a log keeps of a request."""

    tenant_id: str = "000000"
    account: str | None = None
    method: str = ""
    path: str = ""
    params: str = ""
    remote_ip: str | None = None
    user_agent: str | None = None
    server_ip: str | None = None
    method_class: str | None = None
    method_name: str | None = None
    create_time: datetime = field(default_factory=utcnow)


@dataclass
class ApiEntry:
    request: Request
    status: int
    time_ms: int
    title: str | None = None
    id: int = field(default_factory=next_id)


@dataclass
class ErrorEntry:
    request: Request
    exception_name: str
    message: str
    stack_trace: str
    file_name: str | None
    line_number: int | None
    id: int = field(default_factory=next_id)


Entry = ApiEntry | ErrorEntry


class LogStore(Protocol):
    def add(self, session: AsyncSession, entries: Sequence[Entry]) -> None:
        """Add the rows of ``entries`` to ``session`` (the writer commits)."""


_store: LogStore | None = None


def install(store: LogStore) -> None:
    global _store
    _store = store


class AuditWriter:
    """The queue of log entries and the task that writes them (started on the first entry, or by the lifespan)."""

    def __init__(self, db: Database, maxsize: int = 10_000, batch: int = 200) -> None:
        self.db = db
        self.queue: asyncio.Queue[Entry] = asyncio.Queue(maxsize)
        self.batch = batch
        self.dropped = 0
        self._task: asyncio.Task[None] | None = None

    def submit(self, entry: Entry) -> None:
        """Queue ``entry`` without waiting; a full queue drops it (counted in ``dropped``)."""
        try:
            self.queue.put_nowait(entry)
        except asyncio.QueueFull:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning("log queue full: %d entries dropped", self.dropped)
            return
        self._ensure_task()

    def error(self, exc: BaseException, request: Request) -> int:
        """Queue the error log of ``exc``; its id (the reference the 500 answer carries)."""
        frames = traceback.extract_tb(exc.__traceback__)
        last = frames[-1] if frames else None
        entry = ErrorEntry(
            request=request,
            exception_name=f"{type(exc).__module__}.{type(exc).__qualname__}"[:255],
            message=str(exc)[:4000],
            stack_trace="".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-60_000:],
            file_name=last.filename[-1000:] if last else None,
            line_number=last.lineno if last else None,
        )
        self.submit(entry)
        return entry.id

    def _ensure_task(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="audit-log-writer")

    async def start(self) -> None:
        self._ensure_task()

    async def _run(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while len(batch) < self.batch and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            try:
                await self.flush(batch)
            except Exception:
                log.exception("writing %d log entries failed", len(batch))
            finally:
                for _ in batch:
                    self.queue.task_done()

    async def flush(self, batch: Sequence[Entry]) -> None:
        """Write one batch in a session of its own."""
        if _store is None:
            raise RuntimeError("no log store installed: load the system context first")
        async with self.db.sessionmaker() as session:
            _store.add(session, batch)
            await session.commit()

    async def drain(self) -> None:
        """Wait until every queued entry has been written (or has failed)."""
        if not self.queue.empty() or self.queue._unfinished_tasks:  # type: ignore[attr-defined]
            self._ensure_task()
        await self.queue.join()

    async def stop(self, wait_s: float = 5.0) -> None:
        try:
            await asyncio.wait_for(self.drain(), wait_s)
        except TimeoutError:
            log.warning("log writer stopped with %d entries unwritten", self.queue.qsize())
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None


# ---------------------------------------------------------------- what a request is


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _caller(scope: Scope) -> tuple[str | None, str | None]:
    """The caller's (tenant, account): the principal the route's dependencies found, else the verified token."""
    principal = (scope.get("state") or {}).get("principal")
    if principal is not None:
        return principal.tenant_id, principal.account
    token = _header(scope, b"blade-auth") or ""
    if token.lower().startswith("bearer "):
        token = token[7:].strip()
    if not token:
        return None, None
    try:
        claims = decode_token(token, "access")
    except Exception:
        return None, None
    return str(claims.get("tenant_id") or "") or None, str(claims.get("account") or "") or None


def _params(scope: Scope, body: bytes) -> str:
    params: dict[str, Any] = {}
    for key, value in parse_qsl((scope.get("query_string") or b"").decode("latin-1"), keep_blank_values=True):
        params[key] = value
    kind = (_header(scope, b"content-type") or "").lower()
    if body and len(body) <= MAX_BODY:
        if "json" in kind:
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                params.update(parsed)
            elif parsed is not None:
                params["body"] = parsed
        elif kind.startswith("application/x-www-form-urlencoded"):
            params.update(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    if kind.startswith("multipart/"):
        params["body"] = "[multipart]"
    text = json.dumps(mask(params), ensure_ascii=False, default=str)
    return text if len(text) <= MAX_PARAMS else text[:MAX_PARAMS] + "…"


def request_of(scope: Scope, body: bytes = b"") -> Request:
    tenant, account = _caller(scope)
    endpoint = scope.get("endpoint")
    client = scope.get("client")
    server = scope.get("server")
    return Request(
        tenant_id=(tenant or "000000")[:12],
        account=account[:64] if account else None,
        method=str(scope.get("method", "")),
        path=str(scope.get("path", ""))[:255],
        params=_params(scope, body),
        remote_ip=client[0] if client else None,
        user_agent=(_header(scope, b"user-agent") or "")[:1000] or None,
        server_ip=str(server[0]) if server else None,
        method_class=getattr(endpoint, "__module__", None),
        method_name=getattr(endpoint, "__qualname__", None),
    )


def records(method: str, path: str, route_path: str | None, declared: Mapping[tuple[str, str], bool]) -> bool:
    """Is this call written to the API log? The decision, in order:

    1. only calls under ``/api/``, never those of :data:`NOT_RECORDED`;
    2. a declared route (a resource's generated operation or an action, ``Registry.reading_routes``) is recorded
       unless it only reads, whatever its method: the spec's reads served with POST (``post_ops``, actions of a
       reading kind such as ``showHide/find``, ``getCarLastGPSInfo``, or ``reads=True``) write none, and a GET
       action that changes something (``revertPassword``, ``driverExpirationReminder/ignore``) writes one;
    3. any other route by its method: POST, PUT, PATCH and DELETE are recorded, GET only for
       :data:`STATE_CHANGING_GETS`.
    """
    if not path.startswith("/api/") or path in NOT_RECORDED:
        return False
    if route_path is not None:
        reads = declared.get((method, route_path))
        if reads is not None:
            return not reads
    if method == "GET":
        return path in STATE_CHANGING_GETS
    return method in MUTATING


def _declared() -> dict[tuple[str, str], bool]:
    return REGISTRY.reading_routes()


def _records(scope: Scope, declared: Mapping[tuple[str, str], bool]) -> bool:
    route = scope.get("route")
    route_path = getattr(route, "path", None)
    return records(
        str(scope.get("method", "")),
        str(scope.get("path", "")),
        route_path if isinstance(route_path, str) else None,
        declared,
    )


#: Where the body a request's route read is kept for ``CatchAll``'s error log.
BODY_KEY = "liftdesk.body"


class AuditLog:
    """Records every mutating call (see the module's notes) on the writer's queue once it has been answered."""

    def __init__(self, app: ASGIApp, writer: AuditWriter) -> None:
        self.app = app
        self.writer = writer
        self._declared: dict[tuple[str, str], bool] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})  # the dict request.state writes the principal into
        chunks: list[bytes] = []
        size = 0

        async def reading() -> Message:
            nonlocal size
            message = await receive()
            if message["type"] == "http.request" and size <= MAX_BODY:
                chunk = message.get("body", b"")
                size += len(chunk)
                chunks.append(chunk)
                scope[BODY_KEY] = chunks
            return message

        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        started = time.perf_counter()
        try:
            await self.app(scope, reading, sending)
        finally:
            if self._declared is None:
                self._declared = _declared()
            if _records(scope, self._declared):
                try:
                    request = request_of(scope, b"".join(chunks) if size <= MAX_BODY else b"")
                    if request.account is not None:
                        route = scope.get("route")
                        title = getattr(route, "summary", None) or getattr(route, "name", None)
                        self.writer.submit(
                            ApiEntry(
                                request=request,
                                status=status,
                                time_ms=int((time.perf_counter() - started) * 1000),
                                title=str(title)[:255] if title else None,
                            )
                        )
                except Exception:
                    log.exception("recording the call %s %s failed", scope.get("method"), scope.get("path"))
