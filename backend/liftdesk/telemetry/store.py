"""Durable writes of the pipeline: one transaction per batch.

Positions go in bulk and idempotently (a re-sent position is ignored by the primary key): on PostgreSQL through
``COPY`` into a staging table and one ``INSERT … SELECT … ON CONFLICT DO NOTHING``; on SQLite through
``INSERT OR IGNORE``. Latest states are upserted, daily aggregates incremented, events inserted or closed.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.db import Database, utcnow
from liftdesk.telemetry.models import DailyStat, Event, Position, VehicleState

if TYPE_CHECKING:
    from liftdesk.telemetry.pipeline import Batch, PositionRow, VehicleCtx

POSITION_COLUMNS = (
    "tenant_id",
    "vehicle_id",
    "device_time",
    "server_time",
    "lat",
    "lon",
    "speed",
    "direction",
    "altitude",
    "alarm",
    "status",
    "mileage_km",
    "load_kg",
    "extra",
)
DAILY_SUMS = (
    "boot_s",
    "move_s",
    "load_s",
    "move_load_s",
    "work_s",
    "distance_km",
    "collision_n",
    "speeding_n",
    "overload_n",
    "fence_n",
    "battery_n",
    "fault_n",
    "other_n",
)


def month_start(d: date | datetime) -> date:
    return date(d.year, d.month, 1)


def next_month(d: date) -> date:
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1)


class PartitionKeeper:
    """PostgreSQL only: ``fics_position`` → one list partition per tenant → one range partition per month."""

    def __init__(self) -> None:
        self._done: set[tuple[str, date]] = set()

    @staticmethod
    def names(tenant: str, month: date) -> tuple[str, str]:
        safe = "".join(ch for ch in tenant if ch.isalnum())
        return f"fics_position_t{safe}", f"fics_position_t{safe}_{month:%Y%m}"

    async def ensure(self, session: AsyncSession, tenant: str, month: date) -> None:
        if (tenant, month) in self._done:
            return
        parent, child = self.names(tenant, month)
        lit = tenant.replace("'", "''")
        await session.execute(
            text(
                f"CREATE TABLE IF NOT EXISTS {parent} PARTITION OF fics_position FOR VALUES IN ('{lit}') "
                f"PARTITION BY RANGE (device_time)"
            )
        )
        await session.execute(
            text(
                f"CREATE TABLE IF NOT EXISTS {child} PARTITION OF {parent} "
                f"FOR VALUES FROM ('{month:%Y-%m-%d}') TO ('{next_month(month):%Y-%m-%d}')"
            )
        )
        self._done.add((tenant, month))

    async def drop_before(self, session: AsyncSession, tenant: str, keep_from: date) -> list[str]:
        """Retention: drop the tenant's month partitions that end on or before ``keep_from``'s month."""
        parent, _ = self.names(tenant, keep_from)
        rows = await session.execute(
            text(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = :parent"
            ),
            {"parent": parent},
        )
        dropped = []
        cutoff = f"{parent}_{month_start(keep_from):%Y%m}"
        for (name,) in rows.all():
            if name < cutoff:
                await session.execute(text(f"DROP TABLE IF EXISTS {name}"))
                dropped.append(name)
                self._done = {(t, m) for t, m in self._done if self.names(t, m)[1] != name}
        return dropped


class TelemetryStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.is_pg = db.engine.dialect.name == "postgresql"
        self.partitions = PartitionKeeper()

    async def write(self, batch: Batch) -> None:
        async with self.db.sessionmaker() as s, s.begin():
            if batch.positions or batch.late_positions:
                await self._positions(s, batch.positions, batch.late_positions)
            if batch.new_events:
                await s.execute(insert(Event), batch.new_events)
            for closed in batch.closed_events:
                await s.execute(
                    update(Event)
                    .where(Event.id == closed["id"])
                    .values(end_time=closed["end_time"], max_value=closed["max_value"])
                )
            if batch.daily:
                await self._daily(s, list(batch.daily.values()))
            if batch.states:
                await self._states(s, list(batch.states.values()))

    async def _positions(self, s: AsyncSession, fresh: list[PositionRow], late: list[PositionRow]) -> None:
        """``fresh`` rows are newer than the vehicle's stored state, so none can be stored already: they go in with
        a plain COPY. ``late`` rows (blind-zone backfill, re-sends) may be: they go through insert-or-ignore."""
        if not self.is_pg:
            rows = [dict(zip(POSITION_COLUMNS, r, strict=True)) for r in fresh + late]
            await s.execute(sqlite_insert(Position).on_conflict_do_nothing(), rows)
            return
        for tenant, month in {(r[0], date(r[2].year, r[2].month, 1)) for r in fresh + late}:
            await self.partitions.ensure(s, tenant, month)
        raw = await self._raw(s)
        columns = list(POSITION_COLUMNS)
        if fresh:
            await raw.copy_records_to_table("fics_position", records=fresh, columns=columns)
        if late:
            await raw.execute(
                "CREATE TEMP TABLE IF NOT EXISTS fics_position_stage "
                "(LIKE fics_position INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
            )
            await raw.copy_records_to_table("fics_position_stage", records=late, columns=columns)
            cols = ", ".join(POSITION_COLUMNS)
            # The same late position twice in one batch is skipped the second time by ON CONFLICT DO NOTHING.
            await raw.execute(
                f"INSERT INTO fics_position ({cols}) SELECT {cols} FROM fics_position_stage ON CONFLICT DO NOTHING"
            )

    @staticmethod
    async def _raw(s: AsyncSession) -> Any:
        """PostgreSQL: the asyncpg connection under the session, inside the batch's transaction (bulk statements
        go to it directly: COPY, and upserts with ``executemany``, without the ORM's per-row work)."""
        raw = s.info.get("asyncpg")
        if raw is None:
            # SQLAlchemy's asyncpg adapter opens its transaction lazily, on the first statement it runs; run one so
            # that what goes to the raw connection is inside the batch's transaction.
            await s.execute(text("SELECT 1"))
            conn = await s.connection()
            raw = s.info["asyncpg"] = (await conn.get_raw_connection()).driver_connection
        return raw

    async def _upsert(self, s: AsyncSession, table: str, rows: list[dict[str, Any]], key: str, sets: str) -> None:
        columns = list(rows[0])
        values = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({values}) ON CONFLICT ({key}) DO UPDATE SET {sets}"
        await (await self._raw(s)).executemany(sql, [tuple(r[c] for c in columns) for r in rows])

    def _insert(self, model: Any) -> Any:
        return (pg_insert if self.is_pg else sqlite_insert)(model)

    async def _daily(self, s: AsyncSession, rows: list[dict[str, Any]]) -> None:
        if self.is_pg:
            table = DailyStat.__tablename__
            sums = ", ".join(f"{c} = {table}.{c} + EXCLUDED.{c}" for c in DAILY_SUMS)
            await self._upsert(s, table, rows, "vehicle_id, day", sums)
            return
        stmt = self._insert(DailyStat)
        stmt = stmt.on_conflict_do_update(
            index_elements=["vehicle_id", "day"],
            set_={c: getattr(DailyStat, c) + getattr(stmt.excluded, c) for c in DAILY_SUMS},
        )
        await s.execute(stmt, rows)

    async def _states(self, s: AsyncSession, ctxs: list[VehicleCtx]) -> None:
        now = utcnow()
        rows = []
        for v in ctxs:
            fix = v.last
            if fix is None:
                continue
            bat = fix.battery
            rows.append(
                {
                    "vehicle_id": v.vehicle_id,
                    "tenant_id": v.tenant_id,
                    "mechanism_id": v.mechanism_id,
                    "device_number": v.device,
                    "device_time": fix.time,
                    "server_time": now,
                    "lat": fix.lat,
                    "lon": fix.lon,
                    "speed": fix.speed_kmh,
                    "direction": fix.direction,
                    "alarm": fix.alarm,
                    "status": fix.status,
                    "acc": fix.acc,
                    "state": v.state,
                    "state_since": v.state_since,
                    "mileage_km": v.mileage_km,
                    "load_kg": fix.load_kg,
                    "soc_pct": bat.soc_pct if bat else None,
                    "lock_level": fix.lock_level,
                    "speed_limit_kmh": fix.speed_limit_kmh,
                    "online": True,
                    "last_seen": now,
                    "driver_name": v.driver_name,
                    "extra": json.dumps({"can": v.can}) if v.can else None,
                    "open_events": json.dumps(
                        {
                            k: {
                                "id": str(a.event_id),
                                "begin": a.begin.isoformat(),
                                "value": a.value,
                                "max": a.max_value,
                            }
                            for k, a in v.open.items()
                        }
                    ),
                }
            )
        if not rows:
            return
        keep = [c for c in rows[0] if c not in ("vehicle_id", "tenant_id")]
        if self.is_pg:
            sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in keep)
            await self._upsert(s, VehicleState.__tablename__, rows, "vehicle_id", sets)
            return
        stmt = self._insert(VehicleState)
        stmt = stmt.on_conflict_do_update(
            index_elements=["vehicle_id"], set_={c: getattr(stmt.excluded, c) for c in keep}
        )
        await s.execute(stmt, rows)
