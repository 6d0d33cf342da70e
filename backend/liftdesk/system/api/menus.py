"""The shell's menus (routes, buttons, top menus, visits) and the menu screens' lazy trees."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import Field
from sqlalchemy import select

from liftdesk.core import crud
from liftdesk.core.ids import ID_RE
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.schemas import Id, Schema
from liftdesk.core.security import Principal
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system import schemas as s
from liftdesk.system.api.common import SYS, list_of

# ---------------------------------------------------------------- menus of the shell


class MenuNode(Schema):
    id: Id
    parent_id: Id
    code: str
    name: str
    alias: str | None = None
    path: str | None = None
    source: str | None = None
    sort: int
    category: int
    action: int
    is_open: int
    remark: str | None = None
    has_children: bool = False
    children: list[MenuNode] = Field(default_factory=list)


async def granted_menu_ids(session: Any, me: Principal) -> set[int] | None:
    """None means every menu (the platform administrator)."""
    if me.is_administrator:
        return None
    rows = await session.execute(select(m.RoleMenu.menu_id).where(m.RoleMenu.role_id.in_(me.role_ids)))
    return set(rows.scalars().all())


async def granted_menus(
    session: Any, me: Principal, category: int | None, top_menu_id: int | None = None
) -> list[m.Menu]:
    stmt = select(m.Menu).where(m.Menu.is_deleted == 0).order_by(m.Menu.sort, m.Menu.id)
    all_rows = list((await session.execute(stmt)).scalars().all())
    granted = await granted_menu_ids(session, me)
    by_id = {r.id: r for r in all_rows}
    keep = {r.id for r in all_rows} if granted is None else set(granted) & set(by_id)
    if top_menu_id:
        # Only a top menu of the caller's tenant narrows the tree (another tenant's gives nothing).
        tops = await session.execute(
            select(m.TopMenuSetting.menu_id)
            .join(m.TopMenu, m.TopMenu.id == m.TopMenuSetting.top_menu_id)
            .where(
                m.TopMenuSetting.top_menu_id == top_menu_id,
                m.TopMenu.tenant_id == me.tenant_id,
                m.TopMenu.is_deleted == 0,
            )
        )
        keep &= set(tops.scalars().all())
    for i in list(keep):  # plus all ancestors
        p = by_id[i].parent_id
        while p and p in by_id and p not in keep:
            keep.add(p)
            p = by_id[p].parent_id
    return [r for r in all_rows if r.id in keep and (category is None or r.category == category)]


def _menu_tree(rows: list[m.Menu]) -> list[MenuNode]:
    return [
        MenuNode.model_validate(n)
        for n in crud.nest([MenuNode.model_validate(r).model_dump(by_alias=False) for r in rows])
    ]


async def button_codes(session: Any, me: Principal) -> set[str]:
    return {r.code for r in await granted_menus(session, me, 2)}


class RoutesQuery(Schema):
    top_menu_id: Id | None = Field(default=None, description="only the menus under this top menu")


@res.MENU.action(
    "GET",
    f"{SYS}/menu/routes",
    permission=SIGNED_IN,
    kind="read",
    query=RoutesQuery,
    answer=list[MenuNode],
    summary="The caller's menu tree (category 1), per top menu",
)
async def menu_routes(ctx: crud.Ctx, query: RoutesQuery) -> list[MenuNode]:
    return _menu_tree(await granted_menus(ctx.session, ctx.principal, 1, query.top_menu_id))


@res.MENU.action(
    "GET",
    f"{SYS}/menu/buttons",
    permission=SIGNED_IN,
    kind="read",
    answer=list[MenuNode],
    summary="The caller's buttons under their menus",
)
async def menu_buttons(ctx: crud.Ctx) -> list[MenuNode]:
    rows = await granted_menus(ctx.session, ctx.principal, None)
    buttons = [r for r in rows if r.category == 2]
    parents = {b.parent_id for b in buttons}
    return _menu_tree([r for r in rows if r.category == 2 or r.id in parents])


@res.TOP_MENU.action(
    "GET",
    f"{SYS}/menu/top-menu",
    permission=SIGNED_IN,
    kind="read",
    answer=list_of(s.TopMenuOut),
    tag="menu",
    summary="Top menus of the caller's tenant",
)
async def top_menu(ctx: crud.Ctx) -> list[Any]:
    rows = (await ctx.session.execute(ctx.scope.select(m.TopMenu).order_by(m.TopMenu.sort))).scalars().all()
    return [s.TopMenuOut.model_validate(r) for r in rows]


class VisitIn(Schema):
    menu_id: Id


@res.MENU.action(
    "POST",
    f"{SYS}/menu/visit",
    permission=SIGNED_IN,
    body=VisitIn,
    answer=bool,
    summary="Record that the caller opened a menu item",
)
async def menu_visit(ctx: crud.Ctx, body: VisitIn) -> bool:
    visit = m.MenuVisit(menu_id=body.menu_id)
    ctx.scope.stamp(visit, creating=True)
    visit.tenant_id = ctx.principal.tenant_id
    ctx.session.add(visit)
    return True


@res.MENU.action(
    "GET",
    f"{SYS}/menu/menu-list",
    kind="read",
    answer=list_of(crud.tree_schema(s.MenuOut)),
    summary="Menus only (no buttons) as a tree, filtered by code / name, for choosing a parent",
)
async def menus_only_tree(ctx: crud.Ctx) -> list[dict[str, Any]]:
    return await crud.tree_list(replace(ctx, params={**ctx.params, "category_equal": "1"}))


class ParentQuery(Schema):
    # Also a filter of the list (``parentId``, an integer column): documented as an id, or nothing for the roots.
    parent_id: str = Field(
        default="0",
        max_length=64,
        description="the parent menu (0 or empty: the roots)",
        json_schema_extra={"pattern": f"^(?:{ID_RE})?$"},
    )


@res.MENU.action(
    "GET",
    f"{SYS}/menu/lazy-menu-list",
    kind="read",
    query=ParentQuery,
    answer=list_of(s.MenuOut),
    summary="Menus only (no buttons) directly under parentId",
)
async def lazy_menu_list(ctx: crud.Ctx, query: ParentQuery) -> list[dict[str, Any]]:
    from liftdesk.core.ids import id_of

    pid = query.parent_id if id_of(query.parent_id) is not None else "0"
    return await crud.all_rows(replace(ctx, params={**ctx.params, "category_equal": "1", "parentId_equal": pid}))
