"""Actions of the system context beyond CRUD: the session's own calls, the shell's menus, grants, dictionaries,
tenants and users. Each is declared on its resource (``Resource.action``), which checks the token and the
permission; the calls that need no token are in ``system.public``."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Request
from pydantic import ConfigDict, Field, RootModel
from pydantic.config import JsonDict
from sqlalchemy import delete, select

from liftdesk.core import crud
from liftdesk.core.actions import SIGNED_IN
from liftdesk.core.config import get_settings
from liftdesk.core.envelope import Forbidden, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.ids import ID_RE, ids_pattern
from liftdesk.core.paging import Page, PageIn, PageQuery, page_in
from liftdesk.core.registry import Resource
from liftdesk.core.schemas import NOT_BLANK, Id, Schema, Time, TreeNode, documented
from liftdesk.core.security import ADMINISTRATOR_ROLE_ID, Principal
from liftdesk.system import auth
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system import schemas as s
from liftdesk.system.passwords import UserIdsQuery, accounts_in_tenants

OAUTH = "/api/blade-auth/oauth"
SYS = "/api/blade-system"
FICS = "/api/blade-fics-report/fics"
USER = "/api/blade-user"
#: A query parameter of comma-separated ids (``crud.parse_ids`` reads up to 10,000; the document says 1,000).
IDS: JsonDict = {"pattern": ids_pattern(1000)}


def list_of(model: Any) -> Any:
    """``list[model]`` for a schema built at run time (the answer of an action)."""
    return list[model]


def page_of(model: Any) -> Any:
    """``Page[model]`` for a schema built at run time."""
    return Page[model]


# ---------------------------------------------------------------- the session's own calls


class ErrorLogEntry(Schema):
    type: Annotated[str, Field(max_length=10)] = "error"
    message: Annotated[str, Field(max_length=4000)] = ""
    stack: Annotated[str, Field(max_length=20000)] = ""
    info: Annotated[str, Field(max_length=4000)] = ""
    url: Annotated[str, Field(max_length=2000)] = ""
    time: Annotated[str, Field(max_length=64)] = ""


class ErrorLog(Schema, RootModel[Annotated[list[ErrorLogEntry], Field(max_length=500)]]):
    """The browser's local error log (at most 500 entries), as a JSON array."""


@res.USER.action(
    "POST",
    f"{OAUTH}/logout",
    permission=SIGNED_IN,
    body=ErrorLog,
    answer=int,
    tag="auth",
    summary="Upload the browser's local error log (Saber posts it to the logout path)",
)
async def upload_error_log(ctx: crud.Ctx, body: ErrorLog, request: Request) -> int:
    me = ctx.principal
    for e in body.root:
        ctx.session.add(
            m.LogUsual(
                tenant_id=me.tenant_id,
                service_id="web",
                log_level=e.type,
                log_id="front-end",
                log_data=json.dumps(e.model_dump(), ensure_ascii=False),
                request_uri=e.url[:255],
                user_agent=(request.headers.get("user-agent") or "")[:1000],
                remote_ip=request.client.host if request.client else None,
                create_by=me.account,
            )
        )
    return len(body.root)


class UserInfo(Schema):
    user_id: Id
    tenant_id: str
    account: str
    user_name: str
    real_name: str
    nick_name: str
    avatar: str
    role_id: str
    role_name: str
    dept_id: str
    post_id: str
    permissions: list[str]


@res.USER.action(
    "GET",
    f"{OAUTH}/user-info",
    permission=SIGNED_IN,
    kind="detail",
    answer=UserInfo,
    tag="auth",
    summary="The signed-in user",
)
async def user_info(ctx: crud.Ctx) -> UserInfo:
    me = ctx.principal
    user = await ctx.session.get(m.User, me.user_id)
    if user is None or user.is_deleted:
        raise ServiceError(t("not_found"))
    codes = await _button_codes(ctx.session, me)
    return UserInfo(
        user_id=user.id,
        tenant_id=user.tenant_id,
        account=user.account,
        user_name=user.account,
        real_name=user.real_name or "",
        nick_name=user.name or "",
        avatar=user.avatar or "",
        role_id=user.role_id,
        role_name=",".join(me.role_aliases),
        dept_id=user.dept_id,
        post_id=user.post_id,
        permissions=sorted(codes),
    )


@res.USER.action(
    "GET",
    f"{OAUTH}/clear-cache",
    permission=SIGNED_IN,
    raw=True,
    tag="auth",
    summary="Drop expired captcha, lockout and revocation entries (BladeX's raw {success, msg} answer)",
)
async def clear_cache(ctx: crud.Ctx) -> dict[str, str]:
    from liftdesk.core.kv import KV

    await KV(ctx.session).purge_expired()
    return {"success": "true", "msg": "success"}


class TenantBrief(Schema):
    tenant_id: str
    tenant_name: str


class PasswordQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("password",)))

    password: str = Field(
        default="",
        max_length=64,
        description="md5 hex of the caller's password",
        json_schema_extra={"pattern": NOT_BLANK},
    )


@res.USER.action(
    "POST",
    f"{USER}/getTenantListByAccount",
    permission=SIGNED_IN,
    kind="read",
    query=PasswordQuery,
    answer=list[TenantBrief],
    tag="auth",
    summary="After sign-in: the other tenants where the caller's account exists with the same password",
)
async def tenants_of_account(ctx: crud.Ctx, query: PasswordQuery) -> list[TenantBrief]:
    """BladeX answers this before sign-in for any account, which lists every tenant that has an ``admin``. Here it
    needs the caller's token and password (md5), and names only the tenants where the same account opens with the
    same password; each miss counts as a failed sign-in of that tenant's account (toward its captcha)."""
    from liftdesk.core.kv import KV
    from liftdesk.core.security import verify_password

    me, password = ctx.principal, query.password
    if not password:
        raise ServiceError(t("field_required", field="password"))
    kv = KV(ctx.session)
    out: list[TenantBrief] = []
    for tenant_id, name, stored in await accounts_in_tenants(ctx.session, me.account):
        if tenant_id == me.tenant_id:
            out.append(TenantBrief(tenant_id=tenant_id, tenant_name=name))
            continue
        if int(await kv.get(auth.fail_key(tenant_id, me.account)) or 0) >= auth.CAPTCHA_AFTER:
            continue  # that account needs the captcha: it is chosen by signing in there directly
        if verify_password(stored, password):
            out.append(TenantBrief(tenant_id=tenant_id, tenant_name=name))
        else:
            await kv.incr(auth.fail_key(tenant_id, me.account), auth.LOCK_WINDOW)
    return out


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


async def _granted_menu_ids(session: Any, me: Principal) -> set[int] | None:
    """None means every menu (the platform administrator)."""
    if me.is_administrator:
        return None
    rows = await session.execute(select(m.RoleMenu.menu_id).where(m.RoleMenu.role_id.in_(me.role_ids)))
    return set(rows.scalars().all())


async def _menus(session: Any, me: Principal, category: int | None, top_menu_id: int | None = None) -> list[m.Menu]:
    stmt = select(m.Menu).where(m.Menu.is_deleted == 0).order_by(m.Menu.sort, m.Menu.id)
    all_rows = list((await session.execute(stmt)).scalars().all())
    granted = await _granted_menu_ids(session, me)
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


async def _button_codes(session: Any, me: Principal) -> set[str]:
    return {r.code for r in await _menus(session, me, 2)}


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
    return _menu_tree(await _menus(ctx.session, ctx.principal, 1, query.top_menu_id))


@res.MENU.action(
    "GET",
    f"{SYS}/menu/buttons",
    permission=SIGNED_IN,
    kind="read",
    answer=list[MenuNode],
    summary="The caller's buttons under their menus",
)
async def menu_buttons(ctx: crud.Ctx) -> list[MenuNode]:
    rows = await _menus(ctx.session, ctx.principal, None)
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
    menus = await _menus(ctx.session, ctx.principal, None)
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
    grantable = await _menus(session, me, None)
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
    return GrantTree(menu=_nodes(await _menus(ctx.session, ctx.principal, 1)))


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
    allowed = {r.id for r in await _menus(session, ctx.principal, None)}
    if not set(body.menu_ids) <= allowed:
        raise Forbidden(t("forbidden"), 403)
    for top in tops:
        await session.execute(delete(m.TopMenuSetting).where(m.TopMenuSetting.top_menu_id == top.id))
        session.add_all(m.TopMenuSetting(top_menu_id=top.id, menu_id=i) for i in set(body.menu_ids))
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


# ---------------------------------------------------------------- dictionaries


class DictItem(Schema):
    id: Id
    parent_id: Id
    code: str
    dict_key: str
    dict_value: str
    sort: int
    remark: str | None = None


class DictCodeQuery(Schema):
    code: str = Field(min_length=1, max_length=255, description="the dictionary's code")


class DictParentQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("parent_id",)))

    parent_id: Id | None = Field(default=None, description="the dictionary root")


def _dictionary_actions(resource: Resource, out: type[Schema]) -> None:
    model: Any = resource.model

    @resource.action(
        "GET",
        "dictionary",
        kind="read",
        query=DictCodeQuery,
        answer=list[DictItem],
        summary="Entries of one dictionary code (not sealed), for selects",
    )
    async def dictionary(ctx: crud.Ctx, query: DictCodeQuery) -> list[DictItem]:
        stmt = (
            ctx.scope.select(model)
            .where(model.code == query.code, model.parent_id != 0, model.is_sealed == 0)
            .order_by(model.sort, model.id)
        )
        return [DictItem.model_validate(r) for r in (await ctx.session.execute(stmt)).scalars().all()]

    @resource.action(
        "GET",
        "parent-list",
        kind="read",
        query=page_in(model.__name__, resource.filterable),
        answer=page_of(out),
        summary="Dictionary roots, paged",
    )
    async def parent_list(ctx: crud.Ctx, query: PageIn) -> dict[str, Any]:
        roots = replace(ctx, params={**ctx.params, "parentId_equal": "0"})
        return await crud.page(roots, PageQuery(query.current, query.size, query.ascs, query.descs))

    @resource.action(
        "GET",
        "child-list",
        kind="sub",
        query=DictParentQuery,
        answer=list_of(crud.tree_schema(out)),
        summary="Entries under one dictionary root, as a tree",
    )
    async def child_list(ctx: crud.Ctx, query: DictParentQuery) -> list[dict[str, Any]]:
        if query.parent_id is None:
            raise ServiceError(t("field_required", field="parentId"))
        pid = query.parent_id
        rows = await crud.all_rows(replace(ctx, params={k: v for k, v in ctx.params.items() if k != "parentId"}))
        # Everything below the root (any depth), nested.
        below: set[int] = {pid}
        changed = True
        while changed:
            changed = False
            for r in rows:
                if r["parent_id"] in below and r["id"] not in below:
                    below.add(r["id"])
                    changed = True
        return crud.nest([r for r in rows if r["id"] in below and r["id"] != pid])


_dictionary_actions(res.DICT, s.DictOut)
_dictionary_actions(res.DICT_BIZ, s.DictBizOut)


# ---------------------------------------------------------------- tenants


class TenantSettingQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("ids",)))

    ids: str = Field(default="", description="comma-separated tenant row ids", json_schema_extra=IDS)
    account_number: int = Field(
        default=-1, ge=-1, le=1_000_000, description="accounts the tenant may have (-1: no limit)"
    )
    expire_time: Time | None = Field(default=None, description="end of the tenant's licence (none: never)")


@res.TENANT.action(
    "POST",
    f"{SYS}/tenant/setting",
    permission="edit",
    kind="batch",
    query=TenantSettingQuery,
    answer=bool,
    summary="Set account quota and expiry of tenants",
)
async def tenant_setting(ctx: crud.Ctx, query: TenantSettingQuery) -> bool:
    idents = crud.parse_ids(query.ids)
    rows = (await ctx.session.execute(ctx.scope.select(m.Tenant).where(m.Tenant.id.in_(idents)))).scalars().all()
    if len(rows) != len(set(idents)):
        raise ServiceError(t("not_found"))
    for row in rows:
        row.account_number = query.account_number
        row.expire_time = query.expire_time
        ctx.scope.stamp(row, creating=False)
    return True


class DatasourceQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("tenant_id", "datasource_id")))

    tenant_id: str = Field(
        default="", max_length=12, description="the tenant", json_schema_extra={"pattern": NOT_BLANK}
    )
    datasource_id: str = Field(
        default="", max_length=64, description="the data source (of a list, the first)", json_schema_extra=IDS
    )


@res.TENANT.action(
    "POST",
    f"{SYS}/tenant/datasource",
    permission="edit",
    kind="bind",
    query=DatasourceQuery,
    answer=bool,
    summary="Bind a tenant to a data source",
)
async def tenant_datasource(ctx: crud.Ctx, query: DatasourceQuery) -> bool:
    tenant = (
        await ctx.session.execute(ctx.scope.select(m.Tenant).where(m.Tenant.tenant_id == query.tenant_id))
    ).scalar_one_or_none()
    if tenant is None:
        raise ServiceError(t("tenant_not_found"))
    ds_id = crud.parse_ids(query.datasource_id, "datasourceId")[0]
    dc = await crud.Ctx.build(ctx.session, ctx.principal, res.DATASOURCE)
    await crud.get_scoped(dc, ds_id)
    tenant.datasource_id = ds_id
    return True


# ---------------------------------------------------------------- users (beyond CRUD)


@res.USER.action(
    "POST",
    f"{USER}/unlock",
    permission="edit",
    kind="batch",
    query=UserIdsQuery,
    answer=bool,
    summary="Clear the sign-in failure count of users",
)
async def unlock_users(ctx: crud.Ctx, query: UserIdsQuery) -> bool:
    ids = crud.parse_ids(query.user_ids, "userIds")
    users = (await ctx.session.execute(ctx.scope.select(m.User).where(m.User.id.in_(ids)))).scalars().all()
    if len(users) != len(set(ids)):
        raise ServiceError(t("not_found"))
    for u in users:
        await auth.clear_failures(ctx.session, u.tenant_id, u.account)
    return True


# ---------------------------------------------------------------- shell helpers


class IpOffset(Schema):
    timestamp: int
    offset: int
    zone: str


@res.TENANT.action(
    "GET",
    f"{FICS}/common/getIpOffset",
    permission=SIGNED_IN,
    kind="read",
    answer=IpOffset,
    tag="common",
    summary="Server clock and the tenant's zone offset",
)
async def ip_offset(ctx: crud.Ctx) -> IpOffset:
    minutes = get_settings().tz_offset_minutes
    sign = "+" if minutes >= 0 else "-"
    return IpOffset(
        timestamp=int(datetime.now(UTC).timestamp() * 1000),
        offset=minutes,
        zone=f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}",
    )
