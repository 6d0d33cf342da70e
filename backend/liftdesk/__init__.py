"""Liftdesk: a self-hostable back office for industrial-vehicle fleets."""

__version__ = "0.1.0"
