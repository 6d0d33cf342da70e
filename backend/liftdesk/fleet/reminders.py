"""Expiry reminders of drivers' licences and papers: the daily job and its rules.

:func:`compute_reminders` looks, for a given day (default: the tenants' today), at every driver's licence validity
(``Driver.license_valid_until``) and every paper in use (not archived) with a validity (``DriverPaper.valid_until``).
A source whose local expiry day is at most 30 days ahead has reached a threshold: 30 (expiring within 30 days), 7
(within 7) or 0 (expired: the day itself or before). The job writes one reminder per source, expiry day and
threshold (the unique index ``ux_fics_driver_reminder``: running twice writes nothing more), only for the most urgent
threshold reached (a licence found 5 days ahead gets the 7-day reminder, not the 30-day one as well). An open
reminder of an earlier threshold, or of an expiry that changed (the paper was renewed), or of a source gone
(removed, archived, or no longer due) is marked done (and opens again, unsent, should it become current again: a
renewal taken back). An ignored reminder stays ignored: it is not written again
for its threshold; the next threshold writes a new one.

Each new reminder is an in-site message (type 9 证件到期) to the receivers the tenant chose for that type (default
its administrators: ``system.messages.receivers``), in the job's transaction.

:class:`ReminderJob` runs it every hour in the process that runs the scheduled jobs (``serve``, ``worker``): each
run is for that day, so the day's reminders are there within an hour of midnight, and a restart loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import insert, select, update

from liftdesk.core.config import get_settings
from liftdesk.core.crud import Ctx
from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.core.resource import Hooks
from liftdesk.fleet.models import Driver, DriverPaper, DriverReminder
from liftdesk.fleet.papers import ARCHIVED, local_day, local_today
from liftdesk.fleet.service import organisation_names
from liftdesk.system.messages import INSERT_CHUNK, PAPER_EXPIRY_TYPE, receivers
from liftdesk.system.models import SiteMessage

log = logging.getLogger("liftdesk.reminders")

THRESHOLDS = (30, 7, 0)
LICENCE, PAPER = 1, 2
EXPIRING, EXPIRED = 1, 2
OPEN, IGNORED, DONE = 0, 1, 2
#: The page of reminders the messages link to.
REMINDER_PATH = "/driver/reminder"
_CHUNK = 500


def threshold_of(days: int) -> int | None:
    """The most urgent threshold ``days`` (left until the expiry day) has reached, if any."""
    if days > THRESHOLDS[0]:
        return None
    for threshold in reversed(THRESHOLDS):
        if days <= threshold:
            return threshold
    return None  # pragma: no cover - days <= 30 reaches 30


#: A reminder's identity: tenant, source, source id, expiry, threshold.
Key = tuple[str, int, int, datetime, int]


@dataclass(frozen=True)
class Due:
    """A source that has reached a threshold on the day the job runs for."""

    tenant_id: str
    source: int
    source_id: int
    driver_id: int
    driver_name: str
    paper_id: int | None
    paper_number: str | None
    mechanism_id: int | None
    expire: datetime
    days: int
    threshold: int

    @property
    def key(self) -> Key:
        return (self.tenant_id, self.source, self.source_id, self.expire, self.threshold)


def _cut(today: date) -> datetime:
    """The first stored (UTC) moment after the last local day a threshold reaches (today + 30)."""
    local = datetime.combine(today + timedelta(days=THRESHOLDS[0] + 1), time())
    return local - timedelta(minutes=get_settings().tz_offset_minutes)


async def _dues(session: Any, today: date) -> list[Due]:
    cut = _cut(today)
    out: list[Due] = []
    licences = await session.execute(
        select(Driver.id, Driver.tenant_id, Driver.name, Driver.mechanism_id, Driver.license_valid_until).where(
            Driver.is_deleted == 0, Driver.license_valid_until.is_not(None), Driver.license_valid_until < cut
        )
    )
    for ident, tenant, name, mechanism, until in licences.all():
        days = (local_day(until) - today).days
        threshold = threshold_of(days)
        if threshold is not None:
            out.append(Due(tenant, LICENCE, ident, ident, name, None, None, mechanism, until, days, threshold))
    papers = await session.execute(
        select(DriverPaper, Driver.name)
        .join(Driver, Driver.id == DriverPaper.driver_id)
        .where(
            DriverPaper.is_deleted == 0,
            DriverPaper.archive_status != ARCHIVED,
            DriverPaper.valid_until.is_not(None),
            DriverPaper.valid_until < cut,
            Driver.is_deleted == 0,
            Driver.tenant_id == DriverPaper.tenant_id,
        )
    )
    for paper, name in papers.all():
        days = (local_day(paper.valid_until) - today).days
        threshold = threshold_of(days)
        if threshold is not None:
            out.append(
                Due(
                    paper.tenant_id,
                    PAPER,
                    paper.id,
                    paper.driver_id,
                    name,
                    paper.id,
                    paper.paper_number,
                    paper.mechanism_id,
                    paper.valid_until,
                    days,
                    threshold,
                )
            )
    return out


async def _existing(session: Any, dues: Sequence[Due]) -> dict[Key, tuple[int, int]]:
    """The reminders already written for these sources: key → (id, state)."""
    found: dict[Key, tuple[int, int]] = {}
    for source in (LICENCE, PAPER):
        ids = sorted({d.source_id for d in dues if d.source == source})
        for start in range(0, len(ids), _CHUNK):
            rows = await session.execute(
                select(
                    DriverReminder.tenant_id,
                    DriverReminder.source,
                    DriverReminder.source_id,
                    DriverReminder.expire_date,
                    DriverReminder.threshold,
                    DriverReminder.id,
                    DriverReminder.remind_state,
                ).where(DriverReminder.source == source, DriverReminder.source_id.in_(ids[start : start + _CHUNK]))
            )
            for tenant, src, source_id, expire, threshold, ident, state in rows.all():
                found[(tenant, src, source_id, expire, threshold)] = (ident, state)
    return found


def _words(due: Due) -> tuple[str, str]:
    """Title and content of the message (zh, as the tenant reads its messages)."""
    what = "驾驶证" if due.source == LICENCE else f"证件 {due.paper_number}"
    day = local_day(due.expire).isoformat()
    if due.threshold == 0:
        return "证件到期", f"司机 {due.driver_name} 的{what}已于 {day} 到期"
    return "证件到期", f"司机 {due.driver_name} 的{what}将于 {day} 到期 (剩余 {due.days} 天)"


async def compute_reminders(db: Database, today: date | None = None) -> int:
    """Write the reminders (and their messages) due on ``today`` (default: the tenants' today) in one transaction;
    returns how many reminders were written."""
    today = today or local_today()
    async with db.sessionmaker() as session, session.begin():
        dues = await _dues(session, today)
        current = {(d.tenant_id, d.source, d.source_id): d.key for d in dues}
        have = await _existing(session, dues)
        fresh = [d for d in dues if d.key not in have]
        # a reminder closed while it was not current (the validity changed and changed back) opens again, unsent
        reopen = [have[d.key][0] for d in dues if d.key in have and have[d.key][1] == DONE]
        now = utcnow()
        if reopen:
            await session.execute(
                update(DriverReminder).where(DriverReminder.id.in_(reopen)).values(remind_state=OPEN, update_time=now)
            )
        # open reminders that are no longer the current one of their source: done
        opened = await session.execute(
            select(
                DriverReminder.id,
                DriverReminder.tenant_id,
                DriverReminder.source,
                DriverReminder.source_id,
                DriverReminder.expire_date,
                DriverReminder.threshold,
            ).where(DriverReminder.remind_state == OPEN, DriverReminder.is_deleted == 0)
        )
        stale = [
            ident
            for ident, tenant, source, source_id, expire, threshold in opened.all()
            if current.get((tenant, source, source_id)) != (tenant, source, source_id, expire, threshold)
        ]
        for start in range(0, len(stale), _CHUNK):
            await session.execute(
                update(DriverReminder)
                .where(DriverReminder.id.in_(stale[start : start + _CHUNK]))
                .values(remind_state=DONE, update_time=now)
            )
        rows = [
            {
                "id": next_id(),
                "tenant_id": d.tenant_id,
                "source": d.source,
                "source_id": d.source_id,
                "driver_id": d.driver_id,
                "paper_id": d.paper_id,
                "mechanism_id": d.mechanism_id,
                "create_dept": d.mechanism_id,
                "expire_date": d.expire,
                "threshold": d.threshold,
                "remind_type": EXPIRED if d.threshold == 0 else EXPIRING,
                "remind_state": OPEN,
                "create_time": now,
                "update_time": now,
                "status": 1,
                "is_deleted": 0,
            }
            for d in fresh
        ]
        for start in range(0, len(rows), _CHUNK):
            await session.execute(insert(DriverReminder), rows[start : start + _CHUNK])
        await _messages(session, list(zip(fresh, rows, strict=True)), now)
    if rows:
        log.info("reminders: %d written for %s (%d marked done)", len(rows), today, len(stale))
    return len(rows)


async def _messages(session: Any, written: list[tuple[Due, dict[str, Any]]], now: datetime) -> int:
    to = await receivers(session, {(d.tenant_id, PAPER_EXPIRY_TYPE) for d, _ in written})
    messages: list[dict[str, Any]] = []
    for due, row in written:
        title, content = _words(due)
        for uid in to.get((due.tenant_id, PAPER_EXPIRY_TYPE), []):
            messages.append(
                {
                    "id": next_id(),
                    "tenant_id": due.tenant_id,
                    "user_id": uid,
                    "msg_type": PAPER_EXPIRY_TYPE,
                    "title": title,
                    "content": content,
                    "user_num": due.driver_name[:64] or None,
                    "business_id": row["id"],
                    "link": REMINDER_PATH,
                    "is_read": 0,
                    "read_time": None,
                    "create_time": now,
                }
            )
    for start in range(0, len(messages), INSERT_CHUNK):
        await session.execute(insert(SiteMessage), messages[start : start + INSERT_CHUNK])
    return len(messages)


class ReminderJob:
    """Runs :func:`compute_reminders` at start and then every ``period_s`` seconds."""

    def __init__(self, db: Database, period_s: float = 3600.0) -> None:
        self.db = db
        self.period_s = period_s
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        async def _loop() -> None:
            while True:
                try:
                    await compute_reminders(self.db)
                except Exception:
                    log.exception("expiry reminders failed")
                await asyncio.sleep(self.period_s)

        self._task = asyncio.create_task(_loop(), name="reminders")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


# ------------------------------------------------------------------------------------------------- the list


class ReminderHooks(Hooks):
    """The reminder list: filters by driver name and paper number (``driverName``, ``paperNumber``) besides the
    columns', and the names, numbers and days left beside each row."""

    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        name = (ctx.params.get("driverName") or "").strip()
        if name:
            drivers = ctx.scope.select(Driver, data=False).with_only_columns(Driver.id)
            stmt = stmt.where(DriverReminder.driver_id.in_(drivers.where(Driver.name.contains(name, autoescape=True))))
        number = (ctx.params.get("paperNumber") or "").strip()
        if number:
            found = ctx.scope.select(DriverPaper, data=False).with_only_columns(DriverPaper.id)
            stmt = stmt.where(
                DriverReminder.paper_id.in_(found.where(DriverPaper.paper_number.contains(number, autoescape=True)))
            )
        return stmt

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not rows:
            return rows
        driver_ids = {r["driver_id"] for r in rows}
        drivers = await ctx.session.execute(
            ctx.scope.select(Driver, data=False)
            .with_only_columns(Driver.id, Driver.name, Driver.license_number)
            .where(Driver.id.in_(driver_ids))
        )
        by_driver = {ident: (name, number) for ident, name, number in drivers.all()}
        paper_ids = {r["paper_id"] for r in rows if r.get("paper_id")}
        found = await ctx.session.execute(
            ctx.scope.select(DriverPaper, data=False)
            .with_only_columns(DriverPaper.id, DriverPaper.paper_number, DriverPaper.paper_type)
            .where(DriverPaper.id.in_(paper_ids))
        )
        by_paper = {ident: (number, kind) for ident, number, kind in found.all()}
        depts = await organisation_names(ctx, {r["mechanism_id"] for r in rows if r.get("mechanism_id")})
        today = local_today()
        for r in rows:
            name, licence = by_driver.get(r["driver_id"], ("", None))
            number, kind = by_paper.get(r.get("paper_id") or 0, (None, None))
            r.update(
                driver_name=name,
                license_number=licence,
                paper_number=number,
                paper_type=kind,
                mechanism_name=depts.get(r.get("mechanism_id") or 0, ""),
                days_left=(local_day(r["expire_date"]) - today).days,
            )
        return rows
