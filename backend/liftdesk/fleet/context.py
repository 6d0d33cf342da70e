"""The fleet context: vehicles, fences, drivers and their papers (``core.registry.Context``)."""

from __future__ import annotations

from liftdesk.core.events import subscribe
from liftdesk.core.registry import Context
from liftdesk.fleet import api as api  # declares the actions on the resources
from liftdesk.fleet import resources
from liftdesk.fleet.drivers import vehicle_removing
from liftdesk.fleet.events import VehiclesRemoving

CONTEXT = Context(
    name="fleet",
    resources=resources.RESOURCES,
    subscriptions=(subscribe(VehiclesRemoving, vehicle_removing),),
)
