"""Scheduled work of the telemetry context: offline detection and retention."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from datetime import date, timedelta

from sqlalchemy import select

from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.system.models import Tenant
from liftdesk.telemetry.models import Event, VehicleState
from liftdesk.telemetry.store import PartitionKeeper, month_start

log = logging.getLogger("liftdesk.jobs")


async def mark_offline(db: Database, days: int = 7) -> int:
    """Vehicles silent for ``days`` or more get one open ``offline`` alarm (closed by their next report)."""
    cutoff = utcnow() - timedelta(days=days)
    opened = 0
    async with db.sessionmaker() as s:
        rows = (await s.execute(select(VehicleState).where(VehicleState.last_seen < cutoff))).scalars().all()
        for st in rows:
            open_events = json.loads(st.open_events or "{}")
            if "offline" in open_events:
                continue
            event_id = next_id()
            begin = st.last_seen or cutoff
            s.add(
                Event(
                    id=event_id,
                    tenant_id=st.tenant_id,
                    vehicle_id=st.vehicle_id,
                    mechanism_id=st.mechanism_id,
                    kind="offline",
                    level=1,
                    begin_time=begin,
                    value=float(days),
                    limit_value=float(days),
                    lat=st.lat,
                    lon=st.lon,
                    detail=json.dumps({"days": days}),
                )
            )
            open_events["offline"] = {"id": str(event_id), "begin": begin.isoformat(), "value": days, "max": days}
            st.open_events = json.dumps(open_events)
            st.online = False
            opened += 1
        await s.commit()
    return opened


async def apply_retention(db: Database, today: date | None = None) -> list[str]:
    """PostgreSQL: drop each tenant's month partitions older than its retention."""
    if db.engine.dialect.name != "postgresql":
        return []
    today = today or utcnow().date()
    keeper = PartitionKeeper()
    dropped: list[str] = []
    async with db.sessionmaker() as s:
        tenants = (await s.execute(select(Tenant.tenant_id, Tenant.retention_months))).all()
        for tenant_id, months in tenants:
            first = month_start(today)
            for _ in range(max(1, months) - 1):
                first = month_start(first - timedelta(days=1))
            dropped += await keeper.drop_before(s, tenant_id, first)
        await s.commit()
    return dropped


class Jobs:
    """Runs the jobs on a fixed period inside the server process."""

    def __init__(self, db: Database, period_s: float = 3600.0, offline_days: int = 7) -> None:
        self.db = db
        self.period_s = period_s
        self.offline_days = offline_days
        self._task: asyncio.Task[None] | None = None

    async def run_once(self) -> None:
        opened = await mark_offline(self.db, self.offline_days)
        dropped = await apply_retention(self.db)
        if opened or dropped:
            log.info("jobs: %d vehicles marked offline, %d partitions dropped", opened, len(dropped))

    async def start(self) -> None:
        async def _loop() -> None:
            while True:
                try:
                    await self.run_once()
                except Exception:
                    log.exception("scheduled jobs failed")
                await asyncio.sleep(self.period_s)

        self._task = asyncio.create_task(_loop(), name="jobs")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
