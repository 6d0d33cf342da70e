"""The fleet's actions, one module per entity: importing the package declares them."""

from liftdesk.fleet.api import assets, fences, vehicles

__all__ = ["assets", "fences", "vehicles"]
