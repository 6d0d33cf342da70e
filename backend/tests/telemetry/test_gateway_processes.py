"""Several gateway processes on one port (issue 11, item 3): ``liftdesk gateway --processes 2`` beside an API process,
one database, one Redis, real sockets.

* The kernel spreads the terminals' connections over the two processes (SO_REUSEPORT): each holds some, and the
  terminal rows name the process holding them (``fics_terminal.gateway``).
* A command created over HTTP reaches its terminal on either process (through the Redis bus), and the answer is
  recorded.
* A terminal with a queued command that reconnects to the other process gets it there. Which process takes a
  connection is a hash of its addresses and ports, so a connection from the local port another terminal used on
  the other process lands there (the earlier connection reset, so the port is free at once). The terminals connect
  from a loopback address of this test's own (127.x.y.z), where no other connection of the machine takes that port
  meanwhile.
* A terminal that connects to another process while its old connection is still open: the old one is closed by
  its process, which leaves the terminal online (the other process holds it now).

Every wait is bounded and waits for a condition; nothing asserts on time.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update
from test_gateway import terminal_number
from test_processes import (  # noqa: F401 - deployment and patient are fixtures
    WAIT,
    Deployment,
    F,
    Proc,
    Terminal,
    api_client,
    deployment,
    free_port,
    patient,
)
from test_processes import until as until_within_wait

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database, utcnow
from liftdesk.telemetry.codecs.jt808 import GeneralReply, Jt808Version, SetParams
from liftdesk.telemetry.commands import CommandService
from liftdesk.telemetry.commands.recovery import stale_sent
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.models import Command
from liftdesk.telemetry.models import Terminal as TerminalRow

TERMINALS = 16  # all of them on one of two processes: 2 chances in 65,536
#: The terminals' own source address (the loopback network is 127.0.0.0/8).
SOURCE = "127.{}.{}.{}".format(*(2 + b % 250 for b in uuid.uuid4().bytes[:3]))
#: Bound of the start-up of three processes (the supervisor's two and the API's) on a loaded 2-core machine.
START_WAIT = 120.0


async def until(what: str, check: Callable[[], Awaitable[Any]], procs: list[Proc], bound: float = WAIT) -> Any:
    """:func:`test_processes.until` with a bound of its own."""
    import test_processes

    saved, test_processes.WAIT = test_processes.WAIT, bound
    try:
        return await until_within_wait(what, check, procs)
    finally:
        test_processes.WAIT = saved


async def holders(db: Database, devices: list[str]) -> dict[str, tuple[bool, str | None]]:
    async with db.sessionmaker() as s:
        rows = await s.execute(
            select(TerminalRow.device_number, TerminalRow.online, TerminalRow.gateway).where(
                TerminalRow.device_number.in_(devices)
            )
        )
        return {device: (bool(online), gateway) for device, online, gateway in rows.all()}


def log_text(proc: Proc) -> str:
    return proc.log.read_text(errors="replace")


async def speed_limit(http: httpx.AsyncClient, car: str, limit: int) -> dict[str, Any]:
    """``carSet/rateLimiting`` without waiting for the answer."""
    got: dict[str, Any] = (
        await http.post(f"{F}/carSet/rateLimiting", json={"carId": car, "speedLimit": limit, "wait": 0})
    ).json()
    return got


async def obey(http: httpx.AsyncClient, terminal: Terminal, command_id: str, procs: list[Proc], limit: int) -> None:
    """The terminal receives the speed limit, answers it; the API reads it acknowledged."""
    message = await terminal.command()
    assert isinstance(message.body, SetParams) and message.body.as_dict() == {0xF002: limit}
    await terminal.client.send(GeneralReply(message.header.serial, 0x8103, 0))

    async def acknowledged() -> bool:
        got = (await http.get("/api/liftdesk/command/detail", params={"id": command_id})).json()
        return bool(got["data"]["status"] == "acknowledged")

    await until(f"command {command_id} acknowledged", acknowledged, procs)


async def test_terminals_spread_over_two_gateway_processes_and_commands_follow_them(
    patient: Deployment,  # noqa: F811 - the fixture
) -> None:
    d = patient
    port, api_port = free_port(), free_port()
    gateway = d.start("gateway", "--processes", "2", LIFTDESK_GATEWAY_PORT=str(port))
    api = d.start("api", "--no-migrate", LIFTDESK_PORT=str(api_port), LIFTDESK_GATEWAY_PORT="0")
    procs = [gateway, api]

    async def api_up() -> bool:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{api_port}") as probe:
            return (await probe.get("/api/health")).status_code == 200

    await until("the API process up", api_up, procs, START_WAIT)
    http = await api_client(d, api_port, procs)
    db = Database(url=d.url)
    clients: dict[str, Jt808Client] = {}
    try:

        async def both_listening() -> bool:
            return log_text(gateway).count("JT/T 808 gateway listening") >= 2

        await until("two gateway processes listening", both_listening, procs, START_WAIT)
        devices = [f"{uuid.uuid4().int % 10**12:012d}" for _ in range(TERMINALS)]
        cars: dict[str, str] = {}
        codes: dict[str, str] = {}
        for device in devices:
            car = {"carNo": f"M-{device[-6:]}", "deviceNumber": device}
            cars[device] = (await http.post(f"{F}/carInfo/insertCarInfo", json=car)).json()["data"]["id"]
            client = Jt808Client("127.0.0.1", port, terminal_number(device, Jt808Version.V2013))
            await client.connect((SOURCE, 0))
            clients[device] = client
            reply = await client.register(registration(plate=f"M{device[-5:]}"))
            assert reply.auth_code and await client.authenticate(reply.auth_code) == 0
            codes[device] = reply.auth_code

        async def all_online() -> dict[str, tuple[bool, str | None]]:
            held = await holders(db, devices)
            return held if all(online and gw for online, gw in held.values()) and len(held) == TERMINALS else {}

        held = await until("every terminal online", all_online, procs)
        by_process: dict[str, list[str]] = {}
        for device, (_, gw) in held.items():
            assert gw is not None
            by_process.setdefault(gw, []).append(device)
        assert len(by_process) == 2, by_process  # the kernel gave each process some of the connections
        (a, on_a), (b, on_b) = sorted(by_process.items())

        # 1. a command created over HTTP reaches a terminal on either process, its answer is recorded
        for limit, device in ((8, on_a[0]), (9, on_b[0])):
            r = await speed_limit(http, cars[device], limit)
            assert r["code"] == 200, r
            await obey(http, Terminal(clients[device]), r["data"][0]["id"], procs, limit)

        # 2. a terminal of process A goes away; a command waits for it; it comes back through process B
        moving, other = on_a[-1], on_b[-1]
        port_a, port_b = clients[moving].local_port, clients[other].local_port
        clients.pop(moving).reset()
        clients.pop(other).reset()

        async def both_offline() -> bool:
            now = await holders(db, [moving, other])
            return not now[moving][0] and not now[other][0]

        await until("the two terminals offline", both_offline, procs)
        r = await speed_limit(http, cars[moving], 11)
        queued = r["data"][0]
        assert queued["status"] == "pending", queued
        number = terminal_number(moving, Jt808Version.V2013)
        back = await Jt808Client("127.0.0.1", port, number).connect((SOURCE, port_b))
        clients[moving] = back
        assert await back.authenticate(codes[moving]) == 0
        await obey(http, Terminal(back), queued["id"], procs, 11)
        assert (await holders(db, [moving]))[moving] == (True, b)

        # 3. it connects to process A again while its connection to B is still open: B closes that one and leaves
        # the terminal online (A holds it); a command goes to the new connection
        again = await Jt808Client("127.0.0.1", port, number).connect((SOURCE, port_a))
        assert await again.authenticate(codes[moving]) == 0
        clients[f"{moving}-again"] = again

        async def old_closed_and_left_online() -> bool:
            return back.closed.is_set() and "another gateway process holds them now" in log_text(gateway)

        await until("the connection to B closed by B, without an offline mark", old_closed_and_left_online, procs)
        assert (await holders(db, [moving]))[moving] == (True, a)
        r = await speed_limit(http, cars[moving], 12)
        await obey(http, Terminal(again), r["data"][0]["id"], procs, 12)
    finally:
        for client in clients.values():
            await client.close()
        await http.aclose()
        await db.dispose()


async def test_commands_left_in_flight_by_a_gone_process_are_taken_back(db: Database) -> None:
    """What a gateway process leaves ``sent`` when it ends while its siblings run on: once the attempt's reply
    timeout is long past, another process's sweeper puts it back to pending (out of attempts: timeout); a recent
    one, and this process's own, are left alone."""
    service = CommandService(db, LocalBus(), reply_timeout_s=10.0)
    device = f"{uuid.uuid4().int % 10**12:012d}"
    ids = [await service.create("000000", None, device, "text", 0x8300, {"text": f"t{k}"}, None) for k in range(4)]
    now = utcnow()
    sent = {  # id -> (attempts, seconds since sent)
        ids[0]: (1, 100.0),  # 10 s reply timeout + 60 s grace long past: back to pending
        ids[1]: (2, 50.0),  # the second attempt waits 20 s: + 60 s not past yet
        ids[2]: (3, 500.0),  # out of attempts: timeout
        ids[3]: (1, 100.0),  # this process's own
    }
    async with db.sessionmaker() as s:
        for command_id, (attempts, ago) in sent.items():
            await s.execute(
                update(Command)
                .where(Command.id == command_id)
                .values(status="sent", attempts=attempts, sent_time=now - timedelta(seconds=ago))
            )
        await s.commit()
    back = await stale_sent(db, service.reply_timeout, 3, 60.0, {ids[3]}, now)
    assert back == [(ids[0], device)]
    statuses = [(await service.get(i)).status for i in ids]  # type: ignore[union-attr]
    assert statuses == ["pending", "sent", "timeout", "sent"]


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--processes", "2"], {}, "LIFTDESK_REDIS_URL is required"),
        (["--processes", "-1"], {}, "from 0 (one per core) to 256"),
        (["--processes", "x"], {}, "from 0 (one per core) to 256"),
        (["--processes", "2"], {"LIFTDESK_REDIS_URL": "redis://127.0.0.1:1/0", "LIFTDESK_GATEWAY_PORT": "0"}, "port"),
    ],
)
def test_gateway_processes_refused_without_what_they_need(
    tmp_path: Path, args: list[str], env: dict[str, str], said: str
) -> None:
    base = {"PATH": "/usr/bin:/bin", "LIFTDESK_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"}
    done = subprocess.run(
        [sys.executable, "-m", "liftdesk.cli", "gateway", *args],
        env={**base, **env, "PYTHONPATH": ":".join(sys.path)},
        capture_output=True,
        text=True,
        timeout=WAIT,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done
    assert said in done.stderr
