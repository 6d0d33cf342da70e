"""Grants: the trees a role's menus, data scopes and API scopes are granted from, granting them, and the top
menus' grants."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field
from sqlalchemy import delete, select

from liftdesk.core import crud
from liftdesk.core.envelope import Forbidden, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.schemas import Id, Schema, TreeNode, documented
from liftdesk.core.security import ADMINISTRATOR_ROLE_ID
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system.api.common import IDS, SYS
from liftdesk.system.api.menus import granted_menus

# ---------------------------------------------------------------- grants


def _nodes(rows: list[m.Menu]) -> list[TreeNode]:
    flat = [{"id": r.id, "parent_id": r.parent_id, "title": r.name, "key": str(r.id), "value": str(r.id)} for r in rows]
    return [TreeNode.model_validate(n) for n in crud.nest(flat)]


class GrantTree(Schema):
    menu: list[TreeNode]
    data_scope: list[TreeNode] = Field(default_factory=list)
    api_scope: list[TreeNode] = Field(default_factory=list)


async def _scope_nodes(session: Any, model: Any, menus: list[m.Menu]) -> list[TreeNode]:
    scopes = (await session.execute(select(model).where(model.is_deleted == 0))).scalars().all()
    by_menu: dict[int, list[Any]] = {}
    for sc in scopes:
        by_menu.setdefault(sc.menu_id or 0, []).append(sc)
    out = []
    for menu in menus:
        kids = by_menu.get(menu.id, [])
        if kids:
            out.append(
                TreeNode(
                    id=menu.id,
                    parent_id=0,
                    title=menu.name,
                    key=str(menu.id),
                    value=str(menu.id),
                    has_children=True,
                    children=[
                        TreeNode(id=k.id, parent_id=menu.id, title=k.scope_name, key=str(k.id), value=str(k.id))
                        for k in kids
                    ],
                )
            )
    return out


@res.ROLE.action(
    "GET",
    f"{SYS}/menu/grant-tree",
    kind="read",
    answer=GrantTree,
    summary="Menus, data scopes and API scopes one may grant",
)
async def grant_tree(ctx: crud.Ctx) -> GrantTree:
    menus = await granted_menus(ctx.session, ctx.principal, None)
    return GrantTree(
        menu=_nodes(menus),
        data_scope=await _scope_nodes(ctx.session, m.ScopeData, menus),
        api_scope=await _scope_nodes(ctx.session, m.ScopeApi, menus),
    )


class GrantKeys(Schema):
    menu: list[str]
    data_scope: list[str] = Field(default_factory=list)
    api_scope: list[str] = Field(default_factory=list)


class RoleIdsQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("role_ids",)))

    role_ids: str = Field(default="", description="comma-separated role ids", json_schema_extra=IDS)


@res.ROLE.action(
    "GET",
    f"{SYS}/menu/role-tree-keys",
    kind="read",
    query=RoleIdsQuery,
    answer=GrantKeys,
    summary="What the given roles have been granted",
)
async def role_tree_keys(ctx: crud.Ctx, query: RoleIdsQuery) -> GrantKeys:
    ids = crud.parse_ids(query.role_ids, "roleIds")
    session = ctx.session
    roles = (await session.execute(ctx.scope.select(m.Role).where(m.Role.id.in_(ids)))).scalars().all()
    visible = [r.id for r in roles]
    menus = await session.execute(select(m.RoleMenu.menu_id).where(m.RoleMenu.role_id.in_(visible)))
    scopes = (await session.execute(select(m.RoleScope).where(m.RoleScope.role_id.in_(visible)))).scalars().all()
    return GrantKeys(
        menu=sorted({str(i) for i in menus.scalars().all()}),
        data_scope=sorted({str(x.scope_id) for x in scopes if x.scope_category == 1}),
        api_scope=sorted({str(x.scope_id) for x in scopes if x.scope_category == 2}),
    )


class GrantIn(Schema):
    role_ids: Annotated[list[Id], Field(min_length=1)]
    menu_ids: list[Id] = Field(default_factory=list)
    data_scope_ids: list[Id] = Field(default_factory=list)
    api_scope_ids: list[Id] = Field(default_factory=list)


@res.ROLE.action(
    "POST",
    f"{SYS}/role/grant",
    permission="edit",
    kind="bind",
    body=GrantIn,
    answer=bool,
    summary="Replace the menus and scopes granted to roles",
)
async def role_grant(ctx: crud.Ctx, body: GrantIn) -> bool:
    session, me = ctx.session, ctx.principal
    roles = (await session.execute(ctx.scope.select(m.Role).where(m.Role.id.in_(body.role_ids)))).scalars().all()
    if len(roles) != len(set(body.role_ids)):
        raise ServiceError(t("not_found"))
    if any(r.id == ADMINISTRATOR_ROLE_ID for r in roles) and not me.is_administrator:
        raise Forbidden(t("admin_role_only"), 403)
    grantable = await granted_menus(session, me, None)
    allowed = {r.id for r in grantable}
    if not set(body.menu_ids) <= allowed:
        raise Forbidden(t("forbidden"), 403)
    for role in roles:
        await session.execute(delete(m.RoleMenu).where(m.RoleMenu.role_id == role.id))
        await session.execute(delete(m.RoleScope).where(m.RoleScope.role_id == role.id))
        session.add_all(m.RoleMenu(role_id=role.id, menu_id=i) for i in set(body.menu_ids))
        session.add_all(m.RoleScope(role_id=role.id, scope_id=i, scope_category=1) for i in set(body.data_scope_ids))
        session.add_all(m.RoleScope(role_id=role.id, scope_id=i, scope_category=2) for i in set(body.api_scope_ids))
    return True


@res.ROLE.action(
    "GET",
    f"{SYS}/role/select-tree",
    kind="read",
    answer=list[TreeNode],
    summary="Role tree for pickers (roleId marks the caller's)",
)
async def role_select_tree(ctx: crud.Ctx) -> list[TreeNode]:
    return [TreeNode.model_validate(n) for n in await crud.tree_nodes(ctx)]


@res.TOP_MENU.action(
    "GET",
    f"{SYS}/menu/grant-top-tree",
    kind="read",
    answer=GrantTree,
    summary="Menus one may put under a top menu",
)
async def grant_top_tree(ctx: crud.Ctx) -> GrantTree:
    return GrantTree(menu=_nodes(await granted_menus(ctx.session, ctx.principal, 1)))


class TopMenuIdsQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("top_menu_ids",)))

    top_menu_ids: str = Field(default="", description="comma-separated top menu ids", json_schema_extra=IDS)


@res.TOP_MENU.action(
    "GET",
    f"{SYS}/menu/top-tree-keys",
    kind="read",
    query=TopMenuIdsQuery,
    answer=GrantKeys,
    summary="Menus under the given top menus",
)
async def top_tree_keys(ctx: crud.Ctx, query: TopMenuIdsQuery) -> GrantKeys:
    ids = crud.parse_ids(query.top_menu_ids, "topMenuIds")
    session = ctx.session
    tops = (await session.execute(ctx.scope.select(m.TopMenu).where(m.TopMenu.id.in_(ids)))).scalars().all()
    rows = await session.execute(
        select(m.TopMenuSetting.menu_id).where(m.TopMenuSetting.top_menu_id.in_([x.id for x in tops]))
    )
    return GrantKeys(menu=sorted({str(i) for i in rows.scalars().all()}))


class TopGrantIn(Schema):
    top_menu_ids: Annotated[list[Id], Field(min_length=1)]
    menu_ids: list[Id] = Field(default_factory=list)


@res.TOP_MENU.action(
    "POST",
    f"{SYS}/topmenu/grant",
    permission="edit",
    kind="bind",
    body=TopGrantIn,
    answer=bool,
    summary="Replace the menus under top menus",
)
async def top_menu_grant(ctx: crud.Ctx, body: TopGrantIn) -> bool:
    session = ctx.session
    tops = (
        (await session.execute(ctx.scope.select(m.TopMenu).where(m.TopMenu.id.in_(body.top_menu_ids)))).scalars().all()
    )
    if len(tops) != len(set(body.top_menu_ids)):
        raise ServiceError(t("not_found"))
    allowed = {r.id for r in await granted_menus(session, ctx.principal, None)}
    if not set(body.menu_ids) <= allowed:
        raise Forbidden(t("forbidden"), 403)
    for top in tops:
        await session.execute(delete(m.TopMenuSetting).where(m.TopMenuSetting.top_menu_id == top.id))
        session.add_all(m.TopMenuSetting(top_menu_id=top.id, menu_id=i) for i in set(body.menu_ids))
    return True
