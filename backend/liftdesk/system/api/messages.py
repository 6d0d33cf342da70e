"""In-site messages and their receive settings (system/messages.py has the design).

The caller's own messages (every signed-in user: the bell): ``message/getNotReadCount`` (a number),
``message/messageList`` (paged; ``msgType``, ``isRead``), ``message/messageInfo/{id}`` (opening a message reads it),
``siteMsg/page`` (the generated page, with the generic filters), ``siteMsg/markRead`` (the selected ones, all unread:
a selection holding a read one is refused), ``siteMsg/allRead``, ``siteMsg/del``. Another user's message is "not
found" to every one of them (the resource's filter), and nothing changes.

Receive settings (menu 消息接收设置; writes need its button ``msg_receive_edit``): ``siteMsgReceive/page`` (the alarm
types with how they are sent and who receives them), ``checkSendType`` (in-site on or off), ``restoreDefault`` (in-site,
to the tenant's administrators), ``removeReceiveUser``; ``siteMsgReceiveUser/page`` (the users chosen for a type),
``selectUserList`` (the tenant's users not chosen yet, in the caller's data scope), ``selectUserSub`` (choose them),
``del`` (drop choices by id).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field, create_model
from sqlalchemy import delete, func, select, update

from liftdesk.core import crud
from liftdesk.core.batch import declare_batch
from liftdesk.core.db import utcnow
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.paging import Page, PageIn, page_body, page_in, paginate
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.schemas import Id, Schema
from liftdesk.core.services import Services
from liftdesk.system import messages as svc
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system.schemas import (
    MessageType,
    ReceiveOut,
    ReceiveSendTypeIn,
    ReceiveTypeIn,
    ReceiveUserOut,
    ReceiveUsersIn,
    SiteMessageOut,
)

MSG = f"{res.FICS}/message"
RECEIVE_USER = f"{res.FICS}/siteMsgReceiveUser"
M = m.SiteMessage


#: ``messageList``: paging, sorting by the message's columns, and the filters ``msgType`` and ``isRead`` (applied
#: by the generic filters of ``ctx.params``, equality on these integer columns).
MessageListIn = create_model(
    "MessageListIn",
    __base__=page_in("SiteMessage", res.SITE_MSG.filterable),
    msg_type=(int | None, Field(default=None, ge=1, le=99, description="a key of the dictionary message_type")),
    is_read=(int | None, Field(default=None, ge=0, le=1, description="0 unread, 1 read")),
)


class ReceivePageIn(PageIn):
    msg_type: int | None = Field(default=None, ge=1, le=99, description="one message type only")


class ReceiveUserPageIn(PageIn):
    msg_type: MessageType


class SelectUserIn(PageIn):
    msg_type: MessageType
    account: str | None = Field(default=None, max_length=45, description="part of the account")
    real_name: str | None = Field(default=None, max_length=20, description="part of the name")


class UserChoice(Schema):
    """A user that can be chosen to receive a message type."""

    id: Id
    account: str | None = None
    real_name: str | None = None
    name: str | None = None


def _mine(ctx: crud.Ctx) -> Any:
    """The caller's own messages, through the scope."""
    return res.SITE_MSG.hooks.filter(ctx, ctx.scope.select(M))


# ------------------------------------------------------------------------------------------- own messages


@res.SITE_MSG.action(
    "GET",
    f"{MSG}/getNotReadCount",
    permission=SIGNED_IN,
    kind="aggregate",
    answer=int,
    summary="How many of the caller's messages are unread (a number)",
)
async def not_read_count(ctx: crud.Ctx) -> int:
    stmt = _mine(ctx).where(M.is_read == 0).with_only_columns(func.count()).order_by(None)
    return int((await ctx.session.execute(stmt)).scalar_one())


@res.SITE_MSG.action(
    "GET",
    f"{MSG}/messageList",
    permission=SIGNED_IN,
    kind="read",
    query=MessageListIn,
    answer=Page[SiteMessageOut],
    summary="The caller's messages, newest first (msgType, isRead)",
)
async def message_list(ctx: crud.Ctx, query: PageIn) -> dict[str, Any]:
    return await crud.page(ctx, query.page_query())


@res.SITE_MSG.action(
    "GET",
    f"{MSG}/messageInfo/{{id}}",
    permission=SIGNED_IN,
    kind="detail",
    answer=SiteMessageOut,
    summary="One of the caller's messages; opening it marks it read",
)
async def message_info(ctx: crud.Ctx, ident: int) -> dict[str, Any]:
    row = await crud.get_scoped(ctx, ident)
    assert isinstance(row, M)
    if not row.is_read:
        row.is_read, row.read_time = 1, utcnow()
        await ctx.session.flush()
    return (await res.SITE_MSG.hooks.enrich(ctx, crud.serialise(res.SITE_MSG, [row])))[0]


async def _mark_read(ctx: crud.Ctx, rows: Sequence[Any], services: Services) -> int:
    result = await ctx.session.execute(
        update(M)
        .where(*ctx.scope.where(M), M.user_id == ctx.principal.user_id, M.id.in_([r.id for r in rows]))
        .values(is_read=1, read_time=utcnow())
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


async def _delete(ctx: crud.Ctx, rows: Sequence[Any], services: Services) -> int:
    result = await ctx.session.execute(
        delete(M).where(*ctx.scope.where(M), M.user_id == ctx.principal.user_id, M.id.in_([r.id for r in rows]))
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


declare_batch(
    res.SITE_MSG,
    "POST",
    "markRead",
    name="mark_read",
    summary="Mark the selected messages read (ids=1,2; every one of them unread)",
    permission=SIGNED_IN,
    apply=_mark_read,
    rule=lambda r: not r.is_read,
    refusal="message_read_selected",
    name_of=lambda r: str(r.title),
    answer=int,
)
declare_batch(
    res.SITE_MSG,
    "POST",
    "del",
    name="delete_messages",
    summary="Delete the selected messages (ids=1,2)",
    permission=SIGNED_IN,
    apply=_delete,
    answer=int,
)


@res.SITE_MSG.action(
    "POST", "allRead", permission=SIGNED_IN, answer=int, summary="Mark every message of the caller's read"
)
async def all_read(ctx: crud.Ctx) -> int:
    result = await ctx.session.execute(
        update(M)
        .where(*ctx.scope.where(M), M.user_id == ctx.principal.user_id, M.is_read == 0)
        .values(is_read=1, read_time=utcnow())
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------- receive settings


def _alarm_type(msg_type: int, types: dict[str, str], field: str = "msgType") -> int:
    """A message type the receive settings are about: an alarm type (notices go to everyone)."""
    if msg_type == svc.NOTICE_TYPE:
        raise ServiceError(t("message_type_notice", field=field))
    if msg_type not in svc.ALARM_TYPES or str(msg_type) not in types:
        raise ServiceError(t("message_type_unknown", field=field, value=msg_type))
    return msg_type


async def _names(ctx: crud.Ctx, user_ids: Sequence[int]) -> dict[int, m.User]:
    """Users of the tenant by id (names beside rows already read through the scope: no data rule)."""
    if not user_ids:
        return {}
    stmt = ctx.scope.select(m.User, data=False).where(m.User.id.in_(list(user_ids)))
    return {u.id: u for u in (await ctx.session.execute(stmt)).scalars().all()}


@res.MSG_RECEIVE.action(
    "GET",
    "page",
    kind="read",
    query=ReceivePageIn,
    answer=Page[ReceiveOut],
    summary="The alarm message types: how each is sent and who receives it",
)
async def receive_page(ctx: crud.Ctx, query: ReceivePageIn) -> dict[str, Any]:
    types = await svc.type_labels(ctx.session, ctx.scope.tenant_id)
    sends: dict[int, str] = {k: v for k, v in (await ctx.session.execute(_settings(ctx))).all()}
    chosen_rows = await ctx.session.execute(
        ctx.scope.select(m.MessageReceiveUser, data=False).order_by(m.MessageReceiveUser.create_time)
    )
    chosen: dict[int, list[int]] = {}
    for row in chosen_rows.scalars().all():
        chosen.setdefault(row.msg_type, []).append(row.user_id)
    admins = (await svc.administrators(ctx.session, [ctx.scope.tenant_id])).get(ctx.scope.tenant_id, [])
    live = await _names(ctx, list({u for ids in chosen.values() for u in ids} | set(admins)))  # not deleted
    send_names = dict(svc.SEND_TYPES)
    records = []
    for kind in svc.ALARM_TYPES:
        if str(kind) not in types or (query.msg_type is not None and query.msg_type != kind):
            continue
        picked = [u for u in chosen.get(kind, []) if u in live]
        who = picked or [u for u in admins if u in live]
        send = sends.get(kind, svc.SITE)
        records.append(
            {
                "msg_type": kind,
                "msg_type_name": types[str(kind)],
                "send_type": send,
                "send_type_name": ",".join(send_names.get(k, k) for k in send.split(",") if k),
                "is_default": not picked,
                "receiver_count": len(who),
                "receivers": ",".join(live[u].real_name or live[u].account for u in who[:20]),
            }
        )
    q = query.page_query()
    size = max(1, min(q.size, 1000))
    start = (max(1, q.current) - 1) * size
    pages = -(-len(records) // size)
    return page_body(records[start : start + size], len(records), pages, q)


def _settings(ctx: crud.Ctx) -> Any:
    return ctx.scope.apply(select(m.MessageReceive.msg_type, m.MessageReceive.send_type), m.MessageReceive, data=False)


@res.MSG_RECEIVE.action(
    "POST",
    "checkSendType",
    permission="edit",
    body=ReceiveSendTypeIn,
    answer=bool,
    summary="How the messages of one type are sent (sendType 1: in-site; empty: not sent)",
)
async def check_send_type(ctx: crud.Ctx, body: ReceiveSendTypeIn) -> bool:
    kind = _alarm_type(body.msg_type, await svc.type_labels(ctx.session, ctx.scope.tenant_id))
    stmt = ctx.scope.select(m.MessageReceive, data=False).where(m.MessageReceive.msg_type == kind)
    row = (await ctx.session.execute(stmt)).scalars().first()
    if row is None:
        row = m.MessageReceive(msg_type=kind)
        ctx.scope.stamp(row, creating=True)
        ctx.session.add(row)
    else:
        ctx.scope.stamp(row, creating=False)
    row.send_type = body.send_type
    await ctx.session.flush()
    return True


@res.MSG_RECEIVE.action(
    "POST",
    "restoreDefault",
    permission="edit",
    body=ReceiveTypeIn,
    answer=bool,
    summary="Back to the default of a message type: in-site, to the tenant's administrators",
)
async def restore_default(ctx: crud.Ctx, body: ReceiveTypeIn) -> bool:
    kind = _alarm_type(body.msg_type, await svc.type_labels(ctx.session, ctx.scope.tenant_id))
    R, U = m.MessageReceive, m.MessageReceiveUser
    await ctx.session.execute(delete(R).where(*ctx.scope.where(R, data=False), R.msg_type == kind))
    await ctx.session.execute(delete(U).where(*ctx.scope.where(U, data=False), U.msg_type == kind))
    return True


@res.MSG_RECEIVE.action(
    "POST",
    "removeReceiveUser",
    permission="edit",
    body=ReceiveUsersIn,
    answer=int,
    summary="Users no longer receive a message type (the last one gone: its administrators do again)",
)
async def remove_receive_user(ctx: crud.Ctx, body: ReceiveUsersIn) -> int:
    kind = _alarm_type(body.msg_type, await svc.type_labels(ctx.session, ctx.scope.tenant_id))
    ids = crud.parse_ids(body.user_ids, "userIds")
    U = m.MessageReceiveUser
    result = await ctx.session.execute(
        delete(U).where(*ctx.scope.where(U, data=False), U.msg_type == kind, U.user_id.in_(ids))
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def _receive_user(row: m.MessageReceiveUser, user: m.User | None) -> dict[str, Any]:
    return {
        "id": row.id,
        "msg_type": row.msg_type,
        "user_id": row.user_id,
        "account": user.account if user else None,
        "real_name": user.real_name if user else None,
        "create_time": row.create_time,
    }


@res.MSG_RECEIVE_USER.action(
    "GET",
    "page",
    kind="read",
    query=ReceiveUserPageIn,
    answer=Page[ReceiveUserOut],
    summary="The users chosen to receive one message type",
)
async def receive_user_page(ctx: crud.Ctx, query: ReceiveUserPageIn) -> dict[str, Any]:
    U = m.MessageReceiveUser
    live = ctx.scope.select(m.User, data=False).with_only_columns(m.User.id)
    stmt = (
        ctx.scope.select(U, data=False)
        .where(U.msg_type == query.msg_type, U.user_id.in_(live))
        .order_by(U.create_time.desc(), U.id)
    )
    q = query.page_query()
    rows, total, pages = await paginate(ctx.session, stmt, q)
    users = await _names(ctx, [r.user_id for r in rows])
    return page_body([_receive_user(r, users.get(r.user_id)) for r in rows], total, pages, q)


@res.MSG_RECEIVE_USER.action(
    "GET",
    "selectUserList",
    kind="read",
    query=SelectUserIn,
    answer=Page[UserChoice],
    summary="The tenant's users not yet chosen for a message type (account, realName: parts of them)",
)
async def select_user_list(ctx: crud.Ctx, query: SelectUserIn) -> dict[str, Any]:
    U = m.MessageReceiveUser
    taken = ctx.scope.select(U, data=False).where(U.msg_type == query.msg_type).with_only_columns(U.user_id)
    stmt = ctx.scope.select(m.User).where(m.User.id.not_in(taken))
    if query.account:
        stmt = stmt.where(m.User.account.contains(query.account, autoescape=True))
    if query.real_name:
        stmt = stmt.where(m.User.real_name.contains(query.real_name, autoescape=True))
    q = query.page_query()
    rows, total, pages = await paginate(ctx.session, stmt.order_by(m.User.account, m.User.id), q)
    records = [{"id": u.id, "account": u.account, "real_name": u.real_name, "name": u.name} for u in rows]
    return page_body(records, total, pages, q)


@res.MSG_RECEIVE_USER.action(
    "POST",
    "selectUserSub",
    permission="edit",
    body=ReceiveUsersIn,
    answer=int,
    summary="Choose users to receive a message type (instead of the tenant's administrators)",
)
async def select_user_sub(ctx: crud.Ctx, body: ReceiveUsersIn) -> int:
    kind = _alarm_type(body.msg_type, await svc.type_labels(ctx.session, ctx.scope.tenant_id))
    ids = list(dict.fromkeys(crud.parse_ids(body.user_ids, "userIds")))
    found = ctx.scope.select(m.User).where(m.User.id.in_(ids)).with_only_columns(m.User.id)
    known = set((await ctx.session.execute(found)).scalars().all())
    missing = [str(i) for i in ids if i not in known]
    if missing:
        raise ServiceError(t("message_user_unknown", field="userIds", value=", ".join(missing[:20])))
    U = m.MessageReceiveUser
    had = ctx.scope.select(U, data=False).where(U.msg_type == kind, U.user_id.in_(ids)).with_only_columns(U.user_id)
    present = set((await ctx.session.execute(had)).scalars().all())
    for uid in ids:
        if uid not in present:
            row = U(msg_type=kind, user_id=uid)
            ctx.scope.stamp(row, creating=True)
            ctx.session.add(row)
    await ctx.session.flush()
    return len(ids) - len(present)


async def _drop_choices(ctx: crud.Ctx, rows: Sequence[Any], services: Services) -> int:
    U = m.MessageReceiveUser
    result = await ctx.session.execute(delete(U).where(*ctx.scope.where(U, data=False), U.id.in_([r.id for r in rows])))
    return int(result.rowcount)  # type: ignore[attr-defined]


declare_batch(
    res.MSG_RECEIVE_USER,
    "POST",
    "del",
    name="delete_receive_users",
    summary="Drop the selected choices of receivers (ids=1,2)",
    permission="edit",
    apply=_drop_choices,
    answer=int,
)
