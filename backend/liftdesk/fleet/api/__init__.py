"""The fleet's actions, one module per entity: importing the package declares them."""

from liftdesk.fleet.api import driver_apply, driver_auth, drivers, fences, papers, reminders, vehicles

__all__ = ["driver_apply", "driver_auth", "drivers", "fences", "papers", "reminders", "vehicles"]
