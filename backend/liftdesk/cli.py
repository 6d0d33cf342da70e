"""``liftdesk serve|api|migrate|seed|openapi``."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys

from liftdesk.core.config import get_settings


async def _seed(url: str) -> bool:
    from liftdesk.core.db import Database
    from liftdesk.system.seed import seed

    db = Database(url=url)
    try:
        async with db.sessionmaker() as session:
            return await seed(session)
    finally:
        await db.dispose()


def prepare(url: str) -> None:
    """Migrate to head and seed an empty database."""
    from liftdesk.migrate import upgrade

    asyncio.run(upgrade(url))
    if asyncio.run(_seed(url)):
        logging.getLogger("liftdesk").info("seeded tenant 000000 (admin / admin)")


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from liftdesk.app import create_app

    settings = get_settings()
    if not args.no_migrate:
        prepare(settings.database_url)
    port = args.port or settings.port
    print(f"Liftdesk serving on http://{settings.host}:{port}", flush=True)
    uvicorn.run(
        create_app(settings), host=settings.host, port=port, log_level="info", proxy_headers=False, access_log=False
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
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
