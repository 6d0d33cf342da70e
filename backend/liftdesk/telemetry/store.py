"""Durable writes of the pipeline: one transaction per batch.

Positions go in bulk and idempotently (a re-sent position is ignored by the primary key): on PostgreSQL through
``COPY`` into a staging table and one ``INSERT … SELECT … ON CONFLICT DO NOTHING``; on SQLite through
``INSERT OR IGNORE``. Latest states are upserted, daily aggregates incremented, events inserted or closed.

On PostgreSQL ``fics_position`` and ``fics_event`` are partitioned by tenant, then by month (migrations 0002 and
0006); :class:`PartitionKeeper` creates the partitions a batch needs and retention drops whole months. The pipeline
never writes a row older than its tenant's retention window (``pipeline.run_live``), so no row needs a month that
retention dropped; should a keeper still believe in a dropped partition (retention run by another process, a
retention period shortened meanwhile), the write that fails for it forgets what the keepers know and runs once
more, re-creating the partition - one stale month never fails a batch of every terminal's data.
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Iterable, Sequence
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, insert, or_, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.db import Database, retrying, utcnow
from liftdesk.telemetry.can import COLUMNS as CAN_COLUMNS
from liftdesk.telemetry.messages import Fix
from liftdesk.telemetry.models import CanSample, DailyStat, Event, FaceRecord, Position, VehicleState

if TYPE_CHECKING:
    from liftdesk.telemetry.pipeline.context import Batch, PositionRow, VehicleCtx

log = logging.getLogger("liftdesk.store")

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
    "driver_id",
)
DAILY_SUMS = (
    "boot_s",
    "move_s",
    "load_s",
    "move_load_s",
    "lift_s",
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
#: (PostgreSQL) the tables partitioned by tenant, then by month of this column.
PARTITIONED = {"fics_position": "device_time", "fics_event": "begin_time", "fics_can_sample": "sample_time"}
QUERY_CHUNK = 200  # vehicles per query of the backfill look-ups (bounded statement size)


def month_start(d: date | datetime) -> date:
    return date(d.year, d.month, 1)


def next_month(d: date) -> date:
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1)


def retention_start(today: date, months: int) -> date:
    """The first day a tenant keeping ``months`` months of data keeps on ``today``: the start of the month
    ``months - 1`` months before this one (12 months on 2026-11-23: from 2025-12-01). Retention drops the months
    before it; the pipeline stores nothing older."""
    first = month_start(today)
    for _ in range(max(1, months) - 1):
        first = month_start(first - timedelta(days=1))
    return first


def retention_cut(today: date, months: int) -> datetime:
    return datetime.combine(retention_start(today, months), time())


def fix_signature(fix: Fix) -> int:
    """A stable fingerprint of a fix (the same in every process: no ``hash``), kept on the vehicle's state so that
    a re-sent fix with the time of the last one is still recognised as a re-send after a restart."""
    return zlib.crc32(repr(fix).encode())


def _missing_partition(exc: BaseException) -> bool:
    """PostgreSQL refused a row for want of a partition (SQLSTATE 23514, "no partition of relation … found")."""
    seen: BaseException | None = exc
    for _ in range(4):
        if seen is None:
            return False
        if getattr(seen, "sqlstate", None) == "23514" and "partition" in str(seen):
            return True
        seen = getattr(seen, "orig", None) or seen.__cause__
    return False


class PartitionKeeper:
    """PostgreSQL only: ``table`` → one list partition per tenant → one range partition per month."""

    def __init__(self, table: str = "fics_position") -> None:
        self.table = table
        self._done: set[tuple[str, date]] = set()

    def names(self, tenant: str, month: date) -> tuple[str, str]:
        safe = "".join(ch for ch in tenant if ch.isalnum())
        return f"{self.table}_t{safe}", f"{self.table}_t{safe}_{month:%Y%m}"

    def forget(self, tenants: Iterable[str] | None = None) -> None:
        """Believe in no partition (of these tenants): the next ``ensure`` checks the database again."""
        if tenants is None:
            self._done.clear()
        else:
            gone = set(tenants)
            self._done = {(t, m) for t, m in self._done if t not in gone}

    def forget_names(self, names: Iterable[str]) -> None:
        """Believe no more in these partitions (dropped by retention, possibly in another process)."""
        gone = set(names)
        self._done = {(t, m) for t, m in self._done if self.names(t, m)[1] not in gone}

    async def ensure(self, session: AsyncSession, tenant: str, month: date) -> None:
        if (tenant, month) in self._done:
            return
        parent, child = self.names(tenant, month)
        lit = tenant.replace("'", "''")
        column = PARTITIONED[self.table]
        await session.execute(
            text(
                f"CREATE TABLE IF NOT EXISTS {parent} PARTITION OF {self.table} FOR VALUES IN ('{lit}') "
                f"PARTITION BY RANGE ({column})"
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
        self.forget_names(dropped)
        return dropped


class TelemetryStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.is_pg = db.engine.dialect.name == "postgresql"
        self.partitions = PartitionKeeper("fics_position")
        self.event_partitions = PartitionKeeper("fics_event")
        self.can_partitions = PartitionKeeper("fics_can_sample")

    def forget_partitions(self, names: Iterable[str]) -> None:
        names = list(names)
        self.partitions.forget_names(names)
        self.event_partitions.forget_names(names)
        self.can_partitions.forget_names(names)

    async def write(self, batch: Batch) -> None:
        """One transaction; again when it lost a deadlock to another writer of the same rows (the online marks and
        last-seen touches of many terminals at once), or met a partition dropped meanwhile."""
        try:
            await retrying(lambda: self._write(batch))
        except Exception as exc:
            if not (self.is_pg and _missing_partition(exc)):
                raise
            tenants = (
                {r[0] for r in batch.positions + batch.late_positions}
                | {e["tenant_id"] for e in batch.new_events}
                | {tenant for tenant, _, _ in batch.can}
            )
            log.warning("a partition of tenant(s) %s was dropped meanwhile: writing the batch again", sorted(tenants))
            self.partitions.forget(tenants)
            self.event_partitions.forget(tenants)
            self.can_partitions.forget(tenants)
            await self._write(batch)  # the transaction rolled back whole: nothing of the first attempt is stored

    async def _write(self, batch: Batch) -> None:
        async with self.db.sessionmaker() as s, s.begin():
            if batch.positions or batch.late_positions:
                await self._positions(s, batch.positions, batch.late_positions)
            if batch.new_events:
                if self.is_pg:
                    for tenant, month in {(e["tenant_id"], month_start(e["begin_time"])) for e in batch.new_events}:
                        await self.event_partitions.ensure(s, tenant, month)
                await s.execute(insert(Event), batch.new_events)
            for closed in batch.closed_events:
                await self.close_event(s, closed)
            if batch.faces:
                await s.execute(insert(FaceRecord), batch.faces)
            if batch.can:
                await self._can(s, batch)
            if batch.daily:
                # rows in key order, as every writer of many rows takes them: fewer deadlocks to lose
                await self._daily(s, sorted(batch.daily.values(), key=lambda r: (r["vehicle_id"], r["day"])))
            if batch.states:
                await self._states(s, sorted(batch.states.values(), key=lambda v: v.vehicle_id))
            for v in batch.open_only.values():
                if v.vehicle_id not in batch.states:
                    await s.execute(
                        update(VehicleState)
                        .where(VehicleState.vehicle_id == v.vehicle_id)
                        .values(open_events=open_events_json(v))
                    )

    @staticmethod
    async def close_event(s: AsyncSession, closed: dict[str, Any]) -> None:
        """End an interval alarm. The tenant and begin time are in the statement so that PostgreSQL looks in one
        partition of ``fics_event`` (its primary key is (id, tenant, begin time)); an alarm remembered without
        them (a state written before migration 0006) is found by id alone."""
        values = {"end_time": closed["end_time"], "max_value": closed["max_value"]}
        begin = closed.get("begin_time")
        if begin is not None:
            result = await s.execute(
                update(Event)
                .where(Event.id == closed["id"], Event.tenant_id == closed["tenant_id"], Event.begin_time == begin)
                .values(**values)
            )
            if result.rowcount:  # type: ignore[attr-defined]
                return
        await s.execute(update(Event).where(Event.id == closed["id"]).values(**values))

    async def _positions(self, s: AsyncSession, fresh: list[PositionRow], late: list[PositionRow]) -> None:
        """``fresh`` rows are newer than the vehicle's stored state, so none can be stored already: they go in with
        a plain COPY. ``late`` rows (blind-zone backfill) were checked against what is stored, but go through
        insert-or-ignore all the same: the same late fix twice in one batch, or a write racing ours, is harmless."""
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

    async def _can(self, s: AsyncSession, batch: Batch) -> None:
        """The decoded CAN samples in one executemany statement; a sample stored already (the same upload again) is
        skipped. Every row names every column (null: not sent), so that one statement takes them all."""
        if self.is_pg:
            for tenant, month in {(t, month_start(when)) for t, _, when in batch.can}:
                await self.can_partitions.ensure(s, tenant, month)
        rows = [
            {**dict.fromkeys(CAN_COLUMNS), **values, "tenant_id": t, "vehicle_id": v, "sample_time": when}
            for (t, v, when), values in batch.can.items()
        ]
        await s.execute(self._insert(CanSample).on_conflict_do_nothing(), rows)

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
        """The vehicles' live states. While a terminal's clock is wrong (``v.clock``) the columns show its latest
        report, dated by the server time it arrived at, with ``clock_fault_time`` the time its clock gave; the last
        plausible fix (what a restarted pipeline goes on from) is kept in ``extra["plain"]``."""
        now = utcnow()
        rows = []
        bare: list[VehicleCtx] = []
        for v in ctxs:
            last, fault = v.last, v.clock
            fix = fault.fix if fault is not None else last
            if fix is None:
                bare.append(v)  # no report yet (a card presented first): its driver only
                continue
            bat = fix.battery
            # the last valid position: a fix without GNSS does not move the vehicle
            where = fault.where if fault is not None else v.located
            extra: dict[str, Any] = {"sigs": [fix_signature(f) for f in (last, *v.twins)] if last else []}
            if v.sigs:
                extra["sigs"] += sorted(v.sigs)
            if v.can:
                extra["can"] = v.can
            if last is not None and last.lifting is not None:
                extra["lifting"] = last.lifting
            if last is not None and last.fault_codes:  # a fault still present after a restart is not new
                extra["faults"] = list(last.fault_codes)
            if fault is not None:
                extra["plain"] = plain_fix(last, v.located)
            rows.append(
                {
                    "vehicle_id": v.vehicle_id,
                    "tenant_id": v.tenant_id,
                    "mechanism_id": v.mechanism_id,
                    "device_number": v.device,
                    "device_time": fault.received if fault is not None else fix.time,
                    "server_time": now,
                    "lat": where.lat if where is not None else None,
                    "lon": where.lon if where is not None else None,
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
                    "driver_id": v.driver_id,
                    "driver_card": v.driver_card,
                    "extra": json.dumps(extra),
                    "open_events": open_events_json(v),
                    "clock_fault_time": fault.fix.time if fault is not None else None,
                }
            )
        if bare:
            await self._drivers_only(s, bare)
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

    async def _drivers_only(self, s: AsyncSession, ctxs: list[VehicleCtx]) -> None:
        """The driver of vehicles whose terminal has sent no fix yet (a card presented before any position)."""
        rows = [
            {
                "vehicle_id": v.vehicle_id,
                "tenant_id": v.tenant_id,
                "mechanism_id": v.mechanism_id,
                "device_number": v.device,
                "driver_id": v.driver_id,
                "driver_name": v.driver_name,
                "driver_card": v.driver_card,
                "open_events": open_events_json(v),
            }
            for v in ctxs
        ]
        stmt = self._insert(VehicleState)
        keep = ("driver_id", "driver_name", "driver_card", "open_events")
        stmt = stmt.on_conflict_do_update(
            index_elements=["vehicle_id"], set_={c: getattr(stmt.excluded, c) for c in keep}
        )
        await s.execute(stmt, rows)

    # ------------------------------------------------------------------ reads of the backfill (late fixes)

    async def stored_around(self, windows: Sequence[tuple[str, int, datetime, datetime]]) -> dict[int, list[Fix]]:
        """The stored positions of each (tenant, vehicle) between two times, as fixes, oldest first: what a
        blind-zone backfill lands among. One query per ``QUERY_CHUNK`` vehicles, never one per fix."""
        out: dict[int, list[Fix]] = {}
        for i in range(0, len(windows), QUERY_CHUNK):
            chunk = windows[i : i + QUERY_CHUNK]
            stmt = select(
                Position.vehicle_id,
                Position.device_time,
                Position.lat,
                Position.lon,
                Position.speed,
                Position.direction,
                Position.alarm,
                Position.status,
                Position.mileage_km,
                Position.load_kg,
                Position.extra,
            ).where(
                or_(
                    *(
                        and_(
                            Position.tenant_id == tenant,
                            Position.vehicle_id == vid,
                            Position.device_time >= lo,
                            Position.device_time <= hi,
                        )
                        for tenant, vid, lo, hi in chunk
                    )
                )
            )
            async with self.db.sessionmaker() as s:
                rows = (await s.execute(stmt.order_by(Position.device_time))).all()
            for vid, when, lat, lon, speed, direction, alarm, status, mileage, load, raw in rows:
                extra = json.loads(raw) if raw else {}
                out.setdefault(vid, []).append(
                    Fix(
                        time=when,
                        lat=lat,
                        lon=lon,
                        speed_kmh=speed,
                        direction=direction,
                        alarm=alarm,
                        status=status,
                        mileage_km=mileage,
                        load_kg=load,
                        impact_g=extra.get("impact_g"),
                        lifting=extra.get("lifting"),
                        fault_codes=tuple(extra.get("faults", ())),
                    )
                )
        return out

    async def alarms_over(self, windows: Sequence[tuple[str, int, datetime, datetime]]) -> dict[int, set[str]]:
        """The ``VehicleCtx.open`` keys of the interval alarms of each (tenant, vehicle) that were open at some time
        between two times (still open, or closed after the first): a backfill for that stretch must not open them
        a second time."""
        out: dict[int, set[str]] = {}
        for i in range(0, len(windows), QUERY_CHUNK):
            chunk = windows[i : i + QUERY_CHUNK]
            stmt = select(Event.vehicle_id, Event.kind, Event.detail).where(
                or_(
                    *(
                        and_(
                            Event.tenant_id == tenant,
                            Event.vehicle_id == vid,
                            Event.begin_time <= hi,
                            or_(Event.end_time.is_(None), Event.end_time > lo),
                        )
                        for tenant, vid, lo, hi in chunk
                    )
                ),
                or_(Event.end_time.is_(None), Event.end_time > Event.begin_time),  # instant events hold nothing open
            )
            async with self.db.sessionmaker() as s:
                rows = (await s.execute(stmt)).all()
            for vid, kind, detail in rows:
                key = kind
                if kind.startswith("fence_"):
                    fence_id = json.loads(detail or "{}").get("fenceId")
                    key = f"{kind}:{fence_id}" if fence_id else kind
                out.setdefault(vid, set()).add(key)
        return out


def plain_fix(last: Fix | None, located: Fix | None) -> dict[str, Any] | None:
    """The history's last fix as the state columns would hold it (the last valid position, the last fix's values),
    kept in ``extra["plain"]`` while the columns show a clock fault's report; None when there is none."""
    if last is None:
        return None
    return {
        "time": last.time.isoformat(),
        "lat": located.lat if located is not None else None,
        "lon": located.lon if located is not None else None,
        "speed": last.speed_kmh,
        "direction": last.direction,
        "alarm": last.alarm,
        "status": last.status,
        "load": last.load_kg,
    }


def open_events_json(v: VehicleCtx) -> str:
    """``fics_car_state.open_events``: the vehicle's alarms in progress, so that a restarted pipeline closes them."""
    return json.dumps(
        {
            k: {"id": str(a.event_id), "begin": a.begin.isoformat(), "value": a.value, "max": a.max_value}
            for k, a in v.open.items()
            if a.event_id
        }
    )
