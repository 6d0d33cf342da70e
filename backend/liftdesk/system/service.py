"""Business rules of the system context: the hooks its resources use, and the services its endpoints call."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.crud import Ctx
from liftdesk.core.envelope import Forbidden, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.ids import id_of, ids_of
from liftdesk.core.registry import REGISTRY
from liftdesk.core.resource import Hooks
from liftdesk.core.scope import organisation_branch
from liftdesk.core.security import ADMINISTRATOR, ADMINISTRATOR_ROLE_ID, TENANT_ADMIN, hash_password, md5_hex
from liftdesk.system import models as m

#: Bus topic of a parameter, dictionary entry or tenant saved or removed (published after the commit), so that
#: caches of settings drop what they hold (the telemetry pipeline: thresholds, retention). Message:
#: ``{"kind": "param" | "dict" | "dict_biz" | "tenant", "tenantId": str | None, "code": key, code or None}``.
SETTINGS_CHANGED = "system.settings.changed"


def _settings_changed(ctx: Ctx, kind: str, tenant_id: str | None, code: str | None) -> None:
    ctx.outbox.append((SETTINGS_CHANGED, {"kind": kind, "tenantId": tenant_id, "code": code}))


async def dict_labels(session: AsyncSession, code: str) -> dict[str, str]:
    rows = await session.execute(
        select(m.Dict.dict_key, m.Dict.dict_value).where(
            m.Dict.code == code, m.Dict.parent_id != 0, m.Dict.is_deleted == 0
        )
    )
    return {k: v for k, v in rows.all()}


async def param_value(session: AsyncSession, key: str, default: str) -> str:
    row = await session.execute(
        select(m.Param.param_value).where(m.Param.param_key == key, m.Param.is_deleted == 0).limit(1)
    )
    value = row.scalar_one_or_none()
    return value if value is not None else default


def _csv(text: str | None) -> list[int]:
    return ids_of(text)


async def _names(ctx: Ctx, model: Any, label: str, ids: set[int]) -> dict[int, str]:
    """Labels of referenced rows of the caller's tenant (roles, organisations, posts, parents)."""
    if not ids:
        return {}
    stmt = ctx.scope.apply(select(model.id, getattr(model, label)).where(model.id.in_(ids)), model, data=False)
    rows = await ctx.session.execute(stmt)
    return {i: n for i, n in rows.all()}


async def _parent_names(ctx: Ctx, rows: list[dict[str, Any]], model: Any, label: str) -> None:
    names = await _names(ctx, model, label, {r["parent_id"] for r in rows if r.get("parent_id")})
    for r in rows:
        r["parent_name"] = names.get(r.get("parent_id") or 0, "")


#: Parameters whose value is a credential (``account.initPassword``, secrets of services): only the platform
#: administrator reads them; everybody else's lists, details and filters leave them out.
SECRET_PARAM = ("password", "secret", "accesskey", "access_key", "token")


class DataScopeHooks(Hooks):
    """A data rule names a resource with a table of its own and one of its columns: a rule that could never admit a
    row (a subject's code, a column the model lacks) is refused, as the scope would admit no row with it."""

    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        problem = REGISTRY.rule_problem(obj.resource_code, obj.scope_column)
        if problem == "no_model":
            raise ServiceError(t("rule_no_model", value=obj.resource_code))
        if problem == "no_column":
            raise ServiceError(t("rule_no_column", value=obj.scope_column or "create_dept", code=obj.resource_code))


async def unusable_rules(session: AsyncSession) -> list[str]:
    """The stored data rules that can admit no row (``Registry.rule_problem``), named for the start-up log: they
    were written before the form refused them, or by hand."""
    rows = await session.execute(
        select(m.ScopeData.id, m.ScopeData.resource_code, m.ScopeData.scope_column).where(m.ScopeData.is_deleted == 0)
    )
    return [
        f"data rule {ident} on {code}.{column or 'create_dept'}: {problem}"
        for ident, code, column in rows.all()
        if (problem := REGISTRY.rule_problem(code, column)) is not None
    ]


class ParamHooks(Hooks):
    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        if ctx.principal.is_administrator:
            return stmt
        key = func.lower(m.Param.param_key)
        return stmt.where(*(~key.contains(word, autoescape=True) for word in SECRET_PARAM))

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        _settings_changed(ctx, "param", None, obj.param_key)

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        for r in rows:
            _settings_changed(ctx, "param", None, r.param_key)


class DictHooks(Hooks):
    def __init__(self, model: type[m.Dict] | type[m.DictBiz]) -> None:
        self.model = model
        self.kind = "dict_biz" if model is m.DictBiz else "dict"  # SETTINGS_CHANGED kind

    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if obj.parent_id:
            parents = ctx.scope.select(self.model, data=False).where(self.model.id == obj.parent_id)
            parent: Any = (await ctx.session.execute(parents)).scalar_one_or_none()
            if parent is not None:
                obj.code = parent.code
        elif not creating and "code" in data:
            # Renaming a root's code renames its entries.
            stored = ctx.scope.apply(select(self.model.code).where(self.model.id == obj.id), self.model, data=False)
            old_code = (await ctx.session.execute(stored)).scalar_one_or_none()
            if old_code and old_code != obj.code:
                kids = await ctx.session.execute(ctx.scope.select(self.model).where(self.model.parent_id == obj.id))
                for kid in kids.scalars():
                    kid.code = obj.code
        if not obj.parent_id and not obj.dict_key:
            obj.dict_key = "-1"

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        _settings_changed(ctx, self.kind, getattr(obj, "tenant_id", None), obj.code)

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        for r in rows:
            _settings_changed(ctx, self.kind, getattr(r, "tenant_id", None), r.code)

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        await _parent_names(ctx, rows, self.model, "dict_value")
        return rows


class PostHooks(Hooks):
    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        labels = await dict_labels(ctx.session, "post_category")
        for r in rows:
            r["category_name"] = labels.get(str(r.get("category")), "")
        return rows


class RoleHooks(Hooks):
    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if obj.role_alias == ADMINISTRATOR and not ctx.principal.is_administrator:
            raise Forbidden(t("admin_role_only"), 403)
        if not creating and obj.id == ADMINISTRATOR_ROLE_ID and not ctx.principal.is_administrator:
            raise Forbidden(t("admin_role_only"), 403)

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        for r in rows:
            if r.id == ADMINISTRATOR_ROLE_ID or r.role_alias == ADMINISTRATOR:
                raise ServiceError(t("cannot_delete_builtin", value=r.role_name))
        await keep_an_administrator(ctx, without_roles={r.id for r in rows})
        ids = [r.id for r in rows]
        await ctx.session.execute(delete(m.RoleMenu).where(m.RoleMenu.role_id.in_(ids)))
        await ctx.session.execute(delete(m.RoleScope).where(m.RoleScope.role_id.in_(ids)))

    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        if not ctx.principal.is_administrator:
            stmt = stmt.where(m.Role.id != ADMINISTRATOR_ROLE_ID)
        return stmt

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        await _parent_names(ctx, rows, m.Role, "role_name")
        return rows


class MenuHooks(Hooks):
    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if obj.parent_id:
            parents = ctx.scope.select(m.Menu, data=False).where(m.Menu.id == obj.parent_id)
            parent = (await ctx.session.execute(parents)).scalar_one_or_none()
            if parent is not None and parent.category == 2:
                raise ServiceError(t("bad_parent"))

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        ids = [r.id for r in rows]
        await ctx.session.execute(delete(m.RoleMenu).where(m.RoleMenu.menu_id.in_(ids)))
        await ctx.session.execute(delete(m.TopMenuSetting).where(m.TopMenuSetting.menu_id.in_(ids)))

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        await _parent_names(ctx, rows, m.Menu, "name")
        cats = await dict_labels(ctx.session, "menu_category")
        funcs = await dict_labels(ctx.session, "button_func")
        yes_no = await dict_labels(ctx.session, "yes_no")
        for r in rows:
            r["category_name"] = cats.get(str(r.get("category")), "")
            r["action_name"] = funcs.get(str(r.get("action")), "")
            r["is_open_name"] = yes_no.get(str(r.get("is_open")), "")
        return rows


class TopMenuHooks(Hooks):
    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        ids = [r.id for r in rows]
        await ctx.session.execute(delete(m.TopMenuSetting).where(m.TopMenuSetting.top_menu_id.in_(ids)))


#: Invite codes: letters and digits without look-alikes (0/O, 1/I/L), 8 of them (about 40 bits).
INVITE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
INVITE_LENGTH = 8


def random_invite_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


async def new_invite_code(ctx: Ctx, taken: set[str] | None = None) -> str:
    """A random invite code no organisation of the tenant holds (deleted ones and those outside the caller's data
    rule too), nor one of ``taken`` (codes given out in the same request); the one generator of every new code."""
    taken = taken if taken is not None else set()
    while True:
        code = random_invite_code()
        if code in taken:
            continue
        clash = ctx.scope.select(m.Dept, data=False).with_only_columns(m.Dept.id).where(m.Dept.invite_code == code)
        if (await ctx.session.execute(clash.limit(1))).first() is None:
            taken.add(code)
            return code


class DeptHooks(Hooks):
    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if creating and not obj.invite_code:
            obj.invite_code = await new_invite_code(ctx)
        if not obj.full_name:
            obj.full_name = obj.dept_name
        if not creating and "parent_id" in data:
            await _carry_subtree(ctx, obj)
        await _check_logo(ctx, obj)

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        ids = [r.id for r in rows]
        used = await ctx.session.execute(select(m.UserDept.id).where(m.UserDept.dept_id.in_(ids)).limit(1))
        if used.first() is not None:
            raise ServiceError(t("dept_has_users"))

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        await _parent_names(ctx, rows, m.Dept, "dept_name")
        labels = await dict_labels(ctx.session, "org_category")
        for r in rows:
            r["dept_category_name"] = labels.get(str(r.get("dept_category")), "")
        return rows


async def _check_logo(ctx: Ctx, obj: Any) -> None:
    """A changed logo must be a picture uploaded to the tenant (``dept/upload-logo``: its attachment link), so that
    the top bar never loads an address from elsewhere or another tenant's file; an unchanged one stays as it is."""
    from sqlalchemy import inspect as inspect_row

    from liftdesk.system import files

    link = (obj.dept_logo or "").strip()
    obj.dept_logo = link or None
    if not link or not inspect_row(obj).attrs.dept_logo.history.has_changes():
        return
    attach = await files.attachment_of_link(ctx, link)
    if attach is None or attach.extension not in files.PICTURE_EXTENSIONS.values():
        raise ServiceError(t("logo_link", field="deptLogo"))


async def _carry_subtree(ctx: Ctx, obj: Any) -> None:
    """A moved organisation got its own ``ancestors`` from the layer (``crud._check_parent``, which also refuses a
    cycle); the organisations under it keep their path below it behind its new one, so that data scopes of type 4
    (own organisation and below) follow the move. Tenant-wide: the tree's structure, whatever the caller's rule
    shows."""
    key = str(obj.id)
    branch = organisation_branch(ctx.scope.tenant_id, obj.id)
    below = ctx.scope.select(m.Dept, data=False).where(m.Dept.id.in_(branch), m.Dept.id != obj.id)
    for row in (await ctx.session.execute(below)).scalars().all():
        parts = (row.ancestors or "").split(",")
        if key in parts:
            row.ancestors = ",".join([obj.ancestors, key, *parts[parts.index(key) + 1 :]])


class UserHooks(Hooks):
    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if creating:
            plain = data.get("password")
            if not plain:
                raise ServiceError(t("field_required", field="password"))
            from liftdesk.system.api.passwords import refuse_weak

            refuse_weak(md5_hex(plain), obj.account)
            obj.password = hash_password(md5_hex(plain))
            await _check_quota(ctx)
        elif "password" in data:
            # Passwords change through update-password / reset-password / replacePassword, never through submit.
            await ctx.session.refresh(obj, ["password"])
        if not creating and "status" in data and obj.status != 1:
            await _revoke(ctx, obj.id)  # a disabled user's sessions end now
        await _check_refs(ctx, obj)
        if not creating and ("role_id" in data or "status" in data):
            await keep_an_administrator(ctx, changed={obj.id: obj})

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        await ctx.session.execute(delete(m.UserDept).where(m.UserDept.user_id == obj.id))
        for dept_id in _csv(obj.dept_id):
            ctx.session.add(m.UserDept(user_id=obj.id, dept_id=dept_id))

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        if any(r.id == ctx.principal.user_id for r in rows):
            raise ServiceError(t("cannot_delete_self"))
        await keep_an_administrator(ctx, without_users={r.id for r in rows})
        for r in rows:
            await _revoke(ctx, r.id)  # a removed user's tokens and live sockets end with the removal
        await ctx.session.execute(delete(m.UserDept).where(m.UserDept.user_id.in_([r.id for r in rows])))

    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        dept = id_of(ctx.params.get("deptId", ""))
        if dept is not None:
            branch = organisation_branch(ctx.scope.tenant_id, dept)
            users = select(m.UserDept.user_id).where(m.UserDept.dept_id.in_(branch))
            stmt = stmt.where(m.User.id.in_(users))
        return stmt

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        role_ids = {i for r in rows for i in _csv(r.get("role_id"))}
        dept_ids = {i for r in rows for i in _csv(r.get("dept_id"))}
        post_ids = {i for r in rows for i in _csv(r.get("post_id"))}
        roles = await _names(ctx, m.Role, "role_name", role_ids)
        depts = await _names(ctx, m.Dept, "dept_name", dept_ids)
        posts = await _names(ctx, m.Post, "post_name", post_ids)
        tenants = await _tenant_names(ctx, {str(r.get("tenant_id")) for r in rows})
        sexes = await dict_labels(ctx.session, "sex")
        types = await dict_labels(ctx.session, "user_type")
        for r in rows:
            r["role_name"] = ",".join(roles[i] for i in _csv(r.get("role_id")) if i in roles)
            r["dept_name"] = ",".join(depts[i] for i in _csv(r.get("dept_id")) if i in depts)
            r["post_name"] = ",".join(posts[i] for i in _csv(r.get("post_id")) if i in posts)
            r["tenant_name"] = tenants.get(str(r.get("tenant_id")), "")
            r["sex_name"] = sexes.get(str(r.get("sex")), "")
            r["user_type_name"] = types.get(str(r.get("user_type")), "")
        return rows


async def _tenant_names(ctx: Ctx, tenant_ids: set[str]) -> dict[str, str]:
    stmt = ctx.scope.apply(
        select(m.Tenant.tenant_id, m.Tenant.tenant_name).where(m.Tenant.tenant_id.in_(tenant_ids)), m.Tenant, data=False
    )
    return {tid: name for tid, name in (await ctx.session.execute(stmt)).all()}


async def _revoke(ctx: Ctx, user_id: int) -> None:
    from liftdesk.core.deps import AUTH_REVOKED, revoke_user_tokens
    from liftdesk.core.kv import KV

    await revoke_user_tokens(KV(ctx.session), user_id, 30 * 24 * 3600)
    ctx.outbox.append((AUTH_REVOKED, {"userId": str(user_id)}))


async def _check_quota(ctx: Ctx) -> None:
    mine = ctx.scope.select(m.Tenant, data=False).where(m.Tenant.tenant_id == ctx.scope.tenant_id)
    tenant = (await ctx.session.execute(mine)).scalar_one_or_none()
    if tenant is None or tenant.account_number < 0:
        return
    from liftdesk.core.crud import count

    # registrations waiting for approval (status 0) count once approved (api/registrations.py)
    used = await count(ctx, ctx.scope.select(m.User).where(m.User.status != 0))
    if used >= tenant.account_number:
        raise ServiceError(t("tenant_quota"))


async def _check_refs(ctx: Ctx, obj: m.User) -> None:
    """Roles, organisations and posts named on a user must exist in the user's tenant."""
    for ids, model, field in (
        (_csv(obj.role_id), m.Role, "roleId"),
        (_csv(obj.dept_id), m.Dept, "deptId"),
        (_csv(obj.post_id), m.Post, "postId"),
    ):
        if not ids:
            continue
        found = await ctx.session.execute(ctx.scope.select(model).with_only_columns(model.id).where(model.id.in_(ids)))
        if len(set(found.scalars().all())) != len(set(ids)):
            raise ServiceError(t("field_invalid", field=field))
        if model is m.Role and not ctx.principal.is_administrator and ADMINISTRATOR_ROLE_ID in ids:
            raise Forbidden(t("admin_role_only"), 403)


async def keep_an_administrator(
    ctx: Ctx,
    *,
    without_roles: AbstractSet[int] = frozenset(),
    without_users: AbstractSet[int] = frozenset(),
    changed: dict[int, m.User] | None = None,
) -> None:
    """The caller's tenant keeps an enabled user holding an administrator role once roles ``without_roles`` and
    users ``without_users`` are gone and the users ``changed`` hold their new roles and status; else a 400."""
    roles = ctx.scope.select(m.Role, data=False).with_only_columns(m.Role.id).where(m.Role.is_admin == 1)
    admin_roles = set((await ctx.session.execute(roles)).scalars().all()) - without_roles
    changed = changed or {}
    users = ctx.scope.select(m.User, data=False).with_only_columns(m.User.id, m.User.role_id, m.User.status)
    for ident, role_id, status in (await ctx.session.execute(users)).all():
        if ident in without_users:
            continue
        if ident in changed:
            role_id, status = changed[ident].role_id, changed[ident].status
        if status == 1 and admin_roles & set(_csv(role_id)):
            return
    raise ServiceError(t("last_admin"))


class TenantHooks(Hooks):
    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if creating:
            while True:
                candidate = f"{secrets.randbelow(900000) + 100000:06d}"
                taken = await ctx.session.execute(select(m.Tenant.id).where(m.Tenant.tenant_id == candidate))
                if taken.first() is None:
                    break
            obj.tenant_id = candidate
        elif "tenant_id" in data:
            await ctx.session.refresh(obj, ["tenant_id"])

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if creating:
            # the answer of the creation shows it, once (``TenantOut.admin_password``); it is stored nowhere
            obj.admin_password = await provision_tenant(ctx.session, obj)
        _settings_changed(ctx, "tenant", obj.tenant_id, None)  # e.g. its retention period

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        for r in rows:
            if r.tenant_id == "000000":
                raise ServiceError(t("cannot_delete_builtin", value=r.tenant_name))


async def provision_tenant(session: AsyncSession, tenant: m.Tenant) -> str:
    """A new tenant gets an admin role with the default menus, a root organisation, post ceo, a copy of the
    business dictionaries and an ``admin`` account with a random password of its own, returned (to be shown once to
    the platform administrator who created the tenant; BladeX gave every new tenant the shared parameter
    ``tenant.default.password``, and whoever signed in first took the tenant)."""
    from liftdesk.system.api.passwords import random_password

    tid = tenant.tenant_id
    role = m.Role(tenant_id=tid, parent_id=0, role_name="管理员", role_alias=TENANT_ADMIN, sort=1, is_admin=1)
    dept = m.Dept(
        tenant_id=tid,
        parent_id=0,
        ancestors="0",
        dept_name=tenant.tenant_name,
        full_name=tenant.tenant_name,
        dept_category=1,
        sort=1,
        invite_code=random_invite_code(),  # the new tenant's first organisation: no code to clash with
    )
    post = m.Post(tenant_id=tid, category=1, post_code="ceo", post_name="首席执行官", sort=1)
    session.add_all([role, dept, post])
    await session.flush()
    codes = (await param_value(session, "tenant.default.menuCode", "")).split(",")
    menus = (await session.execute(select(m.Menu).where(m.Menu.is_deleted == 0))).scalars().all()
    granted = _with_subtrees(list(menus), {c.strip() for c in codes if c.strip()})
    session.add_all(m.RoleMenu(role_id=role.id, menu_id=i) for i in granted)
    biz = (
        (await session.execute(select(m.DictBiz).where(m.DictBiz.tenant_id == "000000", m.DictBiz.is_deleted == 0)))
        .scalars()
        .all()
    )
    id_map: dict[int, int] = {}
    for row in sorted(biz, key=lambda r: r.parent_id):
        copy = m.DictBiz(
            tenant_id=tid,
            parent_id=id_map.get(row.parent_id, 0),
            code=row.code,
            dict_key=row.dict_key,
            dict_value=row.dict_value,
            sort=row.sort,
            remark=row.remark,
            is_sealed=row.is_sealed,
        )
        session.add(copy)
        await session.flush()
        id_map[row.id] = copy.id
    password = random_password()
    user = m.User(
        tenant_id=tid,
        account="admin",
        name="管理员",
        real_name="管理员",
        password=hash_password(md5_hex(password)),
        role_id=str(role.id),
        dept_id=str(dept.id),
        post_id=str(post.id),
        user_type=1,
        password_must_change=1,  # the platform administrator knows it: replaced at first sign-in
    )
    session.add(user)
    await session.flush()
    session.add(m.UserDept(user_id=user.id, dept_id=dept.id))
    return password


def _with_subtrees(menus: list[m.Menu], codes: set[str]) -> set[int]:
    children: dict[int, list[m.Menu]] = {}
    for row in menus:
        children.setdefault(row.parent_id, []).append(row)
    out: set[int] = set()
    stack = [row for row in menus if row.code in codes]
    while stack:
        row = stack.pop()
        if row.id in out:
            continue
        out.add(row.id)
        stack.extend(children.get(row.id, []))
    by_id = {row.id: row for row in menus}
    for i in list(out):  # ancestors too, so that the tree shows
        p = by_id[i].parent_id
        while p and p not in out and p in by_id:
            out.add(p)
            p = by_id[p].parent_id
    return out


#: The five levels of a region and the columns naming each (``province_code`` / ``province_name`` ...).
REGION_LEVELS = ("province", "city", "district", "town", "village")
#: Digits of a parent's code its children's codes start with, by the parent's level.
REGION_PREFIX = {1: 2, 2: 4, 3: 6, 4: 9}


def region_level(code: str) -> int:
    """The level of a GB/T 2260 code by its shape: ``xx0000`` 1 province, ``xxyy00`` 2 city, other 6 digits
    3 district (under a city, or directly under a province: municipalities' districts, 省直辖县), 9 digits 4 town,
    12 digits 5 village (0: not a region code)."""
    if not code.isascii() or not code.isdigit():
        return 0
    if len(code) == 6:
        if code[:2] == "00":
            return 0
        return 1 if code[2:] == "0000" else 2 if code[4:] == "00" else 3
    return {9: 4, 12: 5}.get(len(code), 0)


class RegionHooks(Hooks):
    """Regions are keyed by their code: the code says the level; the parent must exist, be of a higher level and
    its code must start the child's. The code and the parent of a saved region never change (``id`` is the code's
    number). The five ``<level>_code`` / ``<level>_name`` columns are the region's path, copied from the parent."""

    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        region = m.Region
        level = region_level(obj.code or "")
        given = data.get("region_level")
        if level == 0 or (given is not None and given != level):
            raise ServiceError(t("region_code_level", field="code", value=obj.code, level=given or "?"))
        if not creating:
            if int(obj.code) != obj.id or int(obj.parent_code or "0") != obj.parent_id:
                raise ServiceError(t("region_fixed", field="code"))
            await self._rename(ctx, obj, level)
            return
        parent_code = obj.parent_code or "00"
        parent = None
        if parent_code != "00":
            stmt = ctx.scope.select(region).where(region.code == parent_code)
            parent = (await ctx.session.execute(stmt)).scalar_one_or_none()
            if parent is None:
                raise ServiceError(t("bad_parent"))
        if parent is None:
            fits = level == 1
        else:
            prefix = parent.code[: REGION_PREFIX[parent.region_level]]
            fits = parent.region_level < level and obj.code.startswith(prefix)
        if not fits:
            raise ServiceError(t("region_code_parent", field="code", value=obj.code, parent=parent_code))
        obj.id = int(obj.code)
        obj.parent_code = parent_code
        obj.parent_id = parent.id if parent is not None else 0
        obj.ancestors = f"{parent.ancestors},{parent.code}" if parent is not None else "00"
        obj.region_level = level
        for name in REGION_LEVELS:
            for part in ("code", "name"):
                setattr(obj, f"{name}_{part}", getattr(parent, f"{name}_{part}") if parent is not None else None)
        setattr(obj, f"{REGION_LEVELS[level - 1]}_code", obj.code)
        setattr(obj, f"{REGION_LEVELS[level - 1]}_name", obj.name)

    async def _rename(self, ctx: Ctx, obj: Any, level: int) -> None:
        """A renamed region: its own name column of its level, and that column of every region under it."""
        region = m.Region
        column = f"{REGION_LEVELS[level - 1]}_name"
        if getattr(obj, column) == obj.name:
            return
        setattr(obj, column, obj.name)
        below = getattr(region, f"{REGION_LEVELS[level - 1]}_code")
        await ctx.session.execute(
            update(region)
            .where(below == obj.code, region.code != obj.code, *ctx.scope.where(region))
            .values({column: obj.name})
        )
