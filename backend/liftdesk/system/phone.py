"""Phone sign-in: a 6-digit code by SMS (``POST /api/blade-resource/sms/endpoint/send-validate``), then the token
call's ``grant_type=sms_code`` with the key the first call answered.

Where the codes live: a table of their own, ``blade_sms_validate`` (migration 0027), not the key-value store. A code
has several facts that change separately (its HMAC, its expiry, its wrong tries, whether it was used) and the rate
limits are counts of codes sent to a number over the last minute and hour, which are rows to count with an index
(phone, time) rather than keys to scan. Like the key-value store it is in the database, so every process and restart
sees the same codes.

- A code is kept only as ``HMAC-SHA256(secret_key, key:phone:code)``; it is valid ``CODE_TTL`` (5 minutes),
  ``MAX_ATTEMPTS`` wrong tries void it, and a right one spends it (single use).
- Per number (whatever the tenant): at most one code a minute and ``PER_HOUR`` an hour, counted under a transaction
  lock on the number (:func:`liftdesk.core.db.lock_key`), so of parallel requests for one number exactly one is
  accepted.
- Whether a number belongs to a user is never told: the answer, the rate limits and the stored row are the same
  either way; the message is sent only when a user of that tenant has the number, and it is sent after the answer
  (a background task), so neither the provider's time nor its refusal shows. A provider's refusal is logged.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.config import get_settings
from liftdesk.core.db import lock_key, utcnow
from liftdesk.core.envelope import OAuthError, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.kv import KV
from liftdesk.core.schemas import Schema
from liftdesk.system import auth, sms
from liftdesk.system import models as m
from liftdesk.system.service import param_value

log = logging.getLogger(__name__)

CODE_TTL = timedelta(minutes=5)
RESEND_AFTER = timedelta(minutes=1)
HOUR = timedelta(hours=1)
PER_HOUR = 5
MAX_ATTEMPTS = 5
#: Rows older than this are deleted when a new code is asked for (the hour's count needs no more).
KEEP = timedelta(days=1)
CODE_DIGITS = 6
#: The template parameter that carries the code.
CODE_PARAM = "code"


class SendValidateOut(Schema):
    """The key to send back with the code (``key`` of the ``sms_code`` grant), and the number it was sent to."""

    id: str
    phone: str


@dataclass(frozen=True)
class Outgoing:
    """A message to send once the answer has gone (None config: the server log)."""

    config: m.Sms | None
    phone: str
    code: str

    async def send(self) -> None:
        try:
            await sms.send(
                self.config,
                [self.phone],
                {CODE_PARAM: self.code},
                allow_private=get_settings().allow_private_endpoints,
                template="sms-validate",
            )
        except ServiceError as exc:
            log.error("sign-in code to %s not sent: %s", self.phone, exc)


def code_hash(key: str, phone: str, code: str) -> str:
    secret = get_settings().secret_key.encode()
    return hmac.new(secret, f"{key}:{phone}:{code}".encode(), hashlib.sha256).hexdigest()


async def _tenant(session: AsyncSession, tenant_id: str) -> m.Tenant:
    tenant = (
        await session.execute(select(m.Tenant).where(m.Tenant.tenant_id == tenant_id, m.Tenant.is_deleted == 0))
    ).scalar_one_or_none()
    if tenant is None:
        raise ServiceError(t("tenant_not_found"))
    return tenant


async def _enabled_config(session: AsyncSession, tenant_id: str) -> m.Sms | None:
    found = await session.execute(
        select(m.Sms).where(m.Sms.tenant_id == tenant_id, m.Sms.status == sms.ENABLED, m.Sms.is_deleted == 0)
    )
    return found.scalars().first()


async def _users_with(session: AsyncSession, tenant_id: str, phone: str) -> list[m.User]:
    found = await session.execute(
        select(m.User).where(m.User.tenant_id == tenant_id, m.User.phone == phone, m.User.is_deleted == 0).limit(2)
    )
    return list(found.scalars().all())


async def send_validate(
    session: AsyncSession, tenant_id: str, phone: str, production: bool
) -> tuple[SendValidateOut, Outgoing | None]:
    """Accept a request for a code (or refuse it by the rate limits) and commit it; the message to send after the
    answer, when a user of the tenant has the number."""
    tenant = await _tenant(session, tenant_id)
    config = await _enabled_config(session, tenant.tenant_id)
    if config is None and production:
        raise ServiceError(t("sms_none_enabled"))
    if config is not None:
        session.expunge(config)  # read after the commit, by the background send
    await lock_key(session, f"blade_sms_validate:{phone}")
    now = utcnow()
    count, latest = (
        await session.execute(
            select(func.count(), func.max(m.SmsValidate.create_time)).where(
                m.SmsValidate.phone == phone, m.SmsValidate.create_time > now - HOUR
            )
        )
    ).one()
    if latest is not None and latest > now - RESEND_AFTER:
        await session.rollback()
        wait = max(1, int((latest + RESEND_AFTER - now).total_seconds() + 0.999))
        raise ServiceError(t("sms_too_frequent", field="phone", seconds=wait))
    if count >= PER_HOUR:
        await session.rollback()
        raise ServiceError(t("sms_hour_limit", field="phone", limit=PER_HOUR))
    key = secrets.token_hex(16)
    code = "".join(secrets.choice("0123456789") for _ in range(CODE_DIGITS))
    session.add(
        m.SmsValidate(
            tenant_id=tenant.tenant_id,
            key=key,
            phone=phone,
            code_hash=code_hash(key, phone, code),
            create_time=now,
            expire_time=now + CODE_TTL,
        )
    )
    await session.execute(delete(m.SmsValidate).where(m.SmsValidate.create_time < now - KEEP))
    users = await _users_with(session, tenant.tenant_id, phone)
    await session.commit()
    outgoing = Outgoing(config, phone, code) if users else None
    return SendValidateOut(id=key, phone=phone), outgoing


def check_code(code: str) -> str:
    code = code.strip()
    if not code:
        raise OAuthError(t("field_required", field="code"))
    if len(code) != CODE_DIGITS or not code.isdigit():
        raise OAuthError(t("sms_code_format", field="code"))
    return code


async def spend_code(session: AsyncSession, tenant_id: str, phone: str, key: str, code: str) -> None:
    """Check the code against the live row of (tenant, phone, key) and spend it; commits either way.

    The wrong try is counted by the same statement that finds the row (``attempts + 1 ... RETURNING``), so parallel
    guesses each see their own count and cannot run past ``MAX_ATTEMPTS``; the row stays locked (PostgreSQL) or the
    file (SQLite) until the commit, so of parallel uses of a right code exactly one finds it unused."""
    now = utcnow()
    row = m.SmsValidate
    found = (
        await session.execute(
            update(row)
            .where(
                row.key == key,
                row.tenant_id == tenant_id,
                row.phone == phone,
                row.used == 0,
                row.attempts < MAX_ATTEMPTS,
                row.expire_time > now,
            )
            .values(attempts=row.attempts + 1)
            .returning(row.id, row.code_hash, row.attempts)
        )
    ).first()
    if found is None:
        await session.commit()
        raise OAuthError(t("sms_code_expired", field="code"))
    ident, stored, attempts = found
    if not hmac.compare_digest(stored, code_hash(key, phone, code)):
        await session.commit()
        raise OAuthError(t("sms_code_wrong", field="code", left=max(0, MAX_ATTEMPTS - attempts)))
    await session.execute(update(row).where(row.id == ident).values(used=1))
    await session.commit()


async def sms_code_grant(
    session: AsyncSession, client: m.Client, params: dict[str, str], address: str = ""
) -> dict[str, Any]:
    """``grant_type=sms_code``: tenantId, phone, key, code. The user of the tenant with that mobile number, refused
    as the password grant refuses (tenant expired, account not enabled or disabled, locked by failed sign-ins)."""
    from liftdesk.system.api.users import check_mobile

    tenant_id = params.get("tenantId") or params.get("tenant_id") or "000000"
    try:
        phone = check_mobile(params.get("phone", ""))
    except ServiceError as exc:
        raise OAuthError(str(exc)) from None
    key = params.get("key", "").strip()
    if not key:
        raise OAuthError(t("field_required", field="key"))
    if len(key) > 64:
        raise OAuthError(t("sms_code_expired", field="key"))
    code = check_code(params.get("code", ""))
    tenant = await auth.tenant_of(session, tenant_id)
    await spend_code(session, tenant.tenant_id, phone, key, code)
    users = await _users_with(session, tenant.tenant_id, phone)
    if not users:
        raise OAuthError(t("sms_phone_unknown", field="phone"))
    if len(users) > 1:
        raise OAuthError(t("sms_phone_ambiguous", field="phone"))
    user = users[0]
    if user.status != 1:
        raise OAuthError(t("user_disabled"))
    limit = max(1, auth.int_or(await param_value(session, "account.failCount", "5"), 5))
    failures = auth.int_or(await KV(session).get(auth.fail_key(tenant.tenant_id, user.account, address or "-")), 0)
    if failures >= limit:
        raise OAuthError(t("too_many_failures"))
    answer = await auth.issue_pair(session, client, user, tenant)
    await session.commit()
    return answer
