"""Resource declarations. One ``Resource`` per entity; ``core.router`` turns each into the spec's routes.

The registry is a dict frozen after start-up: nothing registers a resource while requests are being served.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

from liftdesk.core.actions import Action, ActionKind, Permission
from liftdesk.core.db import Base, TenantMixin, TreeMixin, column_names
from liftdesk.core.schemas import Schema

if TYPE_CHECKING:
    from liftdesk.core.crud import Ctx

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])
OpKind = Literal["page", "list", "detail", "submit", "remove", "tree", "lazy_tree", "select", "create", "update"]

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
WRITE_KINDS: frozenset[OpKind] = frozenset({"submit", "create", "update", "remove"})
READ_KINDS: frozenset[OpKind] = frozenset({"page", "list", "detail", "tree", "lazy_tree", "select"})


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
class Resource:
    name: str
    model: type[Base]
    prefix: str
    schema_in: type[Schema]
    schema_out: type[Schema]
    code: str
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

    @property
    def reading_menus(self) -> tuple[str, ...]:
        return self.view_menus or (self.code,)

    @property
    def is_tree(self) -> bool:
        return issubclass(self.model, TreeMixin)

    @property
    def is_tenant(self) -> bool:
        return issubclass(self.model, TenantMixin)

    @property
    def columns(self) -> set[str]:
        return column_names(self.model)

    @property
    def filterable(self) -> set[str]:
        return self.columns - SECRET_COLUMNS

    def path(self, op: str) -> str:
        return f"{self.prefix}/{op}"

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
        """Declare a call of this resource beyond its generated operations (see ``core.actions``). ``path`` is
        absolute (``/api/...``) or relative to the resource's prefix. ``body_params``: the body's extra keys are
        parameters too (paging, filters, the platform administrator's ``tenantId``), merged over the query as the
        generated POST lists take them, and the request's ``Ctx`` is built from both. ``form``: the body model is
        read from an ``application/x-www-form-urlencoded`` form instead of JSON. ``reads``: the call changes nothing
        (True) or changes something (False) whatever its kind says (``Action.only_reads``; the API log goes by it)."""

        def declare(fn: F) -> F:
            full = path if path.startswith("/") else self.path(path)
            REGISTRY.add_action(
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

    def method(self, op: str) -> str:
        """The HTTP method of an operation (by path)."""
        return "POST" if self.ops[op] in WRITE_KINDS or op in self.post_ops else "GET"


class Registry:
    def __init__(self) -> None:
        self._items: dict[str, Resource] = {}
        self._actions: list[Action] = []
        self._codes: dict[type[Base], str] = {}
        self._frozen = False

    def register(self, resource: Resource) -> Resource:
        if self._frozen:
            raise RuntimeError(f"registry is frozen; cannot register {resource.name}")
        if resource.name in self._items:
            raise RuntimeError(f"resource {resource.name} registered twice")
        wrong = {op for op in resource.post_ops if resource.ops.get(op) not in READ_KINDS}
        if wrong:
            raise RuntimeError(f"{resource.name}: post_ops must name read operations, not {sorted(wrong)}")
        code = self._codes.get(resource.model)
        if code is not None and code != resource.code:
            # A model's data rule is its resource's (``core.scope``): one model, one resource code.
            raise RuntimeError(f"{resource.model.__name__} belongs to resources coded {code} and {resource.code}")
        self._items[resource.name] = resource
        self._codes[resource.model] = resource.code
        return resource

    def code_of(self, model: type[Base]) -> str | None:
        """The resource code whose data rule reads ``model`` (None: a model of no resource)."""
        return self._codes.get(model)

    def add_action(self, action: Action) -> None:
        if self._frozen:
            raise RuntimeError(f"registry is frozen; cannot add {action.name}")
        taken = {(a.method, a.path) for a in self._actions} | {
            (res.method(op), res.path(op)) for res in self._items.values() for op in res.ops
        }
        if (action.method, action.path) in taken:
            raise RuntimeError(f"{action.method} {action.path} is declared twice")
        self._actions.append(action)

    @property
    def actions(self) -> list[Action]:
        return list(self._actions)

    def reading_routes(self) -> dict[tuple[str, str], bool]:
        """Every declared route, (method, path template), with whether it only reads: the generated operations by
        their kind (page, list, detail ... read, whatever their method: ``post_ops``), the actions by
        ``Action.only_reads``. The API log records the calls of the others (``core.audit``)."""
        out: dict[tuple[str, str], bool] = {}
        for res in self._items.values():
            for op, kind in res.ops.items():
                out[(res.method(op), res.path(op))] = kind in READ_KINDS
        for action in self._actions:
            out[(action.method, action.path)] = action.only_reads
        return out

    @property
    def frozen(self) -> bool:
        return self._frozen

    def freeze(self) -> None:
        missing = {a.resource.name for a in self._actions} - set(self._items)
        if missing:
            raise RuntimeError(f"actions declared on unregistered resources: {sorted(missing)}")
        for action in self._actions:
            action.check()
        self._frozen = True

    def __iter__(self) -> Iterator[Resource]:
        return iter(self._items.values())

    def __getitem__(self, name: str) -> Resource:
        return self._items[name]

    def __len__(self) -> int:
        return len(self._items)


REGISTRY = Registry()
