"""10,000 terminals on one gateway process: the registration storm, memory per connection, acknowledgement time.

Run: ``make bench`` (or ``.venv/bin/python bench/terminals.py [--terminals N] [--rate R] [--seconds S]
[--databases sqlite,postgresql]``).

For each database (a fresh SQLite file, a fresh PostgreSQL database on the local server):

* the gateway is the real ``liftdesk gateway`` process (pipeline, command service, attribute queries), with
  auto-registration on for tenant 000000: no vehicle names these terminals, each one registering creates its own;
* the terminals run in another process (this file with ``--load``): all N connect, register (0x0100) and
  authenticate (0x0102) at once, as after a migration or a restart. Printed: the time until the last one was
  authenticated (aim: 30 s);
* memory per connection: the gateway's resident set once every terminal is in, less what it was before, per
  terminal (everything a connection costs: socket buffers in user space, the session, the vehicle's cached
  context);
* then the sizing load (1,000 positions/s: 10,000 vehicles reporting every 10 s) for S seconds, each terminal in
  turn; printed: the p50 / p99 / max time from sending a position (0x0200) to receiving its acknowledgement
  (0x8001), which the gateway sends only once the position is committed - once every terminal has reported (the
  first round after the storm, each vehicle's context read from the database, is printed apart). The gateway's
  attribute queries (0x8107, 10 a second after a storm) run meanwhile, as they do after a restart. Measured at the
  terminal, so it also holds both hops over the loopback and the terminal process's own delays: an upper bound of
  the gateway's arrival-to-acknowledgement time.

Both processes raise their open-file limit to the hard limit (printed): one socket per terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PG = os.environ.get("LIFTDESK_TEST_PG", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
AIM_STORM_S = 30.0
HOST = "127.0.0.1"


def device(i: int) -> str:
    return f"0188{i:08d}"


def raise_nofile() -> int:
    from liftdesk.core.process import raise_open_files

    return raise_open_files()


# --------------------------------------------------------------------------- the terminals' process


async def load(port: int, terminals: int, rate: float, seconds: float) -> None:
    """The terminals (``--load``): the storm, then (after a line on stdin) the sizing load. Prints JSON lines."""
    from liftdesk.telemetry.codecs.jt808 import Jt808Version, Location, Message, TerminalAttributes
    from liftdesk.telemetry.gateway.client import Jt808Client, registration

    raise_nofile()
    clients = [Jt808Client(HOST, port, device(i), Jt808Version.V2013) for i in range(terminals)]
    refused = 0

    def answering(c: Jt808Client, i: int) -> None:
        """The terminal answers the gateway's attribute query (0x8107) as a real one does."""

        def on_message(message: Message) -> None:
            if message.header.msg_id == 0x8107:
                with contextlib.suppress(ConnectionError, OSError):
                    c.send_nowait(TerminalAttributes(1, "LFTDK", "LD-1", f"T{i}", f"{i:020d}", "H1", "F1", 3, 1))

        c.on_message = on_message

    for i, c in enumerate(clients):
        answering(c, i)

    async def join(i: int, c: Jt808Client) -> bool:
        nonlocal refused
        for _ in range(5):  # a terminal whose connection or answer fails tries again, as terminals do
            try:
                if c.closed.is_set() or c._writer is None:
                    await c.connect()
                reply = await c.register(registration(plate=f"B{i:05d}", terminal_id=f"T{i}"), 60)
                if reply.auth_code and await c.authenticate(reply.auth_code, 60) == 0:
                    return True
                refused += 1
            except (OSError, TimeoutError, ConnectionError):
                await c.close()
                await asyncio.sleep(1.0)
        return False

    start = time.perf_counter()
    joined = await asyncio.gather(*(join(i, c) for i, c in enumerate(clients)))
    storm_s = time.perf_counter() - start
    print(json.dumps({"storm_s": storm_s, "joined": sum(joined), "refused": refused}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

    cold: list[float] = []  # each terminal's first position after the storm (its vehicle's context not loaded)
    warm: list[float] = []
    failed = 0

    async def report(c: Jt808Client, k: int) -> None:
        nonlocal failed
        now = datetime.now(UTC).replace(microsecond=0)
        body = Location(0, 3, 31.2 + k * 1e-5, 121.5, 5, 6.0, 90, now)
        sent = time.perf_counter()
        try:
            reply = await c.request(body, 60)
        except (OSError, TimeoutError, ConnectionError):
            failed += 1
            return
        if getattr(reply, "result", 1) != 0:
            failed += 1
            return
        (cold if k < len(live) else warm).append(time.perf_counter() - sent)

    live = [c for c, ok in zip(clients, joined, strict=True) if ok]
    tasks: set[asyncio.Task[None]] = set()
    total = int(rate * seconds)
    tick = 0.01
    per_tick = rate * tick
    start = time.perf_counter()
    sent = 0
    while sent < total:
        due = min(total, int((time.perf_counter() - start) / tick * per_tick) + 1)
        while sent < due:
            task = asyncio.create_task(report(live[sent % len(live)], sent))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            sent += 1
        await asyncio.sleep(tick)
    elapsed = time.perf_counter() - start
    await asyncio.gather(*tasks)

    def pct(values: list[float], p: float) -> float:
        values = sorted(values)
        return values[min(len(values) - 1, int(p * len(values)))] * 1000 if values else float("nan")

    print(
        json.dumps(
            {
                "rate": sent / elapsed,
                "acked": len(cold) + len(warm),
                "failed": failed,
                "warm_n": len(warm),
                "p50_ms": pct(warm, 0.50),
                "p99_ms": pct(warm, 0.99),
                "max_ms": pct(warm, 1.0),
                "cold_p50_ms": pct(cold, 0.50),
                "cold_p99_ms": pct(cold, 0.99),
            }
        ),
        flush=True,
    )
    for c in clients:
        c.abort()


# --------------------------------------------------------------------------- the bench


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """User and system CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pythonpath() -> str:
    return os.pathsep.join(p for p in (str(ROOT / "backend"), os.environ.get("PYTHONPATH", "")) if p)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


async def fresh(kind: str, workdir: Path) -> tuple[str, str | None]:
    """A migrated, seeded database: (url, PostgreSQL database name to drop afterwards)."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    from liftdesk.core.db import Database
    from liftdesk.migrate import upgrade
    from liftdesk.system.seed import seed

    name = None
    if kind == "sqlite":
        url = f"sqlite+aiosqlite:///{workdir / 'bench.db'}"
    else:
        name = f"liftdesk_bench_{uuid.uuid4().hex[:8]}"
        admin = create_async_engine(PG, isolation_level="AUTOCOMMIT")
        async with admin.connect() as c:
            await c.execute(text(f'CREATE DATABASE "{name}"'))
        await admin.dispose()
        url = PG.rsplit("/", 1)[0] + "/" + name
    await upgrade(url)
    db = Database(url=url)
    async with db.sessionmaker() as s:
        await seed(s)
    await db.dispose()
    return url, name


async def drop(name: str | None) -> None:
    if name is None:
        return
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    admin = create_async_engine(PG, isolation_level="AUTOCOMMIT")
    async with admin.connect() as c:
        await c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    await admin.dispose()


async def counts(url: str) -> tuple[int, int]:
    """Terminals with an auth code, vehicles created by auto-registration."""
    from sqlalchemy import text

    from liftdesk.core.db import Database

    db = Database(url=url)
    async with db.sessionmaker() as s:
        terms = int((await s.execute(text("SELECT count(*) FROM fics_terminal WHERE auth_code <> ''"))).scalar_one())
        cars = int(
            (
                await s.execute(text("SELECT count(*) FROM fics_car_info WHERE registrant = 'auto-registration'"))
            ).scalar_one()
        )
    await db.dispose()
    return terms, cars


async def run(kind: str, args: argparse.Namespace, hard: int) -> dict[str, float]:
    workdir = Path(tempfile.mkdtemp(prefix="liftdesk-bench-terminals-"))
    url, name = await fresh(kind, workdir)
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": pythonpath(),
        "LIFTDESK_DATABASE_URL": url,
        "LIFTDESK_GATEWAY_PORT": str(port),
        "LIFTDESK_GATEWAY_HOST": HOST,
        "LIFTDESK_AUTO_REGISTER_TENANT": "000000",
        "LIFTDESK_REDIS_URL": "",
    }
    log = (workdir / "gateway.log").open("wb")
    profile = ["-m", "cProfile", "-o", f"{args.profile}.{kind}"] if args.profile else []
    gateway = subprocess.Popen(  # noqa: ASYNC220 - the measured gateway is its own process
        [sys.executable, *profile, "-m", "liftdesk.cli", "gateway"], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    terminals: asyncio.subprocess.Process | None = None
    try:
        for _ in range(600):  # listening
            try:
                _, w = await asyncio.open_connection(HOST, port)
                w.close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)
        before = rss_kib(gateway.pid)
        terminals = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--load",
            str(port),
            "--terminals",
            str(args.terminals),
            "--rate",
            str(args.rate),
            "--seconds",
            str(args.seconds),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": pythonpath(), "LIFTDESK_EVENT_LOOP": "asyncio"},
        )
        assert terminals.stdout is not None and terminals.stdin is not None
        storm = json.loads(await terminals.stdout.readline())
        await asyncio.sleep(2.0)  # what the storm left in flight (attribute queries) settles
        after = rss_kib(gateway.pid)
        registered, created = await counts(url)
        cpu_before = cpu_s(gateway.pid)
        terminals.stdin.write(b"go\n")
        await terminals.stdin.drain()
        steady = json.loads(await terminals.stdout.readline())
        cpu = cpu_s(gateway.pid) - cpu_before
        await terminals.wait()
        assert storm["joined"] == args.terminals, f"{args.terminals - storm['joined']} terminals never got in"
        assert registered == created == args.terminals, f"{registered} terminals, {created} vehicles registered"
        assert steady["failed"] == 0, f"{steady['failed']} positions not acknowledged"
        return {
            **storm,
            **steady,
            "kib_per_connection": (after - before) / args.terminals,
            "rss_mib": after / 1024,
            "cpu_us": cpu / max(1, steady["acked"]) * 1e6,
        }
    finally:
        if terminals is not None and terminals.returncode is None:
            terminals.kill()
        gateway.send_signal(signal.SIGTERM)
        try:
            gateway.wait(30)
        except subprocess.TimeoutExpired:
            gateway.kill()
        log.close()
        await drop(name)
        if gateway.returncode == 0 or gateway.returncode == -signal.SIGTERM:  # kept for a look when it failed
            shutil.rmtree(workdir, ignore_errors=True)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--terminals", type=int, default=10_000)
    ap.add_argument("--rate", type=float, default=1_000.0, help="positions per second of the sizing load")
    ap.add_argument(
        "--seconds", type=float, default=30.0, help="how long the sizing load runs (the first terminals/rate s: cold)"
    )
    ap.add_argument("--databases", default="sqlite,postgresql")
    ap.add_argument("--profile", metavar="PATH", help="profile the gateway (cProfile) into PATH.<database>")
    ap.add_argument("--load", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.load:
        await load(args.load, args.terminals, args.rate, args.seconds)
        return
    hard = raise_nofile()
    from liftdesk.core.config import get_settings
    from liftdesk.core.process import loop_factory

    print(f"open files: hard limit {hard} (both processes raise their soft limit to it)")
    print(f"gateway event loop: {'uvloop' if loop_factory(get_settings().event_loop) else 'asyncio'}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    for kind in args.databases.split(","):
        r = await run(kind, args, hard)
        met = "met" if r["storm_s"] <= AIM_STORM_S else "not met"
        print(f"== {kind}")
        print(
            f"registration storm:                 {r['storm_s']:12.1f} s for {args.terminals:,} terminals "
            f"({args.terminals / r['storm_s']:,.0f}/s; aim {AIM_STORM_S:.0f} s: {met})"
        )
        print(
            f"connections held open at once:      {args.terminals:12,d} (registered and authenticated), "
            f"gateway resident set {r['rss_mib']:.0f} MiB"
        )
        print(f"gateway memory per connection:      {r['kib_per_connection']:12.1f} KiB")
        print(
            f"acknowledgement time at {r['rate']:,.0f}/s:     p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
            f"max {r['max_ms']:.1f} ms ({r['warm_n']:,} positions once every terminal had reported: sent to "
            "acknowledged, at the terminal)"
        )
        print(
            f"  the first round after the storm:  p50 {r['cold_p50_ms']:.1f} ms, p99 {r['cold_p99_ms']:.1f} ms "
            "(each terminal's first position: its vehicle's context read from the database)"
        )
        print(f"gateway CPU per position:           {r['cpu_us']:12.1f} µs (all of the process while the load ran)")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
