"""The plan a vehicle follows: the kinds of step a job is made of (travel along a path, move the forks, wait,
load, unload, an impact, the seat belt, refuel, power off) and one planned :class:`Step`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from liftdesk.telemetry.codecs.jt808 import Impact

from ..yard import Point


class Kind(Enum):
    TRAVEL = "travel"
    FORKS = "forks"
    WAIT = "wait"
    LOAD = "load"
    UNLOAD = "unload"
    IMPACT = "impact"
    SEAT_BELT = "seat_belt"
    REFUEL = "refuel"
    POWER_OFF = "power_off"


@dataclass
class Step:
    kind: Kind
    path: list[Point] = field(default_factory=list)
    cruise_kmh: float = 0.0
    height_mm: int = 0
    seconds: float = 0.0
    load_kg: int = 0
    handling: bool = False
    impact: Impact | None = None
    fastened: bool = True
