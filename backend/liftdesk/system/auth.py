"""Sign-in: the OAuth2 token grants, lockout, captcha, token revocation."""

from __future__ import annotations

import base64
import hmac
import io
import secrets
import string
import time
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.db import utcnow
from liftdesk.core.deps import revoked_for_user, revoked_key
from liftdesk.core.envelope import OAuthError
from liftdesk.core.i18n import t
from liftdesk.core.ids import ids_of
from liftdesk.core.kv import KV
from liftdesk.core.security import (
    ADMINISTRATOR_ROLE_ID,
    LEVEL_PLATFORM,
    LEVEL_TENANT,
    PLATFORM_TENANT,
    decode_token,
    hash_password,
    issue_token,
    parse_basic,
    principal_from_claims,
    verify_password,
)
from liftdesk.system import models as m
from liftdesk.system.service import param_value

LOCK_WINDOW = timedelta(minutes=30)
CAPTCHA_TTL = timedelta(minutes=30)
GRANTS = ("password", "captcha", "refresh_token", "social", "sms_code")


#: Failures of one account before a captcha is required with every further attempt (from any address).
CAPTCHA_AFTER = 3


#: The longest account (``blade_user.account``) and tenant id (``blade_tenant.tenant_id``).
ACCOUNT_MAX = 45
TENANT_ID_MAX = 12
#: A hash no password matches: checked for an unknown tenant or account, so that they cost what a wrong password
#: costs.
_NOBODY = hash_password(secrets.token_hex(16))


def fail_key(tenant_id: str, account: str, address: str = "") -> str:
    """Failures of one account (``address`` empty) or of one account from one client address (the lock)."""
    base = f"login-fail:{tenant_id}:{account}:"
    return base + address if address else base + "*"


async def clear_failures(session: AsyncSession, tenant_id: str, account: str) -> None:
    await KV(session).delete_prefix(f"login-fail:{tenant_id}:{account}:")


async def check_client(session: AsyncSession, authorization: str | None, grant_type: str) -> m.Client:
    pair = parse_basic(authorization)
    if pair is None:
        raise OAuthError(t("bad_client"), "invalid_client", 401)
    client = (
        await session.execute(
            select(m.Client).where(m.Client.client_id == pair[0], m.Client.is_deleted == 0, m.Client.status == 1)
        )
    ).scalar_one_or_none()
    if client is None or not hmac.compare_digest(client.client_secret.encode(), pair[1].encode()):
        raise OAuthError(t("bad_client"), "invalid_client", 401)
    allowed = {g.strip() for g in client.authorized_grant_types.split(",")}
    if grant_type not in allowed:
        raise OAuthError(t("grant_unsupported", grant=grant_type), "unsupported_grant_type")
    return client


async def new_captcha(session: AsyncSession) -> dict[str, str]:
    from captcha.image import ImageCaptcha

    alphabet = "".join(c for c in string.ascii_uppercase + string.digits if c not in "0O1IL")
    code = "".join(secrets.choice(alphabet) for _ in range(5))
    key = secrets.token_hex(16)
    await KV(session).set(f"captcha:{key}", code, CAPTCHA_TTL)
    await session.commit()
    buf = io.BytesIO()
    image: Any = ImageCaptcha(width=130, height=48)
    image.write(code, buf, format="png")
    return {"key": key, "image": "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()}


async def check_captcha(session: AsyncSession, key: str | None, code: str | None) -> None:
    kv = KV(session)
    stored = await kv.get(f"captcha:{key}") if key else None
    if key:
        await kv.delete(f"captcha:{key}")  # one attempt per image
    if stored is None or not code or stored.lower() != code.strip().lower():
        await session.commit()
        raise OAuthError(t("captcha_wrong"))


async def tenant_of(session: AsyncSession, tenant_id: str) -> m.Tenant:
    tenant = (
        await session.execute(select(m.Tenant).where(m.Tenant.tenant_id == tenant_id, m.Tenant.is_deleted == 0))
    ).scalar_one_or_none()
    if tenant is None:
        raise OAuthError(t("tenant_not_found"))
    if tenant.expire_time is not None and tenant.expire_time < utcnow():
        raise OAuthError(t("tenant_expired"))
    return tenant


async def password_grant(
    session: AsyncSession,
    client: m.Client,
    tenant_id: str,
    account: str,
    password_md5: str,
    address: str = "",
    captcha_checked: bool = False,
) -> dict[str, Any]:
    """The password grant with its lockout.

    The lock is per account and client address, so an outsider cannot lock an administrator out of every
    address; after ``CAPTCHA_AFTER`` failures of the account (from anywhere) every further attempt needs a
    captcha. An attempt is counted atomically *before* the password is checked (``KV.incr`` is one statement) and
    that count is committed first, so parallel guesses cannot run past the limit: each sees its own number.

    An unknown tenant is answered as a wrong password is, step for step (failures counted, captcha, lock, a
    password hash checked), and an expired tenant's licence is named only to whoever knows the password: the answer
    tells nobody which tenant ids exist."""
    if len(account) > ACCOUNT_MAX or len(tenant_id) > TENANT_ID_MAX:
        # No account or tenant id is that long (and its failure key would not fit the store): the answer of any
        # unknown account.
        raise OAuthError(t("bad_credentials"))
    tenant = (
        await session.execute(select(m.Tenant).where(m.Tenant.tenant_id == tenant_id, m.Tenant.is_deleted == 0))
    ).scalar_one_or_none()
    kv = KV(session)
    limit = max(1, int_or(await param_value(session, "account.failCount", "5"), 5))
    account_failures = int_or(await kv.get(fail_key(tenant_id, account)), 0)
    if account_failures >= CAPTCHA_AFTER and not captcha_checked:
        raise OAuthError(t("captcha_required"), "captcha_required")
    lock = fail_key(tenant_id, account, address or "-")
    attempt = await kv.incr(lock, LOCK_WINDOW)
    await session.commit()
    if attempt > limit:
        raise OAuthError(t("too_many_failures"))
    user = (
        await session.execute(
            select(m.User).where(m.User.tenant_id == tenant_id, m.User.account == account, m.User.is_deleted == 0)
        )
    ).scalar_one_or_none()
    stored = user.password if user is not None and tenant is not None else _NOBODY
    if not verify_password(stored, password_md5) or user is None or tenant is None:
        await kv.incr(fail_key(tenant_id, account), LOCK_WINDOW)
        await session.commit()
        raise OAuthError(t("bad_credentials"))
    if tenant.expire_time is not None and tenant.expire_time < utcnow():
        raise OAuthError(t("tenant_expired"))
    if user.status != 1:
        if user.status == 0 and not (user.role_id or "").strip():  # a registration not approved yet
            raise OAuthError(t("register_pending"), "user_pending")
        raise OAuthError(t("user_disabled"))
    await clear_failures(session, tenant.tenant_id, account)
    answer = await issue_pair(session, client, user, tenant)
    await session.commit()
    return answer


def int_or(text: str | None, default: int) -> int:
    try:
        return int(text) if text else default
    except ValueError:
        return default


async def refresh_grant(session: AsyncSession, client: m.Client, refresh_token: str) -> dict[str, Any]:
    try:
        claims = decode_token(refresh_token, "refresh")
        user_id = int(claims["user_id"])
    except Exception as exc:
        raise OAuthError(t("refresh_invalid"), "invalid_grant", 401) from exc
    kv = KV(session)
    user = await session.get(m.User, user_id)
    if user is None or user.is_deleted or user.status != 1 or await revoked_for_user(kv, claims):
        raise OAuthError(t("refresh_invalid"), "invalid_grant", 401)
    tenant = await tenant_of(session, user.tenant_id)
    # Rotate: the old refresh token is spent. The claim is one atomic statement, so of parallel uses of the same
    # refresh token exactly one gets a new pair.
    remaining = max(1, int(claims.get("exp", 0)) - int(time.time()))
    if not await kv.claim(revoked_key(str(claims.get("jti"))), "refresh", timedelta(seconds=remaining)):
        await session.rollback()
        raise OAuthError(t("refresh_invalid"), "invalid_grant", 401)
    await session.commit()
    answer = await issue_pair(session, client, user, tenant)
    await session.commit()
    return answer


async def user_roles(session: AsyncSession, user: m.User) -> list[m.Role]:
    """The user's live roles of the user's own tenant (a role id of another tenant on a user row grants nothing)."""
    role_ids = ids_of(user.role_id)
    if not role_ids:
        return []
    rows = await session.execute(
        select(m.Role).where(m.Role.id.in_(role_ids), m.Role.tenant_id == user.tenant_id, m.Role.is_deleted == 0)
    )
    return list(rows.scalars().all())


def admin_level(user: m.User, roles: list[m.Role]) -> str:
    """Platform administrator: the seeded administrator role of the platform tenant, by id. Tenant administrator:
    a role marked an administrator role (``blade_role.is_admin``), never by its alias (a user who may edit roles
    could rename theirs ``admin``)."""
    if user.tenant_id == PLATFORM_TENANT and any(r.id == ADMINISTRATOR_ROLE_ID for r in roles):
        return LEVEL_PLATFORM
    if any(r.is_admin for r in roles):
        return LEVEL_TENANT
    return ""


async def issue_pair(session: AsyncSession, client: m.Client, user: m.User, tenant: m.Tenant) -> dict[str, Any]:
    roles = await user_roles(session, user)
    if not roles:
        raise OAuthError(t("no_role"))
    claims = {
        "client_id": client.client_id,
        "user_id": str(user.id),
        "tenant_id": user.tenant_id,
        "account": user.account,
        "user_name": user.account,
        "nick_name": user.name or "",
        "real_name": user.real_name or "",
        "role_id": ",".join(str(r.id) for r in roles),
        "iat_ms": int(time.time() * 1000),
        "must_change_password": bool(user.password_must_change),
        "role_name": ",".join(r.role_alias for r in roles),  # display only: rights come from admin_level
        "admin_level": admin_level(user, roles),
        "dept_id": user.dept_id,
        "post_id": user.post_id,
        "oauth_id": "",
    }
    refresh, refresh_jti, refresh_exp = issue_token(claims, client.refresh_token_validity, "refresh")
    access, jti, _ = issue_token(
        {**claims, "rjti": refresh_jti, "rexp": refresh_exp}, client.access_token_validity, "access"
    )
    return {
        "access_token": access,
        "token_type": "bearer",
        "refresh_token": refresh,
        "expires_in": client.access_token_validity,
        "scope": "all",
        "jti": jti,
        **claims,
        "tenant_name": tenant.tenant_name,
        "avatar": user.avatar or "",
        "detail": {"type": "web"},
        "license": "powered by liftdesk",
    }


async def revoke(session: AsyncSession, token: str) -> str | None:
    """Revoke an access token and its refresh token, for every process, until they would have expired; returns
    the access token's id (None when the token was not valid)."""
    try:
        claims = decode_token(token, "access")
    except Exception:
        return None
    principal = principal_from_claims(claims)
    kv = KV(session)
    now = int(time.time())
    await kv.set(revoked_key(principal.jti), "logout", timedelta(seconds=max(1, principal.exp - now)))
    rjti, rexp = claims.get("rjti"), int(claims.get("rexp", 0))
    if rjti and rexp > now:
        await kv.set(revoked_key(str(rjti)), "logout", timedelta(seconds=rexp - now))
    await session.commit()
    return principal.jti
