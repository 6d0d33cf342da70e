"""Organisations beyond CRUD: a flat page, a page with user counts, the tree with its users, invite codes, the order
of siblings and moving a branch under another parent. Every query goes through the caller's scope (tenant, data
rule of each model's own resource)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field, create_model
from sqlalchemy import func, select

from liftdesk.core import crud
from liftdesk.core.batch import IdsBody, IdsQuery, selected
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.paging import PageIn, page_in
from liftdesk.core.schemas import Id, Schema
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system import schemas as s
from liftdesk.system.api.common import page_of
from liftdesk.system.service import new_invite_code

DEPT_PAGE_IN = page_in("Dept", res.DEPT.filterable)

#: A row of ``orgPage``: the organisation and how many users belong to it (directly, as the caller may see users).
DeptCountOut: Any = create_model(
    "DeptCountOut",
    __base__=s.DeptOut,
    user_count=(int, Field(default=0, description="users of this organisation (not of the ones under it)")),
)


class InviteCode(Schema):
    id: Id
    dept_name: str
    invite_code: str


class UserDeptNode(Schema):
    """An organisation (``nodeType`` dept) or one of its users (``nodeType`` user, a leaf: ``value`` is the user's
    id, ``key`` is unique in the tree, as a user of two organisations shows under both)."""

    id: Id
    parent_id: Id | None = None
    title: str
    key: str
    value: str
    node_type: Literal["dept", "user"]
    has_children: bool = False
    children: list[UserDeptNode] = Field(default_factory=list)


class DeptMoveBody(Schema):
    dept_id: Id = Field(description="the organisation to move (with everything under it)")
    parent_id: Id = Field(description="its new parent organisation (0: a top-level organisation)")


class _Move(Schema):
    """What the layer's update takes: the row and its new parent."""

    id: Id
    parent_id: Id


# ---------------------------------------------------------------- reads


@res.DEPT.action(
    "GET",
    "page-list",
    kind="read",
    query=DEPT_PAGE_IN,
    answer=page_of(s.DeptOut),
    summary="Organisations as a flat page (not nested), filtered like the list: deptName (contains), "
    "deptCategory, parentId_equal ...; ordered by sort unless ascs / descs say otherwise",
)
async def page_list(ctx: crud.Ctx, query: PageIn) -> dict[str, Any]:
    return await crud.page(ctx, query.page_query())


async def _user_counts(ctx: crud.Ctx, dept_ids: Sequence[int]) -> dict[int, int]:
    """Users of each organisation (its own members), counting only the users the caller's scope shows."""
    if not dept_ids:
        return {}
    stmt = ctx.scope.apply(
        select(m.UserDept.dept_id, func.count(func.distinct(m.User.id)))
        .join(m.User, m.User.id == m.UserDept.user_id)
        .where(m.UserDept.dept_id.in_(list(dept_ids)))
        .group_by(m.UserDept.dept_id),
        m.User,
    )
    return {dept: int(n) for dept, n in (await ctx.session.execute(stmt)).all()}


@res.DEPT.action(
    "GET",
    "orgPage",
    kind="read",
    query=DEPT_PAGE_IN,
    answer=page_of(DeptCountOut),
    summary="Organisations as a flat page with the number of users of each (its own members, as far as the "
    "caller may see users); filters and order as page-list",
)
async def org_page(ctx: crud.Ctx, query: PageIn) -> dict[str, Any]:
    answer = await crud.page(ctx, query.page_query())
    counts = await _user_counts(ctx, [r["id"] for r in answer["records"]])
    answer["records"] = [{**r, "user_count": counts.get(r["id"], 0)} for r in answer["records"]]
    return answer


async def _may_read_users(ctx: crud.Ctx) -> bool:
    user_ctx = crud.Ctx(session=ctx.session, principal=ctx.principal, scope=ctx.scope, resource=res.USER)
    try:
        await user_ctx.require("view")
    except ServiceError:
        return False
    return True


@res.DEPT.action(
    "GET",
    "user-dept-tree",
    kind="read",
    answer=list[UserDeptNode],
    summary="The organisation tree with each organisation's users as leaves (pickers: choose a user by "
    "organisation); organisations and users as the caller's scope shows them, and users only to callers who may "
    "read users (the user menu): others get the organisations alone",
)
async def user_dept_tree(ctx: crud.Ctx) -> list[dict[str, Any]]:
    depts = await crud.all_rows(ctx)
    members: dict[int, list[dict[str, Any]]] = {}
    if depts and await _may_read_users(ctx):
        stmt = ctx.scope.apply(
            select(m.UserDept.dept_id, m.User.id, m.User.real_name, m.User.account)
            .join(m.User, m.User.id == m.UserDept.user_id)
            .where(m.UserDept.dept_id.in_([d["id"] for d in depts]))
            .order_by(m.User.real_name, m.User.id),
            m.User,
        )
        for dept_id, user_id, real_name, account in (await ctx.session.execute(stmt)).all():
            members.setdefault(dept_id, []).append(
                {
                    "id": user_id,
                    "parent_id": dept_id,
                    "title": real_name or account,
                    "key": f"{dept_id}-{user_id}",
                    "value": str(user_id),
                    "node_type": "user",
                    "has_children": False,
                    "children": [],
                }
            )

    def node(row: dict[str, Any]) -> dict[str, Any]:
        children = [node(c) for c in row.get("children", [])] + members.get(row["id"], [])
        return {
            "id": row["id"],
            "parent_id": row.get("parent_id"),
            "title": row.get("dept_name") or "",
            "key": str(row["id"]),
            "value": str(row["id"]),
            "node_type": "dept",
            "has_children": bool(children),
            "children": children,
        }

    return [node(r) for r in crud.nest(depts)]


# ---------------------------------------------------------------- changes


@res.DEPT.action(
    "POST",
    "resetInviteCode",
    kind="batch",
    permission="edit",
    query=IdsQuery,
    answer=list[InviteCode],
    summary="A new random invite code for each selected organisation (ids=1,2: all or none), unique in the "
    "tenant; the old codes stop working. Answers the new codes",
)
async def reset_invite_code(ctx: crud.Ctx, query: IdsQuery) -> list[InviteCode]:
    rows: list[m.Dept] = await selected(ctx, query.ids)
    taken: set[str] = set()
    out = []
    for row in rows:
        row.invite_code = await new_invite_code(ctx, taken)
        ctx.scope.stamp(row, creating=False)
        out.append(InviteCode(id=row.id, dept_name=row.dept_name, invite_code=row.invite_code))
    await ctx.session.flush()
    return out


@res.DEPT.action(
    "POST",
    "orgSort",
    kind="batch",
    permission="edit",
    body=IdsBody,
    answer=bool,
    summary="Order organisations of one parent as given ({ids: [first, second, ...]}: sort 1, 2, ...; all or "
    "none): ids of different parents are refused; siblings not given follow them, in their former order",
)
async def org_sort(ctx: crud.Ctx, body: IdsBody) -> bool:
    rows: list[m.Dept] = await selected(ctx, body.ids)
    parents = {r.parent_id for r in rows}
    if len(parents) > 1:
        first = rows[0].parent_id
        strays = [r.dept_name for r in rows if r.parent_id != first]
        raise ServiceError(t("dept_sort_parents", value=", ".join(strays[:20])))
    given = {r.id for r in rows}
    others = ctx.scope.select(m.Dept).where(m.Dept.parent_id == rows[0].parent_id, m.Dept.id.not_in(given))
    rest = (await ctx.session.execute(others.order_by(m.Dept.sort, m.Dept.id))).scalars().all()
    for position, row in enumerate([*rows, *rest], start=1):
        if row.sort != position:
            row.sort = position
            ctx.scope.stamp(row, creating=False)
    await ctx.session.flush()
    return True


@res.DEPT.action(
    "POST",
    "deptTransfer",
    kind="action",
    permission="edit",
    body=DeptMoveBody,
    answer=s.DeptOut,
    summary="Move an organisation, with everything under it, under another parent ({deptId, parentId}; parentId "
    "0: top level). Refused under itself or one of its descendants (400 naming parentId); the paths (ancestors) of "
    "the whole branch follow, so data scopes of own organisation and below see it where it now is",
)
async def dept_transfer(ctx: crud.Ctx, body: DeptMoveBody) -> dict[str, Any]:
    moved: Any = await crud.get_scoped(ctx, body.dept_id)
    if body.parent_id:
        target = ctx.scope.select(m.Dept).where(m.Dept.id == body.parent_id)
        parent = (await ctx.session.execute(target)).scalar_one_or_none()
        if parent is None:
            raise ServiceError(t("field_invalid", field="parentId"))
        if parent.id == moved.id or str(moved.id) in (parent.ancestors or "").split(","):
            raise ServiceError(t("dept_move_loop", field="parentId"))
    # The layer's update: it checks the parent again (a cycle by parent ids), sets the row's ancestors, and the
    # organisation's hooks carry the branch under it (``DeptHooks``).
    return await crud.submit(ctx, _Move(id=moved.id, parent_id=body.parent_id), mode="update")
