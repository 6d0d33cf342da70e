"""What the core shares, in one leaf module: a ``Resource`` (a subject a role can be granted), its calls (``Action``:
the generated operations and the declared actions alike) and its business rules (``Hooks``).

This module imports nothing of the core's machinery (registry, scope, context, builder): everything else imports it.

A resource is a *subject*, not a table. Most have a model of their own (``model``): their rows are read through
that model's data rule and their generated operations (list, page, detail, submit, remove, tree, select) work on
it. A subject whose rows are another resource's (the live state, the home page, reports, alarms, car settings
are all about vehicles) has no model: it names the model it reads with ``scope_via`` (``scope_via=Vehicle``) and
declares actions only. Every model is still read through its own resource's data rule (``core.scope``), so a
subject over vehicles shows the vehicles its caller may see; what the subject adds is its own menus, buttons and API
scopes, so that a role can be granted it without the others.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

from liftdesk.core.db import Base, TenantMixin, TreeMixin, column_names
from liftdesk.core.schemas import Schema

if TYPE_CHECKING:  # annotations only: the context type is built on this module, not the other way round
    from liftdesk.core.context import Ctx

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])

#: The generated operations of a resource, by kind. ``create`` / ``update`` are ``submit`` restricted to one mode.
OpKind = Literal["page", "list", "detail", "submit", "remove", "tree", "lazy_tree", "select", "create", "update"]
OP_KINDS: frozenset[str] = frozenset(
    {"page", "list", "detail", "submit", "remove", "tree", "lazy_tree", "select", "create", "update"}
)
WRITE_KINDS: frozenset[OpKind] = frozenset({"submit", "create", "update", "remove"})
READ_KINDS: frozenset[OpKind] = frozenset({"page", "list", "detail", "tree", "lazy_tree", "select"})

#: Kinds of declared action: they document what the call does, and the generic suite groups its cases by them.
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
#: ``Resource.view_menus`` of a resource every signed-in user may read.
OPEN: tuple[str, ...] = ("*",)

CRUD_OPS: Mapping[str, OpKind] = {"list": "page", "detail": "detail", "submit": "submit", "remove": "remove"}
TREE_OPS: Mapping[str, OpKind] = {
    "list": "list",
    "tree": "tree",
    "lazy-tree": "lazy_tree",
    "detail": "detail",
    "submit": "submit",
    "remove": "remove",
}
SECRET_COLUMNS = frozenset({"password", "client_secret", "secret_key", "access_key"})

#: What a handler may take besides ``ctx``, by name (``Action.check``).
HANDLER_ARGS = ("query", "body", "ident", "services", "request", "upload")


class Hooks:
    """Business rules of one resource; override what the entity needs. Rules live here, never in routes."""

    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        """Validate and adjust a row before it is flushed (raise ServiceError to refuse)."""

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        """Write what depends on the saved row (link tables, caches)."""

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        """Refuse or prepare a removal."""

    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        """Narrow list queries with the resource's own filters (after the scope and the generic filters)."""
        return stmt

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Add view fields (names of referenced rows, dictionary labels) to serialised rows."""
        return rows


@dataclass(frozen=True)
class Action:
    """One call of a resource: a generated operation (``operation`` names its kind; its handler is the core's) or a
    declared action (``Resource.action``). The one builder (``core.router``) serves both the same way: the request's
    ``Ctx``, the permission checked before the input, validation, the handler, one commit, the envelope."""

    resource: Resource
    method: Literal["GET", "POST", "DELETE"]
    path: str
    handler: Callable[..., Awaitable[Any]]
    permission: Permission
    summary: str
    kind: str = "action"
    query: type[BaseModel] | None = None
    body: type[BaseModel] | None = None
    answer: Any = Any
    tag: str = ""
    raw: bool = False
    #: The success message (an i18n key) when it is not the generic one (``password_changed``).
    message: str = ""
    #: More of what the document says of the operation (OpenAPI, merged into it): what the models cannot say, such as
    #: the names an uploaded file may have, or the parameters a generated operation reads itself.
    openapi: Mapping[str, Any] | None = None
    #: The body's extra keys are parameters too, merged over the query (``Resource.action``).
    body_params: bool = False
    #: The body model is read from a form (``application/x-www-form-urlencoded``), not from JSON.
    form: bool = False
    #: Does the call only read (True) or change something (False)? None: as its kind says (``READ_ACTION_KINDS``).
    #: A call that reads is not recorded in the API log, whatever its method (``core.audit``).
    reads: bool | None = None
    #: A generated operation's kind (page, list, detail, submit, ...); None for a declared action.
    operation: OpKind | None = None
    #: The whole answer's model (the envelope included), when it is not ``R[answer]`` (a page, a tree).
    envelope: Any = None
    #: The route's name (OpenAPI's operation id is built from it); default ``<resource>_<handler>``.
    route_name: str = ""

    @property
    def only_reads(self) -> bool:
        if self.reads is not None:
            return self.reads
        if self.operation is not None:
            return self.operation in READ_KINDS
        return self.kind in READ_ACTION_KINDS

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
        return frozenset(inspect.signature(self.handler).parameters) & frozenset(HANDLER_ARGS)

    def check(self) -> None:
        """A declaration error is caught at start-up, not at the first request."""
        params = list(inspect.signature(self.handler).parameters)
        if not params or params[0] != "ctx":
            raise RuntimeError(f"{self.name}: the function's first parameter must be ctx")
        unknown = set(params[1:]) - set(HANDLER_ARGS)
        if unknown:
            raise RuntimeError(
                f"{self.name}: unknown parameters {sorted(unknown)} (allowed: {', '.join(HANDLER_ARGS)})"
            )
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


#: Every resource declared so far, in order: the registry's build refuses one that no context lists (its calls would
#: silently not be served).
DECLARED: list[Resource] = []


@dataclass(frozen=True, eq=False)
class Resource:
    """A subject a role can be granted: its menus (reading) and buttons (``<code>_add`` ...), its API scopes and,
    with a model, its data rule and generated operations. See the module's text for ``scope_via``."""

    name: str
    prefix: str
    code: str
    model: type[Base] | None = None
    schema_in: type[Schema] | None = None
    schema_out: type[Schema] | None = None
    #: A subject without a model of its own: the model whose rows it reads (their own data rule applies).
    scope_via: type[Base] | None = None
    ops: Mapping[str, OpKind] = field(default_factory=lambda: dict(CRUD_OPS))
    label: str = "name"
    unique: tuple[tuple[str, ...], ...] = ()
    read_roles: tuple[str, ...] | None = None
    write_roles: tuple[str, ...] | None = None
    hooks: Hooks = field(default_factory=Hooks)
    default_order: tuple[str, ...] = ()
    tag: str = ""
    # Tree resources keep ``ancestors`` (comma path of parent ids) current when set.
    ancestors: bool = False
    # Name of the id query parameter of ``detail`` besides ``id`` (the spec's ``getCarInfo?carId=``).
    id_param: str = "id"
    # Name of the parent query parameter of ``lazy_tree`` besides ``parentId`` (``region/lazy-tree?parentCode=``).
    parent_param: str = "parentId"
    # Read operations (by path) the spec serves with POST: their JSON body's keys are merged over the query
    # parameters (paging, sorting and filters alike), e.g. ``POST getElectronicFence {"current": 1, "name": "x"}``.
    post_ops: frozenset[str] = frozenset()
    # Menus (by code) whose grant lets a role read this resource; empty: the menu named like ``code``. ``OPEN``:
    # every signed-in user of the tenant reads it (labels and pickers every page needs, e.g. dictionaries).
    view_menus: tuple[str, ...] = ()
    #: The actions declared on this resource (``action``), in declaration order; read by the registry when built.
    declared: list[Action] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        DECLARED.append(self)
        if self.model is None:
            if self.ops:
                raise RuntimeError(f"{self.name}: generated operations need a model (declare actions only)")
        elif self.schema_in is None or self.schema_out is None:
            raise RuntimeError(f"{self.name}: a resource with a model needs its schemas")
        if self.model is not None and self.scope_via is not None:
            raise RuntimeError(f"{self.name}: scope_via is for a subject without a model of its own")

    @property
    def entity(self) -> type[Base]:
        """The model of a resource that has one (its generated operations, bindings, imports work on it)."""
        if self.model is None:
            raise RuntimeError(f"{self.name} has no model of its own")
        return self.model

    @property
    def input(self) -> type[Schema]:
        """What a save takes (resources with a model)."""
        if self.schema_in is None:
            raise RuntimeError(f"{self.name} has no input schema")
        return self.schema_in

    @property
    def output(self) -> type[Schema]:
        """What a row is answered as (resources with a model)."""
        if self.schema_out is None:
            raise RuntimeError(f"{self.name} has no output schema")
        return self.schema_out

    @property
    def reading_menus(self) -> tuple[str, ...]:
        return self.view_menus or (self.code,)

    @property
    def reads(self) -> type[Base] | None:
        """The model whose rows this resource reads: its own, or ``scope_via``'s."""
        return self.model or self.scope_via

    @property
    def is_tree(self) -> bool:
        return self.model is not None and issubclass(self.model, TreeMixin)

    @property
    def is_tenant(self) -> bool:
        """Are its rows a tenant's? (A subject over nothing in particular, such as a utility, is the tenant's.)"""
        reads = self.reads
        return reads is None or issubclass(reads, TenantMixin)

    @property
    def columns(self) -> set[str]:
        return column_names(self.model) if self.model is not None else set()

    @property
    def filterable(self) -> set[str]:
        return self.columns - SECRET_COLUMNS

    def path(self, op: str) -> str:
        return f"{self.prefix}/{op}"

    def method(self, op: str) -> str:
        """The HTTP method of an operation (by path)."""
        return "POST" if self.ops[op] in WRITE_KINDS or op in self.post_ops else "GET"

    def action(
        self,
        method: Literal["GET", "POST", "DELETE"],
        path: str,
        *,
        summary: str,
        permission: Permission = "view",
        kind: ActionKind = "action",
        query: type[BaseModel] | None = None,
        body: type[BaseModel] | None = None,
        answer: Any = Any,
        tag: str = "",
        raw: bool = False,
        message: str = "",
        openapi: Mapping[str, Any] | None = None,
        body_params: bool = False,
        form: bool = False,
        reads: bool | None = None,
    ) -> Callable[[F], F]:
        """Declare a call of this resource beyond its generated operations. ``path`` is absolute (``/api/...``) or
        relative to the resource's prefix. The function takes ``ctx`` and, by name, any of ``query`` (the validated
        query model), ``body`` (the validated body model: JSON, or with ``form`` the fields of an
        ``application/x-www-form-urlencoded`` body), ``ident`` (the path id, for paths ending in ``{id}``),
        ``upload`` (a multipart file, field ``file``), ``services`` (``core.services.Services``: the command
        service, the terminals, the bus, the settings) and ``request``. ``body_params``: the body's extra keys are
        parameters too (paging, filters, the platform administrator's ``tenantId``), merged over the query as the
        generated POST lists take them, and the request's ``Ctx`` is built from both. ``reads``: the call changes
        nothing (True) or changes something (False) whatever its kind says (``Action.only_reads``).

        Permissions: ``view`` (one of the resource's menus), ``add`` / ``edit`` / ``delete`` (the resource's buttons
        ``<code>_add`` ...), ``SIGNED_IN`` (every signed-in user of the tenant) or a button code of its own; or a
        tuple of alternatives, any one of which suffices."""

        def declare(fn: F) -> F:
            full = path if path.startswith("/") else self.path(path)
            self.declared.append(
                Action(
                    resource=self,
                    method=method,
                    path=full,
                    handler=fn,
                    permission=permission,
                    summary=summary,
                    kind=kind,
                    query=query,
                    body=body,
                    answer=answer,
                    tag=tag,
                    raw=raw,
                    message=message,
                    openapi=openapi,
                    body_params=body_params,
                    form=form,
                    reads=reads,
                )
            )
            return fn

        return declare
