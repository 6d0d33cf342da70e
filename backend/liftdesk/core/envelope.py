"""The envelope ``R {code, success, data, msg}`` and the one place exceptions become envelopes."""

from __future__ import annotations

import logging
from typing import Any, Generic, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from liftdesk.core.i18n import t

T = TypeVar("T")
log = logging.getLogger("liftdesk")


class R(BaseModel, Generic[T]):
    code: int = 200
    success: bool = True
    data: T | None = None
    msg: str = ""


def ok(data: T | None = None, msg: str | None = None) -> R[T]:
    return R[T](code=200, success=True, data=data, msg=msg or t("ok"))


class ServiceError(Exception):
    """A business rule refused the request: HTTP 400, body code 400, message for the user."""

    status = 400

    def __init__(self, msg: str, code: int | None = None) -> None:
        super().__init__(msg)
        self.msg = msg
        self.code = code or self.status


class NotAuthenticated(ServiceError):
    status = 401


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 400  # BladeX answers a missing row as a business error


class OAuthError(Exception):
    """Failure of the token endpoint: OAuth2 body ``{error, error_description}`` (plus code/msg for Saber)."""

    def __init__(self, description: str, error: str = "invalid_grant", status: int = 400) -> None:
        super().__init__(description)
        self.description = description
        self.error = error
        self.status = status


def fail_body(code: int, msg: str) -> dict[str, Any]:
    return {"code": code, "success": False, "data": None, "msg": msg}


def _field_name(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def validation_message(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return t("fail")
    err = errors[0]
    field = _field_name(tuple(err.get("loc", ())))
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    if kind == "missing" or (kind.startswith("string_too_short") and ctx.get("min_length") == 1):
        return t("field_required", field=field)
    if kind == "string_too_long":
        return t("field_too_long", field=field, limit=ctx.get("max_length"))
    if kind == "string_too_short":
        return t("field_too_short", field=field, limit=ctx.get("min_length"))
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        return t("field_range", field=field)
    if kind == "value_error":
        reason = str(ctx.get("error", err.get("msg", "")))
        return t("validation", field=field, reason=reason)
    return t("field_invalid", field=field)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def _service(_: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(fail_body(exc.code, exc.msg), status_code=exc.status)

    @app.exception_handler(OAuthError)
    async def _oauth(_: Request, exc: OAuthError) -> JSONResponse:
        body = {"error": exc.error, "error_description": exc.description, **fail_body(exc.status, exc.description)}
        return JSONResponse(body, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(fail_body(400, validation_message(exc)), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        msg = exc.detail if isinstance(exc.detail, str) else t("fail")
        if exc.status_code == 404:
            msg = t("not_found") if msg == "Not Found" else msg
        return JSONResponse(fail_body(exc.status_code, msg), status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _unhandled(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(fail_body(500, t("server_error")), status_code=500)


def r_of(model: Any) -> Any:
    """``R[model]`` for a schema built at run time (keeps the OpenAPI document typed)."""
    return R[model]


def r_list_of(model: Any) -> Any:
    return R[list[model]]
