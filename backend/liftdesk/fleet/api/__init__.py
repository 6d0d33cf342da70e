"""The fleet's actions, one module per entity: importing the package declares them."""

from liftdesk.fleet.api import fences, papers, reminders, vehicles

__all__ = ["fences", "papers", "reminders", "vehicles"]
