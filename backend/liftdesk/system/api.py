"""Endpoints of the system context that are not plain CRUD: sign-in, the shell's menus, grants, dictionaries."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse
from pydantic import Field
from sqlalchemy import delete, select

from liftdesk.core import crud
from liftdesk.core.config import get_settings
from liftdesk.core.deps import AUTH_REVOKED, CurrentUser, SessionDep
from liftdesk.core.envelope import Forbidden, OAuthError, R, ServiceError, ok, r_list_of
from liftdesk.core.i18n import t
from liftdesk.core.ids import id_of
from liftdesk.core.paging import PageQuery, r_page_of
from liftdesk.core.router import Current, Size
from liftdesk.core.schemas import Id, Schema, TreeNode, _to_time
from liftdesk.core.security import ADMINISTRATOR_ROLE_ID, Principal, token_from_request
from liftdesk.system import auth
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system import schemas as s

router = APIRouter()
OAUTH = "/api/blade-auth/oauth"
SYS = "/api/blade-system"
FICS = "/api/blade-fics-report/fics"


# ---------------------------------------------------------------- sign-in and session


@router.post(f"{OAUTH}/token", tags=["auth"], summary="Sign in (password, captcha) or refresh; raw OAuth2 answer")
async def token(request: Request, session: SessionDep) -> JSONResponse:
    params: dict[str, str] = dict(request.query_params)
    if request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        form = await request.form()
        params.update({k: str(v) for k, v in form.items()})
    grant = params.get("grant_type", "password")
    if grant not in auth.GRANTS:
        raise OAuthError(t("grant_unsupported", grant=grant), "unsupported_grant_type")
    client = await auth.check_client(session, request.headers.get("authorization"), grant)
    if grant == "refresh_token":
        return JSONResponse(await auth.refresh_grant(session, client, params.get("refresh_token", "")))
    if grant == "social":
        raise OAuthError(t("social_not_configured"), "unsupported_grant_type")
    captcha_checked = False
    if grant == "captcha" or request.headers.get("captcha-key"):
        await auth.check_captcha(session, request.headers.get("captcha-key"), request.headers.get("captcha-code"))
        captcha_checked = True
    tenant_id = request.headers.get("tenant-id") or params.get("tenantId") or params.get("tenant_id") or "000000"
    account = params.get("username", "").strip()
    password = params.get("password", "").strip()
    if not account:
        raise OAuthError(t("field_required", field="username"))
    if not password:
        raise OAuthError(t("field_required", field="password"))
    address = request.client.host if request.client else ""
    return JSONResponse(
        await auth.password_grant(session, client, tenant_id, account, password, address, captcha_checked)
    )


@router.get(f"{OAUTH}/captcha", tags=["auth"], summary="A 5-character image captcha valid for 30 minutes")
async def captcha(session: SessionDep) -> dict[str, str]:
    return await auth.new_captcha(session)


@router.get(f"{OAUTH}/logout", tags=["auth"], summary="Revoke the caller's tokens in every process")
async def logout(request: Request, session: SessionDep) -> dict[str, str]:
    tok = token_from_request(request)
    if tok:
        jti = await auth.revoke(session, tok)
        bus = getattr(request.app.state, "bus", None)
        if jti and bus is not None:  # the live sockets opened with this token close in every process
            await bus.publish(AUTH_REVOKED, {"jti": jti})
    return {"success": "true", "msg": "success"}


class ErrorLogEntry(Schema):
    type: Annotated[str, Field(max_length=10)] = "error"
    message: Annotated[str, Field(max_length=4000)] = ""
    stack: Annotated[str, Field(max_length=20000)] = ""
    info: Annotated[str, Field(max_length=4000)] = ""
    url: Annotated[str, Field(max_length=2000)] = ""
    time: Annotated[str, Field(max_length=64)] = ""


@router.post(f"{OAUTH}/logout", tags=["auth"], summary="Upload the browser's local error log")
async def upload_error_log(
    request: Request,
    session: SessionDep,
    me: CurrentUser,
    entries: Annotated[list[ErrorLogEntry], Body(max_length=500)],
) -> R[int]:
    for e in entries:
        session.add(
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
    await session.commit()
    return ok(len(entries))


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


@router.get(f"{OAUTH}/user-info", tags=["auth"], summary="The signed-in user")
async def user_info(session: SessionDep, me: CurrentUser) -> R[UserInfo]:
    user = await session.get(m.User, me.user_id)
    if user is None or user.is_deleted:
        raise ServiceError(t("not_found"))
    codes = await _button_codes(session, me)
    return ok(
        UserInfo(
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
    )


@router.get(f"{OAUTH}/clear-cache", tags=["auth"], summary="Drop expired captcha, lockout and revocation entries")
async def clear_cache(session: SessionDep, me: CurrentUser) -> dict[str, str]:
    from liftdesk.core.kv import KV

    await KV(session).purge_expired()
    await session.commit()
    return {"success": "true", "msg": "success"}


class TenantBrief(Schema):
    tenant_id: str
    tenant_name: str


@router.post(
    "/api/blade-user/getTenantListByAccount",
    tags=["auth"],
    summary="After sign-in: the other tenants where the caller's account exists with the same password",
)
async def tenants_of_account(
    session: SessionDep, me: CurrentUser, password: Annotated[str, Query(max_length=64)] = ""
) -> R[list[TenantBrief]]:
    """BladeX answers this before sign-in for any account, which lists every tenant that has an ``admin``. Here it
    needs the caller's token and password (md5), and names only the tenants where the same account opens with the
    same password; each miss counts as a failed sign-in of that tenant's account (toward its captcha)."""
    from liftdesk.core.kv import KV
    from liftdesk.core.security import verify_password
    from liftdesk.system.passwords import accounts_in_tenants

    if not password.strip():
        raise ServiceError(t("field_required", field="password"))
    kv = KV(session)
    out: list[TenantBrief] = []
    for tenant_id, name, stored in await accounts_in_tenants(session, me.account):
        if tenant_id == me.tenant_id:
            out.append(TenantBrief(tenant_id=tenant_id, tenant_name=name))
            continue
        if int(await kv.get(auth.fail_key(tenant_id, me.account)) or 0) >= auth.CAPTCHA_AFTER:
            continue  # that account needs the captcha: it is chosen by signing in there directly
        if verify_password(stored, password.strip()):
            out.append(TenantBrief(tenant_id=tenant_id, tenant_name=name))
        else:
            await kv.incr(auth.fail_key(tenant_id, me.account), auth.LOCK_WINDOW)
    await session.commit()
    return ok(out)


class TenantInfo(Schema):
    tenant_id: str
    domain: str
    background_url: str
    captcha_mode: bool


@router.get(f"{SYS}/tenant/info", tags=["auth"], summary="Public tenant info for the sign-in page (by domain)")
async def tenant_info(session: SessionDep, domain: str = "") -> R[TenantInfo]:
    tenant = None
    if domain:
        tenant = (
            await session.execute(select(m.Tenant).where(m.Tenant.domain == domain, m.Tenant.is_deleted == 0))
        ).scalar_one_or_none()
    return ok(
        TenantInfo(
            tenant_id=tenant.tenant_id if tenant else "000000",
            domain=domain,
            background_url=(tenant.background_url or "") if tenant else "",
            captcha_mode=get_settings().captcha_mode,
        )
    )


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
        tops = await session.execute(
            select(m.TopMenuSetting.menu_id).where(m.TopMenuSetting.top_menu_id == top_menu_id)
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


@router.get(f"{SYS}/menu/routes", tags=["menu"], summary="The caller's menu tree (category 1), per top menu")
async def menu_routes(session: SessionDep, me: CurrentUser, topMenuId: str = "") -> R[list[MenuNode]]:
    top = id_of(topMenuId)
    return ok(_menu_tree(await _menus(session, me, 1, top)))


@router.get(f"{SYS}/menu/buttons", tags=["menu"], summary="The caller's buttons under their menus")
async def menu_buttons(session: SessionDep, me: CurrentUser) -> R[list[MenuNode]]:
    rows = await _menus(session, me, None)
    buttons = [r for r in rows if r.category == 2]
    parents = {b.parent_id for b in buttons}
    return ok(_menu_tree([r for r in rows if r.category == 2 or r.id in parents]))


@router.get(f"{SYS}/menu/top-menu", tags=["menu"], summary="Top menus of the caller's tenant")
async def top_menu(session: SessionDep, me: CurrentUser) -> R[list[Any]]:
    c = await crud.Ctx.build(session, me, res.TOP_MENU)
    rows = (await session.execute(c.scope.select(m.TopMenu).order_by(m.TopMenu.sort))).scalars().all()
    return ok([s.TopMenuOut.model_validate(r) for r in rows])


class VisitIn(Schema):
    menu_id: Id


@router.post(f"{SYS}/menu/visit", tags=["menu"], summary="Record that the caller opened a menu item")
async def menu_visit(session: SessionDep, me: CurrentUser, body: VisitIn) -> R[bool]:
    c = await crud.Ctx.build(session, me, res.MENU)
    visit = m.MenuVisit(menu_id=body.menu_id)
    c.scope.stamp(visit, creating=True)
    visit.tenant_id = me.tenant_id
    session.add(visit)
    await session.commit()
    return ok(True)


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


@router.get(f"{SYS}/menu/grant-tree", tags=["role"], summary="Menus, data scopes and API scopes one may grant")
async def grant_tree(session: SessionDep, me: CurrentUser) -> R[GrantTree]:
    menus = await _menus(session, me, None)
    return ok(
        GrantTree(
            menu=_nodes(menus),
            data_scope=await _scope_nodes(session, m.ScopeData, menus),
            api_scope=await _scope_nodes(session, m.ScopeApi, menus),
        )
    )


class GrantKeys(Schema):
    menu: list[str]
    data_scope: list[str] = Field(default_factory=list)
    api_scope: list[str] = Field(default_factory=list)


@router.get(f"{SYS}/menu/role-tree-keys", tags=["role"], summary="What the given roles have been granted")
async def role_tree_keys(session: SessionDep, me: CurrentUser, roleIds: str = "") -> R[GrantKeys]:
    ids = crud.parse_ids(roleIds, "roleIds")
    c = await crud.Ctx.build(session, me, res.ROLE)
    roles = (await session.execute(c.scope.select(m.Role).where(m.Role.id.in_(ids)))).scalars().all()
    visible = [r.id for r in roles]
    menus = await session.execute(select(m.RoleMenu.menu_id).where(m.RoleMenu.role_id.in_(visible)))
    scopes = (await session.execute(select(m.RoleScope).where(m.RoleScope.role_id.in_(visible)))).scalars().all()
    return ok(
        GrantKeys(
            menu=sorted({str(i) for i in menus.scalars().all()}),
            data_scope=sorted({str(x.scope_id) for x in scopes if x.scope_category == 1}),
            api_scope=sorted({str(x.scope_id) for x in scopes if x.scope_category == 2}),
        )
    )


class GrantIn(Schema):
    role_ids: Annotated[list[Id], Field(min_length=1)]
    menu_ids: list[Id] = Field(default_factory=list)
    data_scope_ids: list[Id] = Field(default_factory=list)
    api_scope_ids: list[Id] = Field(default_factory=list)


@router.post(f"{SYS}/role/grant", tags=["role"], summary="Replace the menus and scopes granted to roles")
async def role_grant(session: SessionDep, me: CurrentUser, body: GrantIn) -> R[bool]:
    c = await crud.Ctx.build(session, me, res.ROLE)
    await c.require("edit")
    roles = (await session.execute(c.scope.select(m.Role).where(m.Role.id.in_(body.role_ids)))).scalars().all()
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
    await session.commit()
    return ok(True)


@router.get(f"{SYS}/role/select-tree", tags=["role"], summary="Role tree for pickers (roleId marks the caller's)")
async def role_select_tree(request: Request, session: SessionDep, me: CurrentUser) -> R[list[TreeNode]]:
    c = await crud.Ctx.build(session, me, res.ROLE, dict(request.query_params))
    return ok([TreeNode.model_validate(n) for n in await crud.tree_nodes(c)])


@router.get(f"{SYS}/menu/grant-top-tree", tags=["topmenu"], summary="Menus one may put under a top menu")
async def grant_top_tree(session: SessionDep, me: CurrentUser) -> R[GrantTree]:
    return ok(GrantTree(menu=_nodes(await _menus(session, me, 1))))


@router.get(f"{SYS}/menu/top-tree-keys", tags=["topmenu"], summary="Menus under the given top menus")
async def top_tree_keys(session: SessionDep, me: CurrentUser, topMenuIds: str = "") -> R[GrantKeys]:
    ids = crud.parse_ids(topMenuIds, "topMenuIds")
    c = await crud.Ctx.build(session, me, res.TOP_MENU)
    tops = (await session.execute(c.scope.select(m.TopMenu).where(m.TopMenu.id.in_(ids)))).scalars().all()
    rows = await session.execute(
        select(m.TopMenuSetting.menu_id).where(m.TopMenuSetting.top_menu_id.in_([x.id for x in tops]))
    )
    return ok(GrantKeys(menu=sorted({str(i) for i in rows.scalars().all()})))


class TopGrantIn(Schema):
    top_menu_ids: Annotated[list[Id], Field(min_length=1)]
    menu_ids: list[Id] = Field(default_factory=list)


@router.post(f"{SYS}/topmenu/grant", tags=["topmenu"], summary="Replace the menus under top menus")
async def top_menu_grant(session: SessionDep, me: CurrentUser, body: TopGrantIn) -> R[bool]:
    c = await crud.Ctx.build(session, me, res.TOP_MENU)
    await c.require("edit")
    tops = (await session.execute(c.scope.select(m.TopMenu).where(m.TopMenu.id.in_(body.top_menu_ids)))).scalars().all()
    if len(tops) != len(set(body.top_menu_ids)):
        raise ServiceError(t("not_found"))
    allowed = {r.id for r in await _menus(session, me, None)}
    if not set(body.menu_ids) <= allowed:
        raise Forbidden(t("forbidden"), 403)
    for top in tops:
        await session.execute(delete(m.TopMenuSetting).where(m.TopMenuSetting.top_menu_id == top.id))
        session.add_all(m.TopMenuSetting(top_menu_id=top.id, menu_id=i) for i in set(body.menu_ids))
    await session.commit()
    return ok(True)


@router.get(
    f"{SYS}/menu/menu-list",
    tags=["menu"],
    response_model=r_list_of(crud.tree_schema(s.MenuOut)),
    summary="Menus only (no buttons) as a tree, filtered by code / name, for choosing a parent",
)
async def menus_only_tree(request: Request, session: SessionDep, me: CurrentUser) -> R[Any]:
    params = {**request.query_params, "category_equal": "1"}
    return ok(await crud.tree_list(await crud.Ctx.build(session, me, res.MENU, params)))


@router.get(
    f"{SYS}/menu/lazy-menu-list",
    tags=["menu"],
    response_model=r_list_of(s.MenuOut),
    summary="Menus only (no buttons) directly under parentId",
)
async def lazy_menu_list(request: Request, session: SessionDep, me: CurrentUser, parentId: str = "0") -> R[Any]:
    pid = parentId if id_of(parentId) is not None else "0"
    params = {**request.query_params, "category_equal": "1", "parentId_equal": pid}
    return ok(await crud.all_rows(await crud.Ctx.build(session, me, res.MENU, params)))


# ---------------------------------------------------------------- dictionaries


class DictItem(Schema):
    id: Id
    parent_id: Id
    code: str
    dict_key: str
    dict_value: str
    sort: int
    remark: str | None = None


def _dictionary_route(resource: Any, prefix: str, out: Any) -> None:
    model = resource.model

    @router.get(
        f"{prefix}/dictionary",
        tags=[resource.name],
        name=f"{resource.name}_dictionary",
        summary="Entries of one dictionary code (not sealed), for selects",
    )
    async def dictionary(session: SessionDep, me: CurrentUser, code: str = "") -> R[list[DictItem]]:
        if not code:
            raise ServiceError(t("field_required", field="code"))
        c = await crud.Ctx.build(session, me, resource)
        rows = (
            (
                await session.execute(
                    c.scope.select(model)
                    .where(model.code == code, model.parent_id != 0, model.is_sealed == 0)
                    .order_by(model.sort, model.id)
                )
            )
            .scalars()
            .all()
        )
        return ok([DictItem.model_validate(r) for r in rows])

    @router.get(
        f"{prefix}/parent-list",
        tags=[resource.name],
        name=f"{resource.name}_parent_list",
        summary="Dictionary roots, paged",
        response_model=r_page_of(out),
    )
    async def parent_list(
        request: Request,
        session: SessionDep,
        me: CurrentUser,
        current: Current = 1,
        size: Size = 10,
        ascs: str = "",
        descs: str = "",
    ) -> R[Any]:
        params = {**request.query_params, "parentId_equal": "0"}
        c = await crud.Ctx.build(session, me, resource, params)
        return ok(await crud.page(c, PageQuery(current, size, ascs, descs)))

    @router.get(
        f"{prefix}/child-list",
        tags=[resource.name],
        name=f"{resource.name}_child_list",
        summary="Entries under one dictionary root, as a tree",
        response_model=r_list_of(crud.tree_schema(out)),
    )
    async def child_list(
        request: Request, session: SessionDep, me: CurrentUser, parentId: Annotated[str, Query()] = ""
    ) -> R[list[Any]]:
        pid = crud.parse_ids(parentId, "parentId")[0]
        params = {k: v for k, v in request.query_params.items() if k != "parentId"}
        c = await crud.Ctx.build(session, me, resource, params)
        rows = await crud.all_rows(c)
        # Everything below the root (any depth), nested.
        below: set[int] = {pid}
        changed = True
        while changed:
            changed = False
            for r in rows:
                if r["parent_id"] in below and r["id"] not in below:
                    below.add(r["id"])
                    changed = True
        return ok([n for n in crud.nest([r for r in rows if r["id"] in below and r["id"] != pid])])


_dictionary_route(res.DICT, f"{SYS}/dict", s.DictOut)
_dictionary_route(res.DICT_BIZ, f"{SYS}/dict-biz", s.DictBizOut)


# ---------------------------------------------------------------- tenants


@router.post(f"{SYS}/tenant/setting", tags=["tenant"], summary="Set account quota and expiry of tenants")
async def tenant_setting(
    session: SessionDep, me: CurrentUser, ids: str = "", accountNumber: int = -1, expireTime: str = ""
) -> R[bool]:
    c = await crud.Ctx.build(session, me, res.TENANT)
    await c.require("edit")
    idents = crud.parse_ids(ids)
    rows = (await session.execute(c.scope.select(m.Tenant).where(m.Tenant.id.in_(idents)))).scalars().all()
    if len(rows) != len(set(idents)):
        raise ServiceError(t("not_found"))
    try:
        expire = _to_time(expireTime) if expireTime else None
    except ValueError as exc:
        raise ServiceError(t("field_invalid", field="expireTime")) from exc
    if accountNumber < -1:
        raise ServiceError(t("field_range", field="accountNumber"))
    for row in rows:
        row.account_number = accountNumber
        row.expire_time = expire
        c.scope.stamp(row, creating=False)
    await session.commit()
    return ok(True)


@router.post(f"{SYS}/tenant/datasource", tags=["tenant"], summary="Bind a tenant to a data source")
async def tenant_datasource(
    session: SessionDep, me: CurrentUser, tenantId: str = "", datasourceId: str = ""
) -> R[bool]:
    c = await crud.Ctx.build(session, me, res.TENANT)
    await c.require("edit")
    tenant = (
        await session.execute(c.scope.select(m.Tenant).where(m.Tenant.tenant_id == tenantId))
    ).scalar_one_or_none()
    if tenant is None:
        raise ServiceError(t("tenant_not_found"))
    ds_id = crud.parse_ids(datasourceId, "datasourceId")[0]
    dc = await crud.Ctx.build(session, me, res.DATASOURCE)
    await crud.get_scoped(dc, ds_id)
    tenant.datasource_id = ds_id
    await session.commit()
    return ok(True)


# ---------------------------------------------------------------- users (beyond CRUD)


@router.post("/api/blade-user/unlock", tags=["user"], summary="Clear the sign-in failure count of users")
async def unlock_users(session: SessionDep, me: CurrentUser, userIds: str = "") -> R[bool]:

    c = await crud.Ctx.build(session, me, res.USER)
    await c.require("edit")
    ids = crud.parse_ids(userIds)
    users = (await session.execute(c.scope.select(m.User).where(m.User.id.in_(ids)))).scalars().all()
    if len(users) != len(set(ids)):
        raise ServiceError(t("not_found"))
    for u in users:
        await auth.clear_failures(session, u.tenant_id, u.account)
    await session.commit()
    return ok(True)


class GuestIn(Schema):
    tenant_id: str = ""
    name: Annotated[str, Field(max_length=20)] = ""
    account: Annotated[str, Field(max_length=45)] = ""
    password: Annotated[str, Field(max_length=64)] = ""
    password2: Annotated[str, Field(max_length=64)] = ""
    oauth_id: Annotated[str, Field(max_length=64)] = ""


@router.post(
    "/api/blade-user/register-guest",
    tags=["user"],
    summary="Self-registration: a pending account an administrator approves (status 0 until then)",
)
async def register_guest(session: SessionDep, body: GuestIn) -> R[bool]:
    from liftdesk.core.security import hash_password, md5_hex
    from liftdesk.system.service import param_value

    if (await param_value(session, "account.registerUser", "false")).lower() != "true":
        raise Forbidden(t("register_closed"), 403)
    for field, value in (
        ("tenantId", body.tenant_id),
        ("account", body.account),
        ("password", body.password),
        ("password2", body.password2),
    ):
        if not value.strip():
            raise ServiceError(t("field_required", field=field))
    if body.password != body.password2:
        raise ServiceError(t("password_mismatch"))
    if len(body.password) < 6:
        raise ServiceError(t("field_too_short", field="password", limit=6))
    tenant = (
        await session.execute(select(m.Tenant).where(m.Tenant.tenant_id == body.tenant_id, m.Tenant.is_deleted == 0))
    ).scalar_one_or_none()
    if tenant is None:
        raise ServiceError(t("tenant_not_found"))
    taken = await session.execute(
        select(m.User.id).where(
            m.User.tenant_id == tenant.tenant_id, m.User.account == body.account, m.User.is_deleted == 0
        )
    )
    if taken.first() is not None:
        # The same answer as for a free account: registration must not tell an outsider which accounts exist.
        # The administrator who approves registrations sees only the ones that were created.
        return ok(True, t("register_pending"))
    session.add(
        m.User(
            tenant_id=tenant.tenant_id,
            account=body.account,
            name=body.name or body.account,
            real_name=body.name or body.account,
            password=hash_password(md5_hex(body.password)),
            status=0,
            role_id="",
            dept_id="",
            post_id="",
        )
    )
    await session.commit()
    return ok(True, t("register_pending"))


# ---------------------------------------------------------------- shell helpers


class IpOffset(Schema):
    timestamp: int
    offset: int
    zone: str


@router.get(f"{FICS}/common/getIpOffset", tags=["common"], summary="Server clock and the tenant's zone offset")
async def ip_offset(me: CurrentUser) -> R[IpOffset]:
    minutes = get_settings().tz_offset_minutes
    sign = "+" if minutes >= 0 else "-"
    return ok(
        IpOffset(
            timestamp=int(datetime.now(UTC).timestamp() * 1000),
            offset=minutes,
            zone=f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}",
        )
    )


@router.get("/api/health", tags=["common"], summary="Liveness: the process answers and the database is reachable")
async def health(session: SessionDep) -> R[str]:
    await session.execute(select(1))
    return ok("up")
