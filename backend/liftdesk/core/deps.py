"""Dependency aliases: routes read like sentences (``session: SessionDep, me: CurrentUser``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.db import Database
from liftdesk.core.envelope import NotAuthenticated
from liftdesk.core.i18n import t
from liftdesk.core.kv import KV
from liftdesk.core.security import Principal, decode_token, principal_from_claims, token_from_request


def revoked_key(jti: str) -> str:
    return f"revoked:{jti}"


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    db: Database = request.app.state.db
    async with db.sessionmaker() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


async def principal_of(session: AsyncSession, token: str | None) -> Principal:
    """The caller of an access token: signed, not expired and not revoked (HTTP and WebSocket alike)."""
    if not token:
        raise NotAuthenticated(t("token_missing"), 401)
    if token.lower().startswith("bearer "):
        token = token[7:].strip()
    principal = principal_from_claims(decode_token(token, "access"))
    if await KV(session).get(revoked_key(principal.jti)) is not None:
        raise NotAuthenticated(t("token_invalid"), 401)
    return principal


async def get_principal(request: Request, session: SessionDep) -> Principal:
    principal = await principal_of(session, token_from_request(request))
    request.state.principal = principal
    return principal


CurrentUser = Annotated[Principal, Depends(get_principal)]
