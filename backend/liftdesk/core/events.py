"""Domain events and ports inside a request: how a context reacts to, or adds to, another's work without the other
importing it.

**Events.** A context that owns a change declares what happened as a frozen dataclass (``@dataclass(frozen=True)
class VehicleSaved(Event): vehicle: Vehicle``) and emits it (``await emit(ctx, VehicleSaved(vehicle=obj))``). A
context downstream subscribes with a typed handler (``subscribe(VehicleSaved, bind_terminal)`` in its
``Context.subscriptions``; ``async def bind_terminal(ctx: Ctx, event: VehicleSaved) -> None``). Handlers run in the
emitter's transaction, in the order the contexts declared them, with the request's ``Ctx``: what they write commits
with the change or not at all, and what must wait for the commit goes to ``ctx.after_commit`` / ``ctx.outbox``. A
handler may refuse the change with ``ServiceError``. An event says that something changed; nothing reads an answer
through one.

**Ports.** Where a context's *answer* is completed by another (the vehicle list's live columns come from telemetry),
the owner declares a port, typed by the function it calls (``VEHICLE_LIST_COLUMNS: Port[ListColumns]``), and calls
its providers (``for add in VEHICLE_LIST_COLUMNS.providers(): await add(ctx, rows)``); a context downstream provides
it (``provide(VEHICLE_LIST_COLUMNS, live_columns)`` in its ``Context.provides``).

Both tables are filled once, at start-up, by ``core.registry.build`` from the contexts' declarations.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from liftdesk.core.context import Ctx


class Event:
    """Base class of domain events (frozen dataclasses naming what changed)."""


E = TypeVar("E", bound=Event)
P = TypeVar("P")


@dataclass(frozen=True)
class Subscription(Generic[E]):
    event: type[E]
    handler: Callable[[Ctx, E], Awaitable[None]]


def subscribe(event: type[E], handler: Callable[[Ctx, E], Awaitable[None]]) -> Subscription[E]:
    """``handler`` runs on every ``event`` (declared in a ``Context.subscriptions``)."""
    return Subscription(event, handler)


@dataclass(frozen=True, eq=False)
class Port(Generic[P]):
    """An extension point of a context's answers: its providers are functions of type ``P``."""

    name: str

    def providers(self) -> tuple[P, ...]:
        return tuple(_PROVIDERS.get(self, ()))


@dataclass(frozen=True)
class Provision(Generic[P]):
    port: Port[P]
    function: P


def provide(port: Port[P], function: P) -> Provision[P]:
    """``function`` implements ``port`` (declared in a ``Context.provides``)."""
    return Provision(port, function)


_HANDLERS: dict[type[Event], list[Callable[[Any, Any], Awaitable[None]]]] = {}
_PROVIDERS: dict[Port[Any], list[Any]] = {}


def install(subscriptions: Iterable[Subscription[Any]], provisions: Iterable[Provision[Any]]) -> None:
    """The tables of the app (``core.registry.build``), replacing any earlier ones."""
    _HANDLERS.clear()
    _PROVIDERS.clear()
    for s in subscriptions:
        _HANDLERS.setdefault(s.event, []).append(s.handler)
    for p in provisions:
        _PROVIDERS.setdefault(p.port, []).append(p.function)


async def emit(ctx: Ctx, event: Event) -> None:
    """Run the handlers of ``event``'s type in the caller's transaction, in the order they were declared."""
    for handler in _HANDLERS.get(type(event), ()):
        await handler(ctx, event)


@contextmanager
def listening(subscription: Subscription[Any]) -> Iterator[None]:
    """One more handler while the block runs, after those of the app (a test listens in)."""
    handlers_of = _HANDLERS.setdefault(subscription.event, [])
    handlers_of.append(subscription.handler)
    try:
        yield
    finally:
        handlers_of.remove(subscription.handler)


def handlers(event: type[Event]) -> tuple[Callable[[Any, Any], Awaitable[None]], ...]:
    """Who listens to ``event`` (tests and start-up checks)."""
    return tuple(_HANDLERS.get(event, ()))
