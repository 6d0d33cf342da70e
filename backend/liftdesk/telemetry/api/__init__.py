"""Telemetry's actions, one module per subject: importing the package declares them on their resources."""

from liftdesk.telemetry.api import (
    address,
    car_settings,
    commands,
    equipment,
    ingest,
    lists,
    live,
    monitor_can,
    monitor_charts,
    positions,
    status,
    track,
)

__all__ = [
    "address",
    "car_settings",
    "commands",
    "equipment",
    "ingest",
    "lists",
    "live",
    "monitor_can",
    "monitor_charts",
    "positions",
    "status",
    "track",
]
