"""``liftdesk serve|api|gateway|worker|migrate|seed|openapi|simulate``.

``serve`` is everything in one process (``make run``). A larger deployment splits it by role over one database and
one Redis (``LIFTDESK_REDIS_URL``, which carries commands, their answers, live updates and cache invalidation
between the processes): ``api`` (HTTP, any number of them behind a balancer), ``gateway`` (the terminals: JT/T 808
and MQTT, the pipeline, command sending; one, which may run as several processes on one port: ``--processes``),
``worker`` (scheduled jobs; one). ``serve`` and ``api`` migrate and
seed an empty database first (``--no-migrate`` skips that); ``gateway`` and ``worker`` expect a migrated database.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from typing import Any

from liftdesk.core.config import check_bind, get_settings
from liftdesk.core.process import raise_open_files, run


async def _seed(url: str, demo_vehicles: int = 0) -> bool:
    from liftdesk.core.db import Database
    from liftdesk.system.seed import seed
    from liftdesk.telemetry.demo import ensure_demo_fleet

    db = Database(url=url)
    try:
        async with db.sessionmaker() as session:
            done = await seed(session)
            made = await ensure_demo_fleet(session, demo_vehicles)
            if made:
                logging.getLogger("liftdesk").info("demo fleet: %d simulated vehicles registered", made)
            return done
    finally:
        await db.dispose()


def prepare(url: str, demo_vehicles: int = 0) -> None:
    """Migrate to head, seed an empty database and register the demo fleet's vehicles."""
    from liftdesk.migrate import upgrade

    asyncio.run(upgrade(url))
    if asyncio.run(_seed(url, demo_vehicles)):
        logging.getLogger("liftdesk").info("seeded tenant 000000 (admin / admin)")


class RedactTokens(logging.Filter):
    """Cut credentials out of log lines: uvicorn logs a WebSocket's request line at info level, and the live feed
    takes a single-use ticket as ``?ticket=<ticket>`` (a browser cannot set headers on a WebSocket); a token in a
    URL (``blade-auth=``, no longer a way in) is cut too."""

    TOKEN = re.compile(r"((?:blade-auth|ticket)=)[^&\s\"']+", re.IGNORECASE)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        lowered = message.lower()
        if "blade-auth=" in lowered or "ticket=" in lowered:
            record.msg, record.args = self.TOKEN.sub(r"\1***", message), None
        return True


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's own logging configuration with :class:`RedactTokens` on its handlers."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact"] = {"()": f"{__name__}.RedactTokens"}
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("redact")
    return config


def cmd_serve(args: argparse.Namespace) -> int:
    return _serve_http(args, "all")


def cmd_api(args: argparse.Namespace) -> int:
    return _serve_http(args, "api")


def _serve_http(args: argparse.Namespace, role: str) -> int:
    import uvicorn

    from liftdesk.app import create_app

    settings = get_settings()
    if args.host:
        try:
            check_bind(args.host, settings.secret_key)
        except ValueError as exc:
            print(f"liftdesk {args.cmd}: {exc}", file=sys.stderr)
            return 2
        settings = settings.model_copy(update={"host": args.host})
    raise_open_files()
    if not args.no_migrate:
        # the demo fleet's vehicles only where the simulator runs (``serve``)
        prepare(settings.database_url, settings.simulator_vehicles if role == "all" else 0)
    port = args.port or settings.port
    print(f"Liftdesk serving on http://{settings.host}:{port} ({role})", flush=True)
    uvicorn.run(
        create_app(settings, services=True, role=role),
        host=settings.host,
        port=port,
        log_level="info",
        log_config=uvicorn_log_config(),
        proxy_headers=False,
        access_log=False,
        loop="asyncio" if settings.event_loop == "asyncio" else "auto",  # auto: uvloop where installed
    )
    return 0


def cmd_gateway(args: argparse.Namespace) -> int:
    if args.member is not None:
        return _run_services("gateway", args.member)
    settings = get_settings()
    processes = settings.gateway_processes if args.processes is None else args.processes
    processes = processes or os.cpu_count() or 1
    if processes == 1:
        return _run_services("gateway")
    if not settings.redis_url:
        print(
            f"liftdesk gateway --processes {processes}: LIFTDESK_REDIS_URL is required (a command reaches the process "
            "holding its terminal through Redis)",
            file=sys.stderr,
        )
        return 2
    if not settings.gateway_port:
        print("liftdesk gateway --processes: LIFTDESK_GATEWAY_PORT must name a port", file=sys.stderr)
        return 2
    return _supervise(processes, settings.database_url)


#: Seconds before a gateway process that ended on its own is started again.
RESTART_DELAY_S = 1.0


def _supervise(processes: int, database_url: str) -> int:
    """``liftdesk gateway --processes N``: N gateway processes on one port (SO_REUSEPORT: the kernel spreads the
    terminals' connections over them), joined at the database and the Redis bus. Commands left in flight by an
    earlier gateway are taken back once, here, before they start; a process that ends on its own is started again
    (its commands in flight are taken back by the others' sweepers). SIGTERM or SIGINT stops them all."""
    from liftdesk.core.db import Database
    from liftdesk.telemetry.commands.recovery import MAX_ATTEMPTS, recover_sent

    log = logging.getLogger("liftdesk")

    async def _recover() -> None:
        db = Database(url=database_url)
        try:
            await recover_sent(db, MAX_ATTEMPTS)
        finally:
            await db.dispose()

    asyncio.run(_recover())

    def start(member: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "liftdesk.cli", "gateway", "--member", str(member)])

    children = {member: start(member) for member in range(processes)}
    log.info("gateway: %d processes (%s)", processes, ", ".join(str(p.pid) for p in children.values()))
    stopping = False

    def _stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for child in children.values():
            if child.returncode is None:
                child.send_signal(signal.SIGTERM)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stop)
    clean = True
    while any(child.returncode is None for child in children.values()):
        pid, status = os.waitpid(-1, 0)  # resumed after a signal's handler ran (PEP 475)
        for member, child in children.items():
            if child.pid != pid:
                continue
            child.returncode = os.waitstatus_to_exitcode(status)
            clean = clean and child.returncode == 0
            if not stopping:
                log.warning("gateway process %d ended (%s): starting it again", member, child.returncode)
                time.sleep(RESTART_DELAY_S)
                if not stopping:
                    children[member] = start(member)
            break
    return 0 if clean and stopping else 1


def cmd_worker(_: argparse.Namespace) -> int:
    return _run_services("worker")


def _run_services(role: str, member: int | None = None) -> int:
    """A process without HTTP, until SIGTERM or SIGINT (``member``: one of several gateway processes)."""
    from liftdesk.app import run_services

    settings = get_settings()
    logging.getLogger("liftdesk").info("open files: up to %d", raise_open_files())

    async def _main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run_services(settings, role, stop, member)

    run(_main(), settings.event_loop)
    return 0


def cmd_migrate(_: argparse.Namespace) -> int:
    from liftdesk.migrate import upgrade

    asyncio.run(upgrade(get_settings().database_url))
    return 0


def cmd_seed(_: argparse.Namespace) -> int:
    done = asyncio.run(_seed(get_settings().database_url))
    print("seeded" if done else "already seeded")
    return 0


def cmd_remind(args: argparse.Namespace) -> int:
    """The expiry reminders of one day (default: today), now: what the worker does every hour."""
    from datetime import date

    from liftdesk.core.db import Database
    from liftdesk.fleet.reminders import compute_reminders

    day = date.fromisoformat(args.date) if args.date else None

    async def _main() -> int:
        db = Database(get_settings())
        try:
            return await compute_reminders(db, day)
        finally:
            await db.dispose()

    print(f"{asyncio.run(_main())} reminders written")
    return 0


def cmd_openapi(_: argparse.Namespace) -> int:
    from liftdesk.app import create_app

    doc = create_app().openapi()
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    return 0


def _processes(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = -1
    if not 0 <= n <= 256:
        raise argparse.ArgumentTypeError(f"{value!r}: a number of processes from 0 (one per core) to 256")
    return n


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(prog="liftdesk", description="Liftdesk fleet back office")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("serve", help="migrate, seed and serve API + web + gateway + jobs in one process (make run)")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--no-migrate", action="store_true", help="do not migrate or seed on start")
    p.add_argument("--host", default="", help="the address to listen on (default LIFTDESK_HOST, 127.0.0.1)")
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("api", help="migrate, seed and serve API + web only (commands reach the gateway via Redis)")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--no-migrate", action="store_true", help="do not migrate or seed on start")
    p.add_argument("--host", default="", help="the address to listen on (default LIFTDESK_HOST, 127.0.0.1)")
    p.set_defaults(func=cmd_api)
    p = sub.add_parser("gateway", help="terminal gateway (JT/T 808, MQTT) + pipeline + command sending, no HTTP")
    p.add_argument(
        "--processes",
        type=_processes,
        default=None,
        help="gateway processes on the one port (default LIFTDESK_GATEWAY_PROCESSES, 1; 0: one per core); more "
        "than one needs LIFTDESK_REDIS_URL, and only the first runs the MQTT adapter",
    )
    p.add_argument("--member", type=int, default=None, help=argparse.SUPPRESS)  # started by --processes
    p.set_defaults(func=cmd_gateway)
    sub.add_parser(
        "worker", help="scheduled jobs (offline detection, retention, expiry reminders), no HTTP"
    ).set_defaults(func=cmd_worker)
    sub.add_parser("migrate", help="apply database migrations").set_defaults(func=cmd_migrate)
    sub.add_parser("seed", help="write seed data into an empty database").set_defaults(func=cmd_seed)
    sub.add_parser("openapi", help="print the OpenAPI document").set_defaults(func=cmd_openapi)
    p = sub.add_parser("remind", help="write the drivers' licence and paper expiry reminders of a day now")
    p.add_argument("--date", default="", help="the day (yyyy-mm-dd; default today)")
    p.set_defaults(func=cmd_remind)
    from liftdesk.telemetry.simulator.cli import cmd_simulate, configure_parser

    p = sub.add_parser("simulate", help="run simulated forklifts against the JT/T 808 gateway")
    configure_parser(p)
    p.set_defaults(func=cmd_simulate)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
