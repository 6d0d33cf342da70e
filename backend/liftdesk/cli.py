"""``liftdesk serve|api|migrate|seed|openapi``."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys

from liftdesk.core.config import get_settings


async def _seed(url: str, demo_vehicles: int = 0) -> bool:
    from liftdesk.core.db import Database
    from liftdesk.fleet.demo import ensure_demo_fleet
    from liftdesk.system.seed import seed

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


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from liftdesk.app import create_app

    settings = get_settings()
    if not args.no_migrate:
        prepare(settings.database_url, settings.simulator_vehicles)
    port = args.port or settings.port
    print(f"Liftdesk serving on http://{settings.host}:{port}", flush=True)
    uvicorn.run(
        create_app(settings, services=True),
        host=settings.host,
        port=port,
        log_level="info",
        proxy_headers=False,
        access_log=False,
    )
    return 0


def cmd_migrate(_: argparse.Namespace) -> int:
    from liftdesk.migrate import upgrade

    asyncio.run(upgrade(get_settings().database_url))
    return 0


def cmd_seed(_: argparse.Namespace) -> int:
    done = asyncio.run(_seed(get_settings().database_url))
    print("seeded" if done else "already seeded")
    return 0


def cmd_openapi(_: argparse.Namespace) -> int:
    from liftdesk.app import create_app

    doc = create_app().openapi()
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(prog="liftdesk", description="Liftdesk fleet back office")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("serve", help="migrate, seed and serve API + web (+ gateway) in one process")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--no-migrate", action="store_true", help="do not migrate or seed on start")
    p.set_defaults(func=cmd_serve)
    sub.add_parser("migrate", help="apply database migrations").set_defaults(func=cmd_migrate)
    sub.add_parser("seed", help="write seed data into an empty database").set_defaults(func=cmd_seed)
    sub.add_parser("openapi", help="print the OpenAPI document").set_defaults(func=cmd_openapi)
    from liftdesk.telemetry.simulator.cli import cmd_simulate, configure_parser

    p = sub.add_parser("simulate", help="run simulated forklifts against the JT/T 808 gateway")
    configure_parser(p)
    p.set_defaults(func=cmd_simulate)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
