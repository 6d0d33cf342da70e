"""The fleet's actions, one module per entity: importing the package declares them."""

from liftdesk.fleet.api import assets, driver_apply, driver_auth, drivers, fences, papers, reminders, vehicles

__all__ = ["assets", "driver_apply", "driver_auth", "drivers", "fences", "papers", "reminders", "vehicles"]
