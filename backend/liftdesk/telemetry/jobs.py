"""Scheduled work of the telemetry context: offline detection, retention and the daily re-check of the card lists
(``telemetry.cards.reconcile_card_lists``).

Both tell the rest of the system on the bus once committed: the pipeline (which caches vehicle contexts and
partitions) and the live feed must hear of an offline alarm or of dropped months, also when the jobs run in another
process than the pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import select

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.system.messages import alarm_messages
from liftdesk.system.models import Tenant
from liftdesk.telemetry.cards import reconcile_card_lists
from liftdesk.telemetry.models import Event, VehicleState
from liftdesk.telemetry.rules import Thresholds, tenant_thresholds
from liftdesk.telemetry.store import PARTITIONED, PartitionKeeper, month_start, retention_cut, retention_start
from liftdesk.telemetry.view import EVENT_TOPIC, ONLINE_TOPIC, event_message, online_message

log = logging.getLogger("liftdesk.jobs")

#: A vehicle got an ``offline`` alarm: {deviceNumber, vehicleId, tenantId, eventId, begin, days, deviceTime}.
OFFLINE_TOPIC = "telemetry.offline"
#: A tenant's months before ``keepFrom`` were dropped: {tenantId, keepFrom (ISO date), dropped: [partition names]}.
RETENTION_TOPIC = "telemetry.retention"


async def mark_offline(db: Database, bus: Bus | None = None, now: datetime | None = None) -> int:
    """Vehicles silent (no position, no heartbeat) for their tenant's ``offline_days`` (the ``telemetry_threshold``
    dictionary or the ``telemetry.offlineDays`` parameter, default 7; 0 switches it off) get one open ``offline``
    alarm, closed by their next report. Publishes the alarm for the pipeline and the live feed."""
    now = now or utcnow()
    opened: list[tuple[VehicleState, dict[str, Any]]] = []
    is_pg = db.engine.dialect.name == "postgresql"
    keeper = PartitionKeeper("fics_event")
    async with db.sessionmaker() as s:
        tenants = dict((await s.execute(select(Tenant.tenant_id, Tenant.retention_months))).all())
        limits = await tenant_thresholds(s, list(tenants))
        days_of = {t: lim.offline_days for t, lim in limits.items()}
        # the default too: a vehicle of a tenant without a tenant row goes by it
        shortest = min([d for d in days_of.values() if d > 0] + [Thresholds().offline_days])
        rows = (
            (await s.execute(select(VehicleState).where(VehicleState.last_seen < now - timedelta(days=shortest))))
            .scalars()
            .all()
        )
        for st in rows:
            days = days_of.get(st.tenant_id, Thresholds().offline_days)
            if days <= 0 or st.last_seen is None or st.last_seen >= now - timedelta(days=days):
                continue
            open_events = json.loads(st.open_events or "{}")
            if "offline" in open_events:
                continue
            event_id = next_id()
            begin = st.last_seen
            months = tenants.get(st.tenant_id)
            if months:  # never into a month retention dropped (a vehicle silent for longer than it keeps data)
                begin = max(begin, retention_cut(now.date(), months))
            if is_pg:
                await keeper.ensure(s, st.tenant_id, month_start(begin))
            row: dict[str, Any] = {
                "id": event_id,
                "tenant_id": st.tenant_id,
                "vehicle_id": st.vehicle_id,
                "mechanism_id": st.mechanism_id,
                "kind": "offline",
                "level": 1,
                "begin_time": begin,
                "value": float(days),
                "limit_value": float(days),
                "lat": st.lat,
                "lon": st.lon,
                "detail": json.dumps({"days": days}),
            }
            s.add(Event(**row))
            open_events["offline"] = {"id": str(event_id), "begin": begin.isoformat(), "value": days, "max": days}
            st.open_events = json.dumps(open_events)
            st.online = False
            st.online_since = None
            opened.append((st, row))
        await s.commit()
        plates: dict[int, str] = {}
        if opened:
            ids = [st.vehicle_id for st, _ in opened]
            plates = dict((await s.execute(select(Vehicle.id, Vehicle.car_no).where(Vehicle.id.in_(ids)))).all())
    if opened:  # in-site messages to the receivers of the alarm type, as the pipeline's alarms (never failing)
        await alarm_messages(db, [row for _, row in opened], plates)
    if bus is not None:
        for st, row in opened:
            await bus.publish(
                OFFLINE_TOPIC,
                {
                    "deviceNumber": st.device_number,
                    "vehicleId": str(st.vehicle_id),
                    "tenantId": st.tenant_id,
                    "eventId": str(row["id"]),
                    "begin": row["begin_time"].isoformat(),
                    "days": row["value"],
                    "deviceTime": st.device_time.isoformat() if st.device_time else None,
                },
            )
            await bus.publish(
                ONLINE_TOPIC,
                online_message(
                    vehicle_id=st.vehicle_id,
                    tenant_id=st.tenant_id,
                    mechanism_id=st.mechanism_id,
                    online=False,
                    time=now,
                ),
            )
            await bus.publish(EVENT_TOPIC, event_message(row))
    return len(opened)


async def apply_retention(db: Database, today: date | None = None, bus: Bus | None = None) -> list[str]:
    """PostgreSQL: drop each tenant's month partitions of positions, events and CAN samples older than its retention
    (the months before ``store.retention_start``), and announce the first day kept per tenant."""
    if db.engine.dialect.name != "postgresql":
        return []
    today = today or utcnow().date()
    keepers = [PartitionKeeper(table) for table in PARTITIONED]
    dropped: list[str] = []
    notices: list[dict[str, Any]] = []
    async with db.sessionmaker() as s:
        tenants = (await s.execute(select(Tenant.tenant_id, Tenant.retention_months))).all()
        for tenant_id, months in tenants:
            first = retention_start(today, months)
            gone = [name for keeper in keepers for name in await keeper.drop_before(s, tenant_id, first)]
            if gone:
                notices.append({"tenantId": tenant_id, "keepFrom": first.isoformat(), "dropped": gone})
            dropped += gone
        await s.commit()
    if bus is not None:
        for notice in notices:
            await bus.publish(RETENTION_TOPIC, notice)
    return dropped


class Jobs:
    """Runs the jobs on a fixed period inside the server process."""

    def __init__(self, db: Database, bus: Bus | None = None, period_s: float = 3600.0, commands: Any = None) -> None:
        self.db = db
        self.bus = bus
        self.commands = commands  # the command service the card lists are queued through (None: not re-checked)
        self.period_s = period_s
        self._task: asyncio.Task[None] | None = None

    async def run_once(self) -> None:
        opened = await mark_offline(self.db, self.bus)
        dropped = await apply_retention(self.db, bus=self.bus)
        if self.commands is not None:
            await reconcile_card_lists(self.db, self.commands)
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
