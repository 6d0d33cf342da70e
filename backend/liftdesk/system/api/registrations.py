"""Self-registration (the third-party registration dialog) and its approval in 用户管理.

``POST /api/blade-user/register-guest`` (public, served by ``public``; switched on by the parameter
``account.registerUser``) writes a *pending* account: ``status`` 0 and no role. It cannot sign in (the token call
answers ``user_pending`` with the registration's message) until an administrator approves it:

- ``POST /api/blade-user/audit-pass?userIds=&roleIds=&deptIds=`` (button ``user_edit``): the pending users get the
  roles and organisations given (the caller's own, as for ``grant``; only the platform administrator grants the
  administrator role), count against the tenant's account quota, and may sign in;
- ``POST /api/blade-user/audit-refuse?userIds=`` (button ``user_edit``): the pending registrations are removed.

An account that is not pending is refused by both (its name in the message). Registration answers the same for a
taken and a free account (no account oracle); parallel registrations of one account make one row (a claim in the
key-value store), and one client address registers at most ``PER_ADDRESS`` accounts an hour.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core import crud
from liftdesk.core.batch import check_rule, selected
from liftdesk.core.envelope import Forbidden, NotFound, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.kv import KV
from liftdesk.core.schemas import IdListRequired, Schema, documented
from liftdesk.core.security import ADMINISTRATOR_ROLE_ID, hash_password, md5_hex
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system.api.common import USER
from liftdesk.system.api.passwords import UserIdsQuery, refuse_weak
from liftdesk.system.api.passwords import check_rule as check_password_rule
from liftdesk.system.service import param_value

#: ``status`` of a registered account waiting for approval (an approved or created user has 1).
PENDING = 0
#: Accounts one client address may register in an hour.
PER_ADDRESS = 10
_ADDRESS_WINDOW = timedelta(hours=1)
#: How long a registration's claim on its account holds (parallel requests for one account make one row).
_CLAIM_WINDOW = timedelta(minutes=10)


class GuestIn(Schema):
    tenant_id: Annotated[str, Field(max_length=12)] = ""
    name: Annotated[str, Field(max_length=20)] = ""
    account: Annotated[str, Field(max_length=45)] = ""
    password: Annotated[str, Field(max_length=64)] = ""
    password2: Annotated[str, Field(max_length=64)] = ""
    oauth_id: Annotated[str, Field(max_length=64)] = ""


def is_pending(user: m.User) -> bool:
    """A registration not approved yet: status 0 and no role (an administrator's user always has a role)."""
    return user.status == PENDING and not (user.role_id or "").strip()


def _check(body: GuestIn) -> None:
    """The dialog's checks in its order, each naming its field; then the rules of a user's fields."""
    for field, value in (
        ("tenantId", body.tenant_id),
        ("account", body.account),
        ("password", body.password),
        ("password2", body.password2),
    ):
        if not value.strip():
            raise ServiceError(t("field_required", field=field))
    if body.password != body.password2:
        raise ServiceError(t("password_mismatch_field", field="password2"))
    if len(body.account.strip()) < 2:
        raise ServiceError(t("field_too_short", field="account", limit=2))
    name = body.name.strip()
    if name and not 2 <= len(name) <= 5:
        raise ServiceError(t("real_name_length", field="name"))
    check_password_rule(body.password, "password")
    refuse_weak(md5_hex(body.password), body.account, "password")


async def register(session: AsyncSession, body: GuestIn, address: str) -> None:
    """Write a pending account (or, for a taken one, nothing: the answer is the same)."""
    if (await param_value(session, "account.registerUser", "false")).lower() != "true":
        raise Forbidden(t("register_closed"), 403)
    _check(body)
    account = body.account.strip()
    tenant = (
        await session.execute(select(m.Tenant).where(m.Tenant.tenant_id == body.tenant_id, m.Tenant.is_deleted == 0))
    ).scalar_one_or_none()
    if tenant is None:
        raise ServiceError(t("tenant_not_found_field", field="tenantId"))
    kv = KV(session)
    if await kv.incr(f"register-from:{address or '-'}"[:255], _ADDRESS_WINDOW) > PER_ADDRESS:
        await session.commit()
        raise ServiceError(t("register_too_often"))
    claimed = await kv.claim(f"register:{tenant.tenant_id}:{account}"[:255], "1", _CLAIM_WINDOW)
    await session.commit()  # the count and the claim hold whatever happens next
    if not claimed:
        return  # another request is registering this account right now
    taken = await session.execute(
        select(m.User.id).where(m.User.tenant_id == tenant.tenant_id, m.User.account == account, m.User.is_deleted == 0)
    )
    if taken.first() is not None:
        # The same answer as for a free account: registration must not tell an outsider which accounts exist.
        return
    name = body.name.strip() or account
    session.add(
        m.User(
            tenant_id=tenant.tenant_id,
            account=account,
            name=name,
            real_name=name,
            password=hash_password(md5_hex(body.password)),
            status=PENDING,
            role_id="",
            dept_id="",
            post_id="",
        )
    )
    await session.commit()


# ---------------------------------------------------------------- approval


class AuditPassQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("user_ids", "role_ids", "dept_ids")))

    user_ids: IdListRequired = Field(default="", description="comma-separated ids of pending users")
    role_ids: IdListRequired = Field(default="", description="comma-separated role ids the users get")
    dept_ids: IdListRequired = Field(default="", description="comma-separated organisation ids the users join")


async def _pending(ctx: crud.Ctx, ids: str) -> list[m.User]:
    users: list[m.User] = await selected(ctx, ids, "userIds")
    check_rule(ctx, users, is_pending, "user_not_pending", lambda u: str(u.account))
    return users


async def _owned(ctx: crud.Ctx, model: type[m.Role] | type[m.Dept], text: str, field: str) -> list[int]:
    """Ids of roles / organisations the caller sees (as their own lists show them); 400 naming the field if not."""
    ids = list(dict.fromkeys(crud.parse_ids(text, field)))
    resource = res.ROLE if model is m.Role else res.DEPT
    stmt = resource.hooks.filter(ctx, ctx.scope.select(model).where(model.id.in_(ids)))
    found = {r.id for r in (await ctx.session.execute(stmt)).scalars().all()}
    if found != set(ids):
        raise NotFound(t("import_unknown_name", field=field, value=",".join(str(i) for i in ids if i not in found)))
    return ids


@res.USER.action(
    "POST",
    f"{USER}/audit-pass",
    permission="edit",
    kind="batch",
    query=AuditPassQuery,
    answer=bool,
    summary="Approve pending registrations: the users get the roles and organisations given and may sign in "
    "(all or none; counts against the tenant's account quota)",
)
async def audit_pass(ctx: crud.Ctx, query: AuditPassQuery) -> bool:
    users = await _pending(ctx, query.user_ids)
    role_ids = await _owned(ctx, m.Role, query.role_ids, "roleIds")
    if ADMINISTRATOR_ROLE_ID in role_ids and not ctx.principal.is_administrator:
        raise Forbidden(t("admin_role_only"), 403)
    dept_ids = await _owned(ctx, m.Dept, query.dept_ids, "deptIds")
    await _check_quota(ctx, len(users))
    roles, depts = ",".join(map(str, role_ids)), ",".join(map(str, dept_ids))
    for user in users:
        user.role_id, user.dept_id, user.status = roles, depts, 1
        ctx.scope.stamp(user, creating=False)
        for dept_id in dept_ids:
            ctx.session.add(m.UserDept(user_id=user.id, dept_id=dept_id))
    await ctx.session.flush()
    return True


async def _check_quota(ctx: crud.Ctx, more: int) -> None:
    """The tenant's active accounts plus ``more`` must stay within its quota (a negative quota: none)."""
    mine = ctx.scope.select(m.Tenant, data=False).where(m.Tenant.tenant_id == ctx.scope.tenant_id)
    tenant = (await ctx.session.execute(mine)).scalar_one_or_none()
    if tenant is None or tenant.account_number < 0:
        return
    active = (
        ctx.scope.select(m.User, data=False)
        .with_only_columns(func.count())
        .select_from(m.User)
        .where(m.User.status != PENDING)
    )
    if int((await ctx.session.execute(active)).scalar_one()) + more > tenant.account_number:
        raise ServiceError(t("tenant_quota"))


@res.USER.action(
    "POST",
    f"{USER}/audit-refuse",
    permission="edit",
    kind="batch",
    query=UserIdsQuery,
    answer=bool,
    summary="Refuse pending registrations: they are removed (all or none)",
)
async def audit_refuse(ctx: crud.Ctx, query: UserIdsQuery) -> bool:
    for user in await _pending(ctx, query.user_ids):
        user.is_deleted = 1
        ctx.scope.stamp(user, creating=False)
    await ctx.session.flush()
    return True
