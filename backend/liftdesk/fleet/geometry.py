"""Fence geometry (pure): circles and polygons on WGS-84 coordinates, and the rules a fence's shape obeys.

A point is in a circle when its great-circle (haversine) distance to the centre is at most the radius; in a polygon
by ray casting on (lon, lat), which is exact enough for the few hundred metres a yard spans (no antimeridian
handling). Polygons are GeoJSON-ordered ``[[lon, lat], ...]``. The fleet validates fences with it; the telemetry
pipeline tests every fix against them with it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

CIRCLE, POLYGON = 1, 2
MODE_IN, MODE_OUT, MODE_BOUNDARY, MODE_SPEED, MODE_SPEED_BOUNDARY = 1, 2, 3, 4, 5
EARTH_RADIUS_M = 6_371_008.8
METRES_PER_DEGREE = math.pi * EARTH_RADIUS_M / 180.0

Point = tuple[float, float]  # (lon, lat)


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in metres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(a)))


def in_circle(lon: float, lat: float, center_lon: float, center_lat: float, radius_m: float) -> bool:
    return haversine_m(lat, lon, center_lat, center_lon) <= radius_m


def in_polygon(lon: float, lat: float, points: Sequence[Point]) -> bool:
    """Ray casting (even-odd rule) on (lon, lat); ``points`` need not repeat the first vertex at the end."""
    inside = False
    n = len(points)
    j = n - 1
    for i in range(n):
        xi, yi = points[i]
        xj, yj = points[j]
        if (yi > lat) != (yj > lat) and lon < (xj - xi) * (lat - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def _orientation(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _on_segment(a: Point, b: Point, c: Point) -> bool:
    """``c`` (collinear with a-b) lies within the segment's bounding box."""
    return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])


def segments_intersect(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Closed segments a-b and c-d share a point (touching and collinear overlap included)."""
    o1, o2, o3, o4 = _orientation(a, b, c), _orientation(a, b, d), _orientation(c, d, a), _orientation(c, d, b)
    if ((o1 > 0 and o2 < 0) or (o1 < 0 and o2 > 0)) and ((o3 > 0 and o4 < 0) or (o3 < 0 and o4 > 0)):
        return True
    return (
        (o1 == 0 and _on_segment(a, b, c))
        or (o2 == 0 and _on_segment(a, b, d))
        or (o3 == 0 and _on_segment(c, d, a))
        or (o4 == 0 and _on_segment(c, d, b))
    )


def polygon_area(points: Sequence[Point]) -> float:
    """Signed shoelace area in square degrees (positive counter-clockwise)."""
    n = len(points)
    return sum(points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1] for i in range(n)) / 2


def polygon_is_simple(points: Sequence[Point]) -> bool:
    """No two non-adjacent edges meet, no repeated vertex and a non-zero area (O(n²), n ≤ 64)."""
    n = len(points)
    if n < 3 or len(set(points)) != n or abs(polygon_area(points)) < 1e-14:
        return False
    edges = [(points[i], points[(i + 1) % n]) for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if j == i + 1 or (i == 0 and j == n - 1):
                continue  # neighbours share a vertex by construction
            if segments_intersect(*edges[i], *edges[j]):
                return False
    return True


def parse_points(raw: str | None) -> list[Point]:
    """The stored JSON ``[[lon, lat], ...]`` → points (empty when absent)."""
    if not raw:
        return []
    return [(float(p[0]), float(p[1])) for p in json.loads(raw)]
