"""Dictionaries (system and business): items by code, trees, lazy children."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import ConfigDict, Field

from liftdesk.core import crud
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.paging import PageIn, PageQuery, page_in
from liftdesk.core.resource import Resource
from liftdesk.core.schemas import Id, Schema, documented
from liftdesk.system import resources as res
from liftdesk.system import schemas as s
from liftdesk.system.api.common import list_of, page_of

# ---------------------------------------------------------------- dictionaries


class DictItem(Schema):
    id: Id
    parent_id: Id
    code: str
    dict_key: str
    dict_value: str
    sort: int
    remark: str | None = None


class DictCodeQuery(Schema):
    code: str = Field(min_length=1, max_length=255, description="the dictionary's code")


class DictParentQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("parent_id",)))

    parent_id: Id | None = Field(default=None, description="the dictionary root")


def _dictionary_actions(resource: Resource, out: type[Schema]) -> None:
    model: Any = resource.model

    @resource.action(
        "GET",
        "dictionary",
        kind="read",
        query=DictCodeQuery,
        answer=list[DictItem],
        summary="Entries of one dictionary code (not sealed), for selects",
    )
    async def dictionary(ctx: crud.Ctx, query: DictCodeQuery) -> list[DictItem]:
        stmt = (
            ctx.scope.select(model)
            .where(model.code == query.code, model.parent_id != 0, model.is_sealed == 0)
            .order_by(model.sort, model.id)
        )
        return [DictItem.model_validate(r) for r in (await ctx.session.execute(stmt)).scalars().all()]

    @resource.action(
        "GET",
        "parent-list",
        kind="read",
        query=page_in(model.__name__, resource.filterable),
        answer=page_of(out),
        summary="Dictionary roots, paged",
    )
    async def parent_list(ctx: crud.Ctx, query: PageIn) -> dict[str, Any]:
        roots = replace(ctx, params={**ctx.params, "parentId_equal": "0"})
        return await crud.page(roots, PageQuery(query.current, query.size, query.ascs, query.descs))

    @resource.action(
        "GET",
        "child-list",
        kind="sub",
        query=DictParentQuery,
        answer=list_of(crud.tree_schema(out)),
        summary="Entries under one dictionary root, as a tree",
    )
    async def child_list(ctx: crud.Ctx, query: DictParentQuery) -> list[dict[str, Any]]:
        if query.parent_id is None:
            raise ServiceError(t("field_required", field="parentId"))
        pid = query.parent_id
        rows = await crud.all_rows(replace(ctx, params={k: v for k, v in ctx.params.items() if k != "parentId"}))
        # Everything below the root (any depth), nested.
        below: set[int] = {pid}
        changed = True
        while changed:
            changed = False
            for r in rows:
                if r["parent_id"] in below and r["id"] not in below:
                    below.add(r["id"])
                    changed = True
        return crud.nest([r for r in rows if r["id"] in below and r["id"] != pid])


_dictionary_actions(res.DICT, s.DictOut)
_dictionary_actions(res.DICT_BIZ, s.DictBizOut)
