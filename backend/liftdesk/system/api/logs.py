"""The error log's detail: the one answer that carries a server error's trace (the list leaves it out)."""

from __future__ import annotations

from typing import Any

from liftdesk.core import crud
from liftdesk.core.schemas import Id, Schema
from liftdesk.system import resources as res
from liftdesk.system.logs import LogErrorDetail


class LogIdQuery(Schema):
    id: Id


@res.LOG_ERROR.action(
    "GET",
    "detail",
    summary="One server error by id, with its trace (the platform administrator only)",
    kind="detail",
    query=LogIdQuery,
    answer=LogErrorDetail,
)
async def error_detail(ctx: crud.Ctx, query: LogIdQuery) -> dict[str, Any]:
    row = await crud.get_scoped(ctx, query.id)
    return LogErrorDetail.model_validate(row).model_dump(by_alias=False)
