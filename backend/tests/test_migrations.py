"""The migrations build exactly the schema the models declare, on SQLite and PostgreSQL.

A fresh, empty database is upgraded to head with ``liftdesk.migrate.upgrade`` (what ``liftdesk migrate`` and
``serve`` run) and compared with ``Base.metadata`` by Alembic's autogenerate comparison, types and server defaults
included: a model changed without a migration, or a migration that drifted from its model, shows up as a
difference. The databases are made here rather than taken from the ``database`` fixture, whose PostgreSQL
database gains partitions as other tests write positions.

Alembic's comparison does not look at primary keys, so they are compared here, table by table.

Allowance (PostgreSQL): ``fics_position`` (migration 0002) and ``fics_event`` (0006) are partitioned by LIST
(tenant), then each tenant's table by RANGE (month of the device time / begin time) at run time
(``store.PartitionKeeper``). The models do not declare the partitioning and the comparison cannot see it, so it is
checked against the catalogue. A partitioned table's primary key must hold the partition keys, so on PostgreSQL
those tables' keys are the model's plus tenant and time (``fics_event``: (id, tenant_id, begin_time) where the
model, and SQLite, have (id)). The run-time partitions (``fics_position_t*``, ``fics_event_t*``) are not in the
metadata and do not exist in a fresh database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from liftdesk.app import build_registry
from liftdesk.core.db import Base
from liftdesk.migrate import alembic_config, upgrade
from tests.conftest import BACKENDS, _create_pg_database, _drop_pg_database


def differences(conn: Connection) -> list[Any]:
    context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
    return list(compare_metadata(context, Base.metadata))


#: PostgreSQL: partitioned table → the partition columns its primary key holds besides the model's.
PARTITIONED = {
    "fics_position": {"tenant_id", "device_time"},
    "fics_event": {"tenant_id", "begin_time"},
    "fics_can_sample": {"tenant_id", "sample_time"},
}


def primary_keys(conn: Connection) -> dict[str, set[str]]:
    found = inspect(conn)
    return {name: set(found.get_pk_constraint(name)["constrained_columns"]) for name in Base.metadata.tables}


def partition_keys(conn: Connection) -> dict[str, str]:
    rows = conn.execute(
        text(
            "SELECT c.relname, pg_get_partkeydef(c.oid) FROM pg_partitioned_table p "
            "JOIN pg_class c ON c.oid = p.partrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema()"
        )
    )
    return {name: key for name, key in rows.all()}


def current_revision(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_migrations_at_head_match_the_models(backend: str, tmp_path: Path) -> None:
    build_registry()  # every context's models in the metadata, as the migrations' env.py has them
    pg_name = None
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'migrated.db'}"
    else:
        url, pg_name = await _create_pg_database()
    try:
        await upgrade(url)
        engine = create_async_engine(url)
        try:
            async with engine.connect() as conn:
                diff = await conn.run_sync(differences)
                revision = await conn.run_sync(current_revision)
                keys = await conn.run_sync(primary_keys)
                partitioning = await conn.run_sync(partition_keys) if backend == "postgresql" else {}
        finally:
            await engine.dispose()
    finally:
        if pg_name is not None:
            await _drop_pg_database(pg_name)

    assert diff == [], "the models and the migrations differ (a migration is missing or wrong):\n" + "\n".join(
        map(str, diff)
    )
    assert revision == ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    expected = {name: {c.name for c in table.primary_key.columns} for name, table in Base.metadata.tables.items()}
    if backend == "postgresql":
        assert partitioning == dict.fromkeys(PARTITIONED, "LIST (tenant_id)"), f"partitioned tables: {partitioning}"
        for name, extra in PARTITIONED.items():
            expected[name] |= extra
    wrong = {
        name: (sorted(keys.get(name, ())), sorted(cols)) for name, cols in expected.items() if keys.get(name) != cols
    }
    assert not wrong, f"primary keys (table: (database, expected)): {wrong}"
