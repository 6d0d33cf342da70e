"""Builders of the area commands (0x8600-0x8605): circles, rectangles and a polygon with their time and speed
rules, and the deletes by area id.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, time
from typing import Any

from liftdesk.telemetry.codecs.jt808 import (
    AreaRules,
    AreaSetMode,
    CircleArea,
    PolygonArea,
    RectangleArea,
    SetCircleAreas,
    SetPolygonArea,
    SetRectangleAreas,
)
from liftdesk.telemetry.commands.fields import _enum_int, _float, _get, _int


def _area_time(value: Any, what: str) -> datetime | time | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{what}: an ISO date-time or HH:MM[:SS] is required")
    text = value.strip()
    try:
        if len(text) <= 8 and ":" in text:
            return time.fromisoformat(text)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{what}: {value!r} is not an ISO date-time or HH:MM[:SS]") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _rules(a: Mapping[str, Any], what: str) -> AreaRules:
    def opt_int(*names: str, high: int = 0xFFFF) -> int | None:
        v = _get(a, *names)
        return None if v is None else _int(v, f"{what}.{names[0]}", 0, high)

    name = _get(a, "name", default="")
    if not isinstance(name, str):
        raise ValueError(f"{what}.name: a string is required")
    start, end = _area_time(_get(a, "start"), f"{what}.start"), _area_time(_get(a, "end"), f"{what}.end")
    if (start is None) != (end is None):
        raise ValueError(f"{what}: start and end go together")
    return AreaRules(
        start=start,
        end=end,
        max_speed_kmh=opt_int("maxSpeed", "maxSpeedKmh"),
        overspeed_duration_s=opt_int("overspeedDuration", "overspeedDurationS", high=255),
        night_max_speed_kmh=opt_int("nightMaxSpeed", "nightMaxSpeedKmh"),
        name=name,
    )


def _point(value: Any, what: str) -> tuple[float, float]:
    if isinstance(value, Mapping):
        value = [_get(value, "lat"), _get(value, "lon", "lng")]
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(f"{what}: [lat, lon] is required")
    lat, lon = _float(value[0], f"{what}.lat"), _float(value[1], f"{what}.lon")
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise ValueError(f"{what}: ({lat}, {lon}) is not a coordinate")
    return lat, lon


def _areas(payload: Mapping[str, Any]) -> tuple[int, list[Mapping[str, Any]]]:
    mode = _enum_int(_get(payload, "mode", default=0), AreaSetMode, "mode")
    if not 0 <= mode <= 2:
        raise ValueError(f"mode: {mode} is outside 0..2")
    areas = _get(payload, "areas")
    if not isinstance(areas, list) or not areas or not all(isinstance(a, Mapping) for a in areas):
        raise ValueError("areas: a non-empty list of areas is required")
    if len(areas) > 0xFF:
        raise ValueError("areas: at most 255 per command")
    return mode, areas


def _area_head(a: Mapping[str, Any], what: str) -> tuple[int, int]:
    return _int(_get(a, "id", "areaId"), f"{what}.id", 0, 0xFFFFFFFF), _int(
        _get(a, "attributes", default=0), f"{what}.attributes", 0, 0xFFFF
    )


def build_set_circles(payload: Mapping[str, Any]) -> SetCircleAreas:
    """0x8600 ``{"mode": "update", "areas": [{"id", "lat", "lon", "radius", "attributes"?, rules...}]}``."""
    mode, areas = _areas(payload)
    out = []
    for i, a in enumerate(areas):
        what = f"areas[{i}]"
        area_id, attr = _area_head(a, what)
        lat, lon = _point([_get(a, "lat"), _get(a, "lon", "lng")], what)
        radius = _int(_get(a, "radius", "radiusM"), f"{what}.radius", 1, 0xFFFFFFFF)
        out.append(CircleArea(area_id, attr, lat, lon, radius, _rules(a, what)))
    return SetCircleAreas(mode, tuple(out))


def build_set_rectangles(payload: Mapping[str, Any]) -> SetRectangleAreas:
    """0x8602 ``{"mode", "areas": [{"id", "topLeft": [lat, lon], "bottomRight": [lat, lon], ...}]}``."""
    mode, areas = _areas(payload)
    out = []
    for i, a in enumerate(areas):
        what = f"areas[{i}]"
        area_id, attr = _area_head(a, what)
        top_left = _point(_get(a, "topLeft"), f"{what}.topLeft")
        bottom_right = _point(_get(a, "bottomRight"), f"{what}.bottomRight")
        out.append(RectangleArea(area_id, attr, top_left, bottom_right, _rules(a, what)))
    return SetRectangleAreas(mode, tuple(out))


def build_set_polygon(payload: Mapping[str, Any]) -> SetPolygonArea:
    """0x8604 ``{"area": {"id", "vertices": [[lat, lon], ...], ...}}`` (or the area's fields at the top)."""
    a = _get(payload, "area", default=payload)
    if not isinstance(a, Mapping):
        raise ValueError("area: an object is required")
    area_id, attr = _area_head(a, "area")
    vertices = _get(a, "vertices", "points")
    if not isinstance(vertices, list) or len(vertices) < 3:
        raise ValueError("area.vertices: at least three [lat, lon] points are required")
    points = tuple(_point(v, f"area.vertices[{i}]") for i, v in enumerate(vertices))
    return SetPolygonArea(PolygonArea(area_id, attr, points, _rules(a, "area")))


def _ids(payload: Mapping[str, Any]) -> tuple[int, ...]:
    ids = _get(payload, "ids", default=[])
    if not isinstance(ids, list):
        raise ValueError("ids: a list of area ids is required (empty deletes all)")
    if len(ids) > 0xFF:
        raise ValueError("ids: at most 255 per command")
    return tuple(_int(i, f"ids[{n}]", 0, 0xFFFFFFFF) for n, i in enumerate(ids))
