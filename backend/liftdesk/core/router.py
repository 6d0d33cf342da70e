"""The router factory: one ``Resource`` declaration becomes its routes at the spec's paths.

Every generated handler does the same three things: build the request ``Ctx`` (scope + caller), call the generic
operation, wrap the answer in the envelope.
"""

import re
from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Body, FastAPI, Query, Request
from pydantic import WithJsonSchema

from liftdesk.core import crud
from liftdesk.core.deps import CurrentUser, SessionDep
from liftdesk.core.envelope import R, ServiceError, ok, r_list_of, r_of
from liftdesk.core.i18n import t
from liftdesk.core.ids import ID_PATTERN, ID_RE, ids_pattern
from liftdesk.core.paging import MAX_PAGE, PageQuery, r_page_of, sort_description, sort_pattern
from liftdesk.core.registry import REGISTRY, Resource
from liftdesk.core.schemas import TreeNode

Current = Annotated[int, Query(description="page number, from 1", ge=1, le=10_000_000)]
Size = Annotated[int, Query(description="rows per page (at most 1000 are given)", ge=1, le=1_000_000)]
#: The most ids one ``remove`` is documented to take (``crud.parse_ids`` reads up to 10,000; a pattern of more ids
#: is beyond what schema validators compile).
MAX_REMOVE = 1_000


def page_query(current: Current = 1, size: Size = 10, ascs: str = "", descs: str = "") -> PageQuery:
    return PageQuery(current=current, size=size, ascs=ascs, descs=descs)


def _param_text(value: Any) -> str | None:
    """One JSON body value as the text a query parameter would carry (None: not a filter value)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float | str):
        return str(value)
    if isinstance(value, list):
        items = (_param_text(v) for v in value if not isinstance(v, list | dict))
        return ",".join(item for item in items if item)
    return None  # nested objects are not filters


def merged_params(query: Mapping[str, str], body: Any) -> dict[str, str]:
    """The query parameters with a JSON body's keys merged over them (the body wins): the spec's POST lists send
    paging and filters either way. Lists become comma-separated (``_in`` filters), booleans 1/0."""
    params = dict(query)
    if body is None:
        return params
    if not isinstance(body, Mapping):
        raise ServiceError(t("field_invalid", field="body"))
    for key, value in body.items():
        text = _param_text(value)
        if text is not None:
            params[str(key)] = text
    return params


def page_query_of(params: Mapping[str, str]) -> PageQuery:
    """``current, size, ascs, descs`` from text parameters (a bad number is the caller's 400)."""
    numbers = {}
    for name, default in (("current", 1), ("size", 10)):
        raw = params.get(name, "")
        try:
            numbers[name] = int(raw) if raw != "" else default
        except ValueError as exc:
            raise ServiceError(t("field_invalid", field=name)) from exc
        if not raw.isascii() or not 1 <= numbers[name] <= 10_000_000:
            raise ServiceError(t("field_invalid", field=name))
    return PageQuery(numbers["current"], numbers["size"], params.get("ascs", ""), params.get("descs", ""))


async def read(c: crud.Ctx, kind: str, params: Mapping[str, str]) -> Any:
    """The answer of a read operation from its parameters (query, or query + JSON body)."""
    res = c.resource
    if kind == "page":
        return await crud.page(c, page_query_of(params))
    if kind == "list":
        if res.is_tree and not any(k.startswith(("parentId",)) for k in params):
            return await crud.tree_list(c)
        return await crud.all_rows(c)
    if kind == "select":
        return await crud.all_rows(c)
    if kind == "tree":
        return await crud.tree_nodes(c)
    if kind == "lazy_tree":
        parent = params.get("parentId", "0") or "0"
        return await crud.lazy_nodes(c, crud.parse_id(parent, "parentId"))
    if kind == "detail":
        ident = params.get("id") or params.get(res.id_param, "")
        return await crud.detail(c, crud.parse_id(ident, res.id_param))
    raise ValueError(f"{res.name}: {kind} is not a read operation")  # pragma: no cover - caught at start-up


def _route_name(res: Resource, path: str) -> str:
    return f"{res.name}_{re.sub(r'[^0-9A-Za-z_]', '_', path)}"


def _query(name: str, schema: dict[str, Any], description: str, *, required: bool = False) -> dict[str, Any]:
    """One query parameter as the document states it (the handler reads it from the request, and refuses what this
    does not allow with the message it always gave)."""
    return {"name": name, "in": "query", "required": required, "schema": schema, "description": description}


def _id_parameters(res: Resource) -> list[dict[str, Any]]:
    """``detail``: the row's id, by ``id`` or by the resource's own name for it (``getCarInfo?carId=``; ``id`` wins
    when both are given)."""
    one = {"type": "string", "pattern": ID_PATTERN}
    if res.id_param == "id":
        return [_query("id", one, "the row's id", required=True)]
    return [
        _query(res.id_param, one, "the row's id", required=True),
        _query("id", one, f"the row's id (same as {res.id_param}, which it replaces when given)"),
    ]


REMOVE_PARAMETERS = [
    _query(
        "ids",
        {"type": "string", "pattern": ids_pattern(MAX_REMOVE), "example": "1,2"},
        f"the rows to delete, comma-separated ids (at most {MAX_REMOVE:,}); all must exist, or nothing is deleted",
        required=True,
    )
]
LAZY_TREE_PARAMETERS = [
    _query(
        "parentId",
        {"type": "string", "pattern": f"^(?:{ID_RE})?$", "default": "0"},
        "the parent row (0 or empty: the roots)",
    )
]


def _lazy_tree_parameters(res: Resource) -> list[dict[str, Any]]:
    """``lazy_tree``: the parent, by ``parentId`` or by the resource's own name for it (``parentId`` wins)."""
    if res.parent_param == "parentId":
        return LAZY_TREE_PARAMETERS
    schema = {"type": "string", "pattern": f"^(?:{ID_RE})?$", "default": "0"}
    return [
        _query(res.parent_param, schema, "the parent row (0, 00 or empty: the roots)"),
        _query("parentId", schema, f"the parent row (same as {res.parent_param}, which it replaces when given)"),
    ]


def filter_body(res: Resource) -> Any:
    """The JSON body of a list served with POST: paging and sorting as in the query, filters beside them."""
    sort = {"type": "string", "pattern": sort_pattern(res.filterable)}
    number = {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}
    schema = {
        "type": "object",
        "properties": {
            "current": {**number, "description": "page number, from 1"},
            "size": {**number, "description": "rows per page (at most 1000 are given)"},
            "ascs": {**sort, "description": sort_description("ascending")},
            "descs": {**sort, "description": sort_description("descending")},
        },
        "additionalProperties": True,
    }
    return Annotated[
        Annotated[dict[str, Any], WithJsonSchema(schema)] | None,
        Body(description="paging, sorting and filters (as in the query, e.g. name_like); merged over the query"),
    ]


def router_for(res: Resource) -> APIRouter:
    tag = res.tag or res.name
    router = APIRouter(prefix=res.prefix, tags=[tag])
    out = res.schema_out
    node_out = crud.tree_schema(out) if res.is_tree else out
    bodies = {mode: crud.update_schema(res.schema_in, mode) for mode in ("submit", "create", "update")}
    pattern = sort_pattern(res.filterable)
    Ascs = Annotated[str, Query(description=sort_description("ascending"), json_schema_extra={"pattern": pattern})]
    Descs = Annotated[str, Query(description=sort_description("descending"), json_schema_extra={"pattern": pattern})]
    read_answers: dict[str, tuple[Any, str]] = {
        "page": (r_page_of(out), f"{res.name}: paged list with filters"),
        "list": (r_list_of(node_out), f"{res.name}: list (a tree for tree resources)"),
        "select": (r_list_of(out), f"{res.name}: rows for a drop-down"),
        "tree": (R[list[TreeNode]], f"{res.name}: tree of nodes {{id, parentId, title, key, value}}"),
        "lazy_tree": (R[list[TreeNode]], f"{res.name}: one level of the tree under parentId"),
        "detail": (r_of(out), f"{res.name}: one row by id"),
    }

    async def ctx(request: Request, session: Any, me: Any) -> crud.Ctx:
        return await crud.Ctx.build(session, me, res, dict(request.query_params))

    for path, kind in res.ops.items():
        name = _route_name(res, path)
        if path in res.post_ops:
            model, summary = read_answers[kind]
            router.add_api_route(
                f"/{path}",
                _post_read_route(res, kind, Ascs, Descs),
                methods=["POST"],
                response_model=model,
                name=name,
                summary=f"{summary}; JSON body keys merged over the query",
            )
        elif kind == "page":

            async def _page(
                request: Request,
                session: SessionDep,
                me: CurrentUser,
                current: Current = 1,
                size: Size = 10,
                ascs: Ascs = "",
                descs: Descs = "",
            ) -> R[Any]:
                c = await ctx(request, session, me)
                return ok(await crud.page(c, PageQuery(current, size, ascs, descs)))

            router.add_api_route(
                f"/{path}",
                _page,
                methods=["GET"],
                response_model=read_answers["page"][0],
                name=name,
                summary=read_answers["page"][1],
            )
        elif kind == "list":

            async def _list(request: Request, session: SessionDep, me: CurrentUser) -> R[Any]:
                c = await ctx(request, session, me)
                return ok(await read(c, "list", c.params))

            router.add_api_route(
                f"/{path}",
                _list,
                methods=["GET"],
                response_model=read_answers["list"][0],
                name=name,
                summary=read_answers["list"][1],
            )
        elif kind == "select":

            async def _select(request: Request, session: SessionDep, me: CurrentUser) -> R[Any]:
                c = await ctx(request, session, me)
                return ok(await read(c, "select", c.params))

            router.add_api_route(
                f"/{path}",
                _select,
                methods=["GET"],
                response_model=read_answers["select"][0],
                name=name,
                summary=read_answers["select"][1],
            )
        elif kind == "tree":

            async def _tree(request: Request, session: SessionDep, me: CurrentUser) -> R[Any]:
                c = await ctx(request, session, me)
                return ok(await read(c, "tree", c.params))

            router.add_api_route(
                f"/{path}",
                _tree,
                methods=["GET"],
                response_model=read_answers["tree"][0],
                name=name,
                summary=read_answers["tree"][1],
            )
        elif kind == "lazy_tree":

            async def _lazy(
                request: Request,
                session: SessionDep,
                me: CurrentUser,
                parentId: Annotated[str, Query(include_in_schema=False)] = "",
            ) -> R[Any]:
                c = await ctx(request, session, me)
                parent = parentId or request.query_params.get(res.parent_param, "") or "0"
                return ok(await read(c, "lazy_tree", {**c.params, "parentId": parent}))

            router.add_api_route(
                f"/{path}",
                _lazy,
                methods=["GET"],
                response_model=read_answers["lazy_tree"][0],
                name=name,
                summary=read_answers["lazy_tree"][1],
                openapi_extra={"parameters": _lazy_tree_parameters(res)},
            )
        elif kind == "detail":
            # The id is read from the query (``read``), by ``id`` or ``res.id_param``: the document says which.

            async def _detail(request: Request, session: SessionDep, me: CurrentUser) -> R[Any]:
                c = await ctx(request, session, me)
                return ok(await read(c, "detail", c.params))

            router.add_api_route(
                f"/{path}",
                _detail,
                methods=["GET"],
                response_model=read_answers["detail"][0],
                name=name,
                summary=read_answers["detail"][1],
                openapi_extra={"parameters": _id_parameters(res)},
            )
        elif kind in ("submit", "create", "update"):
            router.add_api_route(
                f"/{path}",
                _submit_route(res, bodies[kind], kind),
                methods=["POST"],
                response_model=r_of(out),
                name=name,
                summary={
                    "submit": f"{res.name}: create (no id) or update (with id)",
                    "create": f"{res.name}: create",
                    "update": f"{res.name}: update the fields given (id required)",
                }[kind],
            )
        elif kind == "remove":

            async def _remove(
                request: Request,
                session: SessionDep,
                me: CurrentUser,
                ids: Annotated[str, Query(include_in_schema=False)] = "",
            ) -> R[bool]:
                c = await ctx(request, session, me)
                given = ids or request.query_params.get("id", "") or request.query_params.get(res.id_param, "")
                done = await crud.remove(c, crud.parse_ids(given))
                await finish(request, c)
                return ok(done)

            router.add_api_route(
                f"/{path}",
                _remove,
                methods=["POST"],
                response_model=R[bool],
                name=name,
                summary=f"{res.name}: delete by ids=1,2",
                openapi_extra={"parameters": REMOVE_PARAMETERS},
            )
        else:  # pragma: no cover - a declaration error, caught at start-up
            raise ValueError(f"{res.name}: unknown operation kind {kind}")
    return router


async def finish(request: Request, c: crud.Ctx) -> None:
    """The one place a request's work is committed (generated operations and actions alike): commit what the
    operation wrote, then publish its bus messages and run its after-commit work."""
    if c.session.in_transaction():
        await c.session.commit()
    await publish_outbox(request, c)


async def publish_outbox(request: Request, c: crud.Ctx) -> None:
    """After the commit: publish the request's bus messages, then run its after-commit work with the app's state."""
    state = request.app.state
    bus = getattr(state, "bus", None)
    if bus is not None:
        for topic, message in c.outbox:
            await bus.publish(topic, message)
    c.outbox.clear()
    actions, c.after_commit = c.after_commit, []
    for action in actions:
        await action(state)


def _post_read_route(res: Resource, kind: str, Ascs: Any, Descs: Any) -> Any:
    """A read served with POST; ``Ascs`` / ``Descs`` are the resource's documented sort parameter types."""
    Filters = filter_body(res)

    async def answer(request: Request, session: Any, me: Any, body: Any) -> R[Any]:
        params = merged_params(request.query_params, body)
        c = await crud.Ctx.build(session, me, res, params)
        return ok(await read(c, kind, params))

    if kind == "page":  # paging declared in the query too, so that it is documented

        async def _page(
            request: Request,
            session: SessionDep,
            me: CurrentUser,
            body: Filters = None,  # type: ignore[valid-type]  # built per resource
            current: Current = 1,
            size: Size = 10,
            ascs: Ascs = "",
            descs: Descs = "",
        ) -> R[Any]:
            return await answer(request, session, me, body)

        return _page

    async def _read(
        request: Request,
        session: SessionDep,
        me: CurrentUser,
        body: Filters = None,  # type: ignore[valid-type]  # built per resource
    ) -> R[Any]:
        return await answer(request, session, me, body)

    return _read


def _submit_route(res: Resource, submit_in: Any, mode: str) -> Any:
    async def _submit(
        request: Request,
        session: SessionDep,
        me: CurrentUser,
        body: Annotated[submit_in, Body()],
    ) -> R[Any]:
        c = await crud.Ctx.build(session, me, res, dict(request.query_params))
        answer = await crud.submit(c, body, mode)
        await finish(request, c)
        return ok(answer)

    return _submit


def mount_resources(app: FastAPI) -> None:
    from liftdesk.core.actions import mount_actions

    REGISTRY.freeze()
    for res in REGISTRY:
        app.include_router(router_for(res))
    mount_actions(app, REGISTRY.actions)
