"""Bind and unbind: links between the rows of two resources (fences ↔ vehicles, drivers ↔ vehicles, templates ↔
vehicles, cards ↔ drivers), declared once with ``declare_binding``:

* ``bound`` / ``unbound`` (GET): a page of the *other* resource's rows linked / not linked to one owner row, with
  that resource's filters, sorting and view fields (as its own page call gives them);
* ``bind`` / ``unbind`` (POST ``{<owner>: id, <others>: [ids]}``): add or remove links, all or none.

Both sides are read through their own resource's scope (tenant, data scope, the resource's narrowing): an owner or
an other row the caller does not see is a 400 and nothing changes. ``limit`` caps the links of one owner (the spec's
"at most 200 vehicles per driver"); ``rule`` checks the selection as a whole (the spec's "batch selections must
share a vehicle type") and ``attach`` / ``detach`` do what a link change entails (a fence's area sent to the
vehicle's terminal), in the same transaction, before the layer commits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field, create_model
from sqlalchemy import delete, insert, select

from liftdesk.core import crud
from liftdesk.core.context import Ctx
from liftdesk.core.db import Base, TenantMixin, lock_rows
from liftdesk.core.envelope import NotFound, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.paging import Page, page_in, snake_to_camel
from liftdesk.core.resource import Resource
from liftdesk.core.schemas import Id, Schema

Change = Callable[["Ctx", Any, Sequence[Any]], Awaitable[None]]
#: ``rule(rows)``: an i18n message key when the selection may not be bound together, else None.
SelectionRule = Callable[[Sequence[Any]], str | None]


@dataclass(frozen=True)
class Binding:
    owner: Resource
    other: Resource
    link: type[Base]
    owner_key: str  # the link's column naming the owner row (``fence_id``)
    other_key: str  # the link's column naming the other row (``vehicle_id``)
    owner_param: str  # the owner id's name in queries and bodies (``fenceId``)
    others_param: str  # the other ids' name in bodies (``carIds``)
    limit: int | None = None
    #: The refusal over ``limit`` (an i18n key with ``{field}``, ``{limit}`` and ``{have}``, the links there are).
    limit_message: str = "too_many"
    rule: SelectionRule | None = None
    attach: Change | None = None
    detach: Change | None = None

    def linked(self, owner_id: int) -> Any:
        return select(getattr(self.link, self.other_key)).where(getattr(self.link, self.owner_key) == owner_id)


async def _owner(ctx: Ctx, b: Binding, ident: int) -> Any:
    """The owner row as its own resource reads it (its scope and narrowing), whichever resource the call is of."""
    return await crud.get_scoped(ctx.about(b.owner), ident)


async def _others(ctx: Ctx, b: Binding, ids: Sequence[int]) -> list[Any]:
    """The other rows as the caller sees them through the other resource's scope, in the order given."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        raise ServiceError(t("field_required", field=b.others_param))
    model = b.other.entity
    stmt = ctx.scope.select(model).where(model.id.in_(wanted))  # type: ignore[attr-defined]
    rows = {r.id: r for r in (await ctx.session.execute(stmt)).scalars().all()}  # type: ignore[attr-defined]
    if len(rows) != len(wanted):
        raise NotFound(t("field_invalid", field=b.others_param))
    return [rows[i] for i in wanted]


async def listed(ctx: Ctx, b: Binding, owner_id: int, q: Any, bound: bool) -> dict[str, Any]:
    """A page of the other resource's rows linked (``bound``) or not to the owner, with its own filters."""
    await _owner(ctx, b, owner_id)
    params = {k: v for k, v in ctx.params.items() if k != b.owner_param}
    other = await Ctx.build(ctx.session, ctx.principal, b.other, params)
    ids = ctx.scope.apply(b.linked(owner_id), b.link, data=False)
    column = b.other.entity.id  # type: ignore[attr-defined]
    return await crud.page(other, q, where=[column.in_(ids) if bound else column.not_in(ids)])


async def bind(ctx: Ctx, b: Binding, owner_id: int, other_ids: Sequence[int]) -> int:
    owner = await _owner(ctx, b, owner_id)
    others = await _others(ctx, b, other_ids)
    if b.rule is not None and (refusal := b.rule(others)) is not None:
        raise ServiceError(t(refusal))
    if b.limit is not None:  # counted after any other change of this owner's links has committed
        await lock_rows(ctx.session, b.owner.entity, [owner_id])
    have = set((await ctx.session.execute(ctx.scope.apply(b.linked(owner_id), b.link, data=False))).scalars())
    new = [o for o in others if o.id not in have]
    if b.limit is not None and len(have) + len(new) > b.limit:
        raise ServiceError(t(b.limit_message, field=b.others_param, limit=b.limit, have=len(have)))
    if new:
        rows = [{b.owner_key: owner_id, b.other_key: o.id} for o in new]
        if issubclass(b.link, TenantMixin):
            for row in rows:
                row["tenant_id"] = ctx.scope.tenant_id
        await ctx.session.execute(insert(b.link), rows)
        if b.attach is not None:
            await b.attach(ctx, owner, new)
    return len(new)


async def unbind(ctx: Ctx, b: Binding, owner_id: int, other_ids: Sequence[int]) -> int:
    owner = await _owner(ctx, b, owner_id)
    others = await _others(ctx, b, other_ids)
    have = set((await ctx.session.execute(ctx.scope.apply(b.linked(owner_id), b.link, data=False))).scalars())
    gone = [o for o in others if o.id in have]
    if gone:
        await ctx.session.execute(
            delete(b.link).where(
                *ctx.scope.where(b.link, data=False),
                getattr(b.link, b.owner_key) == owner_id,
                getattr(b.link, b.other_key).in_([o.id for o in gone]),
            )
        )
        if b.detach is not None:
            await b.detach(ctx, owner, gone)
    return len(gone)


#: OpenAPI extension of a bind operation: the most rows one owner may have bound.
LIMIT = "x-liftdesk-limit"


_MODELS: dict[int, tuple[Any, Any]] = {}


def _models(b: Binding) -> tuple[Any, Any]:
    """The listing query and the change body of a binding, made once (a binding declared at two generations of
    paths documents one pair of models)."""
    if id(b) in _MODELS:
        return _MODELS[id(b)]
    owner_field = _snake(b.owner_param)
    others_field = _snake(b.others_param)
    listing = create_model(  # type: ignore[call-overload]
        f"{b.owner.name.title()}{b.other.name.title()}Listing",
        __base__=page_in(b.other.name.title(), b.other.filterable),  # sorted by the other resource's columns
        **{owner_field: (Id, Field(description=f"the {b.owner.name}"))},
    )
    change = create_model(  # type: ignore[call-overload]
        f"{b.owner.name.title()}{b.other.name.title()}Change",
        __base__=Schema,
        **{
            owner_field: (Id, Field(description=f"the {b.owner.name}")),
            others_field: (list[Id], Field(min_length=1, max_length=1000, description=f"the {b.other.name} rows")),
        },
    )
    _MODELS[id(b)] = (listing, change)
    return listing, change


def declare_binding(
    b: Binding,
    *,
    bound: str,
    unbound: str,
    bind_path: str,
    unbind_path: str,
    noun: str,
    permission: str = "edit",
    name: str = "",
    on: Resource | None = None,
) -> None:
    """Declare the four actions of a binding on its owner resource, or on the subject ``on`` (the authorization of
    drivers on vehicles is a subject of its own, not one more call of the vehicles); paths absolute or under the
    declaring resource's prefix. ``name`` prefixes the actions' names (default ``<owner>_<other>``): a binding the
    specification serves at two generations of paths is declared twice, the second time under a name of its
    own."""
    owner_field = _snake(b.owner_param)
    others_field = _snake(b.others_param)
    listing, change = _models(b)

    async def bound_rows(ctx: Ctx, query: Any) -> Any:
        return await listed(ctx, b, getattr(query, owner_field), query.page_query(), True)

    async def unbound_rows(ctx: Ctx, query: Any) -> Any:
        return await listed(ctx, b, getattr(query, owner_field), query.page_query(), False)

    async def bind_rows(ctx: Ctx, body: Any) -> int:
        return await bind(ctx, b, getattr(body, owner_field), getattr(body, others_field))

    async def unbind_rows(ctx: Ctx, body: Any) -> int:
        return await unbind(ctx, b, getattr(body, owner_field), getattr(body, others_field))

    base = name or f"{b.owner.name}_{b.other.name}"
    for fn, suffix in (
        (bound_rows, "bound"),
        (unbound_rows, "unbound"),
        (bind_rows, "bind"),
        (unbind_rows, "unbind"),
    ):
        fn.__name__ = f"{base}_{suffix}"
    answer = Page[b.other.output]  # type: ignore[name-defined]
    subject = on or b.owner
    subject.action(
        "GET",
        bound,
        summary=f"{noun}: the rows bound, paged, with their filters",
        kind="read",
        query=listing,
        answer=answer,
    )(bound_rows)
    subject.action(
        "GET",
        unbound,
        summary=f"{noun}: the rows not bound, paged, with their filters",
        kind="read",
        query=listing,
        answer=answer,
    )(unbound_rows)
    subject.action(
        "POST",
        bind_path,
        summary=f"{noun}: bind rows (all or none); answers how many links were added"
        + (f" (at most {b.limit} bound in all)" if b.limit is not None else ""),
        kind="bind",
        permission=permission,
        body=change,
        answer=int,
        # the most rows bound to one owner, in the document and the manifest (the bind page says it before saving)
        openapi={LIMIT: b.limit} if b.limit is not None else None,
    )(bind_rows)
    subject.action(
        "POST",
        unbind_path,
        summary=f"{noun}: unbind rows; answers how many links were removed",
        kind="unbind",
        permission=permission,
        body=change,
        answer=int,
    )(unbind_rows)


def _snake(camel: str) -> str:
    out = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    assert snake_to_camel(out) == camel, camel
    return out
