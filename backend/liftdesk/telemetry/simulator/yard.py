"""A warehouse yard around a base coordinate: docks, racks, staging lanes, chargers, parking, outdoor storage.

Points are metres east (x) and north (y) of the base; everything fits in ±``radius`` (default 300 m).
Vehicles drive along aisles: from a point to the cross aisle, along it, then to the target.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

Point = tuple[float, float]

_M_PER_DEG_LAT = 111_320.0


@dataclass(frozen=True, slots=True)
class Yard:
    base_lat: float
    base_lon: float
    radius_m: float
    docks: tuple[Point, ...]
    racks: tuple[Point, ...]
    staging: tuple[Point, ...]
    outdoor: tuple[Point, ...]
    chargers: tuple[Point, ...]
    parking: tuple[Point, ...]
    fuel_point: Point
    aisle_y: float  #: the main cross aisle between racks and docks

    @classmethod
    def around(cls, lat: float, lon: float, radius_m: float = 300.0) -> Yard:
        """The layout of the yard at (lat, lon); vehicles at the same base share it."""
        k = radius_m / 300.0
        rng = random.Random(f"yard:{lat:.5f}:{lon:.5f}:{radius_m:.0f}")
        docks = tuple((k * x, k * 175.0) for x in range(-180, 181, 40))
        racks = tuple((k * x, k * y) for x in range(-160, 161, 40) for y in (-120, -60, 0, 60, 120))
        staging = tuple((k * x, k * 145.0) for x in range(-150, 151, 50))
        outdoor = tuple((k * rng.uniform(-220, 220), k * rng.uniform(215, 265)) for _ in range(8))
        chargers = tuple((k * -255.0, k * (-230.0 + 7.0 * i)) for i in range(24))
        parking = tuple((k * 255.0, k * (-230.0 + 7.0 * i)) for i in range(24))
        return cls(
            lat, lon, radius_m, docks, racks, staging, outdoor, chargers, parking, (k * 255.0, k * 40.0), k * 158.0
        )

    def to_latlon(self, p: Point) -> tuple[float, float]:
        x, y = p
        lat = self.base_lat + y / _M_PER_DEG_LAT
        lon = self.base_lon + x / (_M_PER_DEG_LAT * math.cos(math.radians(self.base_lat)))
        return lat, lon

    def route(self, a: Point, b: Point) -> list[Point]:
        """Waypoints from ``a`` to ``b`` (excluding ``a``) along the aisles."""
        if math.dist(a, b) < 1.0:
            return []
        cy = self.aisle_y
        if abs(a[1] - b[1]) < 1.0 or abs(a[0] - b[0]) < 1.0:
            return [b]
        path = [(a[0], cy), (b[0], cy), b]
        out: list[Point] = []
        prev = a
        for p in path:
            if math.dist(prev, p) >= 0.5:
                out.append(p)
                prev = p
        return out


def heading(a: Point, b: Point) -> int:
    """Compass heading 0-359 from ``a`` to ``b`` (0 = north, clockwise)."""
    return int(math.degrees(math.atan2(b[0] - a[0], b[1] - a[1]))) % 360
