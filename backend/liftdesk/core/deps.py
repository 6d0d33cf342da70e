"""Dependency aliases: routes read like sentences (``session: SessionDep, me: CurrentUser``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core import api_scope
from liftdesk.core.db import Database
from liftdesk.core.envelope import Forbidden, NotAuthenticated
from liftdesk.core.i18n import t
from liftdesk.core.kv import KV
from liftdesk.core.security import Principal, decode_token, principal_from_claims, token_from_request
from liftdesk.core.services import Services


def revoked_key(jti: str) -> str:
    return f"revoked:{jti}"


#: Bus topic: tokens were revoked (``{"userId": str}`` every token of a user, or ``{"jti": str}`` one token); every
#: process closes the live sockets opened with them.
AUTH_REVOKED = "auth.revoked"


def user_revoked_key(user_id: int | str) -> str:
    """Tokens of this user issued before the stored time (ms) are dead: a password change, a reset, a removal."""
    return f"user-revoked:{user_id}"


#: What a user who must choose a new password may still call: the change itself, who they are, signing out, and
#: the shell's start-up reads of their own menus (which the web app asks before it shows the change screen).
PASSWORD_CHANGE_PATHS = frozenset(
    {
        "/api/blade-user/update-password",
        "/api/blade-user/info",
        "/api/blade-auth/oauth/logout",
        "/api/blade-auth/oauth/user-info",
    }
)


async def revoke_user_tokens(kv: KV, user_id: int, ttl_s: int) -> None:
    """Every token of the user issued until now stops working (for ``ttl_s``: the longest refresh validity)."""
    import time
    from datetime import timedelta

    await kv.set(user_revoked_key(user_id), str(int(time.time() * 1000) + 1), timedelta(seconds=max(60, ttl_s)))


async def revoked_for_user(kv: KV, claims: dict[str, Any]) -> bool:
    """Is the token (access or refresh) revoked, by its own id or by its user's "revoked before" mark?"""
    keys = [revoked_key(str(claims.get("jti", ""))), user_revoked_key(str(claims.get("user_id", "")))]
    found = await kv.get_many(*keys)
    if keys[0] in found:
        return True
    before = found.get(keys[1])
    try:
        return before is not None and int(claims.get("iat_ms", 0)) < int(before)
    except (TypeError, ValueError):
        return True


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    db: Database = request.app.state.db
    async with db.sessionmaker() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def principal_of(session: AsyncSession, token: str | None, path: str | None = None) -> Principal:
    """The caller of an access token: signed, not expired and not revoked (HTTP and WebSocket alike). A user who
    must choose a new password reaches only ``PASSWORD_CHANGE_PATHS`` (``path`` None: a WebSocket, refused)."""
    if not token:
        raise NotAuthenticated(t("token_missing"), 401)
    if token.lower().startswith("bearer "):
        token = token[7:].strip()
    claims = decode_token(token, "access")
    principal = principal_from_claims(claims)
    if await revoked_for_user(KV(session), claims):
        raise NotAuthenticated(t("token_invalid"), 401)
    if claims.get("must_change_password") is True and path not in PASSWORD_CHANGE_PATHS:
        raise Forbidden(t("password_change_required"), 403)
    return principal


async def get_principal(request: Request, session: SessionDep) -> Principal:
    """The caller of the request's token. Every route with a token depends on it, so the role's API scopes are
    enforced here, once, for generated operations, actions and hand-written routes alike (``core.api_scope``)."""
    principal = await principal_of(session, token_from_request(request), request.url.path)
    request.state.principal = principal
    await api_scope.check(session, principal, request)
    return principal


CurrentUser = Annotated[Principal, Depends(get_principal)]
