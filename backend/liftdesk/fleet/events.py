"""What the fleet tells the contexts downstream of it (``core.events``), and where they add to its answers.

The fleet owns vehicles, fences and drivers and never imports telemetry: what terminals must do about a change (bind
a terminal to its vehicle, set or drop a fence's area, send a card list) is an event declared here, which telemetry
subscribes to in its ``Context``; the live columns of the vehicle lists come from telemetry through the port
:data:`VEHICLE_LIST_COLUMNS`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from liftdesk.core.events import Event, Port
from liftdesk.fleet.models import Fence, Vehicle

if TYPE_CHECKING:
    from liftdesk.core.context import Ctx


@dataclass(frozen=True)
class VehicleSaved(Event):
    """A vehicle was saved (its device number may have changed)."""

    vehicle: Vehicle


@dataclass(frozen=True)
class VehiclesRemoving(Event):
    """Vehicles are about to be removed (in the removing transaction)."""

    vehicles: Sequence[Vehicle]


@dataclass(frozen=True)
class FenceChecking(Event):
    """A fence is about to be saved, its fields checked; a listener refuses what terminals cannot hold."""

    fence: Fence


@dataclass(frozen=True)
class AreaChange:
    """A vehicle's terminal sets ``fence``'s area, or (``drop``) drops the area ``area_id`` of type ``fence_type``."""

    car: Vehicle
    fence: Fence | None
    fence_type: int
    area_id: int

    @property
    def drop(self) -> bool:
        return self.fence is None


@dataclass(frozen=True)
class FenceAreas(Event):
    """Terminals must set or drop these fence areas, once the transaction has committed."""

    changes: Sequence[AreaChange]


@dataclass(frozen=True)
class DriverCardsChanged(Event):
    """The cards accepted on these vehicles changed (an authorization, a card, a licence, a blacklist, a driver
    removed): each vehicle's terminal must get its card list once the transaction has committed."""

    vehicle_ids: Sequence[int]


#: Serialised vehicle rows of a list or a detail, to which a provider adds its columns in place (telemetry: online,
#: powered, locked, position, mileage, hours worked; see ``VehicleOut``).
ListColumns = Callable[["Ctx", list[dict[str, Any]]], Awaitable[None]]
VEHICLE_LIST_COLUMNS: Port[ListColumns] = Port("the vehicle lists' live columns")
