"""Simulated forklift fleet: JT/T 808 terminals on believable industrial trucks (``liftdesk simulate``).

* :mod:`.specs` — :class:`DeviceSpec`, :class:`VehicleType`, :func:`demo_specs`;
* :mod:`.model` — what a vehicle does shift by shift (deterministic, no I/O);
* :mod:`.fleet` — :class:`SimulatedForklift` (one TCP terminal), :class:`Fleet`, :func:`run_fleet`;
* :mod:`.cli` — ``configure_parser`` / ``cmd_simulate`` for the ``liftdesk`` command.
"""

from .fleet import Fleet, ForkliftStats, SimClock, SimulatedForklift, run_fleet
from .model import ForkliftModel, ReportSchedule
from .params import TerminalParams, default_params
from .specs import (
    DEMO_SITES,
    PROFILES,
    Chemistry,
    DeviceSpec,
    ShiftPattern,
    Site,
    VehicleProfile,
    VehicleType,
    demo_specs,
    device_number,
)

__all__ = [
    "DEMO_SITES",
    "PROFILES",
    "Chemistry",
    "DeviceSpec",
    "Fleet",
    "ForkliftModel",
    "ForkliftStats",
    "ReportSchedule",
    "ShiftPattern",
    "SimClock",
    "SimulatedForklift",
    "Site",
    "TerminalParams",
    "VehicleProfile",
    "VehicleType",
    "default_params",
    "demo_specs",
    "device_number",
    "run_fleet",
]
