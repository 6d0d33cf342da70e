"""The usual, API and error logs: what their pages read, and the store ``core.audit``'s writer writes through.

The API log (``blade_log_api``) and the error log (``blade_log_error``) are written by ``core.audit`` off the
request path; the usual log (``blade_log_usual``) holds the web app's own error log as it uploads it
(``system/api/session.py``, ``POST /oauth/logout``): browser errors have no server trace, so they are usual
entries of level ``error`` from service ``web``, not server errors.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core import audit
from liftdesk.core.config import get_settings
from liftdesk.core.schemas import Id, Schema, Time
from liftdesk.system import models as m

SERVICE = "liftdesk"


class LogUsualOut(Schema):
    id: Id
    tenant_id: str | None = None
    service_id: str | None = None
    log_level: str | None = None
    log_id: str | None = None
    log_data: str | None = None
    request_uri: str | None = None
    user_agent: str | None = None
    remote_ip: str | None = None
    create_by: str | None = None
    create_time: Time | None = None


class _LogRequestOut(Schema):
    id: Id
    tenant_id: str | None = None
    service_id: str | None = None
    server_host: str | None = None
    server_ip: str | None = None
    env: str | None = None
    method: str | None = None
    request_uri: str | None = None
    user_agent: str | None = None
    remote_ip: str | None = None
    method_class: str | None = None
    method_name: str | None = None
    params: str | None = None
    create_by: str | None = None
    create_time: Time | None = None


class LogApiOut(_LogRequestOut):
    type: str | None = None
    title: str | None = None
    time: int | None = None
    status: int | None = None


class LogErrorOut(_LogRequestOut):
    """An error log in a list: no trace (``LogErrorDetail`` has it)."""

    exception_name: str | None = None
    message: str | None = None
    line_number: int | None = None
    file_name: str | None = None


class LogErrorDetail(LogErrorOut):
    stack_trace: str | None = None


def _columns(request: audit.Request, env: str) -> dict[str, object]:
    return {
        "tenant_id": request.tenant_id,
        "service_id": SERVICE,
        "server_host": audit.HOST[:255],
        "server_ip": request.server_ip,
        "env": env,
        "method": request.method[:10],
        "request_uri": request.path,
        "user_agent": request.user_agent,
        "remote_ip": request.remote_ip,
        "method_class": (request.method_class or "")[:255] or None,
        "method_name": (request.method_name or "")[:255] or None,
        "params": request.params,
        "create_by": request.account,
        "create_time": request.create_time,
    }


class LogStore:
    """``core.audit``'s store: entries become rows of ``blade_log_api`` and ``blade_log_error``."""

    def add(self, session: AsyncSession, entries: Sequence[audit.Entry]) -> None:
        env = get_settings().env
        for entry in entries:
            if isinstance(entry, audit.ApiEntry):
                session.add(
                    m.LogApi(
                        id=entry.id,
                        type="1",
                        title=entry.title,
                        time=entry.time_ms,
                        status=entry.status,
                        **_columns(entry.request, env),
                    )
                )
            else:
                session.add(
                    m.LogError(
                        id=entry.id,
                        exception_name=entry.exception_name,
                        message=entry.message,
                        stack_trace=entry.stack_trace,
                        file_name=entry.file_name,
                        line_number=entry.line_number,
                        **_columns(entry.request, env),
                    )
                )


audit.install(LogStore())
