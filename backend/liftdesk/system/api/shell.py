"""The shell's helpers (system/shell.py has the design): ``common/v3/getCountry``, ``common/v3/ip``,
``common/getEnumToDictList``, ``showHide/find`` / ``options`` and ``pageLog/save`` / ``page`` / ``getPageDict`` /
``getBehaviorCnt``, ``common/getMechanismParamList``.

``common/cosToken`` (a direct-upload credential) is served with the uploads (system/api/files.py): a presigned POST
whose conditions the object store enforces before it stores anything (the one key made by the server, 1 byte to the
upload limit, the ``Content-Type`` of the name's extension, which must be an accepted kind, 10 minutes), recorded as
an attachment whose content is checked whenever it is read through its link (the only way Liftdesk serves a stored
file), before any byte is served. What is not checked: the content before the file is stored (it waits in the bucket
unchecked), and what the bucket itself serves to others under its own access policy. On the local disk it is a 400:
upload with ``file/upload``.

``getMechanismParamList``: the specification names the call and nothing of its parameters or answer. In the old
platform a "mechanism" (机构) is an organisation, as ``mechanismId`` / ``mechanismName`` of the rows that name one
are; the call answers the organisations the caller may see as a flat list for select boxes (``shell.mechanisms``),
guarded and scoped as the organisation tree is (``dept/tree``, ``user-dept-tree``: every signed-in user, the data rule
of the organisations).
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from typing import Any

from fastapi import Request
from sqlalchemy import func, insert, select

from liftdesk.core import crud
from liftdesk.core.db import utcnow
from liftdesk.core.ids import next_id
from liftdesk.core.paging import Page, page_in
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.schemas import Time
from liftdesk.core.services import Services
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system import shell as svc
from liftdesk.system.api.common import FICS

SH = m.ShowHide
PL = m.PageLog


def _address(request: Request) -> str:
    """The connection's peer: no forwarding header is trusted (the server runs without proxy headers)."""
    return request.client.host if request.client else ""


@res.TENANT.action(
    "GET",
    f"{FICS}/common/v3/getCountry",
    permission=SIGNED_IN,
    kind="read",
    answer=svc.Country,
    tag="common",
    summary="The caller's country from their address (isChina); a private address: the configured default",
)
async def get_country(ctx: crud.Ctx, request: Request, services: Services) -> svc.Country:
    return svc.country_of(_address(request), services.settings.default_country)


@res.TENANT.action(
    "GET",
    f"{FICS}/common/v3/ip",
    permission=SIGNED_IN,
    kind="read",
    answer=str,
    tag="common",
    summary="The caller's address as the server sees it",
)
async def get_ip(ctx: crud.Ctx, request: Request) -> str:
    return _address(request)


@res.TENANT.action(
    "GET",
    f"{FICS}/common/getEnumToDictList",
    permission=SIGNED_IN,
    kind="read",
    query=svc.EnumQuery,
    answer=list[svc.EnumDict],
    tag="common",
    summary="The code's enumerations (message types, send types, page behaviours) as dictionary entries",
)
async def enum_to_dict_list(ctx: crud.Ctx, query: svc.EnumQuery) -> list[svc.EnumDict]:
    return svc.enum_dicts(query.code)


@res.DEPT.action(
    "GET",
    f"{FICS}/common/getMechanismParamList",
    kind="read",
    query=svc.MechanismQuery,
    answer=list[svc.Mechanism],
    tag="common",
    summary="The organisations (mechanisms) the caller may see, flat for select boxes in the tree's order (a parent "
    "before its children, siblings by sort), with their path of names; mechanismName: those whose name contains it",
)
async def mechanism_list(ctx: crud.Ctx, query: svc.MechanismQuery) -> list[svc.Mechanism]:
    # every organisation the caller sees (the list's own filters, such as deptName, are no parameters of this call)
    rows = await crud.all_rows(replace(ctx, params={}))
    return svc.mechanisms(crud.nest(rows), query.mechanism_name)


# ---------------------------------------------------------------- showHide


async def _choice(ctx: crud.Ctx, table_key: str) -> m.ShowHide | None:
    stmt = res.SHOW_HIDE.hooks.filter(ctx, ctx.scope.select(SH)).where(SH.table_key == table_key)
    row: m.ShowHide | None = (await ctx.session.execute(stmt)).scalars().first()
    return row


@res.SHOW_HIDE.action(
    "POST",
    "find",
    permission=SIGNED_IN,
    kind="read",
    body=svc.ShowHideFind,
    answer=svc.ShowHideOut,
    summary="The columns the caller hides in one list (none saved: none hidden)",
)
async def show_hide_find(ctx: crud.Ctx, body: svc.ShowHideFind) -> svc.ShowHideOut:
    row = await _choice(ctx, body.table_key)
    return svc.ShowHideOut(table_key=body.table_key, hidden=svc.hidden_of(row))


@res.SHOW_HIDE.action(
    "POST",
    "options",
    permission=SIGNED_IN,
    body=svc.ShowHideIn,
    answer=svc.ShowHideOut,
    summary="Save the columns the caller hides in one list",
)
async def show_hide_options(ctx: crud.Ctx, body: svc.ShowHideIn) -> svc.ShowHideOut:
    hidden = list(dict.fromkeys(body.hidden))
    row = await _choice(ctx, body.table_key)
    if row is None:
        row = SH(user_id=ctx.principal.user_id, table_key=body.table_key)
        ctx.scope.stamp(row, creating=True)
        ctx.session.add(row)
    else:
        ctx.scope.stamp(row, creating=False)
    row.hidden = json.dumps(hidden)
    await ctx.session.flush()
    return svc.ShowHideOut(table_key=body.table_key, hidden=hidden)


# ---------------------------------------------------------------- pageLog


@res.PAGE_LOG.action(
    "POST",
    "save",
    permission=SIGNED_IN,
    body=svc.PageLogBatch,
    answer=int,
    summary="Record the pages the caller opened (up to 50 at once); the answer is how many were recorded",
)
async def page_log_save(ctx: crud.Ctx, body: svc.PageLogBatch) -> int:
    me, now = ctx.principal, utcnow()
    rows = [
        {
            "id": next_id(),
            "tenant_id": ctx.scope.tenant_id,
            "create_user": me.user_id,
            "create_dept": me.dept_id,
            "create_time": now,
            "update_user": me.user_id,
            "update_time": now,
            "page_path": log.page_path,
            "page_name": log.page_name,
            "behavior": log.behavior,
        }
        for log in body.logs
    ]
    await ctx.session.execute(insert(PL), rows)
    return len(rows)


class PageLogPageIn(page_in("PageLog", res.PAGE_LOG.filterable)):  # type: ignore[misc]
    begin_time: Time | None = None
    end_time: Time | None = None


@res.PAGE_LOG.action(
    "GET",
    "page",
    kind="read",
    query=PageLogPageIn,
    answer=Page[svc.PageLogOut],
    summary="Page visits of the tenant, newest first (pagePath, behavior, createUser, beginTime, endTime)",
)
async def page_log_page(ctx: crud.Ctx, query: PageLogPageIn) -> dict[str, Any]:
    where: list[Any] = []
    if query.begin_time is not None:
        where.append(PL.create_time >= query.begin_time)
    if query.end_time is not None:
        where.append(PL.create_time <= query.end_time)
    return await crud.page(ctx, query.page_query(), where)


@res.PAGE_LOG.action(
    "GET",
    "getPageDict",
    kind="read",
    answer=list[svc.PageDictEntry],
    summary="The pages a visit can be of: the menus with a route",
)
async def page_dict(ctx: crud.Ctx) -> list[svc.PageDictEntry]:
    stmt = (
        ctx.scope.select(m.Menu)
        .where(m.Menu.category == 1, m.Menu.path.is_not(None), m.Menu.path.like("/%"))
        .order_by(m.Menu.sort, m.Menu.id)
    )
    seen: dict[str, svc.PageDictEntry] = {}
    for menu in (await ctx.session.execute(stmt)).scalars().all():
        path = menu.path or ""
        if path not in seen:
            seen[path] = svc.PageDictEntry(dict_key=path, dict_value=menu.name, code=menu.code)
    return list(seen.values())


@res.PAGE_LOG.action(
    "GET",
    "getBehaviorCnt",
    kind="aggregate",
    query=svc.BehaviorQuery,
    answer=list[svc.BehaviorCount],
    summary="Visits and distinct visitors per page and behaviour over a period (default the last 30 days)",
)
async def behavior_count(ctx: crud.Ctx, query: svc.BehaviorQuery) -> list[svc.BehaviorCount]:
    end = query.end_time or utcnow()
    begin = query.begin_time or end - timedelta(days=30)
    svc.check_period(begin, end)
    stmt = ctx.scope.apply(
        select(
            PL.page_path,
            func.max(PL.page_name),
            PL.behavior,
            func.count(),
            func.count(PL.create_user.distinct()),
        ),
        PL,
    ).where(PL.create_time >= begin, PL.create_time <= end)
    if query.page_path:
        stmt = stmt.where(PL.page_path == query.page_path)
    if query.behavior:
        stmt = stmt.where(PL.behavior == query.behavior)
    stmt = stmt.group_by(PL.page_path, PL.behavior).order_by(func.count().desc(), PL.page_path)
    return [
        svc.BehaviorCount(page_path=path, page_name=name or "", behavior=behavior, count=n, users=users)
        for path, name, behavior, n, users in (await ctx.session.execute(stmt)).all()
    ]
