"""Faults of the services the gateway stands on (issue 11, item 4), through real sockets and real services.

* **PostgreSQL goes away during ingest.** Chosen over restarting the server: the local PostgreSQL is shared by
  every test run on this machine (and by other work), so the test takes *its own database* away instead -
  ``ALTER DATABASE ... ALLOW_CONNECTIONS false`` refuses every new connection and ``pg_terminate_backend`` cuts
  every open one, mid-transaction if need be. To the application that is exactly a server restart (its pooled
  connections die, new ones are refused until the server is back), without touching anyone else's databases.
  While it is gone the terminals get no acknowledgement (they keep sending again, as terminals do); once it is
  back every position ever acknowledged is stored, each once, and the rest comes in.
* **Redis goes away.** A redis-server of this test's own on a free port (never the shared one), killed with
  SIGKILL and started again on the same port. The API and the gateway run as their own roles (``liftdesk api``,
  ``liftdesk gateway``: each its own Redis bus) in this process; a browser watches the live feed over a real
  WebSocket. While Redis is down ingest goes on (every position acknowledged and stored); when it is back the
  feed recovers: the browser gets a fresh snapshot holding what happened meanwhile, then updates again.

Every wait is bounded, so a failure fails instead of hanging; nothing asserts on elapsed time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import create_async_engine
from test_gateway import HOST, T0, add_vehicle, close_stack, loc, make_stack, naive, online

from liftdesk.app import Runtime, create_app
from liftdesk.core.config import Settings
from liftdesk.core.db import Database
from liftdesk.core.deps import revoke_user_tokens
from liftdesk.core.kv import KV
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.models import Position
from tests.conftest import (
    BASIC,
    PG_ADMIN_URL,
    Api,
    _create_pg_database,
    _drop_pg_database,
    _migrate_and_seed,
    live_url,
    md5,
)
from tests.security.test_signin import new_user

WAIT = 30.0  # bound of one phase on a busy 2-core machine
RESEND_S = 1.0  # a terminal sends a position again when it had no answer in this long

# --------------------------------------------------------------------------- PostgreSQL


TERMINALS = 8
PER = 60
DOWN_AFTER = 150  # acknowledged positions before the database goes away


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(int(WAIT / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not reached in time")


class Fleet:
    """Terminals each sending PER positions one after the other; an unanswered one is sent again."""

    def __init__(self) -> None:
        self.acked: dict[str, set[int]] = {}
        self.acks = 0
        self.halfway = asyncio.Event()
        self.closed = 0

    async def run(self, client: Jt808Client, device: str) -> None:
        mine = self.acked.setdefault(device, set())
        for k in range(PER):
            while True:
                try:
                    reply = await client.request(loc(k), RESEND_S)
                except TimeoutError:
                    continue  # no answer: the terminal keeps it and sends it again
                assert getattr(reply, "result", None) == 0, f"{device} position {k}: {reply}"
                mine.add(k)
                self.acks += 1
                if self.acks >= DOWN_AFTER:
                    self.halfway.set()
                break
        if client.closed.is_set():
            self.closed += 1


async def set_reachable(name: str, reachable: bool) -> None:
    """Take a database away from its clients (refuse new connections, cut the open ones), or give it back."""
    admin = create_async_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as c:
            await c.execute(text(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS {"true" if reachable else "false"}'))
            if not reachable:
                await c.execute(
                    text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"), {"n": name}
                )
    finally:
        await admin.dispose()


async def stored(db: Database) -> dict[int, list[int]]:
    """Stored positions per vehicle: their seconds after T0."""
    async with db.sessionmaker() as s:
        rows = (await s.execute(select(Position.vehicle_id, Position.device_time))).all()
    out: dict[int, list[int]] = {}
    for vid, t in rows:
        out.setdefault(vid, []).append(int((t - naive(T0)).total_seconds()))
    return out


async def test_postgresql_gone_during_ingest_nothing_acknowledged_is_lost() -> None:
    url, name = await _create_pg_database()
    db: Database | None = None
    try:
        await _migrate_and_seed(url)
        db = Database(url=url)
        stack = await make_stack(db, idle_timeout_s=300)
        try:
            cars = [await add_vehicle(db) for _ in range(TERMINALS)]
            clients = [await online(stack, device) for _, device in cars]
            fleet = Fleet()
            running = asyncio.gather(*(fleet.run(c, d) for c, (_, d) in zip(clients, cars, strict=True)))
            await asyncio.wait_for(fleet.halfway.wait(), WAIT)

            await set_reachable(name, False)
            failures = stack.gateway.stats.submit_failures
            await until(lambda: stack.gateway.stats.submit_failures > failures)  # the pipeline met the outage
            await asyncio.sleep(0.5)  # acknowledgements of batches committed before the cut have arrived
            acked_at_cut = fleet.acks
            await asyncio.sleep(3 * RESEND_S)  # the terminals send again and again meanwhile
            assert fleet.acks == acked_at_cut, "a position was acknowledged while the database was gone"
            assert stack.gateway.stats.submit_failures > failures
            acknowledged = {d: set(ks) for d, ks in fleet.acked.items()}

            await set_reachable(name, True)
            await asyncio.wait_for(running, WAIT * 2)
            assert fleet.closed == 0, "the gateway kept the terminals' connections through the outage"

            rows = await stored(db)
            for vid, device in cars:
                got = rows.get(vid, [])
                assert len(got) == len(set(got)), f"{device}: a position stored twice"
                assert acknowledged[device] <= set(got), f"{device}: acknowledged before the outage, lost"
                assert sorted(got) == list(range(PER)), f"{device}: {PER - len(got)} positions missing"
            assert sum(len(v) for v in fleet.acked.values()) == TERMINALS * PER
            for c in clients:
                await c.close()
        finally:
            await close_stack(stack)
    finally:
        if db is not None:
            await db.dispose()
        await set_reachable(name, True)
        await _drop_pg_database(name)


# --------------------------------------------------------------------------- Redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class OwnRedis:
    """A redis-server of this test's own (no persistence), killed and started again on one port."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    async def start(self) -> None:
        self.proc = subprocess.Popen(  # noqa: ASYNC220 - a server the test owns, started and killed by it
            ["redis-server", "--port", str(self.port), "--bind", HOST, "--save", "", "--appendonly", "no"],
            cwd=self.workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        async with asyncio.timeout(WAIT):
            while True:
                with contextlib.suppress(OSError):
                    _, w = await asyncio.open_connection(HOST, self.port)
                    w.close()
                    return
                await asyncio.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
async def redis_server(tmp_path: Path) -> AsyncIterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    await server.start()
    try:
        yield server
    finally:
        server.kill()


async def frames(ws: Any, kind: str, wait_s: float = WAIT) -> list[dict[str, Any]]:
    """The data of the next live message of ``kind`` (others are skipped)."""
    async with asyncio.timeout(wait_s):
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == kind:
                return list(msg["data"])


async def test_redis_down_ingest_goes_on_and_the_live_feed_recovers(api: Api, redis_server: OwnRedis) -> None:
    common = {
        "database_url": api.db.url,
        "env": "test",
        "redis_url": redis_server.url,
        "redis_prefix": f"liftdesk-faults-{uuid.uuid4().hex[:6]}:",
        "simulator_vehicles": 0,
    }
    api_app = create_app(Settings(**common, gateway_port=0), db=api.db, services=True, role="api")
    srv = uvicorn.Server(uvicorn.Config(api_app, host=HOST, port=0, log_level="warning", lifespan="on"))
    serving = asyncio.create_task(srv.serve())
    gw_settings = Settings(**common, gateway_port=free_port(), gateway_host=HOST)
    gw_app = create_app(gw_settings, db=api.db, role="gateway")
    gateway = Runtime(gw_app, gw_settings, "gateway")
    client: Jt808Client | None = None
    try:
        await until(lambda: srv.started)
        port = srv.servers[0].sockets[0].getsockname()[1]
        await gateway.start()
        vid, device = await add_vehicle(api.db)
        async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}") as http:
            r = await http.post(
                "/api/blade-auth/oauth/token",
                params={"tenantId": "000000", "username": "admin", "password": md5("admin"), "grant_type": "password"},
                headers={"Authorization": BASIC, "Tenant-Id": "000000"},
            )
            token = r.json()["access_token"]
        account, user = await new_user(api)  # another user: revoking the administrator's tokens would end others'
        revoked = str((await api.login(account, "Secret-pw1")).json()["access_token"])
        stack_port = gw_app.state.services.get(Gateway).port
        client = await Jt808Client(HOST, stack_port, device.rjust(12, "0")).connect()
        reply = await client.register(registration())
        assert await client.authenticate(reply.auth_code or "") == 0
        async with websockets.connect(await live_url(f"http://{HOST}:{port}", token)) as ws:
            await frames(ws, "snapshot")
            start = T0 + timedelta(days=2)  # newer than anything of this vehicle's

            async def report(k: int, lat: float) -> None:
                answer = await client.request(loc((start - T0).total_seconds() + k, lat=lat), WAIT)  # type: ignore[union-attr]
                assert getattr(answer, "result", None) == 0

            async def shown(lat: float, resync: bool = False) -> dict[str, Any]:
                """The vehicle's state once the feed shows it at ``lat``; with ``resync``, only from a new snapshot
                (its first piece is a ``snapshot``, the rest ``vehicles``)."""
                synced = not resync
                async with asyncio.timeout(WAIT):
                    while True:
                        msg = json.loads(await ws.recv())
                        synced = synced or msg["type"] == "snapshot"
                        if not synced or msg["type"] not in ("snapshot", "vehicles"):
                            continue
                        mine = [v for v in msg["data"] if v["carId"] == str(vid)]
                        if mine and mine[-1]["lat"] == lat:
                            return dict(mine[-1])

            await report(0, 31.21)
            await shown(31.21)

            redis_server.kill()
            for k, lat in enumerate((31.22, 31.23, 31.24), 1):  # ingest goes on: acknowledged and stored
                await report(k, lat)
            async with api.db.sessionmaker() as s:
                count = await s.scalar(
                    select(func.count()).select_from(Position).where(Position.vehicle_id == int(vid))
                )
            assert count == 4

            # Another API process signs this user's second browser out meanwhile: its message is lost with Redis
            # (the revocation itself is in the database).
            async with websockets.connect(await live_url(f"http://{HOST}:{port}", revoked)) as other:
                await frames(other, "snapshot")
                async with api.db.sessionmaker() as s:
                    await revoke_user_tokens(KV(s), int(user), 3600)
                    await s.commit()

                await redis_server.start()
                # The feed recovers: a snapshot of the fleet as it is now (the positions sent while Redis was down
                # included), then live updates again; the socket of the token revoked meanwhile is closed.
                assert (await shown(31.24, resync=True))["online"] is True
                await report(5, 31.25)
                await shown(31.25)
                with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                    await frames(other, "snapshot")
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    finally:
        if client is not None:
            await client.close()
        await gateway.stop()
        srv.should_exit = True
        await asyncio.wait_for(serving, WAIT)
