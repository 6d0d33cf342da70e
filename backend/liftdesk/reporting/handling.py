"""Working alarms (报警记录 → 确认 / 处理 / 关闭), after ISA-18.2: an alarm is acknowledged (someone has seen it),
handled (a note, a cause from the tenant's ``alarm_cause`` dictionary, an assignee) and closed once its condition has
ended; each step keeps who and when (``AlarmWork``) and is logged (``AlarmLog``).

Every step reads the alarms through the vehicles the caller may see (tenant, the vehicles' data rule): an alarm of
another tenant or of a vehicle out of scope is unknown, and a selection with one unknown alarm changes nothing.
Acknowledging an acknowledged alarm changes nothing (a supervisor may select a page of alarms); a closed alarm
takes no step; an alarm still active cannot be closed (it would come back as the same condition).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, select

from liftdesk.core.context import Ctx
from liftdesk.core.db import utcnow
from liftdesk.core.envelope import NotFound, ServiceError
from liftdesk.core.i18n import t
from liftdesk.fleet.models import Vehicle
from liftdesk.reporting.alarm_schemas import AlarmLogOut, AlarmWorkOut, AssigneeOut, HandleIn
from liftdesk.reporting.models import ACKNOWLEDGED, CLOSED, HANDLED, UNACKNOWLEDGED, AlarmLog, AlarmWork
from liftdesk.system import models as sm
from liftdesk.telemetry.models import Event

#: The tenant's business dictionary of alarm causes (seeded with ``system.messages.BIZ_DICTS``).
CAUSE_DICT = "alarm_cause"

#: An event on its vehicle (the alarm lists join them the same way: ``reporting.alarms``).
EVENT_ON = and_(Vehicle.id == Event.vehicle_id, Vehicle.tenant_id == Event.tenant_id)


def status_where(status: int) -> ColumnElement[bool]:
    """The alarms in work state ``status`` (``UNACKNOWLEDGED``: no work row yet)."""
    work = exists().where(AlarmWork.event_id == Event.id, AlarmWork.tenant_id == Event.tenant_id)
    if status == UNACKNOWLEDGED:
        return ~work
    return exists().where(
        AlarmWork.event_id == Event.id, AlarmWork.tenant_id == Event.tenant_id, AlarmWork.status == status
    )


async def alarms_of(ctx: Ctx, ids: Sequence[int]) -> list[tuple[Event, str]]:
    """The alarms ``ids`` with their vehicle's number, in the order given; 400 naming those the caller does not
    see."""
    wanted = list(dict.fromkeys(ids))
    rows = (
        await ctx.session.execute(
            select(Event, Vehicle.car_no)
            .join(Vehicle, EVENT_ON)
            .where(Event.id.in_(wanted), *ctx.scope.where(Event), *ctx.scope.where(Vehicle))
        )
    ).all()
    found = {r.Event.id: (r.Event, r.car_no or "") for r in rows}
    missing = [str(i) for i in wanted if i not in found]
    if missing:
        raise NotFound(t("alarm_not_found", value=", ".join(missing[:20])))
    return [found[i] for i in wanted]


async def works_of(ctx: Ctx, events: Sequence[Event]) -> dict[int, AlarmWork]:
    """The work rows of ``events`` (read by the caller already: their tenants and ids)."""
    if not events:
        return {}
    keys = {(e.tenant_id, e.id) for e in events}
    rows = await ctx.session.scalars(
        select(AlarmWork).where(
            AlarmWork.event_id.in_([e.id for e in events]), AlarmWork.tenant_id.in_({e.tenant_id for e in events})
        )
    )
    return {w.event_id: w for w in rows if (w.tenant_id, w.event_id) in keys}


def _named(alarms: Sequence[tuple[Event, str]]) -> str:
    return ", ".join(f"{car_no or event.vehicle_id} #{event.id}" for event, car_no in alarms[:20])


def _refuse_closed(alarms: Sequence[tuple[Event, str]], works: dict[int, AlarmWork]) -> None:
    closed = [a for a in alarms if (w := works.get(a[0].id)) is not None and w.status == CLOSED]
    if closed:
        raise ServiceError(t("alarm_closed", value=_named(closed)))


def _work(ctx: Ctx, event: Event, works: dict[int, AlarmWork]) -> AlarmWork:
    """The alarm's work row; a new one acknowledges it now, by the caller (every later step implies it)."""
    work = works.get(event.id)
    if work is None:
        work = AlarmWork(
            event_id=event.id,
            tenant_id=event.tenant_id,
            vehicle_id=event.vehicle_id,
            begin_time=event.begin_time,
            status=ACKNOWLEDGED,
            ack_user_id=ctx.principal.user_id,
            ack_user_name=_who(ctx),
            ack_time=utcnow(),
        )
        ctx.session.add(work)
        works[event.id] = work
    return work


def _who(ctx: Ctx) -> str:
    return ctx.principal.user_name or ctx.principal.account


def _log(ctx: Ctx, event: Event, action: str, **what: str | None) -> None:
    ctx.session.add(
        AlarmLog(
            tenant_id=event.tenant_id,
            event_id=event.id,
            action=action,
            user_id=ctx.principal.user_id,
            user_name=_who(ctx),
            time=utcnow(),
            **what,
        )
    )


def work_fields(work: AlarmWork | None) -> dict[str, Any]:
    """Where the work on an alarm stands, as the list rows (``AlarmRow``) and the answers (``AlarmWorkOut``) show it."""
    if work is None:
        return {"work_status": UNACKNOWLEDGED}
    return {
        "work_status": work.status,
        "ack_user_name": work.ack_user_name,
        "ack_time": work.ack_time,
        "cause": work.cause,
        "note": work.note,
        "assignee_name": work.assignee_name,
        "close_user_name": work.close_user_name,
        "close_time": work.close_time,
    }


def out(event: Event, work: AlarmWork | None) -> AlarmWorkOut:
    more = (
        {}
        if work is None
        else {
            "assignee_id": work.assignee_id,
            "handle_user_name": work.handle_user_name,
            "handle_time": work.handle_time,
        }
    )
    return AlarmWorkOut(id=event.id, **work_fields(work), **more)


async def acknowledge(ctx: Ctx, ids: Sequence[int]) -> list[AlarmWorkOut]:
    alarms = await alarms_of(ctx, ids)
    events = [e for e, _ in alarms]
    works = await works_of(ctx, events)
    _refuse_closed(alarms, works)
    for event in events:
        if event.id not in works:
            _work(ctx, event, works)
            _log(ctx, event, "ack")
    await ctx.session.flush()
    return [out(e, works.get(e.id)) for e in events]


async def _cause_checked(ctx: Ctx, cause: str | None) -> str | None:
    if not cause:
        return None
    known = await ctx.session.scalar(
        select(sm.DictBiz.id).where(
            sm.DictBiz.code == CAUSE_DICT,
            sm.DictBiz.dict_key == cause,
            sm.DictBiz.parent_id != 0,
            sm.DictBiz.is_deleted == 0,
            sm.DictBiz.tenant_id == ctx.scope.tenant_id,
        )
    )
    if known is None:
        raise ServiceError(t("alarm_cause_unknown", field="cause"))
    return cause


async def _assignee(ctx: Ctx, user_id: int | None) -> tuple[int | None, str | None]:
    if user_id is None:
        return None, None
    row = (
        await ctx.session.execute(
            select(sm.User.id, sm.User.real_name, sm.User.name, sm.User.account).where(
                sm.User.id == user_id, sm.User.is_deleted == 0, sm.User.tenant_id == ctx.scope.tenant_id
            )
        )
    ).first()
    if row is None:
        raise ServiceError(t("alarm_assignee_unknown", field="assigneeId"))
    return row.id, row.real_name or row.name or row.account


#: The most users the assignee picker lists.
MAX_ASSIGNEES = 500


async def assignees(ctx: Ctx) -> list[AssigneeOut]:
    """The users of the caller's tenant an alarm can be assigned to, by name."""
    rows = (
        await ctx.session.execute(
            select(sm.User.id, sm.User.real_name, sm.User.name, sm.User.account)
            .where(sm.User.is_deleted == 0, sm.User.tenant_id == ctx.scope.tenant_id)
            .order_by(sm.User.account)
            .limit(MAX_ASSIGNEES)
        )
    ).all()
    return [AssigneeOut(id=r.id, name=r.real_name or r.name or r.account, account=r.account) for r in rows]


async def handle(ctx: Ctx, body: HandleIn) -> AlarmWorkOut:
    """A note (required), a cause and an assignee on one alarm: acknowledged too if it was not."""
    alarms = await alarms_of(ctx, [body.id])
    ((event, _),) = alarms
    works = await works_of(ctx, [event])
    _refuse_closed(alarms, works)
    cause = await _cause_checked(ctx, body.cause)
    assignee_id, assignee_name = await _assignee(ctx, body.assignee_id)
    work = _work(ctx, event, works)
    work.status = HANDLED
    work.note = body.note
    work.cause = cause
    work.assignee_id, work.assignee_name = assignee_id, assignee_name
    work.handle_user_name, work.handle_time = _who(ctx), utcnow()
    _log(ctx, event, "handle", note=body.note, cause=cause, assignee_name=assignee_name)
    await ctx.session.flush()
    return out(event, work)


async def close(ctx: Ctx, ids: Sequence[int], note: str | None) -> list[AlarmWorkOut]:
    """Close ended alarms: all or none (one still active or closed already: 400 naming them)."""
    alarms = await alarms_of(ctx, ids)
    events = [e for e, _ in alarms]
    works = await works_of(ctx, events)
    _refuse_closed(alarms, works)
    active = [a for a in alarms if a[0].end_time is None]
    if active:
        raise ServiceError(t("alarm_still_active", value=_named(active)))
    now = utcnow()
    for event in events:
        work = _work(ctx, event, works)
        work.status = CLOSED
        work.close_user_name, work.close_time = _who(ctx), now
        if note:
            work.note = note if not work.note else f"{work.note}\n{note}"
        _log(ctx, event, "close", note=note)
    await ctx.session.flush()
    return [out(e, works.get(e.id)) for e in events]


async def history(ctx: Ctx, ident: int) -> list[AlarmLogOut]:
    """The steps of one alarm, oldest first."""
    ((event, _),) = await alarms_of(ctx, [ident])
    rows = await ctx.session.scalars(
        select(AlarmLog)
        .where(AlarmLog.event_id == event.id, AlarmLog.tenant_id == event.tenant_id)
        .order_by(AlarmLog.time, AlarmLog.id)
    )
    return [
        AlarmLogOut(
            action=r.action,
            user_name=r.user_name or "",
            time=r.time,
            note=r.note,
            cause=r.cause,
            assignee_name=r.assignee_name,
        )
        for r in rows
    ]
