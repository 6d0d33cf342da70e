"""Rules of the fleet context.

The fleet owns vehicles and fences and never imports telemetry: what terminals must do about a change (bind a
terminal to its vehicle, set or drop a fence's area) is an event of ``fleet.events`` that telemetry subscribes to,
and the live columns of a vehicle list come through its port ``VEHICLE_LIST_COLUMNS``.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, text
from sqlalchemy import inspect as sa_inspect

from liftdesk.core.context import Ctx
from liftdesk.core.envelope import ServiceError
from liftdesk.core.events import emit
from liftdesk.core.i18n import t
from liftdesk.core.resource import Hooks
from liftdesk.core.scope import Scope
from liftdesk.fleet.events import (
    VEHICLE_LIST_COLUMNS,
    AreaChange,
    FenceAreas,
    FenceChecking,
    VehicleSaved,
    VehiclesRemoving,
)
from liftdesk.fleet.geometry import CIRCLE, MODE_SPEED, MODE_SPEED_BOUNDARY, POLYGON, polygon_is_simple
from liftdesk.fleet.models import Fence, FenceCar, Vehicle
from liftdesk.system.models import Dept
from liftdesk.system.service import dict_labels

log = logging.getLogger("liftdesk.fleet")
VEHICLE_CHANGED = "fleet.vehicle.changed"
#: ``{"deviceNumbers": [...]}``: the fences of these vehicles changed; the pipeline reloads them.
FENCE_CHANGED = "fleet.fence.changed"


async def place_in_organisation(ctx: Ctx, obj: Any, creating: bool) -> None:
    """A fleet row belongs to an organisation (``mechanismId``): the caller's own by default, else one of the
    caller's tenant that the caller's scope of organisations shows; a new row's ``create_dept`` is that
    organisation, so data scopes by organisation find it. Either way the row must be one the caller's data rule of
    the row's own resource shows once written (a vehicle placed outside "own organisation" is refused): 400."""
    given = obj.mechanism_id is not None
    if not given:
        obj.mechanism_id = ctx.principal.dept_id
    if creating:
        obj.create_dept = obj.mechanism_id
    if not given and not ctx.scope.narrows(type(obj)):
        return  # the caller's own organisation, and no data rule that could refuse it
    found = await ctx.session.execute(
        ctx.scope.select(Dept).with_only_columns(Dept.id).where(Dept.id == obj.mechanism_id, ctx.scope.admits(obj))
    )
    if found.first() is None:
        raise ServiceError(t("field_invalid", field="mechanismId"))


class VehicleHooks(Hooks):
    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if obj.device_number:
            # A terminal reports under one device number whatever the tenant, so the number is unique across
            # tenants. Taken in the caller's own tenant: said so, with the vehicle. Taken elsewhere: a neutral
            # "not available", the same words as for any number that cannot be bound, naming no one.
            taken = select(Vehicle.tenant_id, Vehicle.car_no).where(
                Vehicle.device_number == obj.device_number, Vehicle.is_deleted == 0, Vehicle.id != (obj.id or 0)
            )
            row = (await ctx.session.execute(taken.limit(1))).first()
            if row is not None and row.tenant_id == ctx.scope.tenant_id:
                raise ServiceError(t("device_bound_here", value=obj.device_number, car=row.car_no))
            if row is not None:
                raise ServiceError(t("device_unavailable", value=obj.device_number))
        await place_in_organisation(ctx, obj, creating)

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        await emit(ctx, VehicleSaved(vehicle=obj))
        ctx.outbox.append((VEHICLE_CHANGED, {"vehicleId": obj.id, "deviceNumber": obj.device_number}))

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        ids = [r.id for r in rows]
        await emit(ctx, VehiclesRemoving(vehicles=list(rows)))
        # A removed vehicle leaves its fences (those outside the caller's data scope too); its terminal drops their
        # areas.
        links = await ctx.session.execute(
            ctx.scope.apply(
                select(FenceCar.vehicle_id, Fence)
                .join(Fence, Fence.id == FenceCar.fence_id)
                .where(FenceCar.vehicle_id.in_(ids)),
                FenceCar,
                Fence,
                data=False,
            )
        )
        cars = {r.id: r for r in rows}
        plan = AreaPlan()
        for vehicle_id, fence in links.all():
            if fence.enable_status == 1:
                plan.drop(cars[vehicle_id], fence.fence_type, int(fence.area_id or 0))
        await ctx.session.execute(delete(FenceCar).where(*ctx.scope.where(FenceCar), FenceCar.vehicle_id.in_(ids)))
        await plan.queue(ctx)
        for r in rows:
            ctx.outbox.append((VEHICLE_CHANGED, {"vehicleId": r.id, "deviceNumber": r.device_number}))

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ids = [r["id"] for r in rows]
        if not ids:
            return rows
        depts = await organisation_names(ctx, {r["mechanism_id"] for r in rows if r["mechanism_id"]})
        types = await dict_labels(ctx.session, "car_type")
        statuses = await dict_labels(ctx.session, "car_status")
        for r in rows:
            r.update(
                car_id=r["id"],
                mechanism_name=depts.get(r["mechanism_id"], ""),
                car_type_name=types.get(str(r["car_type"]), ""),
                car_status_name=statuses.get(str(r["car_status"]), ""),
            )
        for add_columns in VEHICLE_LIST_COLUMNS.providers():  # the live state, from telemetry
            await add_columns(ctx, rows)
        return rows


# --------------------------------------------------------------------------- electronic fences

RADIUS_M = (10.0, 100_000.0)
SPEED_KMH = (0.0, 30.0)
VERTICES = (3, 64)
_BEFORE = "__fence_before"  # key of the fence's state before an update, handed from before_save to after_save


@dataclass(frozen=True)
class FenceBefore:
    fence_type: int
    enabled: bool
    vehicle_ids: frozenset[int]


class AreaPlan:
    """What vehicles' terminals must do about fences: set or drop areas (vehicles without a terminal are skipped),
    handed to the listeners of ``FenceAreas`` (telemetry queues the commands once the transaction has committed); the
    touched vehicles' pipeline contexts are told to reload their fences (``FENCE_CHANGED`` on the bus)."""

    def __init__(self) -> None:
        self.items: list[AreaChange] = []
        self.devices: set[str] = set()

    def touch(self, car: Vehicle) -> None:
        if car.device_number:
            self.devices.add(car.device_number)

    def set(self, car: Vehicle, fence: Fence) -> None:
        self.touch(car)
        if car.device_number:
            self.items.append(AreaChange(car, fence, fence.fence_type, int(fence.area_id or 0)))

    def drop(self, car: Vehicle, fence_type: int, area_id: int) -> None:
        self.touch(car)
        if car.device_number:
            self.items.append(AreaChange(car, None, fence_type, area_id))

    async def queue(self, ctx: Ctx) -> None:
        if self.devices:
            ctx.outbox.append((FENCE_CHANGED, {"deviceNumbers": sorted(self.devices)}))
        if self.items:
            await emit(ctx, FenceAreas(changes=list(self.items)))


async def organisation_names(ctx: Ctx, ids: Collection[int]) -> dict[int, str]:
    """Names of organisations of the caller's tenant (labels beside rows the caller reads)."""
    if not ids:
        return {}
    stmt = ctx.scope.apply(select(Dept.id, Dept.dept_name).where(Dept.id.in_(list(ids))), Dept, data=False)
    return {ident: name for ident, name in (await ctx.session.execute(stmt)).all()}


async def vehicle_scope(ctx: Ctx) -> Scope:
    """The scope vehicles are read through: the request's own, since every model is read through its own
    resource's data rule (``core.scope``) whatever resource the request is about."""
    return ctx.scope


async def scoped_vehicles(ctx: Ctx, ids: Collection[int]) -> dict[int, Vehicle]:
    if not ids:
        return {}
    rows = await ctx.session.execute(ctx.scope.select(Vehicle).where(Vehicle.id.in_(list(ids))))
    return {car.id: car for car in rows.scalars().all()}


async def _vehicles(ctx: Ctx, ids: Iterable[int]) -> dict[int, Vehicle]:
    """Vehicles of the tenant, outside the caller's data rule too: a fence's terminals must hear of it whoever
    changed it."""
    wanted = list(ids)
    if not wanted:
        return {}
    rows = await ctx.session.execute(ctx.scope.select(Vehicle, data=False).where(Vehicle.id.in_(wanted)))
    return {car.id: car for car in rows.scalars().all()}


async def linked_vehicle_ids(ctx: Ctx, fence_id: int) -> set[int]:
    stmt = ctx.scope.apply(select(FenceCar.vehicle_id).where(FenceCar.fence_id == fence_id), FenceCar)
    return set((await ctx.session.execute(stmt)).scalars().all())


def _number(value: Any, field: str, low: float, high: float, required: bool = True) -> float | None:
    if value is None:
        if required:
            raise ServiceError(t("field_required", field=field))
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ServiceError(t("field_invalid", field=field))
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise ServiceError(t("field_range", field=field))
    return number


def _int_in(value: Any, field: str, allowed: Collection[int]) -> int:
    if value is None:
        raise ServiceError(t("field_required", field=field))
    if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
        raise ServiceError(t("field_range", field=field))
    return value


def _vertices(raw: Any) -> list[tuple[float, float]]:
    """``[[lon, lat], ...]`` → checked vertices (a closing vertex equal to the first is dropped, as GeoJSON rings
    repeat it)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise ServiceError(t("field_invalid", field="points")) from exc
    if raw is None or raw == []:
        raise ServiceError(t("field_required", field="points"))
    if not isinstance(raw, list):
        raise ServiceError(t("field_invalid", field="points"))
    points: list[tuple[float, float]] = []
    for i, p in enumerate(raw):
        if not isinstance(p, list | tuple) or len(p) != 2:
            raise ServiceError(t("field_invalid", field=f"points[{i}]"))
        lon = _number(p[0], f"points[{i}]", -180.0, 180.0)
        lat = _number(p[1], f"points[{i}]", -90.0, 90.0)
        assert lon is not None and lat is not None
        points.append((lon, lat))
    if len(points) > 1 and points[0] == points[-1]:
        points.pop()
    low, high = VERTICES
    if not low <= len(points) <= high:
        raise ServiceError(t("polygon_vertices", field="points", low=low, high=high))
    if not polygon_is_simple(points):
        raise ServiceError(t("polygon_crossing", field="points"))
    return points


async def check_fence(ctx: Ctx, obj: Fence, data: dict[str, Any]) -> None:
    """Validate and normalise a fence after the submitted fields were applied (create and update alike)."""
    name = (obj.name or "").strip()
    if not name:
        raise ServiceError(t("field_required", field="name"))
    if len(name) > 32:
        raise ServiceError(t("field_too_long", field="name", limit=32))
    obj.name = name
    obj.fence_type = _int_in(obj.fence_type, "fenceType", (CIRCLE, POLYGON))
    obj.alarm_mode = _int_in(obj.alarm_mode, "alarmMode", range(1, 6))
    obj.enable_status = _int_in(1 if obj.enable_status is None else obj.enable_status, "enableStatus", (0, 1))
    speed_required = obj.alarm_mode in (MODE_SPEED, MODE_SPEED_BOUNDARY)
    obj.speed_limit = _number(obj.speed_limit, "speedLimit", *SPEED_KMH, required=speed_required)
    if "radius" in data:
        obj.radius_m = data["radius"]
    if obj.fence_type == CIRCLE:
        obj.center_lon = _number(obj.center_lon, "centerLon", -180.0, 180.0)
        obj.center_lat = _number(obj.center_lat, "centerLat", -90.0, 90.0)
        obj.radius_m = _number(obj.radius_m, "radius", *RADIUS_M)
        obj.points = None
    else:
        obj.points = json.dumps([list(p) for p in _vertices(obj.points)])
        obj.center_lon = obj.center_lat = obj.radius_m = None
    await emit(ctx, FenceChecking(fence=obj))  # what a terminal cannot hold is refused now, not when it is sent


def _ids(values: Any) -> list[int]:
    return list(dict.fromkeys(int(v) for v in values or ()))


class FenceHooks(Hooks):
    """Electronic fences: geometry and alarm rules, the vehicles bound to them, and their terminals' areas."""

    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        fence: Fence = obj
        if not creating:
            state = sa_inspect(fence).attrs
            old_type, old_enabled = state.fence_type.history.deleted, state.enable_status.history.deleted
            before_type = old_type[0] if old_type else fence.fence_type
            before_enabled = (old_enabled[0] if old_enabled else fence.enable_status) == 1
        # First, before any query: a query autoflushes, and the submitted points are not stored text yet.
        await check_fence(ctx, fence, data)
        if not creating:
            linked = await linked_vehicle_ids(ctx, fence.id)
            data[_BEFORE] = FenceBefore(before_type, before_enabled, frozenset(linked))
        await place_in_organisation(ctx, fence, creating)
        wanted = data.get("car_ids")
        if wanted is not None:
            ids = _ids(wanted)
            if len(await scoped_vehicles(ctx, ids)) != len(ids):
                raise ServiceError(t("field_invalid", field="carIds"))
            data["car_ids"] = ids

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        fence: Fence = obj
        if creating:
            await _assign_area_id(ctx, fence)
        before: FenceBefore | None = data.get(_BEFORE)
        old = set(before.vehicle_ids) if before else set()
        removed: set[int] = set()
        linked = set(old)
        if data.get("car_ids") is not None:
            wanted = set(data["car_ids"])
            # Only the links the caller can see are replaced: vehicles outside their scope stay bound.
            removed = set(await scoped_vehicles(ctx, old)) - wanted
            added = wanted - old
            if removed:
                await ctx.session.execute(
                    delete(FenceCar).where(
                        *ctx.scope.where(FenceCar), FenceCar.fence_id == fence.id, FenceCar.vehicle_id.in_(removed)
                    )
                )
            if added:
                await ctx.session.execute(
                    insert(FenceCar),
                    [{"fence_id": fence.id, "vehicle_id": v, "tenant_id": fence.tenant_id} for v in sorted(added)],
                )
            linked = (old - removed) | added
        cars = await _vehicles(ctx, linked | removed)
        was_enabled = before is not None and before.enabled
        old_type = before.fence_type if before is not None else fence.fence_type
        area_id = int(fence.area_id or 0)
        plan = AreaPlan()
        for vehicle_id in sorted(removed):
            if vehicle_id in cars and was_enabled:
                plan.drop(cars[vehicle_id], old_type, area_id)
        for vehicle_id in sorted(linked):
            car = cars.get(vehicle_id)
            if car is None:
                continue
            had_area = was_enabled and vehicle_id in old
            if had_area and old_type != fence.fence_type:
                plan.drop(car, old_type, area_id)
            if fence.enable_status == 1:
                plan.set(car, fence)
            elif had_area:
                plan.drop(car, fence.fence_type, area_id)
            plan.touch(car)
        await plan.queue(ctx)

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        ids = [r.id for r in rows]
        links = (
            (await ctx.session.execute(ctx.scope.select(FenceCar).where(FenceCar.fence_id.in_(ids)))).scalars().all()
        )
        by_fence = {r.id: r for r in rows}
        cars = await _vehicles(ctx, {link.vehicle_id for link in links})
        plan = AreaPlan()
        for link in links:
            fence, car = by_fence[link.fence_id], cars.get(link.vehicle_id)
            if car is None:
                continue
            if fence.enable_status == 1:
                plan.drop(car, fence.fence_type, int(fence.area_id or 0))
            plan.touch(car)
        await ctx.session.execute(delete(FenceCar).where(*ctx.scope.where(FenceCar), FenceCar.fence_id.in_(ids)))
        await plan.queue(ctx)

    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        car = ctx.params.get("carId", "")
        if car:
            if not car.isdigit():
                raise ServiceError(t("field_invalid", field="carId"))
            bound = ctx.scope.apply(select(FenceCar.fence_id).where(FenceCar.vehicle_id == int(car)), FenceCar)
            stmt = stmt.where(Fence.id.in_(bound))
        return stmt

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ids = [r["id"] for r in rows]
        if not ids:
            return rows
        # the vehicles of each fence the caller's data rule of vehicles shows
        stmt = ctx.scope.apply(
            select(FenceCar.fence_id, FenceCar.vehicle_id)
            .join(Vehicle, Vehicle.id == FenceCar.vehicle_id)
            .where(FenceCar.fence_id.in_(ids))
            .order_by(FenceCar.fence_id, Vehicle.car_no, Vehicle.id),
            FenceCar,
            Vehicle,
        )
        by_fence: dict[int, list[int]] = {}
        for fence_id, vehicle_id in (await ctx.session.execute(stmt)).all():
            by_fence.setdefault(fence_id, []).append(vehicle_id)
        names = await organisation_names(ctx, {r["mechanism_id"] for r in rows if r["mechanism_id"]})
        for r in rows:
            r["car_ids"] = by_fence.get(r["id"], [])
            r["car_count"] = len(r["car_ids"])
            r["mechanism_name"] = names.get(r["mechanism_id"], "")
        return rows


async def _assign_area_id(ctx: Ctx, fence: Fence) -> None:
    """The next free area id of the tenant (deleted fences keep theirs, so an id is never reused). On PostgreSQL
    a transaction lock per tenant orders concurrent creations; SQLite already holds its write lock here."""
    if ctx.session.get_bind().dialect.name == "postgresql":
        await ctx.session.execute(
            text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": f"fics_fence.area_id:{fence.tenant_id}"}
        )
    top = await ctx.session.execute(select(func.max(Fence.area_id)).where(Fence.tenant_id == fence.tenant_id))
    area_id = int(top.scalar() or 0) + 1
    if area_id > 0xFFFFFFFF:  # pragma: no cover - four billion fences in one tenant
        raise ServiceError(t("field_range", field="areaId"))
    fence.area_id = area_id
    await ctx.session.flush()


async def attach_vehicles(ctx: Ctx, fence: Fence, cars: Sequence[Vehicle]) -> None:
    """Vehicles just bound to a fence: their terminals get its area (if the fence is enabled) once committed."""
    plan = AreaPlan()
    for car in cars:
        if fence.enable_status == 1:
            plan.set(car, fence)
        plan.touch(car)
    await plan.queue(ctx)


async def detach_vehicles(ctx: Ctx, fence: Fence, cars: Sequence[Vehicle]) -> None:
    """Vehicles just unbound from a fence: their terminals drop its area once committed."""
    plan = AreaPlan()
    for car in cars:
        if fence.enable_status == 1:
            plan.drop(car, fence.fence_type, int(fence.area_id or 0))
        plan.touch(car)
    await plan.queue(ctx)
