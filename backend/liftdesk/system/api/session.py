"""The session's own calls (who am I, my tenants, the error log the web app uploads, the cache) and the shell's
helpers."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Request
from pydantic import ConfigDict, Field, RootModel

from liftdesk.core import crud
from liftdesk.core.config import get_settings
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.schemas import NOT_BLANK, Id, Schema, documented
from liftdesk.system import auth
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system.api.common import FICS, OAUTH, USER
from liftdesk.system.api.menus import button_codes
from liftdesk.system.api.passwords import accounts_in_tenants

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
    if user is None or user.is_deleted or user.tenant_id != me.tenant_id:
        raise ServiceError(t("not_found"))
    codes = await button_codes(ctx.session, me)
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
    for tenant_id, name, stored in await accounts_in_tenants(ctx.session, me.account, first=me.tenant_id):
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
