"""``Services``: what a handler may use beyond its request, typed.

The composition root (``liftdesk.app``) makes one per app and adds the long-lived parts a process runs (the command
service, the terminals, the telemetry pipeline, the live hub); a handler that needs one asks for it by its class,
and gets that type back::

    async def lock_car(ctx: Ctx, body: LockIn, services: Services) -> list[CommandOut]:
        commands = services.get(CommandService)

``core`` names no context's class: each context asks for its own. ``find`` answers None where a part does not run
(a unit test, a script), ``get`` refuses with an error a caller sees as a 500 (a deployment error, never input).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from liftdesk.core.bus import Bus
    from liftdesk.core.config import Settings
    from liftdesk.core.db import Database

T = TypeVar("T")


class Services:
    def __init__(self, settings: Settings, db: Database, bus: Bus) -> None:
        self.settings = settings
        self.db = db
        self.bus = bus
        self._parts: dict[type[Any], Any] = {}

    def add(self, part: Any, kind: type[Any] | None = None) -> None:
        """Make ``part`` available as its class (or ``kind``); a second part of one kind replaces the first."""
        self._parts[kind or type(part)] = part

    def find(self, kind: type[T]) -> T | None:
        found = self._parts.get(kind)
        if found is None:
            for part in self._parts.values():  # a subclass serves (a test's recording command service)
                if isinstance(part, kind):
                    return part
            return None
        return found  # type: ignore[no-any-return]

    def get(self, kind: type[T]) -> T:
        found = self.find(kind)
        if found is None:
            raise RuntimeError(f"no {kind.__name__} runs in this process")
        return found
