"""Electronic fences in the telemetry pipeline: geometry, the fence stage, and the areas sent to terminals.

Geometry is pure: a point is in a circle when its great-circle (haversine) distance to the centre is at most the
radius; in a polygon by ray casting on (lon, lat), which is exact enough for the few hundred metres a yard spans
(no antimeridian handling). Coordinates are WGS-84, polygons GeoJSON-ordered ``[[lon, lat], ...]``.

The stage (after ``overload``) keeps, per vehicle, the enabled fences it is bound to and whether the last valid
fix was inside each of them (initialised from the last known fix when the context is loaded). Alarms by mode:

====  ==================  ============================================================================
mode  meaning             event
====  ==================  ============================================================================
1     in-fence            ``fence_in`` open while inside (opens on entry, closes on exit)
2     out-of-fence        ``fence_out`` open while outside
3     boundary            ``fence_cross`` instant, on each crossing, detail ``action`` ``in`` | ``out``
4     speed inside        ``fence_speeding`` open while inside and faster than the fence's speed limit
5     speed + boundary    both 3 and 4
====  ==================  ============================================================================

Interval alarms are held per fence under the key ``<kind>:<fenceId>`` of ``VehicleCtx.open``, so one vehicle can
have one open alarm per fence; every one counts in the day's ``fence_n``. A speed limit of 0 lifts the limit
(spec §5), so it raises no speeding alarm and sends no speed rule to the terminal.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.fleet.geometry import (
    CIRCLE,
    METRES_PER_DEGREE,
    MODE_BOUNDARY,
    MODE_IN,
    MODE_OUT,
    MODE_SPEED,
    MODE_SPEED_BOUNDARY,
    POLYGON,
    Point,
    haversine_m,
    in_circle,
    in_polygon,
    parse_points,
    polygon_is_simple,
    segments_intersect,
)
from liftdesk.fleet.models import Fence, FenceCar
from liftdesk.telemetry.messages import Fix

if TYPE_CHECKING:
    from liftdesk.telemetry.pipeline.context import Batch, VehicleCtx

log = logging.getLogger("liftdesk.fences")

FENCE_IN, FENCE_OUT, FENCE_CROSS, FENCE_SPEEDING = "fence_in", "fence_out", "fence_cross", "fence_speeding"
FENCE_KINDS = (FENCE_IN, FENCE_OUT, FENCE_CROSS, FENCE_SPEEDING)
#: the fence geometry is the fleet's (``fleet.geometry``); named here too for the pipeline's callers and tests
__all__ = [
    "CIRCLE",
    "POLYGON",
    "FenceGeo",
    "haversine_m",
    "in_circle",
    "in_polygon",
    "polygon_is_simple",
    "segments_intersect",
]
# --------------------------------------------------------------------------- fences as the pipeline sees them


@dataclass(frozen=True, slots=True)
class FenceGeo:
    id: int
    name: str
    fence_type: int
    alarm_mode: int
    speed_limit: float | None
    center: Point | None = None
    radius_m: float = 0.0
    points: tuple[Point, ...] = ()
    bbox: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # min lon, min lat, max lon, max lat

    @classmethod
    def circle(
        cls, ident: int, name: str, mode: int, speed_limit: float | None, lon: float, lat: float, radius_m: float
    ) -> FenceGeo:
        dlat = radius_m / METRES_PER_DEGREE * 1.01 + 1e-9
        dlon = dlat / max(math.cos(math.radians(lat)), 1e-6)
        bbox = (lon - dlon, lat - dlat, lon + dlon, lat + dlat)
        return cls(ident, name, CIRCLE, mode, speed_limit, (lon, lat), radius_m, (), bbox)

    @classmethod
    def polygon(cls, ident: int, name: str, mode: int, speed_limit: float | None, points: Sequence[Point]) -> FenceGeo:
        lons, lats = [p[0] for p in points], [p[1] for p in points]
        bbox = (min(lons), min(lats), max(lons), max(lats))
        return cls(ident, name, POLYGON, mode, speed_limit, None, 0.0, tuple(points), bbox)

    @classmethod
    def of(cls, fence: Fence) -> FenceGeo | None:
        """None when the stored row cannot be used (it was validated on the way in, so only a hand edit)."""
        try:
            if fence.fence_type == CIRCLE and fence.center_lon is not None and fence.center_lat is not None:
                radius = float(fence.radius_m or 0.0)
                return cls.circle(
                    fence.id,
                    fence.name,
                    fence.alarm_mode,
                    fence.speed_limit,
                    fence.center_lon,
                    fence.center_lat,
                    radius,
                )
            points = parse_points(fence.points)
            if fence.fence_type == POLYGON and len(points) >= 3:
                return cls.polygon(fence.id, fence.name, fence.alarm_mode, fence.speed_limit, points)
        except (ValueError, TypeError, IndexError, KeyError):
            pass
        log.warning("fence %s has no usable geometry; ignored", fence.id)
        return None

    def contains(self, lon: float, lat: float) -> bool:
        x0, y0, x1, y1 = self.bbox
        if not (x0 <= lon <= x1 and y0 <= lat <= y1):
            return False
        if self.center is not None:
            return in_circle(lon, lat, self.center[0], self.center[1], self.radius_m)
        return in_polygon(lon, lat, self.points)

    @property
    def limits_speed(self) -> bool:
        return self.alarm_mode in (MODE_SPEED, MODE_SPEED_BOUNDARY) and bool(self.speed_limit)

    def interval_keys(self) -> set[str]:
        """The ``VehicleCtx.open`` keys this fence can hold open."""
        keys = set()
        if self.alarm_mode == MODE_IN:
            keys.add(open_key(FENCE_IN, self.id))
        elif self.alarm_mode == MODE_OUT:
            keys.add(open_key(FENCE_OUT, self.id))
        if self.limits_speed:
            keys.add(open_key(FENCE_SPEEDING, self.id))
        return keys


def open_key(kind: str, fence_id: int) -> str:
    return f"{kind}:{fence_id}"


def is_fence_key(key: str) -> bool:
    kind, sep, _ = key.partition(":")
    return bool(sep) and kind in FENCE_KINDS


@dataclass(slots=True)
class VehicleFences:
    """A vehicle's enabled fences, where its last valid fix was for each (None: not known yet), and open alarms
    of fences it no longer has (closed by the next fix)."""

    fences: tuple[FenceGeo, ...]
    inside: dict[int, bool] = field(default_factory=dict)
    stale: tuple[str, ...] = ()


async def load_fences(session: AsyncSession, vehicle_ids: Iterable[int]) -> dict[int, list[FenceGeo]]:
    """Enabled, not deleted fences of many vehicles, in one query: vehicle id → fences."""
    ids = list(vehicle_ids)
    out: dict[int, list[FenceGeo]] = {}
    if not ids:
        return out
    rows = await session.execute(
        select(FenceCar.vehicle_id, Fence)
        .join(Fence, Fence.id == FenceCar.fence_id)
        .where(
            FenceCar.vehicle_id.in_(ids),
            Fence.tenant_id == FenceCar.tenant_id,
            Fence.is_deleted == 0,
            Fence.enable_status == 1,
        )
        .order_by(Fence.id)
    )
    for vehicle_id, fence in rows.all():
        geo = FenceGeo.of(fence)
        if geo is not None:
            out.setdefault(vehicle_id, []).append(geo)
    return out


def attach_fences(v: VehicleCtx, fences: Sequence[FenceGeo]) -> None:
    """Give a freshly loaded context its fences, the inside/outside memory from its last known valid fix, and the
    open fence alarms that no current fence can hold any more (a fence deleted, disabled, unbound or changed)."""
    keep: set[str] = set()
    for f in fences:
        keep |= f.interval_keys()
    stale = tuple(k for k in v.open if is_fence_key(k) and k not in keep)
    if not fences and not stale:
        v.fences = None
        return
    where = v.located  # the last valid position (a fix without GNSS says nothing of where the vehicle is)
    inside = {f.id: f.contains(where.lon, where.lat) for f in fences} if where is not None else {}
    v.fences = VehicleFences(tuple(fences), inside, stale)


# --------------------------------------------------------------------------- the stage


def _hold(
    b: Batch,
    v: VehicleCtx,
    kind: str,
    key: str,
    fix: Fix,
    active: bool,
    value: float,
    limit: float | None,
    detail: dict[str, Any],
) -> None:
    """An interval alarm held under ``key``: open while ``active`` (tracking the largest value), closed after."""
    current = v.open.get(key)
    if active:
        if current is None:
            b.open_alarm(v, kind, fix, value, limit, detail=detail, key=key)
        else:
            current.max_value = max(current.max_value, value)
    elif current is not None:
        b.close_alarm(v, key, fix.time)


def fences(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """Fence alarms of one fix (see the module's table). Vehicles without fences pass straight through."""
    state = v.fences
    if state is None:
        return True
    if state.stale:
        for key in state.stale:
            b.close_alarm(v, key, fix.time)
        state.stale = ()
        if not state.fences:
            v.fences = None
            return True
    if not fix.valid:  # no GNSS fix: its coordinates are garbage (often 0, 0), not a crossing
        return True
    lon, lat = fix.lon, fix.lat
    for f in state.fences:
        inside = f.contains(lon, lat)
        was = state.inside.get(f.id)
        state.inside[f.id] = inside
        mode = f.alarm_mode
        detail: dict[str, Any] = {"fenceId": str(f.id), "fenceName": f.name}
        if mode == MODE_IN:
            _hold(b, v, FENCE_IN, open_key(FENCE_IN, f.id), fix, inside, 0.0, None, detail)
        elif mode == MODE_OUT:
            _hold(b, v, FENCE_OUT, open_key(FENCE_OUT, f.id), fix, not inside, 0.0, None, detail)
        if mode in (MODE_BOUNDARY, MODE_SPEED_BOUNDARY) and was is not None and was != inside:
            action = {"action": "in" if inside else "out"}
            b.open_alarm(v, FENCE_CROSS, fix, 0.0, None, detail={**detail, **action}, instant=True)
        if f.limits_speed:
            limit = float(f.speed_limit or 0.0)
            speeding = inside and fix.acc and fix.speed_kmh > limit
            key = open_key(FENCE_SPEEDING, f.id)
            _hold(b, v, FENCE_SPEEDING, key, fix, speeding, fix.speed_kmh, limit, detail)
    return True


# --------------------------------------------------------------------------- areas sent to terminals


ENTRY_BITS = (1 << 2) | (1 << 3)  # alarm the driver and the platform on entry
EXIT_BITS = (1 << 4) | (1 << 5)  # ... on exit
MODE_BITS = {
    MODE_IN: ENTRY_BITS,
    MODE_OUT: EXIT_BITS,
    MODE_BOUNDARY: ENTRY_BITS | EXIT_BITS,
    MODE_SPEED: 0,  # bit 1 (speed limit) is set by the codec when the area carries a maximum speed
    MODE_SPEED_BOUNDARY: ENTRY_BITS | EXIT_BITS,
}

#: (command name, message id, payload) as ``CommandService.create`` takes them.
AreaCommand = tuple[str, int, dict[str, Any]]


def area_rules(fence: Fence) -> dict[str, Any]:
    rules: dict[str, Any] = {"id": int(fence.area_id or 0), "attributes": MODE_BITS.get(fence.alarm_mode, 0)}
    if fence.alarm_mode in (MODE_SPEED, MODE_SPEED_BOUNDARY) and fence.speed_limit:
        rules["maxSpeed"] = round(fence.speed_limit)
    rules["name"] = fence.name
    return rules


def set_area_command(fence: Fence) -> AreaCommand:
    """0x8600 (one circle, mode append: "update" would replace every circle the terminal holds) or 0x8604."""
    rules = area_rules(fence)
    if fence.fence_type == CIRCLE:
        area = {**rules, "lat": fence.center_lat, "lon": fence.center_lon, "radius": round(fence.radius_m or 0)}
        return "set_circle_areas", 0x8600, {"mode": "append", "areas": [area]}
    vertices = [[lat, lon] for lon, lat in parse_points(fence.points)]  # the terminal takes [lat, lon]
    return "set_polygon_area", 0x8604, {"area": {**rules, "vertices": vertices}}


def delete_area_command(fence_type: int, area_id: int) -> AreaCommand:
    if fence_type == CIRCLE:
        return "delete_circle_areas", 0x8601, {"ids": [area_id]}
    return "delete_polygon_areas", 0x8605, {"ids": [area_id]}
