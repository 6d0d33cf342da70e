"""The calls served without a token, all of them here: signing in (token, captcha, the sign-in page's tenant info),
signing out, self-registration and the liveness probe. Every other API call is a resource's operation or a declared
action (``Resource.action``), which checks the caller's token and permission; ``PUBLIC`` lists what this module
serves, and a test fails when an API route is none of the three.

Signing out (``GET /oauth/logout``) is public on purpose: the web client signs out whatever state its token is in
(expired, already revoked, or missing after a 401) and must get its ``success`` answer rather than a 401 that would
start a refresh; the call revokes only the token it is given, and only when that token is validly signed and still
current, so it tells an anonymous caller nothing.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Query, Request
from fastapi.responses import JSONResponse
from sqlalchemy import select

from liftdesk.core.config import get_settings
from liftdesk.core.deps import AUTH_REVOKED, ServicesDep, SessionDep
from liftdesk.core.envelope import OAuthError, R, ok
from liftdesk.core.i18n import t
from liftdesk.core.schemas import NOT_BLANK, Schema
from liftdesk.core.security import token_from_request
from liftdesk.system import auth, phone
from liftdesk.system import models as m
from liftdesk.system.api import registrations
from liftdesk.system.service import param_value

router = APIRouter()
OAUTH = "/api/blade-auth/oauth"
SYS = "/api/blade-system"
SEND_VALIDATE = "/api/blade-resource/sms/endpoint/send-validate"

#: (method, path) of every route this module serves: the API's calls that need no token.
PUBLIC: frozenset[tuple[str, str]] = frozenset(
    {
        ("POST", f"{OAUTH}/token"),
        ("GET", f"{OAUTH}/captcha"),
        ("GET", f"{OAUTH}/logout"),
        ("GET", f"{SYS}/tenant/info"),
        ("POST", "/api/blade-user/register-guest"),
        ("GET", "/api/health"),
        ("POST", SEND_VALIDATE),
    }
)


_TEXT = {"type": "string", "pattern": NOT_BLANK, "maxLength": 255}  # stripped, then it must not be empty
#: What the document says of the token call: a password sign-in in a form body. Saber sends the same fields in the
#: query string, which the call reads too; a refresh (``grant_type=refresh_token`` with ``refresh_token``) and the
#: captcha sign-in (``Captcha-Key`` / ``Captcha-Code`` headers) are described, not given a schema. The client is in
#: the ``Authorization: Basic`` header. A well-formed sign-in is still refused when its account, password or tenant
#: does not match (or after too many failures): that is the answer, not a fault of the request.
TOKEN_DOCUMENT: dict[str, object] = {
    "description": "Form (or query) fields: grant_type password (default) with tenantId, username and password (md5 "
    "hex); grant_type refresh_token with refresh_token; grant_type captcha as password, with the Captcha-Key and "
    "Captcha-Code headers; grant_type sms_code with tenantId, phone, key (the id send-validate answered) and code. "
    "The client authenticates with Authorization: Basic.",
    "requestBody": {
        "required": True,
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "required": ["username", "password"],
                    "properties": {
                        "grant_type": {"type": "string", "enum": ["password"], "default": "password"},
                        "tenantId": {"type": "string", "pattern": "^[0-9]{6}$", "description": "default 000000"},
                        "username": {**_TEXT, "maxLength": 45},
                        "password": {**_TEXT, "description": "md5 hex of the password"},
                    },
                }
            }
        },
    },
}


@router.post(
    f"{OAUTH}/token",
    tags=["auth"],
    summary="Sign in (password, captcha) or refresh; raw OAuth2 answer",
    openapi_extra=TOKEN_DOCUMENT,
)
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
    if grant == "sms_code":
        params.setdefault("tenantId", request.headers.get("tenant-id") or "000000")
        address = request.client.host if request.client else ""
        return JSONResponse(await phone.sms_code_grant(session, client, params, address))
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
async def logout(request: Request, session: SessionDep, services: ServicesDep) -> dict[str, str]:
    tok = token_from_request(request)
    if tok:
        jti = await auth.revoke(session, tok)
        if jti:  # the live sockets opened with this token close in every process
            await services.bus.publish(AUTH_REVOKED, {"jti": jti})
    return {"success": "true", "msg": "success"}


MOBILE_PATTERN = r"^1[3-9][0-9]{9}$"
TENANT = r"^[0-9]{6}$"


@router.post(
    SEND_VALIDATE,
    tags=["auth"],
    summary="Phone sign-in: a 6-digit code by SMS to the number (valid 5 minutes; one a minute and five an hour per "
    "number); the same answer whether or not an account has the number",
)
async def send_validate(
    services: ServicesDep,
    session: SessionDep,
    background: BackgroundTasks,
    phone_number: Annotated[
        str,
        Query(
            alias="phone",
            max_length=20,
            description="an 11-digit mobile number",
            json_schema_extra={"pattern": MOBILE_PATTERN},
        ),
    ],
    tenant_id: Annotated[
        str, Query(alias="tenantId", max_length=12, description="default 000000", json_schema_extra={"pattern": TENANT})
    ] = "000000",
) -> R[phone.SendValidateOut]:
    from liftdesk.system.api.users import check_mobile

    number = check_mobile(phone_number)
    production = services.settings.env == "production"
    answer, outgoing = await phone.send_validate(session, tenant_id.strip() or "000000", number, production)
    if outgoing is not None:
        background.add_task(outgoing.send)
    return ok(answer, t("sms_validate_sent"))


class TenantInfo(Schema):
    tenant_id: str
    domain: str
    background_url: str
    captcha_mode: bool
    #: The tenant was found by the domain (the sign-in and registration forms need not ask for it).
    tenant_resolved: bool = False
    #: Self-registration is switched on (parameter ``account.registerUser``): the registration dialog is offered.
    register_open: bool = False


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
            tenant_resolved=tenant is not None,
            register_open=(await param_value(session, "account.registerUser", "false")).lower() == "true",
        )
    )


@router.post(
    "/api/blade-user/register-guest",
    tags=["user"],
    summary="Self-registration: a pending account an administrator approves (audit-pass) before it can sign in",
)
async def register_guest(request: Request, session: SessionDep, body: registrations.GuestIn) -> R[bool]:
    await registrations.register(session, body, request.client.host if request.client else "")
    return ok(True, t("register_pending"))


@router.get("/api/health", tags=["common"], summary="Liveness: the process answers and the database is reachable")
async def health(session: SessionDep) -> R[str]:
    await session.execute(select(1))
    return ok("up")
