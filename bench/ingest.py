"""Positions per second through the JT/T 808 gateway into PostgreSQL, against raw COPY of the same rows.

Run: ``make bench`` (or ``.venv/bin/python bench/ingest.py [--positions N] [--terminals T]``).

Both numbers are measured in the same run on the same database server:
  * raw:  asyncpg ``COPY`` of the rows into a plain table with the same columns and primary key;
  * end to end: T terminals over real TCP sockets → frame decode → pipeline stages → batched durable write →
    acknowledgement (each terminal keeps a window of unacknowledged positions in flight, as real terminals with
    blind-zone buffers do).
It prints the ratio end-to-end / raw against the aim of 0.5 - for the gateway in this process, then for
``liftdesk gateway --processes 1`` and ``--processes N`` (N = cores, or ``--processes``: several processes on one port,
joined at the database and Redis, ``LIFTDESK_REDIS_URL``, default the local one) - then how many connections the
gateway held open at once and its memory per connection (resident set size of a separate gateway process). The
headroom line divides the end-to-end rate by the load the storage is sized for (issue 3: a year of 10,000 vehicles
every 10 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.core.process import tune_gc
from liftdesk.fleet.models import Vehicle
from liftdesk.migrate import upgrade
from liftdesk.system.seed import seed
from liftdesk.telemetry.codecs.jt808 import Jt808Version, Location
from liftdesk.telemetry.commands import CommandService
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.store import POSITION_COLUMNS
from liftdesk.telemetry.terminals import TerminalService

HERE = Path(__file__).resolve().parent
BACKEND = HERE.parent / "backend"
PG = os.environ.get("LIFTDESK_TEST_PG", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
SIZING_LOAD = 1_000  # positions/s of 10,000 vehicles reporting every 10 s
AIM = 0.5
T0 = datetime(2026, 7, 1, 0, 0, 0, tzinfo=UTC)


def device(i: int) -> str:
    return f"0199{i:08d}"


async def fresh_database() -> tuple[str, str]:
    name = f"liftdesk_bench_{uuid.uuid4().hex[:8]}"
    admin = create_async_engine(PG, isolation_level="AUTOCOMMIT")
    async with admin.connect() as c:
        await c.execute(text(f'CREATE DATABASE "{name}"'))
    await admin.dispose()
    url = PG.rsplit("/", 1)[0] + "/" + name
    await upgrade(url)
    return url, name


async def drop_database(name: str) -> None:
    admin = create_async_engine(PG, isolation_level="AUTOCOMMIT")
    async with admin.connect() as c:
        await c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    await admin.dispose()


async def add_vehicles(db: Database, n: int) -> None:
    async with db.sessionmaker() as s:
        await seed(s)
        s.add_all(Vehicle(tenant_id="000000", car_no=f"B-{i}", device_number=device(i), car_type=4) for i in range(n))
        await s.commit()


def locations(i: int, per: int) -> list[Location]:
    return [
        Location(
            alarm=0,
            status=3,
            latitude=31.2 + (k % 100) * 1e-5,
            longitude=121.5 + i * 1e-4,
            altitude_m=5,
            speed_kmh=float(k % 12),
            direction=(k * 7) % 360,
            time=T0 + timedelta(seconds=k),
            mileage_km=k * 0.01,
        )
        for k in range(per)
    ]


async def raw_copy(url: str, terminals: int, per: int) -> float:
    dsn = url.replace("postgresql+asyncpg", "postgresql")
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("CREATE TABLE bench_copy (LIKE fics_position INCLUDING DEFAULTS)")
        await conn.execute("ALTER TABLE bench_copy ADD PRIMARY KEY (tenant_id, vehicle_id, device_time)")
        now = datetime.now(UTC).replace(tzinfo=None)
        rows = [  # one value per POSITION_COLUMNS entry (load_kg, extra, driver_id: none)
            (
                "000000",
                10_000 + i,
                (T0 + timedelta(seconds=k)).replace(tzinfo=None),
                now,
                31.2 + (k % 100) * 1e-5,
                121.5 + i * 1e-4,
                float(k % 12),
                (k * 7) % 360,
                5,
                0,
                3,
                k * 0.01,
                None,
                None,
                None,  # driver_id (migration 0019)
            )
            for i in range(terminals)
            for k in range(per)
        ]
        start = time.perf_counter()
        await conn.copy_records_to_table("bench_copy", records=rows, columns=list(POSITION_COLUMNS))
        return len(rows) / (time.perf_counter() - start)
    finally:
        await conn.close()


LOAD_CHILD = """
import asyncio, sys, time
sys.path.insert(0, {bench!r})
import ingest
from liftdesk.telemetry.codecs.jt808 import Jt808Version, unescape
from liftdesk.telemetry.gateway.client import Jt808Client, registration
async def main():
    links, frames = [], []
    for i in range({terminals}):
        c = await Jt808Client("127.0.0.1", {port}, ingest.device(i), Jt808Version.V2013).connect()
        reply = await c.register(registration(plate=f"B{{i}}"), 60)
        assert await c.authenticate(reply.auth_code, 60) == 0
        c._task.cancel()  # from here on the load generator reads the raw answers itself
        links.append((c._reader, c._writer))
        frames.append([b"".join(c.frames(loc)[1]) for loc in ingest.locations(i, {per})])  # encoded up front
    print("ready", flush=True); sys.stdin.readline()
    bad = 0
    async def run(reader, writer, mine):
        # Lean on purpose, so that the gateway is what is measured: keep {window} positions in flight; every
        # 0x8001 that comes back lets one more go; the answers are only split and their result byte checked.
        nonlocal bad
        sent, acked, rest = min({window}, len(mine)), 0, b""
        writer.write(b"".join(mine[:sent]))
        while acked < len(mine):
            chunk = await reader.read(65536)
            assert chunk, "gateway closed the connection"
            parts = (rest + chunk).split(b"\\x7e")
            rest = parts.pop()
            for part in parts:
                if part:
                    acked += 1
                    # the result byte of the 0x8001 body (unescape only if the checksum was escaped)
                    bad += part[-2] != 0 and unescape(part)[-2] != 0
            more = min(acked + {window}, len(mine)) - sent
            if more > 0:
                writer.write(b"".join(mine[sent:sent + more]))
                sent += more
    start = time.perf_counter()
    await asyncio.gather(*(run(r, w, f) for (r, w), f in zip(links, frames)))
    print(time.perf_counter() - start, bad, flush=True)
asyncio.run(main())
"""


async def run_load(port: int, terminals: int, per: int, window: int) -> float:
    """The terminals in a separate process: register, authenticate, then send; seconds the sending took."""
    script = LOAD_CHILD.format(bench=str(HERE), terminals=terminals, port=port, per=per, window=window)
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert child.stdout is not None and child.stdin is not None
    assert (await child.stdout.readline()).strip() == b"ready"
    child.stdin.write(b"go\n")
    await child.stdin.drain()
    elapsed_s, bad = (await child.stdout.readline()).split()
    await child.wait()
    assert int(bad) == 0, f"{bad} positions were refused"
    return float(elapsed_s)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def gateway_processes(url: str, terminals: int, per: int, window: int, processes: int) -> float:
    """Positions per second through ``liftdesk gateway --processes N`` (on its own Redis channel prefix): the
    positions and live states of the earlier run are deleted first, and every terminal counts as asked for its
    attributes today (the gateway would send it 0x8107, which the lean load generator would take for an
    acknowledgement)."""
    from liftdesk.core.db import utcnow
    from liftdesk.core.ids import next_id
    from liftdesk.telemetry.models import Command

    db = Database(url=url)
    async with db.sessionmaker() as s:
        await s.execute(text("TRUNCATE fics_position, fics_car_state"))  # a re-sent latest position is not stored
        s.add_all(
            Command(
                id=next_id(),
                tenant_id="000000",
                device_number=device(i),
                msg_id=0x8107,
                name="query_attributes",
                payload="{}",
                status="acknowledged",
                attempts=1,
                create_time=utcnow(),
            )
            for i in range(terminals)
        )
        await s.commit()
    port = free_port()
    env = {
        **os.environ,
        "LIFTDESK_DATABASE_URL": url,
        "LIFTDESK_REDIS_URL": os.environ.get("LIFTDESK_REDIS_URL", "redis://127.0.0.1:6379/0"),
        "LIFTDESK_REDIS_PREFIX": f"liftdesk-bench-{uuid.uuid4().hex[:8]}:",
        "LIFTDESK_GATEWAY_PORT": str(port),
        "LIFTDESK_GATEWAY_HOST": "127.0.0.1",
        "LIFTDESK_ENV": "test",
    }
    env.pop("LIFTDESK_MQTT_URL", None)
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-gateway-{port}.log"
    with log.open("wb") as out:
        gateway = subprocess.Popen(  # noqa: ASYNC220 - the measured gateway runs in its own processes
            [sys.executable, "-m", "liftdesk.cli", "gateway", "--processes", str(processes)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        for _ in range(1200):  # every process listening (at most 2 minutes on a loaded machine)
            if log.read_text(errors="replace").count("JT/T 808 gateway listening") >= processes:
                break
            assert gateway.poll() is None, log.read_text(errors="replace")[-3000:]
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"the gateway processes did not start:\n{log.read_text(errors='replace')[-3000:]}")
        elapsed = await run_load(port, terminals, per, window)
        async with db.sessionmaker() as s:
            stored = int((await s.execute(text("SELECT count(*) FROM fics_position"))).scalar_one())
        assert stored == terminals * per, f"stored {stored} of {terminals * per}"
        return terminals * per / elapsed
    finally:
        gateway.terminate()
        gateway.wait(60)
        log.unlink(missing_ok=True)
        await db.dispose()


async def end_to_end(url: str, terminals: int, per: int, window: int) -> tuple[float, int]:
    """The gateway and pipeline run here; the terminals run in a separate process (the other core)."""
    db = Database(url=url)
    await add_vehicles(db, terminals)
    bus = LocalBus()
    pipeline = Pipeline(db, bus)
    commands = CommandService(db, bus)
    gateway = Gateway(db, pipeline, TerminalService(db), commands, host="127.0.0.1", port=0)
    await pipeline.start()
    await gateway.start()
    here = HERE
    script = LOAD_CHILD.format(
        bench=str(here),
        terminals=terminals,
        port=gateway.port,
        per=per,
        window=window,
    )
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert child.stdout is not None and child.stdin is not None
    assert (await child.stdout.readline()).strip() == b"ready"
    tune_gc()  # as the server process does once it has started
    before = resource.getrusage(resource.RUSAGE_SELF)
    child.stdin.write(b"go\n")
    await child.stdin.drain()
    elapsed_s, bad = (await child.stdout.readline()).split()
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu_s = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    await child.wait()
    assert int(bad) == 0, f"{bad} positions were refused"
    async with db.sessionmaker() as s:
        stored = int((await s.execute(text("SELECT count(*) FROM fics_position"))).scalar_one())
    print(f"pipeline batches: {pipeline.batches}, mean {pipeline.written / max(1, pipeline.batches):.0f} positions")
    print(
        f"gateway + pipeline CPU:             {cpu_s / (terminals * per) * 1e6:12.1f} µs per position "
        f"({cpu_s / float(elapsed_s) * 100:.0f}% of one core while the load ran)"
    )
    await gateway.stop()
    await pipeline.stop()
    await db.dispose()
    return terminals * per / float(elapsed_s), stored


GATEWAY_CHILD = """
import asyncio, sys
sys.path.insert(0, {backend!r})
from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.telemetry.commands import CommandService
from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import TerminalService
async def main():
    db = Database(url={url!r}); bus = LocalBus(); p = Pipeline(db, bus)
    g = Gateway(db, p, TerminalService(db), CommandService(db, bus), host="127.0.0.1", port=0, idle_timeout_s=3600)
    await p.start(); await g.start(); print(g.port, flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def connections(url: str, count: int) -> tuple[int, float]:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    count = min(count, hard - 200)
    db = Database(url=url)
    async with db.sessionmaker() as s:
        s.add_all(Vehicle(tenant_id="000000", car_no=f"C-{i}", device_number=f"0177{i:08d}") for i in range(count))
        await s.commit()
    await db.dispose()
    backend = str(BACKEND)
    child = subprocess.Popen(  # noqa: ASYNC220 - the measured gateway runs in its own process
        [sys.executable, "-c", GATEWAY_CHILD.format(backend=backend, url=url)],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard)),
    )
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        await asyncio.sleep(0.5)
        before = rss_kb(child.pid)
        clients: list[Jt808Client] = []
        for i in range(count):
            c = await Jt808Client("127.0.0.1", port, f"0177{i:08d}", Jt808Version.V2013).connect()
            reply = await c.register(registration(plate=f"C{i}"), 60)
            await c.authenticate(reply.auth_code, 60)
            clients.append(c)
        await asyncio.sleep(0.5)
        after = rss_kb(child.pid)
        for c in clients:
            c.abort()
        return len(clients), (after - before) / max(1, len(clients))
    finally:
        child.terminate()
        child.wait(10)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=40_000)
    ap.add_argument("--terminals", type=int, default=100)
    ap.add_argument("--window", type=int, default=32)
    ap.add_argument("--connections", type=int, default=2000)
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1, help="gateway processes (default: cores)")
    args = ap.parse_args()
    per = max(1, args.positions // args.terminals)
    url, name = await fresh_database()
    try:
        raw = await raw_copy(url, args.terminals, per)
        e2e, stored = await end_to_end(url, args.terminals, per, args.window)
        assert stored == args.terminals * per, f"stored {stored} of {args.terminals * per}"
        ratio = e2e / raw
        print(f"raw COPY into PostgreSQL:           {raw:12,.0f} rows/s")
        print(
            f"gateway → pipeline → PostgreSQL:    {e2e:12,.0f} positions/s ({args.terminals} terminals, "
            f"{args.terminals * per} positions, every one acknowledged and stored once)"
        )
        print(
            f"ratio end-to-end / raw COPY:        {ratio:12.3f}   (aim {AIM}: {'met' if ratio >= AIM else 'not met'})"
        )
        print(
            f"headroom over the sizing load:      {e2e / SIZING_LOAD:12.1f} x   "
            f"({SIZING_LOAD:,} positions/s: 10,000 vehicles reporting every 10 s)"
        )
        for n in dict.fromkeys((1, args.processes)):  # liftdesk gateway --processes n, against the same raw COPY
            rate = await gateway_processes(url, args.terminals, per, args.window, n)
            print(
                f"liftdesk gateway --processes {n:<3d}   {rate:12,.0f} positions/s, ratio {rate / raw:.3f} "
                f"(aim {AIM}: {'met' if rate / raw >= AIM else 'not met'})"
            )
        held, per_conn = await connections(url, args.connections)
        print(f"connections held open at once:      {held:12,d} (registered and authenticated)")
        print(f"gateway memory per connection:      {per_conn:12.1f} KiB (resident set, separate process)")
    finally:
        await drop_database(name)


if __name__ == "__main__":
    # The gateway and pipeline measured here run on the loop a server process runs on (uvloop where installed;
    # LIFTDESK_EVENT_LOOP=asyncio for asyncio's own).
    from liftdesk.core.config import get_settings
    from liftdesk.core.process import loop_factory, run

    choice = get_settings().event_loop
    print(f"event loop: {'uvloop' if loop_factory(choice) else 'asyncio'}")
    run(main(), choice)
