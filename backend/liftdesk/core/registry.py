"""The registry: every resource of the app and the calls declared on them, built once, explicitly, at start-up.

Each context declares what it brings in one ``Context`` value (``liftdesk/<context>/context.py``): its resources, the
handlers of other contexts' domain events it subscribes to, the ports it implements, and (the system context) the
access port. ``liftdesk.app.build_registry`` passes the contexts, in order, to :func:`build`, which checks the
declarations, installs the event handlers, ports and access, and freezes the result. Nothing registers itself by
being imported, and nothing changes after the build.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from liftdesk.core import access as access_port
from liftdesk.core import events
from liftdesk.core.db import Base, table_columns
from liftdesk.core.resource import DECLARED, READ_KINDS, Action, Resource


@dataclass(frozen=True)
class Context:
    """What one context brings to the app (see the module's text)."""

    name: str
    resources: Sequence[Resource] = ()
    #: Handlers of domain events (``core.events``), in the order they run.
    subscriptions: Sequence[events.Subscription[Any]] = ()
    #: Implementations of ports other contexts declare (``core.events.Port``), in the order they run.
    provides: Sequence[events.Provision[Any]] = ()
    #: The access port (who may do what), implemented by the context that owns roles and menus.
    access: access_port.Access | None = None
    #: Data rules the context seeds, as (resource code, column): checked like every grantable rule.
    rules: Sequence[tuple[str, str]] = field(default_factory=tuple)


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
        if resource.model is not None:
            code = self._codes.get(resource.model)
            if code is not None and code != resource.code:
                # A model's data rule is its resource's (``core.scope``): one model, one resource code.
                raise RuntimeError(f"{resource.model.__name__} belongs to resources coded {code} and {resource.code}")
            self._codes[resource.model] = resource.code
        self._items[resource.name] = resource
        for action in resource.declared:
            self.add_action(action)
        return resource

    def code_of(self, model: type[Base]) -> str | None:
        """The resource code whose data rule reads ``model`` (None: a model of no resource)."""
        return self._codes.get(model)

    def model_of(self, code: str) -> type[Base] | None:
        """The model whose rows a data rule of resource ``code`` narrows (None: no resource with a model has it)."""
        for model, owner in self._codes.items():
            if owner == code:
                return model
        return None

    def rule_problem(self, code: str, column: str | None) -> str | None:
        """Why a data rule on resource ``code`` and ``column`` could never admit a row (None: it can): no resource
        with a model of its own has that code (a subject is scoped through the model it reads), or the model has no
        such column. Such a rule admits no row (``core.scope``); the data scope form refuses it."""
        model = self.model_of(code)
        if model is None:
            return "no_model"
        if (column or "create_dept") not in table_columns(model):
            return "no_column"
        return None

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
        """The declared actions (not the generated operations)."""
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
        for action in self._actions:
            action.check()
        self._frozen = True

    def __iter__(self) -> Iterator[Resource]:
        return iter(self._items.values())

    def __getitem__(self, name: str) -> Resource:
        return self._items[name]

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __len__(self) -> int:
        return len(self._items)


#: The app's registry: empty until :func:`build` fills and freezes it (once per process).
REGISTRY = Registry()


def build(contexts: Iterable[Context]) -> Registry:
    """Fill :data:`REGISTRY` with the contexts' resources and install their event handlers, ports and access port,
    then freeze it. Building again with the same contexts is a no-op (a test module and the app may both ask);
    with others it is an error."""
    contexts = tuple(contexts)
    names = tuple(c.name for c in contexts)
    if REGISTRY.frozen:
        if names != _built:
            raise RuntimeError(f"the registry was built from {_built}, not {names}")
        return REGISTRY
    provided = [c.access for c in contexts if c.access is not None]
    if len(provided) != 1:
        raise RuntimeError(f"exactly one context implements the access port ({len(provided)} do)")
    for context in contexts:
        for resource in context.resources:
            REGISTRY.register(resource)
    unlisted = [r.name for r in DECLARED if r.name not in REGISTRY or REGISTRY[r.name] is not r]
    if unlisted:
        raise RuntimeError(f"resources declared but listed by no context: {unlisted}")
    REGISTRY.freeze()
    events.install(
        [s for c in contexts for s in c.subscriptions],
        [p for c in contexts for p in c.provides],
    )
    access_port.install(provided[0])
    for context in contexts:
        for code, column in context.rules:
            problem = REGISTRY.rule_problem(code, column)
            if problem is not None:
                raise RuntimeError(f"{context.name}: seeded data rule on {code}.{column}: {problem}")
    _set_built(names)
    return REGISTRY


_built: tuple[str, ...] = ()


def _set_built(names: tuple[str, ...]) -> None:
    global _built
    _built = names
