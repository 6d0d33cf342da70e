"""Working alarms from 报警记录 (``reporting.handling``): acknowledge a selection, handle one (note, cause,
assignee), close ended ones, read one's steps. Each change has a button of its own under the menu ``alarm_record``
(``alarm_record_ack``, ``alarm_record_handle``, ``alarm_record_close``), so that a role may watch alarms without
working them; reading the steps needs the menu."""

from __future__ import annotations

from liftdesk.core import crud
from liftdesk.reporting import handling
from liftdesk.reporting.alarm_schemas import (
    AlarmIdQuery,
    AlarmIdsIn,
    AlarmLogOut,
    AlarmWorkOut,
    AssigneeOut,
    CloseIn,
    HandleIn,
)
from liftdesk.reporting.resources import ALARM, ALARM_EXPORT_PREFIX, ALARM_MENU, ALARM_TAG


@ALARM.action(
    "POST",
    f"{ALARM_EXPORT_PREFIX}/ack",
    kind="batch",
    permission=f"{ALARM_MENU}_ack",
    body=AlarmIdsIn,
    answer=list[AlarmWorkOut],
    tag=ALARM_TAG,
    summary="Acknowledge the selected alarms (ids): those acknowledged already stay as they were; a closed one or "
    "one the caller does not see refuses the whole selection",
)
async def acknowledge(ctx: crud.Ctx, body: AlarmIdsIn) -> list[AlarmWorkOut]:
    return await handling.acknowledge(ctx, crud.parse_ids(body.ids))


@ALARM.action(
    "POST",
    f"{ALARM_EXPORT_PREFIX}/handle",
    permission=f"{ALARM_MENU}_handle",
    body=HandleIn,
    answer=AlarmWorkOut,
    tag=ALARM_TAG,
    summary="Handle one alarm: a note (required), a cause (business dictionary alarm_cause) and an assignee (a user "
    "of the tenant); acknowledges it too; a closed alarm refuses",
)
async def handle(ctx: crud.Ctx, body: HandleIn) -> AlarmWorkOut:
    return await handling.handle(ctx, body)


@ALARM.action(
    "POST",
    f"{ALARM_EXPORT_PREFIX}/close",
    kind="batch",
    permission=f"{ALARM_MENU}_close",
    body=CloseIn,
    answer=list[AlarmWorkOut],
    tag=ALARM_TAG,
    summary="Close the selected alarms (ids) with an optional note: each must have ended (an active one would come "
    "back) and not be closed already; all or none",
)
async def close(ctx: crud.Ctx, body: CloseIn) -> list[AlarmWorkOut]:
    return await handling.close(ctx, crud.parse_ids(body.ids), body.note)


@ALARM.action(
    "GET",
    f"{ALARM_EXPORT_PREFIX}/assignees",
    kind="read",
    answer=list[AssigneeOut],
    tag=ALARM_TAG,
    summary="The users of the tenant an alarm can be assigned to (at most 500, by account): the handling form's "
    "picker, for whoever reads the alarms",
)
async def assignees(ctx: crud.Ctx) -> list[AssigneeOut]:
    return await handling.assignees(ctx)


@ALARM.action(
    "GET",
    f"{ALARM_EXPORT_PREFIX}/history",
    kind="sub",
    query=AlarmIdQuery,
    answer=list[AlarmLogOut],
    tag=ALARM_TAG,
    summary="The steps of one alarm's work (acknowledged, handled, closed: by whom, when, note, cause, assignee), "
    "oldest first",
)
async def history(ctx: crud.Ctx, query: AlarmIdQuery) -> list[AlarmLogOut]:
    return await handling.history(ctx, query.id)
