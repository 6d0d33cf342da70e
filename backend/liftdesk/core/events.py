"""Domain events inside a request: one handler table, so that a context reacts to another's changes without the
other importing it.

A context that owns a change emits an event with what it knows (``await emit(ctx, VEHICLE_REMOVING, rows=...)``);
a context downstream subscribes at import time (``@on(VEHICLE_REMOVING)``). Handlers run in the emitter's
transaction, in the order they subscribed, with the request's ``Ctx``: what they write commits with the change or
not at all, and what must wait for the commit goes to ``ctx.after_commit`` / ``ctx.outbox`` (published on the bus
once the layer has committed, ``core.router.finish``). A handler may refuse the change with ``ServiceError``.

The dependency between contexts then points one way: ``fleet`` owns vehicles and fences and names their events;
``telemetry`` imports ``fleet`` and subscribes (terminals follow their vehicle, fence areas are sent to terminals,
vehicle lists carry the live state). ``fleet`` never imports ``telemetry``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from liftdesk.core.crud import Ctx

Handler = Callable[..., Awaitable[None]]

_HANDLERS: dict[str, list[Handler]] = {}


def on(event: str) -> Callable[[Handler], Handler]:
    """Subscribe the decorated ``async def handler(ctx, **payload)`` to ``event``."""

    def register(handler: Handler) -> Handler:
        handlers = _HANDLERS.setdefault(event, [])
        if handler not in handlers:
            handlers.append(handler)
        return handler

    return register


async def emit(ctx: Ctx, event: str, **payload: Any) -> None:
    """Run ``event``'s handlers in the caller's transaction, in the order they subscribed."""
    for handler in _HANDLERS.get(event, ()):
        await handler(ctx, **payload)


def handlers(event: str) -> tuple[Handler, ...]:
    """Who listens to ``event`` (tests and start-up checks)."""
    return tuple(_HANDLERS.get(event, ()))
