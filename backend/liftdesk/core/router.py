"""The one route builder: every call of every resource, generated operation or declared action, becomes a route
the same way.

A generated operation is an ``Action`` of its kind (``operation``: page, list, detail, submit, remove, tree,
lazy_tree, select) whose handler is the core's generic one (``crud``) and whose parameters the document states
(:func:`operations_of`); a declared action is the ``Action`` its ``Resource.action`` made. :func:`endpoint_of` turns
either into a FastAPI endpoint: build the request's ``Ctx`` (tenant, data scope, caller), check the permission
*before* the input is validated (a caller without the right learns nothing about the input rules), validate, call
the handler, commit the request's work in one place, publish its bus messages after the commit and wrap the answer
in the envelope. :func:`mount` puts every call of the registry on the app.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, File, Path, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, ValidationError

from liftdesk.core import crud
from liftdesk.core.context import Ctx
from liftdesk.core.deps import CurrentUser, SessionDep, get_services
from liftdesk.core.envelope import R, ServiceError, ok, r_list_of, r_of
from liftdesk.core.i18n import t
from liftdesk.core.ids import ID_PATTERN, ID_RE, ids_pattern
from liftdesk.core.paging import MAX_PAGE, PageQuery, r_page_of, sort_description, sort_pattern
from liftdesk.core.registry import REGISTRY, Registry
from liftdesk.core.resource import SIGNED_IN, Action, Permission, Resource
from liftdesk.core.schemas import DocumentedNotNull, TreeNode

#: The most ids one ``remove`` is documented to take (``crud.parse_ids`` reads up to 10,000; a pattern of more ids
#: is beyond what schema validators compile).
MAX_REMOVE = 1_000


# --- parameters -------------------------------------------------------------------------------------------------


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
        if not raw.isascii() or not 1 <= numbers[name] <= MAX_PAGE:
            raise ServiceError(t("field_invalid", field=name))
    return PageQuery(numbers["current"], numbers["size"], params.get("ascs", ""), params.get("descs", ""))


def _query(name: str, schema: dict[str, Any], description: str, *, required: bool = False) -> dict[str, Any]:
    """One query parameter as the document states it (the handler reads it from the request, and refuses what this
    does not allow with the message it always gave)."""
    return {"name": name, "in": "query", "required": required, "schema": schema, "description": description}


def _page_parameters(res: Resource) -> list[dict[str, Any]]:
    sort = {"type": "string", "pattern": sort_pattern(res.filterable), "default": ""}
    number = {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}
    return [
        _query("current", {**number, "default": 1}, "page number, from 1"),
        _query("size", {**number, "default": 10}, "rows per page (at most 1000 are given)"),
        _query("ascs", sort, sort_description("ascending")),
        _query("descs", sort, sort_description("descending")),
    ]


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


def filter_body(res: Resource) -> type[BaseModel]:
    """The JSON body of a list served with POST: paging and sorting as in the query, filters beside them; every key
    is a parameter (merged over the query, ``merged_params``), checked where it is read."""
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
        "description": "paging, sorting and filters (as in the query, e.g. name_like); merged over the query",
    }

    def document(out: dict[str, Any]) -> None:
        out.clear()
        out.update(schema)

    name = re.sub(r"[^0-9A-Za-z]", "", res.name.title()) + "Filters"
    return type(name, (BaseModel,), {"model_config": ConfigDict(extra="allow", json_schema_extra=document)})


# --- generated operations as actions ------------------------------------------------------------------------------


async def read(c: Ctx, kind: str, params: Mapping[str, str]) -> Any:
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
        parent = params.get("parentId") or params.get(res.parent_param) or "0"
        return await crud.lazy_nodes(c, crud.parse_id(parent, "parentId"))
    if kind == "detail":
        ident = params.get("id") or params.get(res.id_param, "")
        return await crud.detail(c, crud.parse_id(ident, res.id_param))
    raise ValueError(f"{res.name}: {kind} is not a read operation")  # pragma: no cover - caught at start-up


def _reader(kind: str) -> Callable[[Ctx], Awaitable[Any]]:
    async def operation(ctx: Ctx) -> Any:
        return await read(ctx, kind, ctx.params)

    return operation


def _post_reader(kind: str) -> Callable[..., Awaitable[Any]]:
    async def operation(ctx: Ctx, body: BaseModel) -> Any:  # ctx.params: the query with the body merged over it
        return await read(ctx, kind, ctx.params)

    return operation


def _submitter(mode: str) -> Callable[..., Awaitable[Any]]:
    async def operation(ctx: Ctx, body: BaseModel) -> Any:
        return await crud.submit(ctx, body, mode)

    return operation


async def _remove(ctx: Ctx) -> bool:
    res, params = ctx.resource, ctx.params
    given = params.get("ids") or params.get("id") or params.get(res.id_param, "")
    return await crud.remove(ctx, crud.parse_ids(given))


_PERMISSION: dict[str, Permission] = {"create": "add", "update": "edit", "submit": ("add", "edit"), "remove": "delete"}
_SUMMARY = {
    "page": "paged list with filters",
    "list": "list (a tree for tree resources)",
    "select": "rows for a drop-down",
    "tree": "tree of nodes {id, parentId, title, key, value}",
    "lazy_tree": "one level of the tree under parentId",
    "detail": "one row by id",
    "submit": "create (no id) or update (with id)",
    "create": "create",
    "update": "update the fields given (id required)",
    "remove": "delete by ids=1,2",
}


def operations_of(res: Resource) -> list[Action]:
    """The resource's generated operations, each an ``Action`` of its kind (see the module's text)."""
    if not res.ops:
        return []
    out_schema = res.output
    node_out = crud.tree_schema(out_schema) if res.is_tree else out_schema
    envelopes: dict[str, Any] = {
        "page": r_page_of(out_schema),
        "list": r_list_of(node_out),
        "select": r_list_of(out_schema),
        "tree": R[list[TreeNode]],
        "lazy_tree": R[list[TreeNode]],
        "detail": r_of(out_schema),
        "submit": r_of(out_schema),
        "create": r_of(out_schema),
        "update": r_of(out_schema),
        "remove": R[bool],
    }
    parameters: dict[str, list[dict[str, Any]]] = {
        "page": _page_parameters(res),
        "detail": _id_parameters(res),
        "lazy_tree": _lazy_tree_parameters(res),
        "remove": REMOVE_PARAMETERS,
    }
    calls: list[Action] = []
    for path, kind in res.ops.items():
        handler: Callable[..., Awaitable[Any]]
        body: type[BaseModel] | None = None
        summary = f"{res.name}: {_SUMMARY[kind]}"
        if kind in ("submit", "create", "update"):
            handler, body = _submitter(kind), crud.update_schema(res.input, kind)
        elif kind == "remove":
            handler = _remove
        elif path in res.post_ops:
            handler, body = _post_reader(kind), filter_body(res)
            summary += "; JSON body keys merged over the query"
        else:
            handler = _reader(kind)
        handler.__name__ = f"{kind}_operation"
        documented = parameters.get(kind)
        calls.append(
            Action(
                resource=res,
                method="POST" if res.method(path) == "POST" else "GET",
                path=res.path(path),
                handler=handler,
                permission=_PERMISSION.get(kind, "view"),
                summary=summary,
                kind=kind,
                operation=kind,
                body=body,
                body_params=body is not None and kind not in ("submit", "create", "update"),
                envelope=envelopes[kind],
                openapi={"parameters": documented} if documented else None,
                route_name=f"{res.name}_{re.sub(r'[^0-9A-Za-z_]', '_', path)}",
            )
        )
    return calls


def calls_of(registry: Registry) -> list[Action]:
    """Every call the app serves: each resource's generated operations, then the declared actions."""
    return [call for res in registry for call in operations_of(res)] + registry.actions


# --- the endpoint of one call -------------------------------------------------------------------------------------


def _all_defaults(model: type[BaseModel]) -> bool:
    return all(not f.is_required() for f in model.model_fields.values())


def _body_required(model: type[BaseModel]) -> bool:
    """Does the document require a body (required fields, or rules across them)?"""
    schema = model.model_json_schema(by_alias=True)
    return bool(schema.get("required")) or any(k in schema for k in ("anyOf", "oneOf", "allOf"))


def endpoint_of(action: Action) -> Callable[..., Awaitable[Any]]:
    """The FastAPI endpoint of one call. Its signature is built from the declaration, so that OpenAPI documents the
    query, the body and the answer, and so that the permission (a dependency declared first) is checked before
    FastAPI reports invalid input."""
    res = action.resource

    async def guard(request: Request, session: SessionDep, me: CurrentUser) -> Ctx:
        c = await Ctx.build(session, me, res, dict(request.query_params))
        await c.require(action.permission)
        return c

    wants = action.wants
    params = [
        inspect.Parameter("ctx_", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[Ctx, Depends(guard)]),
        inspect.Parameter("request", inspect.Parameter.KEYWORD_ONLY, annotation=Request),
    ]
    if action.path_id:
        path_id = Path(alias=action.path_id, json_schema_extra={"pattern": ID_PATTERN})
        params.append(inspect.Parameter("ident", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[str, path_id]))
    if action.query is not None:
        # Documented from the model's own JSON schema (``query_parameters``), which says what the call accepts.
        hidden = Query(include_in_schema=False)
        params.append(
            inspect.Parameter("query", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[action.query, hidden])
        )
    if action.body is not None and not action.form:
        # a save's body is required (its fields are optional: an update names those it changes)
        optional = _all_defaults(action.body) and action.operation not in ("submit", "create", "update")
        body: Any = Annotated[action.body, Body()]
        if optional:  # none (or null) is the model's defaults; the document may still require what they leave out
            body = Annotated[
                action.body | None, Body(), *([DocumentedNotNull()] if _body_required(action.body) else [])
            ]
        params.append(
            inspect.Parameter(
                "body",
                inspect.Parameter.KEYWORD_ONLY,
                annotation=body,
                default=None if optional else inspect.Parameter.empty,
            )
        )
    if "upload" in wants:
        upload = Annotated[UploadFile, File(description="the file (multipart field 'file')", alias="file")]
        params.append(inspect.Parameter("upload", inspect.Parameter.KEYWORD_ONLY, annotation=upload))

    async def endpoint(**kw: Any) -> Any:
        c: Ctx = kw["ctx_"]
        request: Request = kw["request"]
        args: dict[str, Any] = {}
        if "query" in wants:
            args["query"] = kw["query"]
        if action.form and action.body is not None:
            kw["body"] = await form_body(request, action.body)
        if "body" in wants:
            body = kw["body"]
            args["body"] = body if body is not None else action.body() if action.body else None
            if action.body_params and args["body"] is not None:
                # The body names parameters as the query does: the context is built from both (the scope of the
                # tenant a platform administrator names in the body), and the permission checked again on it.
                c = await Ctx.build(c.session, c.principal, res, merged_params(c.params, args["body"].model_extra))
                await c.require(action.permission)
        if "ident" in wants:
            args["ident"] = crud.parse_id(kw["ident"], action.path_id or "id")
        if "services" in wants:
            args["services"] = get_services(request)
        if "request" in wants:
            args["request"] = request
        if "upload" in wants:
            args["upload"] = kw["upload"]
        answer = await action.handler(c, **args)
        # One place commits a request's work: a handler that wrote and did not commit is committed here, and the
        # request's bus messages and after-commit work follow the commit.
        await finish(request, c)
        if action.raw:
            return answer
        return ok(answer, t(action.message) if action.message else None)

    endpoint.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    endpoint.__name__ = action.handler.__name__
    return endpoint


async def finish(request: Request, c: Ctx) -> None:
    """The one place a request's work is committed: commit what the call wrote, then publish its bus messages and
    run its after-commit work."""
    if c.session.in_transaction():
        await c.session.commit()
    await publish_outbox(request, c)


async def publish_outbox(request: Request, c: Ctx) -> None:
    """After the commit: publish the request's bus messages, then run its after-commit work with the app's
    services."""
    services = get_services(request)
    for topic, message in c.outbox:
        await services.bus.publish(topic, message)
    c.outbox.clear()
    actions, c.after_commit = c.after_commit, []
    for action in actions:
        await action(services)


async def form_body(request: Request, model: type[BaseModel]) -> BaseModel:
    """The body model of a form call, from the form's fields (a field sent twice: its last value). Invalid fields
    are refused as FastAPI refuses a body: a 400 naming the field, in the user's language."""
    form = await request.form()
    # a form has no null: an empty field is a field not given (its default)
    values = {k: v for k, v in form.items() if isinstance(v, str) and v != ""}
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from exc


def form_document(model: type[BaseModel]) -> dict[str, Any]:
    """The request body of a form call, as the document states it: a form has no null (an optional field is left
    out, or sent empty), so an optional field's schema is its value's."""
    schema = model.model_json_schema(by_alias=True)
    for name, spec in list(schema.get("properties", {}).items()):
        kinds = [k for k in spec.get("anyOf", []) if k.get("type") != "null"]
        if "anyOf" in spec and len(kinds) == 1:
            rest = {k: v for k, v in spec.items() if k not in ("anyOf", "default")}
            schema["properties"][name] = {**kinds[0], **rest}
    return {
        "required": bool(schema.get("required")),
        "content": {"application/x-www-form-urlencoded": {"schema": schema}},
    }


def query_parameters(model: type[BaseModel]) -> list[dict[str, Any]]:
    """The query parameters of a query model as the document states them: one per property of the model's JSON
    schema, required as it says (``schemas.documented`` names fields required there that the model lets default:
    the call refuses them missing with its own message)."""
    schema = model.model_json_schema(by_alias=True)
    required = set(schema.get("required", []))
    out = []
    for name, spec in schema.get("properties", {}).items():
        param: dict[str, Any] = {"name": name, "in": "query", "required": name in required, "schema": spec}
        if "description" in spec:
            param["description"] = spec["description"]
        out.append(param)
    return out


def describe_permission(action: Action) -> str:
    if isinstance(action.permission, tuple):
        return " or ".join(_describe(action, p) for p in action.permission)
    return _describe(action, action.permission)


def _describe(action: Action, permission: str) -> str:
    if permission == SIGNED_IN:
        return "every signed-in user"
    if permission == "view":
        return "one of the menus " + ", ".join(action.resource.reading_menus)
    if permission in ("add", "edit", "delete"):
        return f"the button {action.resource.code}_{permission}"
    return f"the button {permission}"


# --- mounting -----------------------------------------------------------------------------------------------------


def mount_call(app: FastAPI, action: Action) -> None:
    """Put one call on the app, documented."""
    action.check()
    extra: dict[str, Any] = {}
    if action.envelope is not None:
        extra["response_model"] = action.envelope
    elif not action.raw:
        extra["response_model"] = r_of(action.answer)
    documented: dict[str, Any] = {}
    if action.query is not None:
        documented["parameters"] = query_parameters(action.query)
    if action.body is not None and action.form:
        documented["requestBody"] = form_document(action.body)
    elif action.body is not None and _body_required(action.body):
        documented["requestBody"] = {"required": True}  # a missing body is refused, by the call's own rule
    if action.openapi:
        documented.update(action.openapi)
    if documented:
        extra["openapi_extra"] = documented
    description = None
    if action.operation is None:
        description = f"Permission: {describe_permission(action)}. Kind: {action.kind}."
    res = action.resource
    app.add_api_route(
        action.path,
        endpoint_of(action),
        methods=[action.method],
        name=action.route_name or f"{res.name}_{action.handler.__name__}",
        summary=action.summary,
        description=description,
        tags=[action.tag or res.tag or res.name],
        **extra,
    )


def mount(app: FastAPI, registry: Registry = REGISTRY) -> None:
    """Every call of the (built) registry on the app: the generated operations, then the declared actions."""
    if not registry.frozen:
        raise RuntimeError("build the registry before mounting it (core.registry.build)")
    for call in calls_of(registry):
        mount_call(app, call)
