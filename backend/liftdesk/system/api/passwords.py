"""Passwords and the sessions they open: change, reset, random, replace, and revoking a user's tokens.

Passwords reach the server as the md5 hex of the plain text (Saber hashes before sending), so the composition
rule of the specification (8-15 characters with a digit, an upper and a lower case letter and a special
character) is checked by the web page for the user's own change, and here for every password the server itself
makes or is given in plain text (``replacePassword``, ``randomPassword``). Every change revokes the user's earlier
tokens and closes their live sockets (``AUTH_REVOKED`` on the bus).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
from functools import cache

from pydantic import ConfigDict, Field
from sqlalchemy import case, select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core import crud
from liftdesk.core.batch import selected
from liftdesk.core.deps import AUTH_REVOKED, revoke_user_tokens
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.ids import ids_pattern
from liftdesk.core.kv import KV
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.schemas import Schema, documented
from liftdesk.core.security import hash_password, md5_hex, verify_password
from liftdesk.system import models as m
from liftdesk.system import resources as res

USER = "/api/blade-user"
MD5 = re.compile(r"^[0-9a-fA-F]{32}$")
SPECIALS = "!@#$%^&*()-_=+[]{};:,.?/~"
#: Longest time a token can live (refresh validity of the clients, 7 days by default): how long a revocation mark
#: must be kept.
REVOCATION_TTL_S = 30 * 24 * 3600


def password_problem(plain: str) -> str | None:
    """The rule of the specification, or None when ``plain`` follows it."""
    if not 8 <= len(plain) <= 15:
        return "length"
    if not (
        any(c.isdigit() for c in plain)
        and any(c.islower() for c in plain)
        and any(c.isupper() for c in plain)
        and any(not c.isalnum() for c in plain)
    ):
        return "classes"
    return None


def check_rule(plain: str, field: str = "password") -> None:
    if password_problem(plain) is not None:
        raise ServiceError(t("password_rule", field=field))


@cache
def _common_md5() -> frozenset[bytes]:
    """The md5 of every word of zxcvbn's frequency lists (common passwords, English words, names, surnames: about
    90,000), as written there (lower case), capitalised and in upper case: passwords arrive md5-hashed, so a common
    one is known by its md5. Built once, on first use (about a second; 16 bytes a word)."""
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    words = {w for ranked in FREQUENCY_LISTS.values() for w in ranked}
    return frozenset(
        hashlib.md5(variant.encode(), usedforsecurity=False).digest()
        for w in words
        for variant in {w, w.capitalize(), w.upper()}
    )


def refuse_weak(md5_of_plain: str, account: str, field: str = "password") -> None:
    """A password whose md5 is that of a common password (zxcvbn's lists) or of the account name is refused (400,
    naming ``field``): the server sees only the md5 of a password the user types, and can still tell these."""
    digest = md5_of_plain.lower()
    if digest == md5_hex(account) or digest == md5_hex(account.lower()):
        raise ServiceError(t("password_is_account", field=field))
    try:
        raw = bytes.fromhex(digest)
    except ValueError:
        return
    if raw in _common_md5():
        raise ServiceError(t("password_common", field=field))


def random_password(length: int = 12) -> str:
    """A password that follows the rule, from the operating system's random source."""
    pools = [string.ascii_lowercase, string.ascii_uppercase, string.digits, SPECIALS]
    chars = [secrets.choice(p) for p in pools]
    everything = "".join(pools)
    chars += [secrets.choice(everything) for _ in range(length - len(chars))]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


async def revoke_user(ctx: crud.Ctx, user_id: int) -> None:
    """Every token of the user stops working in every process; their live sockets close once the request's work
    is committed (``AUTH_REVOKED`` leaves through the request's outbox)."""
    await revoke_user_tokens(KV(ctx.session), user_id, REVOCATION_TTL_S)
    ctx.outbox.append((AUTH_REVOKED, {"userId": str(user_id)}))


def _md5(value: str, field: str) -> str:
    value = value.strip()
    if not value:
        raise ServiceError(t("field_required", field=field))
    if not MD5.match(value):
        raise ServiceError(t("field_invalid", field=field))
    return value.lower()


class PasswordChangeQuery(Schema):
    old_password: str = Field(default="", max_length=64, description="md5 hex of the current password")
    new_password: str = Field(default="", max_length=64, description="md5 hex of the new password")
    new_password1: str = Field(default="", max_length=64, description="md5 hex of the new password, again")


@res.USER.action(
    "POST",
    f"{USER}/update-password",
    permission=SIGNED_IN,
    query=PasswordChangeQuery,
    answer=bool,
    message="password_changed",
    summary="Change one's own password (md5 hex of old, new, confirmation); every earlier token is revoked",
)
async def update_password(ctx: crud.Ctx, query: PasswordChangeQuery) -> bool:
    old = _md5(query.old_password, "oldPassword")
    new = _md5(query.new_password, "newPassword")
    again = _md5(query.new_password1, "newPassword1")
    if new != again:
        raise ServiceError(t("password_mismatch"))
    me = ctx.principal
    user = await ctx.session.get(m.User, me.user_id)
    if user is None or user.is_deleted or user.tenant_id != me.tenant_id:
        raise ServiceError(t("not_found"))
    if not verify_password(user.password, old):
        raise ServiceError(t("old_password_wrong"))
    if new == old or new == md5_hex(user.account):
        raise ServiceError(t("password_unchanged"))
    refuse_weak(new, user.account, "newPassword")
    user.password = hash_password(new)
    user.password_must_change = 0
    await revoke_user(ctx, user.id)
    return True


class NewPasswords(Schema):
    """Passwords set by an administrator, by account: shown once, to be passed on to each user."""

    passwords: dict[str, str]


async def _set(ctx: crud.Ctx, users: list[m.User], plain: dict[int, str]) -> None:
    for user in users:
        user.password = hash_password(md5_hex(plain[user.id]))
        user.password_must_change = 1  # the administrator knows it: the user chooses their own at next sign-in
        await revoke_user(ctx, user.id)


class UserIdsQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("user_ids",)))

    user_ids: str = Field(
        default="",
        max_length=4000,
        description="comma-separated user ids",
        json_schema_extra={"pattern": ids_pattern(200)},
    )


@res.USER.action(
    "POST",
    f"{USER}/reset-password",
    permission="edit",
    kind="batch",
    query=UserIdsQuery,
    answer=NewPasswords,
    summary="Reset users' passwords to a fresh random one each (shown once); they choose their own at next sign-in",
)
async def reset_password(ctx: crud.Ctx, query: UserIdsQuery) -> NewPasswords:
    # BladeX resets to the parameter ``account.initPassword`` (123456), the same for everybody and known to all:
    # a reset here gives each user a random password that follows the rule instead.
    users: list[m.User] = await selected(ctx, query.user_ids, "userIds")
    plain = {u.id: random_password() for u in users}
    await _set(ctx, users, plain)
    return NewPasswords(passwords={u.account: plain[u.id] for u in users})


class ReplaceIn(Schema):
    user_ids: str = Field(default="", max_length=4000, description="comma-separated user ids")
    password: str = Field(default="", max_length=64, description="the new password, in plain text")


@res.USER.action(
    "POST",
    f"{USER}/replacePassword",
    permission="edit",
    kind="batch",
    query=ReplaceIn,
    body=ReplaceIn,
    answer=bool,
    message="password_changed",
    summary="Set the given password (plain text, checked against the rule) for users; changed at next sign-in "
    "(in the JSON body or the query)",
)
async def replace_password(ctx: crud.Ctx, query: ReplaceIn, body: ReplaceIn) -> bool:
    ids = body.user_ids or query.user_ids
    plain = body.password or query.password
    if not plain:
        raise ServiceError(t("field_required", field="password"))
    check_rule(plain)
    users: list[m.User] = await selected(ctx, ids, "userIds")
    for user in users:
        refuse_weak(md5_hex(plain), user.account)
    await _set(ctx, users, {u.id: plain for u in users})
    return True


class RandomPassword(Schema):
    password: str


@res.USER.action(
    "POST",
    f"{USER}/randomPassword",
    permission=SIGNED_IN,
    answer=RandomPassword,
    reads=True,
    summary="A random password that follows the password rule (nothing saved)",
)
async def new_random_password(ctx: crud.Ctx) -> RandomPassword:
    return RandomPassword(password=random_password())


async def accounts_in_tenants(
    session: AsyncSession, account: str, first: str | None = None, limit: int = 20
) -> list[tuple[str, str, str]]:
    """(tenant id, tenant name, stored hash) of the live tenants where ``account`` exists: tenant ``first`` (the
    caller's own) first, then the others by id, ``limit`` in all (each costs its caller a password hash check; an
    ``admin`` account exists in every tenant, so the limit must not leave the caller's own tenant out)."""
    rows = await session.execute(
        select(m.Tenant.tenant_id, m.Tenant.tenant_name, m.User.password)
        .join(m.User, m.User.tenant_id == m.Tenant.tenant_id)
        .where(m.User.account == account, m.User.is_deleted == 0, m.User.status == 1, m.Tenant.is_deleted == 0)
        .order_by(case((m.Tenant.tenant_id == first, 0), else_=1), m.Tenant.tenant_id)
        .limit(limit)
    )
    return [(a, b, c) for a, b, c in rows.all()]
