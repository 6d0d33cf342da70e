"""What every HTTP request goes through before a route sees it, and how a failure leaves it.

* ``RequestGuard``: a body larger than its kind allows is refused before it is read into memory (413), and a NUL
  byte in the query string, a form or a JSON body is refused with a 400 naming the field (PostgreSQL cannot
  store NUL in text, and no user types one).
* ``CatchAll``: an unexpected error answers the 500 envelope *without* re-raising, so the server keeps the
  keep-alive connection (Starlette's outermost error middleware re-raises after answering, and uvicorn then drops
  the connection). The error is written to the error log (``core.audit``) and the answer carries its id as a
  reference, never the trace.
* ``SecurityHeaders``: the page and the API answers carry a content security policy, frame-ancestors, nosniff
  and a referrer policy.
* ``json_body``: a request's JSON body, where malformed or absurdly nested JSON is the caller's 400.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any
from urllib.parse import unquote_to_bytes

from fastapi import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from liftdesk.core.audit import BODY_KEY, AuditWriter, request_of
from liftdesk.core.envelope import ServiceError, fail_body
from liftdesk.core.i18n import t

log = logging.getLogger("liftdesk.http")

#: Largest request body by kind (bytes). JSON and forms carry records and filters; uploads (images, imports) are
#: multipart and have their own per-field limits on top of this one.
BODY_LIMITS = {"json": 2 * 1024 * 1024, "form": 2 * 1024 * 1024, "multipart": 12 * 1024 * 1024, "other": 64 * 1024}
#: Deepest nesting of a JSON body (no call of the API takes more than a few levels).
MAX_JSON_DEPTH = 32
_JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000", re.IGNORECASE)


def _kind(content_type: str) -> str:
    if content_type.startswith("application/json") or content_type.endswith("+json"):
        return "json"
    if content_type.startswith("application/x-www-form-urlencoded"):
        return "form"
    if content_type.startswith("multipart/form-data"):
        return "multipart"
    return "other"


async def _answer(send: Send, status: int, msg: str, code: int | None = None) -> None:
    body = json.dumps(fail_body(code or status, msg), ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _nul_field(raw_query: bytes) -> str | None:
    """The name of the first query (or form) parameter whose name or value holds a NUL byte."""
    for pair in raw_query.split(b"&"):
        name, _, value = pair.partition(b"=")
        if b"\x00" in unquote_to_bytes(name.replace(b"+", b" ")) + unquote_to_bytes(value.replace(b"+", b" ")):
            return unquote_to_bytes(name).decode("utf-8", "replace").replace("\x00", "") or "query"
    return None


class RequestGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "websocket" and _nul_field(scope.get("query_string", b"")):
                await send({"type": "websocket.close", "code": 4400})
                return
            await self.app(scope, receive, send)
            return
        field = _nul_field(scope.get("query_string", b""))
        if field is not None:
            await _answer(send, 400, t("field_invalid", field=field))
            return
        headers = dict(scope.get("headers") or [])
        kind = _kind(headers.get(b"content-type", b"").decode("latin-1").lower())
        limit = BODY_LIMITS[kind]
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _answer(send, 413, t("body_too_large", limit=limit // 1024))
            return
        if scope.get("method") in ("GET", "HEAD", "DELETE", "OPTIONS") and declared is None:
            await self.app(scope, receive, send)
            return
        # Read the body once (bounded), check it, then hand it on as it came.
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([], message), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _answer(send, 413, t("body_too_large", limit=limit // 1024))
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if kind == "json" and (b"\x00" in body or _JSON_NUL.search(body)):
            await _answer(send, 400, t("field_invalid", field="body"))
            return
        if kind == "form" and (field := _nul_field(body)) is not None:
            await _answer(send, 400, t("field_invalid", field=field))
            return
        await self.app(scope, _replay([body], None), send)


def _replay(bodies: list[bytes], then: Message | None) -> Receive:
    queue: list[Message] = [{"type": "http.request", "body": b, "more_body": False} for b in bodies]
    if then is not None:
        queue.append(then)

    async def receive() -> Message:
        if queue:
            return queue.pop(0)
        return {"type": "http.disconnect"}

    return receive


class CatchAll:
    """The 500 envelope for an unexpected error, logged once (and to the error log, whose id the answer carries),
    with the connection kept."""

    def __init__(self, app: ASGIApp, writer: AuditWriter | None = None) -> None:
        self.app = app
        self.writer = writer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception as exc:
            ref = self._record(scope, exc)
            log.exception("unhandled error on %s %s (ref %s)", scope.get("method"), scope.get("path"), ref)
            if started:
                raise  # half an answer is out: only closing the connection tells the client
            await _answer(send, 500, t("server_error_ref", ref=ref) if ref else t("server_error"))

    def _record(self, scope: Scope, exc: Exception) -> int | None:
        if self.writer is None:
            return None
        try:
            return self.writer.error(exc, request_of(scope, b"".join(scope.get(BODY_KEY) or [])))
        except Exception:
            log.exception("recording the error log failed")
            return None


#: The built app loads only its own scripts and styles (antd writes inline styles), images from itself, data: and
#: blob: (map sprites), tiles from any https server (a tenant can name its basemap), and talks to itself (API,
#: live socket) and to tile servers.
CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob: https:",
        "font-src 'self' data:",
        "connect-src 'self' ws: wss: https:",
        "worker-src 'self' blob:",
        "child-src 'self' blob:",
        "frame-src 'self' https:",
        "frame-ancestors 'self'",
        "base-uri 'self'",
        "form-action 'self'",
        "object-src 'none'",
    ]
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
    (b"x-frame-options", b"SAMEORIGIN"),
]


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


def _depth(value: Any, limit: int) -> bool:
    """Is ``value`` nested no deeper than ``limit``? (iterative: a hostile document cannot exhaust the stack)"""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return True


async def json_body(request: Request) -> Any:
    """The request's JSON body; malformed, too deep (``MAX_JSON_DEPTH``) or not UTF-8 is the caller's 400."""
    raw = await request.body()
    if not raw.strip():
        return None
    if raw.count(b"[") + raw.count(b"{") > 100_000:
        raise ServiceError(t("field_invalid", field="body"))
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ServiceError(t("field_invalid", field="body")) from exc
    if not _depth(value, MAX_JSON_DEPTH):
        raise ServiceError(t("field_invalid", field="body"))
    return value
