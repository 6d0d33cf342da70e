"""Findings 10 and 11 of the security probe, at the HTTP layer: a 500 keeps the connection, bodies have limits,
answers carry security headers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn

from liftdesk.app import create_app
from liftdesk.core.config import Settings
from liftdesk.core.http import BODY_LIMITS
from tests.conftest import Api


@pytest.fixture
async def live_server(api: Api) -> AsyncIterator[int]:
    """The app on a real port, with one route that fails, as a bug would."""
    app = create_app(Settings(database_url=api.db.url, env="test"), db=api.db)

    async def boom() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/api/test-only/boom", boom)
    app.router.routes.insert(0, app.router.routes.pop())  # before the web app's catch-all route
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical", lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(250):
        if server.started:
            break
        await asyncio.sleep(0.02)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str) -> tuple[int, bytes]:
    writer.write(f"GET {path} HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n".encode())
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    status = int(head.split(b" ", 2)[1])
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    return status, await asyncio.wait_for(reader.readexactly(length), 5)


async def test_a_server_error_keeps_the_connection(live_server: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", live_server)
    try:
        status, body = await _exchange(reader, writer, "/api/test-only/boom")
        assert status == 500 and json.loads(body)["code"] == 500
        status, body = await _exchange(reader, writer, "/api/health")  # the same connection answers again
        assert status == 200 and b"up" in body
    finally:
        writer.close()


async def test_answers_carry_security_headers(api: Api) -> None:
    r = await api.client.get("/api/health")
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'self'" in csp and "script-src 'self'" in csp and "object-src 'none'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "strict-origin-when-cross-origin"


async def test_bodies_have_limits(api: Api) -> None:
    big = b'{"a":"' + b"x" * (BODY_LIMITS["json"] + 10) + b'"}'
    r = await api.client.post(
        "/api/blade-system/param/submit",
        content=big,
        headers={**(await api.headers()), "Content-Type": "application/json"},
    )
    assert r.status_code == 413 and r.json()["code"] == 413

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted while it streams
        for _ in range(40):
            yield b"x" * 65536

    r = await api.client.post(
        "/api/blade-system/param/submit",
        content=chunks(),
        headers={**(await api.headers()), "Content-Type": "application/json"},
    )
    assert r.status_code == 413


async def test_command_text_and_packages_are_capped(api: Api) -> None:
    device = f"6{abs(hash(api.unique())) % 10**11:011d}"
    car = await api.post(
        "/api/blade-fics-report/fics/carInfo/insertCarInfo", json={"carNo": api.unique("TXT-"), "deviceNumber": device}
    )
    send = "/api/liftdesk/command/send"
    base: dict[str, Any] = {"carId": car["data"]["id"], "name": "text", "wait": 0}
    long = await api.post(send, json={**base, "payload": {"text": "x" * 5000}})
    assert long["code"] == 400 and "text" in long["msg"], long
    short = await api.post(send, json={**base, "payload": {"text": "hello"}})
    assert short["code"] == 200, short
