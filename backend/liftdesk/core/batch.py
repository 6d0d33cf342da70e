"""Batch actions: one change applied to a selection of rows, all or none.

The specification states its batch rules as "every selected item must be …" (under review to be audited, pending
to be cancelled, of one vehicle type to be authorised together). ``declare_batch`` checks such a rule in one place:
the ids arrive as ``ids`` (``1,2,3`` in the query, or a list or text in a JSON body), every one of them must be a
row the caller sees (tenant, data scope, the resource's own narrowing: otherwise 400 and nothing changes), every
row must pass ``rule`` (otherwise 400 naming the rows that do not, and nothing changes), and only then ``apply``
runs, once, with all the rows (and the app's services, for what a change needs).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import Field

from liftdesk.core import crud
from liftdesk.core.context import Ctx
from liftdesk.core.envelope import NotFound, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.resource import Resource
from liftdesk.core.schemas import IdList, Schema, ids_documented
from liftdesk.core.services import Services

#: The most rows one batch call takes.
MAX_BATCH = 1_000


#: The selected rows (``selected`` refuses none, and more than ``MAX_BATCH``).
SelectedIds = Annotated[IdList, ids_documented(MAX_BATCH)]


class IdsQuery(Schema):
    ids: SelectedIds = Field(description="the selected rows: 1,2,3")


class IdsBody(Schema):
    ids: SelectedIds = Field(description="the selected rows: [1, 2] or 1,2")


Rule = Callable[[Any], bool]
#: ``apply(ctx, rows, services)``: ``services`` are the app's (``core.services``: what a change may need); a batch
#: declared with a ``body`` model of its own gets the validated body too: ``apply(ctx, rows, services, body)``.
Apply = Callable[..., Awaitable[Any]]


async def selected(ctx: Ctx, ids_text: str, field: str = "ids") -> list[Any]:
    """The rows of ``ids_text`` (the parameter ``field``) as the caller sees them (the resource's lists), in the
    order given; 400 if any is not. Every call that acts on a selection reads it here."""
    ids = list(dict.fromkeys(crud.parse_ids(ids_text, field)))
    if len(ids) > MAX_BATCH:
        raise ServiceError(t("too_many", field=field, limit=MAX_BATCH))
    model = ctx.resource.entity
    stmt = ctx.resource.hooks.filter(ctx, ctx.scope.select(model).where(model.id.in_(ids)))  # type: ignore[attr-defined]
    rows = {r.id: r for r in (await ctx.session.execute(stmt)).scalars().all()}
    if len(rows) != len(ids):
        raise NotFound(t("not_found"))
    return [rows[i] for i in ids]


def check_rule(ctx: Ctx, rows: Sequence[Any], rule: Rule, refusal: str, name_of: Callable[[Any], str] | None) -> None:
    """``refusal`` is an i18n key with ``{value}``: the rows that break the rule, by ``name_of`` (default: the
    resource's label field)."""
    wrong = [r for r in rows if not rule(r)]
    if wrong:
        label = ctx.resource.label
        name = name_of or (lambda r: str(getattr(r, label, None) or r.id))
        raise ServiceError(t(refusal, value=", ".join(name(r) for r in wrong[:20])))


def declare_batch(
    res: Resource,
    method: Literal["GET", "POST"],
    path: str,
    *,
    name: str,
    summary: str,
    permission: str,
    apply: Apply,
    rule: Rule | None = None,
    refusal: str = "",
    name_of: Callable[[Any], str] | None = None,
    answer: Any = Any,
    ids_in: Literal["query", "body"] = "query",
    body: type[IdsBody] | None = None,
) -> None:
    """Declare a batch action on ``res``: ``apply(ctx, rows)`` runs when every selected row exists for the caller
    and passes ``rule``. ``body``: a body model of the call's own (``IdsBody`` with more fields: an audit's
    decision and note), validated before any row is read and handed to ``apply`` (the ids come in the body)."""

    async def run(ctx: Ctx, ids: str, services: Services, *more: Any) -> Any:
        rows = await selected(ctx, ids)
        if rule is not None:
            check_rule(ctx, rows, rule, refusal, name_of)
        return await apply(ctx, rows, services, *more)

    if body is not None:
        model = body

        async def by_model(ctx: Ctx, body: Any, services: Services) -> Any:
            return await run(ctx, body.ids, services, body)

        handler: Any = by_model
        extra: dict[str, Any] = {"body": model}
    elif ids_in == "query":

        async def by_query(ctx: Ctx, query: IdsQuery, services: Services) -> Any:
            return await run(ctx, query.ids, services)

        handler = by_query
        extra = {"query": IdsQuery}
    else:

        async def by_body(ctx: Ctx, body: IdsBody, services: Services) -> Any:
            return await run(ctx, body.ids, services)

        handler = by_body
        extra = {"body": IdsBody}
    handler.__name__ = name
    res.action(method, path, summary=summary, kind="batch", permission=permission, answer=answer, **extra)(handler)
