"""Process roles: an API process and a gateway process on one database and one Redis, as a split deployment runs.

A command created over HTTP in the API process (``liftdesk api``) reaches a terminal connected to the gateway
process (``liftdesk gateway``) through the bus, the terminal's answer is stored by the gateway process, and the API
process reads it (the HTTP call that waits for the answer wakes up on the bus message). A second API process
starting while a command is in flight must not take it back: only the gateway process recovers commands.

Real processes, a real Redis (localhost:6379, a channel prefix of this run's own), real sockets; each wait is
bounded, nothing asserts on time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, update
from test_gateway import terminal_number

from liftdesk.app import Runtime, create_app
from liftdesk.core.bus import LocalBus
from liftdesk.core.config import Settings
from liftdesk.core.db import Database
from liftdesk.system.models import Param
from liftdesk.telemetry.codecs.jt808 import (
    GeneralReply,
    Jt808Version,
    Message,
    ParamItem,
    ParamQueryReply,
    QueryAllParams,
    SetParams,
    TerminalAttributes,
)
from liftdesk.telemetry.commands import PARAM_REPLY_TIMEOUT, CommandService
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.models import Command
from tests.conftest import BASIC, _migrate_and_seed, md5

F = "/api/blade-fics-report/fics"
REDIS = "redis://127.0.0.1:6379/0"
WAIT = 30.0  # bound of every wait: process start-up on a busy 2-core machine included


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def stop(self) -> bool:
        """SIGTERM; True when the process shut down cleanly (uvicorn exits by re-raising the signal it handled,
        after its shutdown, so an HTTP process's clean exit is -SIGTERM with the shutdown logged)."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)
                return False
        code = self.popen.returncode
        return code == 0 or (code == -signal.SIGTERM and "Application shutdown complete" in self.output())


@dataclass
class Deployment:
    url: str
    env: dict[str, str]
    tmp: Path
    procs: list[Proc]

    def start(self, role: str, *args: str, **env: str) -> Proc:
        log = self.tmp / f"{role}-{len(self.procs)}.log"
        with log.open("wb") as out:
            popen = subprocess.Popen(
                [sys.executable, "-m", "liftdesk.cli", role, *args],
                env={**self.env, **env},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        proc = Proc(role, popen, log)
        self.procs.append(proc)
        return proc


async def until(what: str, check: Callable[[], Awaitable[Any]], procs: list[Proc]) -> Any:
    """Poll ``check`` until it returns something truthy (bounded); a process dying meanwhile fails at once."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while True:
        for proc in procs:
            if proc.popen.poll() is not None:
                raise AssertionError(f"{proc.name} exited ({proc.popen.returncode}):\n{proc.output()}")
        with contextlib.suppress(httpx.TransportError, OSError):
            got = await check()
            if got:
                return got
        if loop.time() > deadline:
            logs = "\n".join(f"--- {p.name}\n{p.output()}" for p in procs)
            raise AssertionError(f"{what}: not within {WAIT} s\n{logs}")
        await asyncio.sleep(0.1)


@pytest.fixture
async def deployment(database: tuple[str, str], tmp_path: Path) -> AsyncIterator[Deployment]:
    _, url = database
    env = {
        **os.environ,
        "LIFTDESK_DATABASE_URL": url,
        "LIFTDESK_REDIS_URL": REDIS,
        "LIFTDESK_REDIS_PREFIX": f"liftdesk-test-{uuid.uuid4().hex[:8]}:",
        "LIFTDESK_ENV": "test",
        "LIFTDESK_SIMULATOR_VEHICLES": "0",
        "LIFTDESK_GATEWAY_HOST": "127.0.0.1",
        "LIFTDESK_VAR_DIR": str(tmp_path / "var"),
        "LIFTDESK_WEB_DIR": str(tmp_path / "no-web"),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("LIFTDESK_MQTT_URL", None)
    d = Deployment(url, env, tmp_path, [])
    try:
        yield d
    finally:
        clean = [(p.name, p.stop()) for p in d.procs]
        assert all(ok for _, ok in clean), (clean, [p.output() for p in d.procs])


async def api_client(d: Deployment, port: int, procs: list[Proc]) -> httpx.AsyncClient:
    client = httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=WAIT + 10)

    async def healthy() -> bool:
        return (await client.get("/api/health")).status_code == 200

    await until(f"API on {port}", healthy, procs)
    r = await client.post(
        "/api/blade-auth/oauth/token",
        params={"tenantId": "000000", "username": "admin", "password": md5("admin"), "grant_type": "password"},
        headers={"Authorization": BASIC, "Tenant-Id": "000000"},
    )
    assert r.status_code == 200, r.text
    client.headers.update({"Blade-Auth": f"bearer {r.json()['access_token']}", "Authorization": BASIC})
    return client


class Terminal:
    """A JT/T 808 terminal that answers the gateway's own attribute query and hands every other command over."""

    def __init__(self, client: Jt808Client) -> None:
        self.client = client

    async def command(self) -> Message:
        while True:
            message = await self.client.next_message(WAIT)
            if message.header.msg_id == 0x8107:  # asked by the gateway after authentication
                await self.client.send(
                    TerminalAttributes(0, "LFTDK", "LD-1", "T1", "89860000000000000009", "hw1", "fw1", 3, 1)
                )
                continue
            return message


@pytest.fixture
async def patient(deployment: Deployment) -> AsyncIterator[Deployment]:
    """``deployment`` whose processes wait longer for a terminal's answer than any wait of a test before sending a
    command again (the platform reply timeout, read from blade_param when they start): on a busy machine a process
    starting meanwhile can take longer than the default 10 s, and a re-send would count as a second attempt. The
    parameter goes when the test ends (the database serves the whole run)."""
    db = Database(url=deployment.url)
    async with db.sessionmaker() as s:
        s.add(Param(param_name="reply timeout", param_key=PARAM_REPLY_TIMEOUT, param_value=str(4 * WAIT)))
        await s.commit()
    try:
        yield deployment
    finally:
        async with db.sessionmaker() as s:
            await s.execute(delete(Param).where(Param.param_key == PARAM_REPLY_TIMEOUT))
            await s.commit()
        await db.dispose()


async def test_a_command_created_in_the_api_process_is_sent_by_the_gateway_process(patient: Deployment) -> None:
    d = patient
    gateway_port, api_port, api2_port = free_port(), free_port(), free_port()
    gateway = d.start("gateway", LIFTDESK_GATEWAY_PORT=str(gateway_port))
    api = d.start("api", "--no-migrate", LIFTDESK_PORT=str(api_port), LIFTDESK_GATEWAY_PORT="0")
    http = await api_client(d, api_port, [gateway, api])
    http2: httpx.AsyncClient | None = None
    client: Jt808Client | None = None
    try:
        device = f"{uuid.uuid4().int % 10**12:012d}"
        car = await http.post(f"{F}/carInfo/insertCarInfo", json={"carNo": f"P-{device[-6:]}", "deviceNumber": device})
        car_id = car.json()["data"]["id"]

        async def connected() -> Jt808Client:
            c = await Jt808Client("127.0.0.1", gateway_port, terminal_number(device, Jt808Version.V2013)).connect()
            return c

        client = await until("gateway accepting", connected, [gateway, api])
        reply = await client.register(registration())
        assert reply.auth_code and await client.authenticate(reply.auth_code) == 0
        terminal = Terminal(client)

        # 1. created over HTTP in the API process, sent by the gateway process; the answer waits a while
        r = (await http.post(f"{F}/carSet/rateLimiting", json={"carId": car_id, "speedLimit": 8, "wait": 0})).json()
        assert r["code"] == 200, r
        [command] = r["data"]
        message = await terminal.command()
        assert isinstance(message.body, SetParams) and message.body.as_dict() == {0xF002: 8}

        async def status() -> str:
            got = (await http.get("/api/liftdesk/command/detail", params={"id": command["id"]})).json()
            return str(got["data"]["status"])

        assert await until("sent", lambda: _equal(status, "sent"), [gateway, api])

        # 2. another API process starts meanwhile: it must leave the gateway's command in flight alone
        api2 = d.start("api", "--no-migrate", LIFTDESK_PORT=str(api2_port), LIFTDESK_GATEWAY_PORT="0")
        http2 = await api_client(d, api2_port, [gateway, api, api2])
        assert await status() == "sent"

        # 3. the terminal answers the gateway process; both API processes read the outcome
        await client.send(GeneralReply(message.header.serial, 0x8103, 0))
        assert await until("acknowledged", lambda: _equal(status, "acknowledged"), [gateway, api, api2])
        seen = (await http2.get("/api/liftdesk/command/detail", params={"id": command["id"]})).json()["data"]
        assert (seen["attempts"], seen["createUserName"], seen["carNo"]) == (1, "管理员", f"P-{device[-6:]}")
        # the gateway process recorded the acknowledged limit on the vehicle
        info = (await http2.get(f"{F}/carInfo/getCarInfo", params={"carId": car_id})).json()["data"]
        assert info["speedLimitKmh"] == 8

        # 4. a call that waits: the gateway's completion message wakes the API process's waiting request
        waiting = asyncio.ensure_future(http.get(f"{F}/carSet/sendGetDeviceConfig/{car_id}", params={"wait": WAIT}))
        query = await terminal.command()
        assert isinstance(query.body, QueryAllParams)
        await client.send(ParamQueryReply(query.header.serial, (ParamItem(0xF002, 8), ParamItem(0x0001, 30))))
        answer = (await waiting).json()
        assert answer["data"]["status"] == "acknowledged", answer
        assert {p["name"]: p["value"] for p in answer["data"]["result"]["params"]} == {
            "speed_limit": 8,
            "heartbeat_interval": 30,
        }
    finally:
        if client is not None:
            await client.close()
        await http.aclose()
        if http2 is not None:
            await http2.aclose()


async def _equal(read: Callable[[], Awaitable[str]], expected: str) -> bool:
    return await read() == expected


@pytest.mark.parametrize(
    ("role", "parts", "recovers"),
    [
        ("all", {"LocalBus", "Pipeline", "LiveHub", "Jobs", "ReminderJob", "CommandService", "Gateway"}, True),
        ("api", {"LocalBus", "Pipeline", "LiveHub", "CommandService"}, False),
        ("gateway", {"LocalBus", "Pipeline", "CommandService", "Gateway"}, True),
        ("worker", {"LocalBus", "Jobs", "ReminderJob"}, False),
    ],
)
async def test_each_role_runs_its_own_parts(tmp_path: Path, role: str, parts: set[str], recovers: bool) -> None:
    """In-process, on a fresh SQLite database of its own (the worker's jobs must not touch the shared one): what
    each role starts, and that only a process holding the terminals takes back a command left in flight."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'roles.db'}"
    await _migrate_and_seed(url)
    settings = Settings(
        database_url=url,
        env="test",
        gateway_host="127.0.0.1",
        gateway_port=free_port(),
        simulator_vehicles=0,
        web_dir=tmp_path / "no-web",
        var_dir=tmp_path / "var",
    )
    db = Database(settings, url=url)
    service = CommandService(db, LocalBus())
    in_flight = await service.create("000000", None, "013800000001", "text", 0x8300, {"text": "x"}, None)
    async with db.sessionmaker() as s:
        await s.execute(update(Command).where(Command.id == in_flight).values(status="sent", attempts=1))
        await s.commit()
    app = create_app(settings, db=db)
    runtime = Runtime(app, settings, role)
    try:
        await runtime.start()
        assert {type(part).__name__ for part in runtime.started} == parts
        view = await service.get(in_flight)
        assert view is not None and view.status == ("pending" if recovers else "sent")
    finally:
        await runtime.stop()
        await db.dispose()
    with pytest.raises(ValueError, match="role"):
        Runtime(app, settings, "everything")
