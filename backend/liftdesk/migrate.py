"""Run Alembic migrations programmatically (no alembic.ini needed)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url)
    return cfg


def ensure_sqlite_dir(url: str) -> None:
    if url.startswith("sqlite") and ":///" in url:
        path = url.split(":///", 1)[1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)


async def upgrade(url: str, revision: str = "head") -> None:
    ensure_sqlite_dir(url)
    engine = create_async_engine(url)
    cfg = alembic_config(url)

    def _do(conn: Connection) -> None:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)

    async with engine.begin() as conn:
        await conn.run_sync(_do)
    await engine.dispose()


def upgrade_sync(url: str) -> None:
    asyncio.run(upgrade(url))
