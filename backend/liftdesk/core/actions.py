"""Actions: every call of a resource that is not one of its generated operations (list / page / detail / submit /
remove / tree / select) is declared on the resource with ``Resource.action`` and served by the same machinery.

A declaration names the path and method as the specification has them, the permission the call needs, a Pydantic
model for its query and one for its body (OpenAPI documents both) and the type of its answer. The layer builds the
request's ``Ctx`` (tenant, data scope, caller), checks the permission *before* the input is validated (a caller
without the right learns nothing about the input rules), validates, calls the function, commits the request's work
in one place, publishes its bus messages after the commit and wraps the answer in the envelope::

    @VEHICLE.action("GET", "/api/blade-fics-report/fics/positionTrailing/carRealTimeInfo", query=CarIdQuery,
                    answer=LiveVehicle, summary="Live state of one vehicle")
    async def real_time(ctx: Ctx, query: CarIdQuery) -> LiveVehicle: ...

The function takes ``ctx`` and, by name, any of ``query`` (the validated query model), ``body`` (the validated
body model: JSON, or with ``form`` the fields of an ``application/x-www-form-urlencoded`` body), ``ident`` (the
path id, for paths ending in ``{id}``), ``upload`` (a multipart file, field ``file``) and ``state`` (the app's
state: the command service, the terminals, the bus, the database). Its answer is wrapped
in ``R`` unless the action is ``raw`` (a file download).

Permissions: ``view`` (one of the resource's menus), ``add`` / ``edit`` / ``delete`` (the resource's buttons),
``SIGNED_IN`` (every signed-in user of the tenant: their own menus, the server clock) or a button code of its own;
or a tuple of alternatives, any one of which suffices (``permission=("edit", "add")``: the organisation form's logo
upload, for whoever may add or edit organisations). A caller holding none of them gets the usual refusal.
"""

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Body, Depends, FastAPI, File, Path, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from liftdesk.core.deps import CurrentUser, SessionDep
from liftdesk.core.envelope import ok, r_of
from liftdesk.core.i18n import t
from liftdesk.core.ids import ID_PATTERN
from liftdesk.core.schemas import DocumentedNotNull

if TYPE_CHECKING:
    from liftdesk.core.registry import Resource

#: Kinds of action: they document what the call does, and the generic suite groups its cases by them.
ActionKind = Literal[
    "action",  # anything else: a command, a state change
    "detail",  # one row by an id in the path
    "read",  # a projection of rows (a list other than the resource's own, a live state)
    "aggregate",  # counts and sums over rows
    "batch",  # one change applied to a selection of ids: all or none
    "bind",  # link rows of two resources
    "unbind",  # unlink them
    "sub",  # a sub-resource of one row
    "export",  # rows as a file
    "import",  # rows from a file
]

#: Kinds of action that only read: whatever their method, the API log does not record them (``core.audit``); an
#: action of another kind that changes nothing says so with ``reads=True``.
READ_ACTION_KINDS: frozenset[str] = frozenset({"detail", "read", "aggregate", "sub", "export"})

#: ``permission`` of an action every signed-in user of the tenant may call.
SIGNED_IN = "*"
#: What an action needs: one permission, or alternatives of which any one suffices (``Ctx.require``).
Permission = str | tuple[str, ...]
_ARGS = ("query", "body", "ident", "state", "request", "upload")


@dataclass(frozen=True)
class Action:
    resource: "Resource"
    method: Literal["GET", "POST", "DELETE"]
    path: str
    handler: Callable[..., Awaitable[Any]]
    permission: Permission
    summary: str
    kind: ActionKind = "action"
    query: type[BaseModel] | None = None
    body: type[BaseModel] | None = None
    answer: Any = Any
    tag: str = ""
    raw: bool = False
    #: The success message (an i18n key) when it is not the generic one (``password_changed``).
    message: str = ""
    #: More of what the document says of the operation (OpenAPI, merged into it): what the models cannot say, such as
    #: the names an uploaded file may have.
    openapi: Mapping[str, Any] | None = None
    #: The body's extra keys are parameters too, merged over the query (``Resource.action``).
    body_params: bool = False
    #: The body model is read from a form (``application/x-www-form-urlencoded``), not from JSON.
    form: bool = False
    #: Does the call only read (True) or change something (False)? None: as its kind says (``READ_ACTION_KINDS``).
    #: A call that reads is not recorded in the API log, whatever its method (``core.audit``).
    reads: bool | None = None

    @property
    def only_reads(self) -> bool:
        return self.reads if self.reads is not None else self.kind in READ_ACTION_KINDS

    @property
    def name(self) -> str:
        return f"{self.resource.name}.{self.handler.__name__}"

    @property
    def path_id(self) -> str | None:
        """The name of the path parameter (``sendGetDeviceConfig/{id}``), if any."""
        found = re.findall(r"\{(\w+)\}", self.path)
        return found[0] if found else None

    @property
    def wants(self) -> frozenset[str]:
        return frozenset(inspect.signature(self.handler).parameters) & frozenset(_ARGS)

    def check(self) -> None:
        """A declaration error is caught at start-up, not at the first request."""
        params = list(inspect.signature(self.handler).parameters)
        if not params or params[0] != "ctx":
            raise RuntimeError(f"{self.name}: the function's first parameter must be ctx")
        unknown = set(params[1:]) - set(_ARGS)
        if unknown:
            raise RuntimeError(f"{self.name}: unknown parameters {sorted(unknown)} (allowed: {', '.join(_ARGS)})")
        if ("query" in params) != (self.query is not None) or ("body" in params) != (self.body is not None):
            raise RuntimeError(f"{self.name}: query / body parameters and declarations must match")
        if ("ident" in params) != (self.path_id is not None):
            raise RuntimeError(f"{self.name}: a path id needs an ident parameter, and only then")
        if "upload" in params and (self.method != "POST" or self.body is not None):
            raise RuntimeError(f"{self.name}: an upload is a multipart POST without a JSON body")
        if self.body is not None and self.method != "POST":
            raise RuntimeError(f"{self.name}: a body needs POST")
        if self.body_params and (self.body is None or self.body.model_config.get("extra") != "allow"):
            raise RuntimeError(f"{self.name}: body parameters need a body model that allows extra keys")
        if self.form and (self.body is None or self.body_params):
            raise RuntimeError(f"{self.name}: a form is a body model of its own fields")
        if isinstance(self.permission, tuple):
            if len(set(self.permission)) < 2 or len(set(self.permission)) != len(self.permission):
                raise RuntimeError(f"{self.name}: alternative permissions are two or more different ones")
            if SIGNED_IN in self.permission:
                raise RuntimeError(f"{self.name}: SIGNED_IN is no alternative (it alone would suffice)")


def _all_defaults(model: type[BaseModel]) -> bool:
    return all(not f.is_required() for f in model.model_fields.values())


def endpoint_of(action: "Action") -> Callable[..., Awaitable[Any]]:
    """The FastAPI endpoint of one action. Its signature is built from the declaration, so that OpenAPI documents
    the query, the body and the answer, and so that the permission (a dependency declared first) is checked before
    FastAPI reports invalid input."""
    from liftdesk.core import crud
    from liftdesk.core.router import finish, merged_params

    res = action.resource

    async def guard(request: Request, session: SessionDep, me: CurrentUser) -> Any:
        c = await crud.Ctx.build(session, me, res, dict(request.query_params))
        await c.require(action.permission)
        return c

    wants = action.wants
    params = [
        inspect.Parameter("ctx_", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[crud.Ctx, Depends(guard)]),
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
        optional = _all_defaults(action.body)
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
        c: crud.Ctx = kw["ctx_"]
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
                c = await crud.Ctx.build(c.session, c.principal, res, merged_params(c.params, args["body"].model_extra))
                await c.require(action.permission)
        if "ident" in wants:
            args["ident"] = crud.parse_id(kw["ident"], action.path_id or "id")
        if "state" in wants:
            args["state"] = request.app.state
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


def _body_required(model: type[BaseModel]) -> bool:
    """Does the document require a body (required fields, or rules across them)?"""
    schema = model.model_json_schema(by_alias=True)
    return bool(schema.get("required")) or any(k in schema for k in ("anyOf", "oneOf", "allOf"))


def mount_actions(app: FastAPI, actions: list[Action]) -> None:
    for action in actions:
        action.check()
        extra: dict[str, Any] = {}
        if not action.raw:
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
        app.add_api_route(
            action.path,
            endpoint_of(action),
            methods=[action.method],
            name=f"{action.resource.name}_{action.handler.__name__}",
            summary=action.summary,
            description=f"Permission: {describe_permission(action)}. Kind: {action.kind}.",
            tags=[action.tag or action.resource.tag or action.resource.name],
            **extra,
        )


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
