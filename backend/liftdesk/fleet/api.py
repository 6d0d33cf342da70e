"""Live state and tracks of vehicles, read through the same scope as every other query."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import Field
from sqlalchemy import Select, select

from liftdesk.core import crud
from liftdesk.core.db import utcnow
from liftdesk.core.deps import CurrentUser, SessionDep
from liftdesk.core.envelope import R, ServiceError, ok
from liftdesk.core.http import json_body
from liftdesk.core.i18n import t
from liftdesk.core.schemas import Id, Schema, Time, _to_time
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import Vehicle
from liftdesk.system.models import Dept
from liftdesk.telemetry.messages import STATUS_FIX
from liftdesk.telemetry.models import Position, VehicleState
from liftdesk.telemetry.view import alarm_kinds

router = APIRouter(tags=["carInfo"])
FICS = "/api/blade-fics-report/fics"
MAX_TRACK = 50_000
#: The longest track one call returns: the specification's range cap ("up to 7 days selectable for a range").
MAX_TRACK_PERIOD = timedelta(days=7)


class LiveState(Schema):
    car_id: Id
    car_no: str
    device_number: str | None = None
    mechanism_id: Id | None = None
    car_type: int
    online: bool = False
    acc: bool = False
    state: str = "off"
    lat: float | None = None
    lon: float | None = None
    speed: float = 0.0
    direction: int = 0
    gps_time: Time | None = None
    last_seen: Time | None = None
    mileage: float | None = None
    load_kg: float | None = None
    soc: float | None = None
    lock_level: int | None = None
    alarms: list[str] = Field(default_factory=list)
    driver_name: str | None = None
    #: The latest frame of each CAN id the terminal passed on: id (hex) → {data (hex), channel, time}.
    can: dict[str, dict[str, Any]] = Field(default_factory=dict)


def _live(car: Vehicle, st: VehicleState | None) -> LiveState:
    if st is None:
        return LiveState(
            car_id=car.id,
            car_no=car.car_no,
            device_number=car.device_number,
            mechanism_id=car.mechanism_id,
            car_type=car.car_type,
        )
    return LiveState(
        car_id=car.id,
        car_no=car.car_no,
        device_number=car.device_number,
        mechanism_id=car.mechanism_id,
        car_type=car.car_type,
        online=st.online,
        acc=st.acc,
        state=st.state,
        lat=st.lat,
        lon=st.lon,
        speed=st.speed,
        direction=st.direction,
        gps_time=st.device_time,
        last_seen=st.last_seen,
        mileage=st.mileage_km,
        load_kg=st.load_kg,
        soc=st.soc_pct,
        lock_level=st.lock_level,
        alarms=alarm_kinds(json.loads(st.open_events or "{}")),
        driver_name=st.driver_name,
        can=json.loads(st.extra or "{}").get("can", {}),
    )


async def _vehicles(c: crud.Ctx, stmt: Select[Any] | None = None) -> list[tuple[Vehicle, VehicleState | None]]:
    q = (
        (stmt if stmt is not None else c.scope.select(Vehicle))
        .outerjoin(VehicleState, VehicleState.vehicle_id == Vehicle.id)
        .add_columns(VehicleState)
        .order_by(Vehicle.car_no, Vehicle.id)
    )
    return [(row[0], row[1]) for row in (await c.session.execute(q)).all()]


async def _params(request: Request) -> dict[str, Any]:
    """The original client sends some of these as JSON and some form-encoded: accept both, and the query."""
    params: dict[str, Any] = dict(request.query_params)
    ctype = request.headers.get("content-type", "")
    if ctype.startswith("application/json"):
        body = await json_body(request)
        if isinstance(body, dict):
            params.update(body)
    elif ctype.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        params.update({k: str(v) for k, v in (await request.form()).items()})
    return params


def in_organisation(c: crud.Ctx, stmt: Select[Any], mechanism_id: Any) -> Select[Any]:
    """Vehicles of the organisation ``mechanism_id`` and of every organisation under it (an organisation filter
    means the branch of the tree, as the data scope "own organisation and its descendants" does)."""
    if mechanism_id in (None, ""):
        return stmt
    org = crud.parse_id(str(mechanism_id), "mechanismId")
    branch = select(Dept.id).where(
        Dept.tenant_id == c.scope.tenant_id,
        Dept.is_deleted == 0,
        (Dept.id == org) | Dept.ancestors.like(f"%,{org}") | Dept.ancestors.like(f"%,{org},%"),
    )
    return stmt.where(Vehicle.mechanism_id.in_(branch))


@router.post(
    f"{FICS}/carInfo/getCarLastGPSInfo",
    summary="Latest position and state of the caller's vehicles",
    response_model=R[list[LiveState]],
)
async def last_gps(request: Request, session: SessionDep, me: CurrentUser) -> R[Any]:
    p = await _params(request)
    c = await crud.Ctx.build(session, me, res.VEHICLE)
    await c.require("view")
    stmt = c.scope.select(Vehicle)
    ids = crud.parse_ids(p.get("carIds"), "carIds", required=False) + crud.parse_ids(
        p.get("carId"), "carId", required=False
    )
    if ids:
        stmt = stmt.where(Vehicle.id.in_(ids))
    if p.get("deviceNumber"):
        stmt = stmt.where(Vehicle.device_number == str(p["deviceNumber"]))
    stmt = in_organisation(c, stmt, p.get("mechanismId"))
    return ok([_live(car, st) for car, st in await _vehicles(c, stmt)])


class StatusCount(Schema):
    total: int
    online: int
    offline: int
    off: int
    idle: int
    moving: int
    loaded: int
    alarm: int


@router.get(
    f"{FICS}/carStatus/getCnt",
    tags=["carStatus"],
    summary="How many vehicles are in each state (mechanismId: of that organisation and those under it)",
    response_model=R[StatusCount],
)
async def status_count(session: SessionDep, me: CurrentUser, mechanismId: str = "") -> R[Any]:
    c = await crud.Ctx.build(session, me, res.VEHICLE)
    await c.require("view")
    rows = await _vehicles(c, in_organisation(c, c.scope.select(Vehicle), mechanismId))
    online = [st for _, st in rows if st is not None and st.online]
    return ok(
        StatusCount(
            total=len(rows),
            online=len(online),
            offline=len(rows) - len(online),
            off=sum(1 for st in online if st.state == "off"),
            idle=sum(1 for st in online if st.state == "idle"),
            moving=sum(1 for st in online if st.state == "moving"),
            loaded=sum(1 for st in online if st.state == "loaded"),
            alarm=sum(1 for _, st in rows if st is not None and json.loads(st.open_events or "{}")),
        )
    )


async def _one(c: crud.Ctx, car_id: str) -> tuple[Vehicle, VehicleState | None]:
    ident = crud.parse_id(car_id, "carId")
    found = await _vehicles(c, c.scope.select(Vehicle).where(Vehicle.id == ident))
    if not found:
        raise ServiceError(t("not_found"))
    return found[0]


@router.get(
    f"{FICS}/positionTrailing/carRealTimeInfo",
    tags=["positionTrailing"],
    summary="Live state of one vehicle",
    response_model=R[LiveState],
)
async def real_time(session: SessionDep, me: CurrentUser, carId: str = "") -> R[Any]:
    c = await crud.Ctx.build(session, me, res.VEHICLE)
    await c.require("view")
    return ok(_live(*(await _one(c, carId))))


class TrackPoint(Schema):
    gps_time: Time
    lat: float
    lon: float
    speed: float
    direction: int
    altitude: int
    acc: bool
    mileage: float | None = None
    load_kg: float | None = None
    alarm: int = 0
    status: int = 0
    extra: dict[str, Any] = Field(default_factory=dict)


class Track(Schema):
    car_id: Id
    car_no: str
    begin_time: Time
    end_time: Time
    count: int
    truncated: bool
    points: list[TrackPoint]


@router.get(
    f"{FICS}/positionTrailing/positionTrailing",
    tags=["positionTrailing"],
    summary="Track of one vehicle between beginTime and endTime (yyyy-MM-dd HH:mm:ss, at most 7 days apart; "
    "default: the day before endTime, which defaults to now), oldest first",
    response_model=R[Track],
)
async def track(
    session: SessionDep,
    me: CurrentUser,
    carId: str = "",
    beginTime: Annotated[str, Query()] = "",
    endTime: Annotated[str, Query()] = "",
) -> R[Any]:
    c = await crud.Ctx.build(session, me, res.VEHICLE)
    await c.require("view")
    car, _ = await _one(c, carId)
    try:
        begin = _to_time(beginTime) if beginTime else None
        end = _to_time(endTime) if endTime else None
    except ValueError as exc:
        raise ServiceError(t("field_invalid", field="beginTime/endTime")) from exc
    end = end or utcnow().replace(microsecond=0)
    begin = begin or end - timedelta(days=1)
    if begin >= end:
        raise ServiceError(t("field_range", field="beginTime"))
    if end - begin > MAX_TRACK_PERIOD:
        raise ServiceError(t("period_too_long", field="beginTime/endTime", days=MAX_TRACK_PERIOD.days))
    stmt = (
        select(Position)
        .where(
            Position.tenant_id == car.tenant_id,
            Position.vehicle_id == car.id,
            Position.device_time >= begin,
            Position.device_time <= end,
            # Without a GNSS fix (status bit 1 clear) the coordinates are garbage (often 0, 0): not a track point.
            Position.status.bitwise_and(STATUS_FIX) != 0,
        )
        .order_by(Position.device_time)
        .limit(MAX_TRACK + 1)
    )
    rows = list((await session.execute(stmt)).scalars().all())
    truncated = len(rows) > MAX_TRACK
    points = [
        TrackPoint(
            gps_time=p.device_time,
            lat=p.lat,
            lon=p.lon,
            speed=p.speed,
            direction=p.direction,
            altitude=p.altitude,
            acc=bool(p.status & 1),
            mileage=p.mileage_km,
            load_kg=p.load_kg,
            alarm=p.alarm,
            status=p.status,
            extra=json.loads(p.extra) if p.extra else {},
        )
        for p in rows[:MAX_TRACK]
    ]
    return ok(
        Track(
            car_id=car.id,
            car_no=car.car_no,
            begin_time=begin,
            end_time=end,
            count=len(points),
            truncated=truncated,
            points=points,
        )
    )
