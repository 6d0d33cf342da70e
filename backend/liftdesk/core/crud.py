"""The generic operations every resource gets: page, list, tree, detail, submit, remove, select.

Hand-written endpoints reuse these (and ``Ctx``) so that scoping, stamping and validation stay in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Annotated, Any, ClassVar, Literal

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field, GetJsonSchemaHandler, ValidationError, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import JsonSchemaValue
from sqlalchemy import Select, and_, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import flag_modified

from liftdesk.core.context import Ctx
from liftdesk.core.db import Base, SoftDeleteMixin, TreeMixin, lock_rows, table_columns
from liftdesk.core.envelope import NotFound, ServiceError, validation_message
from liftdesk.core.i18n import t
from liftdesk.core.ids import id_of
from liftdesk.core.paging import (
    PageQuery,
    filter_clauses,
    order_clauses,
    page_body,
    paginate,
    snake_to_camel,
)
from liftdesk.core.resource import Resource
from liftdesk.core.schemas import Id, Schema

SubmitMode = Literal["submit", "create", "update"]


class DocumentedBody(Schema):
    """A body model that validates leniently (the operation checks the rest itself) and is documented as the models
    it names in ``__documented__``: what the operation accepts (one of them, if several)."""

    __documented__: ClassVar[tuple[type[BaseModel], ...]] = ()
    __documented_as__: ClassVar[str] = ""

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        if handler.mode != "validation" or not cls.__documented__:
            return super().__get_pydantic_json_schema__(core_schema, handler)
        generate = handler.generate_json_schema  # type: ignore[attr-defined]  # the generator itself: $refs
        refs = [generate.generate_inner(model.__pydantic_core_schema__) for model in cls.__documented__]
        documented: JsonSchemaValue = refs[0] if len(refs) == 1 else {"anyOf": refs}
        if cls.__documented_as__:
            documented = {**documented, "description": cls.__documented_as__}
        return documented


@cache
def changes_schema(schema: type[BaseModel]) -> type[BaseModel]:
    """What an update accepts, for the document: ``id`` required, every other field optional, each as the create
    schema has it (type, null or not, limits). The stored row with the changes over it is validated as a whole
    (``_validate_update``), so rules across fields hold too; the document cannot say those of the stored row."""
    fields: dict[str, Any] = {"id": (Id, Field(description="the row to update"))}
    for name, info in schema.model_fields.items():
        if name != "id":
            fields[name] = (info.annotation, FieldInfo.merge_field_infos(info, default=None))
    return create_model(f"{schema.__name__}Update", __base__=Schema, **fields)


def update_schema(schema: type[BaseModel], mode: SubmitMode = "submit") -> type[BaseModel]:
    """The body of ``submit`` / ``create`` / ``update``: all fields optional, each keeping its limits (length, range,
    pattern); required ones are checked again when creating, and an update is validated as the whole row it makes.
    The document says what each accepts: ``create`` the create schema (``schema``, its required fields required),
    ``update`` :func:`changes_schema` (``id`` required), ``submit`` either (no id: a creation)."""
    fields: dict[str, Any] = {"id": (Id | None, None)}
    for name, info in schema.model_fields.items():
        if name == "id":
            continue
        kept: Any = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
        fields[name] = (kept | None, Field(default=None, alias=info.alias))
    model = create_model(f"{schema.__name__}{mode.title()}", __base__=DocumentedBody, **fields)
    model.__documented__ = {
        "create": (schema,),
        "update": (changes_schema(schema),),
        "submit": (schema, changes_schema(schema)),
    }[mode]
    model.__documented_as__ = {
        "create": "the new row (an id is ignored)",
        "update": "id and the fields to change",
        "submit": "without id: a new row, its required fields given; with id: the fields to change",
    }[mode]
    return model


def tree_schema(schema: type[Schema]) -> type[Schema]:
    model = create_model(
        f"{schema.__name__}Node", __base__=schema, children=(list[Any], []), has_children=(bool, False)
    )
    model.model_fields["children"].annotation = list[model]  # type: ignore[valid-type,unused-ignore]
    model.model_rebuild(force=True)
    return model


def serialise(res: Resource, rows: Iterable[Base]) -> list[dict[str, Any]]:
    out = res.output
    return [out.model_validate(r).model_dump(by_alias=False) for r in rows]


async def _finish(ctx: Ctx, rows: Sequence[Base]) -> list[dict[str, Any]]:
    return await ctx.resource.hooks.enrich(ctx, serialise(ctx.resource, rows))


def _base_stmt(ctx: Ctx) -> Select[Any]:
    res = ctx.resource
    cols = table_columns(res.entity)
    stmt = ctx.scope.select(res.entity).where(*filter_clauses(cols, ctx.params, res.filterable))
    return res.hooks.filter(ctx, stmt)  # type: ignore[no-any-return]


def _ordered(ctx: Ctx, stmt: Select[Any], q: PageQuery) -> Select[Any]:
    res = ctx.resource
    cols = {k: v for k, v in table_columns(res.entity).items() if k in res.filterable}
    order = order_clauses(cols, q)
    if not order:
        for name in res.default_order or (("sort",) if "sort" in res.columns else ("id",)):
            desc = name.startswith("-")
            col = getattr(res.entity, name.lstrip("-"))
            order.append(col.desc() if desc else col.asc())
        order.append(res.entity.id.asc())  # type: ignore[attr-defined]
    return stmt.order_by(*order)


async def page(ctx: Ctx, q: PageQuery, where: Sequence[Any] = ()) -> dict[str, Any]:
    """A page of the resource's list; ``where`` narrows it further (e.g. the rows bound to another row)."""
    await ctx.require("view")
    rows, total, pages = await paginate(ctx.session, _ordered(ctx, _base_stmt(ctx).where(*where), q), q)
    return page_body(await _finish(ctx, rows), total, pages, q)


async def all_rows(ctx: Ctx, q: PageQuery | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    await ctx.require("view")
    stmt = _ordered(ctx, _base_stmt(ctx), q or PageQuery())
    rows = (await ctx.session.execute(stmt if limit is None else stmt.limit(limit))).scalars().all()
    return await _finish(ctx, rows)


def nest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Attach rows to their parents; rows whose parent is not in the set are roots."""
    by_id = {r["id"]: {**r, "children": [], "has_children": False} for r in rows}
    roots: list[dict[str, Any]] = []
    for r in by_id.values():
        parent = by_id.get(r.get("parent_id"))
        if parent is not None and parent is not r:
            parent["children"].append(r)
            parent["has_children"] = True
        else:
            roots.append(r)
    return roots


async def tree_list(ctx: Ctx) -> list[dict[str, Any]]:
    return nest(await all_rows(ctx))


def to_node(res: Resource, row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "parent_id": row.get("parent_id"),
        "title": str(row.get(res.label) or ""),
        "key": str(row["id"]),
        "value": str(row["id"]),
        "has_children": bool(row.get("children")),
        "children": [to_node(res, c) for c in row.get("children", [])],
    }


async def tree_nodes(ctx: Ctx) -> list[dict[str, Any]]:
    return [to_node(ctx.resource, r) for r in nest(await all_rows(ctx))]


async def lazy_nodes(ctx: Ctx, parent_id: int) -> list[dict[str, Any]]:
    await ctx.require("view")
    model = ctx.resource.entity
    assert issubclass(model, TreeMixin)
    rows = (
        (
            await ctx.session.execute(
                _ordered(ctx, ctx.scope.select(model).where(model.parent_id == parent_id), PageQuery())
            )
        )
        .scalars()
        .all()
    )
    ids = [r.id for r in rows]
    child_stmt = ctx.scope.select(model).with_only_columns(model.parent_id).where(model.parent_id.in_(ids))
    with_children = set((await ctx.session.execute(child_stmt)).scalars().all())
    out = []
    for row in await _finish(ctx, rows):
        node = to_node(ctx.resource, row)
        node["has_children"] = row["id"] in with_children
        out.append(node)
    return out


async def get_scoped(ctx: Ctx, ident: int) -> Base:
    """One row by id, as the lists see it: the scope and the resource's own narrowing (``Hooks.filter``)."""
    model = ctx.resource.entity
    stmt = ctx.resource.hooks.filter(ctx, ctx.scope.select(model).where(model.id == ident))  # type: ignore[attr-defined]
    obj: Base | None = (await ctx.session.execute(stmt)).scalar_one_or_none()
    if obj is None:
        raise NotFound(t("not_found"))
    return obj


async def detail(ctx: Ctx, ident: int) -> dict[str, Any]:
    await ctx.require("view")
    return (await _finish(ctx, [await get_scoped(ctx, ident)]))[0]


def _validate_create(res: Resource, data: dict[str, Any]) -> dict[str, Any]:
    try:
        checked = res.input.model_validate(data)
    except ValidationError as exc:
        raise ServiceError(validation_text(exc)) from exc
    return checked.model_dump(exclude_unset=False, by_alias=False, exclude={"id"})


def _validate_update(res: Resource, obj: Base, raw: dict[str, Any]) -> dict[str, Any]:
    """An update is checked as the row it would make: the stored values with the given ones over them go through
    the create schema (required fields cannot be emptied, ranges, lengths, patterns and validators hold). Only
    problems of the fields the caller sent are the caller's: a stored value that no longer passes (an older rule)
    does not block changing another field. Nothing is written when this refuses."""
    schema = res.input
    current = {name: getattr(obj, name) for name in schema.model_fields if name != "id" and hasattr(obj, name)}
    sent = set(raw)
    try:
        checked = schema.model_validate({**current, **raw})
    except ValidationError as exc:
        mine = [e for e in exc.errors() if e["loc"] and e["loc"][0] in sent]
        if mine:
            raise ServiceError(errors_text(mine)) from exc
        return raw
    return {k: v for k, v in checked.model_dump(by_alias=False).items() if k in sent}


def validation_text(exc: ValidationError) -> str:
    return errors_text(list(exc.errors()))


def errors_text(errors: Sequence[Any]) -> str:
    named = [{**e, "loc": tuple(snake_to_camel(str(p)) for p in e["loc"])} for e in errors]
    return validation_message(RequestValidationError(named))


async def _check_unique(ctx: Ctx, obj: Base, ident: int | None) -> None:
    res = ctx.resource
    for cols in res.unique:
        values = [getattr(obj, c) for c in cols]
        if any(v is None or v == "" for v in values):
            continue
        # Unique in the tenant, whatever part of it the caller's data scope shows (``data=False``).
        stmt = ctx.scope.select(res.entity, data=False).where(
            *(getattr(res.entity, c) == v for c, v in zip(cols, values, strict=True))
        )
        if ident is not None:
            stmt = stmt.where(res.entity.id != ident)  # type: ignore[attr-defined]
        if (await ctx.session.execute(stmt.limit(1))).first() is not None:
            raise ServiceError(t("duplicate", field=snake_to_camel(cols[-1]), value=values[-1]))


async def _check_parent(ctx: Ctx, obj: Base, ident: int | None) -> None:
    model = ctx.resource.entity
    if not isinstance(obj, TreeMixin):
        return
    parent_id = obj.parent_id or 0
    obj.parent_id = parent_id
    if parent_id == 0:
        if ctx.resource.ancestors:
            obj.ancestors = "0"  # type: ignore[attr-defined]
        return
    parent = (await ctx.session.execute(ctx.scope.select(model).where(model.id == parent_id))).scalar_one_or_none()  # type: ignore[attr-defined]
    if parent is None:
        raise ServiceError(t("bad_parent"))
    if ident is not None:
        # Walk up from the new parent: meeting ourselves would make a cycle. The walk stays in the tenant but
        # passes ancestors outside the caller's data rule (a cycle through them is still a cycle).
        cursor: Any = parent
        seen = 0
        while cursor is not None and seen < 64:
            if cursor.id == ident:
                raise ServiceError(t("parent_self"))
            if not cursor.parent_id:
                break
            up = ctx.scope.select(model, data=False).where(model.id == cursor.parent_id)  # type: ignore[attr-defined]
            cursor = (await ctx.session.execute(up)).scalar_one_or_none()
            seen += 1
    if ctx.resource.ancestors:
        obj.ancestors = f"{parent.ancestors},{parent.id}"  # type: ignore[attr-defined]


async def submit(ctx: Ctx, body: BaseModel, mode: str = "submit") -> dict[str, Any]:
    """``submit`` creates without an id and updates with one; ``create`` ignores an id; ``update`` needs one."""
    res = ctx.resource
    raw = body.model_dump(exclude_unset=True, by_alias=False)
    ident = raw.pop("id", None)
    if mode == "create":
        ident = None
    elif mode == "update" and ident is None:
        raise ServiceError(t("field_required", field="id"))
    creating = ident is None
    await ctx.require("add" if creating else "edit")
    if creating:
        data = _validate_create(res, raw)
        obj = res.entity()
        ctx.scope.stamp(obj, creating=True)
    else:
        obj = await get_scoped(ctx, ident)
        data = _validate_update(res, obj, raw)
        ctx.scope.stamp(obj, creating=False)
    known = res.columns - {"id", "tenant_id", "is_deleted", "create_user", "create_dept", "create_time"}
    for key, value in data.items():
        if key in known:
            setattr(obj, key, value)
    await _check_parent(ctx, obj, ident)
    await res.hooks.before_save(ctx, obj, data, creating)
    await _check_unique(ctx, obj, ident)
    if creating:
        ctx.session.add(obj)
    await ctx.session.flush()
    await res.hooks.after_save(ctx, obj, data, creating)
    await ctx.session.flush()  # the layer commits the request's work (``router.finish``), not the operation
    await ctx.session.refresh(obj)
    return (await _finish(ctx, [obj]))[0]


def parse_id(ident: str | None, name: str = "id") -> int:
    value = id_of(ident)
    if value is None:
        raise ServiceError(t("field_required" if not (ident or "").strip() else "field_invalid", field=name))
    return value


def parse_ids(ids: str | list[Any] | None, field: str = "ids", *, required: bool = True) -> list[int]:
    """``"1,2,3"`` (or a JSON list of ids) → ids; an empty value is refused unless not ``required``."""
    items = ids if isinstance(ids, list) else str(ids or "").split(",")
    parts = [str(p).strip() for p in items if str(p).strip()]
    if not parts and required:
        raise ServiceError(t("ids_required") if field == "ids" else t("field_required", field=field))
    if len(parts) > 10_000:
        raise ServiceError(t("field_invalid", field=field))
    out = [id_of(p) for p in parts]
    if any(i is None for i in out):
        raise ServiceError(t("field_invalid", field=field))
    return [i for i in out if i is not None]


async def remove(ctx: Ctx, ids: list[int]) -> bool:
    await ctx.require("delete")
    res = ctx.resource
    model = res.entity
    rows = list((await ctx.session.execute(ctx.scope.select(model).where(model.id.in_(ids)))).scalars().all())  # type: ignore[attr-defined]
    if len(rows) != len(set(ids)):
        raise NotFound(t("not_found"))
    if issubclass(model, TreeMixin):
        kids = ctx.scope.select(model).where(model.parent_id.in_(ids), model.id.not_in(ids))  # type: ignore[attr-defined]
        if (await ctx.session.execute(kids.limit(1))).first() is not None:
            raise ServiceError(t("has_children"))
    await res.hooks.before_remove(ctx, rows)
    if issubclass(model, SoftDeleteMixin):
        await ctx.session.execute(
            update(model).where(and_(model.id.in_(ids), *ctx.scope.where(model))).values(is_deleted=1)  # type: ignore[attr-defined]
        )
    else:
        for r in rows:
            await ctx.session.delete(r)
    await ctx.session.flush()  # committed by the layer (``router.finish``)
    return True


async def count(ctx: Ctx, stmt: Select[Any]) -> int:
    return int((await ctx.session.execute(select(func.count()).select_from(stmt.subquery()))).scalar_one())


__all__ = ["Ctx", "all_rows", "detail", "page", "remove", "submit", "tree_list", "tree_nodes"]


async def enable_only(ctx: Ctx, ident: int, *, column: str, on: Any, off: Any, race: str) -> Any:
    """The row ``ident`` (read through the caller's scope) becomes the one of its tenant whose ``column`` is ``on``;
    the tenant's others, whoever wrote them (``data=False``), go ``off``: an enabled configuration (object storage,
    SMS). The tenant's rows are locked first (:func:`lock_rows`), so that enables at once run one after the other
    and one row stays enabled; a partial unique index on the table is the last guard (``race``: its refusal)."""
    row = await get_scoped(ctx, ident)
    model = type(row)
    tenant = ctx.scope.where(model, data=False)
    ids = (await ctx.session.execute(select(model.id).where(*tenant))).scalars().all()  # type: ignore[attr-defined]
    await lock_rows(ctx.session, model, ids)
    flag = getattr(model, column)
    await ctx.session.execute(
        update(model).where(*tenant, flag == on, model.id != row.id).values({column: off})  # type: ignore[attr-defined]
    )
    setattr(row, column, on)
    flag_modified(row, column)  # written whatever the row read: another enable may have changed it since
    ctx.scope.stamp(row, creating=False)
    try:
        await ctx.session.flush()
    except IntegrityError:
        await ctx.session.rollback()
        raise ServiceError(t(race)) from None
    return row
