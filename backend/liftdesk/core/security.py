"""Password hashing, JWT tokens, the client (Basic) check and the current principal.

Passwords arrive as the md5 hex of the plain text (Saber hashes before sending); we store argon2id of that md5,
never a fast hash.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Request

from liftdesk.core.config import get_settings
from liftdesk.core.envelope import NotAuthenticated
from liftdesk.core.i18n import t
from liftdesk.core.ids import id_of, ids_of

_hasher = PasswordHasher()  # argon2id with the library's recommended parameters
ALGORITHM = "HS256"
ADMINISTRATOR = "administrator"
TENANT_ADMIN = "admin"
PLATFORM_TENANT = "000000"
#: The seeded platform administrator role. Platform-wide rights belong to this role of the platform tenant, checked by
#: id when a token is issued: never to whatever alias a role happens to carry.
ADMINISTRATOR_ROLE_ID = 1123598816738675201
#: Values of the signed claim ``admin_level``: decided by ``system.auth.issue_pair`` from role rows, read here.
LEVEL_PLATFORM = "platform"
LEVEL_TENANT = "tenant"


def md5_hex(plain: str) -> str:
    return hashlib.md5(plain.encode("utf-8"), usedforsecurity=False).hexdigest()


def hash_password(md5_of_plain: str) -> str:
    return _hasher.hash(md5_of_plain.lower())


def verify_password(stored: str, md5_of_plain: str) -> bool:
    try:
        return _hasher.verify(stored, md5_of_plain.lower())
    except (VerificationError, InvalidHashError):
        return False


def parse_basic(header: str | None) -> tuple[str, str] | None:
    if not header or not header.lower().startswith("basic "):
        return None
    try:
        raw = base64.b64decode(header[6:].strip()).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    client_id, sep, secret = raw.partition(":")
    return (client_id, secret) if sep else None


@dataclass(frozen=True)
class Principal:
    """Who is calling: read from a verified token."""

    user_id: int
    tenant_id: str
    account: str
    user_name: str = ""
    role_ids: tuple[int, ...] = ()
    role_aliases: tuple[str, ...] = ()
    dept_ids: tuple[int, ...] = ()
    client_id: str = "saber"
    jti: str = ""
    exp: int = 0
    claims: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    admin_level: str = ""

    @property
    def is_administrator(self) -> bool:
        """The platform administrator: decided from role ids at sign-in and carried in the signed claims, never
        parsed from the comma-separated alias list (an alias ``admin,administrator`` once made a tenant admin
        platform-wide)."""
        return self.admin_level == LEVEL_PLATFORM

    @property
    def is_admin(self) -> bool:
        """The tenant administrator (or the platform administrator): BladeX skips data scope and button checks."""
        return self.admin_level in (LEVEL_PLATFORM, LEVEL_TENANT)

    def has_role(self, alias: str) -> bool:
        """A role named in a resource's ``read_roles`` / ``write_roles``: the two administrator roles by level."""
        if alias == ADMINISTRATOR:
            return self.is_administrator
        if alias == TENANT_ADMIN:
            return self.is_admin
        return alias in self.role_aliases

    @property
    def dept_id(self) -> int | None:
        return self.dept_ids[0] if self.dept_ids else None


def _csv_ints(text: str | None) -> tuple[int, ...]:
    return tuple(ids_of(text))


def issue_token(claims: dict[str, Any], ttl_seconds: int, kind: str) -> tuple[str, str, int]:
    jti = uuid.uuid4().hex
    exp = int((datetime.now(UTC) + timedelta(seconds=ttl_seconds)).timestamp())
    body = {**claims, "jti": jti, "exp": exp, "token_type": kind}
    return jwt.encode(body, get_settings().secret_key, algorithm=ALGORITHM), jti, exp


def decode_token(token: str, kind: str = "access") -> dict[str, Any]:
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            get_settings().secret_key,
            algorithms=[ALGORITHM],
            options={"require": ["exp", "jti", "user_id", "tenant_id"]},  # a token without an expiry is refused
        )
    except jwt.PyJWTError as exc:
        raise NotAuthenticated(t("token_invalid"), 401) from exc
    if claims.get("token_type") != kind:
        raise NotAuthenticated(t("token_invalid"), 401)
    if id_of(claims["user_id"]) is None:
        raise NotAuthenticated(t("token_invalid"), 401)
    return claims


def principal_from_claims(claims: dict[str, Any]) -> Principal:
    return Principal(
        user_id=int(claims["user_id"]),
        tenant_id=str(claims["tenant_id"]),
        account=str(claims.get("account", "")),
        user_name=str(claims.get("real_name", "")),
        role_ids=_csv_ints(claims.get("role_id")),
        role_aliases=tuple(a for a in str(claims.get("role_name", "")).split(",") if a),
        dept_ids=_csv_ints(claims.get("dept_id")),
        client_id=str(claims.get("client_id", "")),
        jti=str(claims.get("jti", "")),
        exp=int(claims.get("exp", 0)),
        admin_level=str(claims.get("admin_level", "")),
        claims=claims,
    )


def token_from_request(request: Request) -> str | None:
    raw = request.headers.get("blade-auth") or request.query_params.get("blade-auth")
    if not raw:
        return None
    raw = raw.strip()
    if raw.lower().startswith("bearer "):
        raw = raw[7:].strip()
    return raw or None
