"""Where vehicles are and were, beyond the track playback (``track.py``): the positions of many vehicles at a moment
(``carPosition``), one vehicle's monitoring card (``getCarMonitorInfo``), the stored positions of a terminal as a
table (``getCarGPSListByCode``, and ``...New`` paged by a cursor), the tracks of several vehicles side by side
(``getCarPositionTracking``) and the summary of one vehicle's trip (``getCarPositionTrackingInfo``, a form).

Everything reads the vehicles through the caller's scope first (tenant, data rule, organisation branch) and then the
positions of those vehicles only (``fics_position``, keyed by tenant, vehicle and device time). A period follows the
track's rules (``track.period``: start before end, at most 7 days, 400s naming the fields). The specification names
these calls without their answers; the meanings chosen are said on each.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from pydantic import Field
from sqlalchemy import and_, func, select

from liftdesk.core import crud
from liftdesk.core.envelope import NotFound
from liftdesk.core.i18n import t
from liftdesk.core.paging import Page, PageQuery, page_body
from liftdesk.core.report import hours, limits, today
from liftdesk.core.schemas import Id, Schema, Time
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.service import organisation_names
from liftdesk.system.service import dict_labels
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.api.live import FICS, _one, _vehicles
from liftdesk.telemetry.api.track import (
    MAX_POINTS,
    MAX_SAMPLES,
    PeriodQuery,
    _km,
    _limits,
    _samples,
    period,
    simplify,
    stops_of,
)
from liftdesk.telemetry.messages import STATUS_FIX
from liftdesk.telemetry.models import DailyStat, Event, Position, Terminal
from liftdesk.telemetry.view import LiveVehicle, live_state

#: The most vehicles whose tracks one call draws side by side.
MAX_TRACKS = 20


# ------------------------------------------------------------------------------------------------- carPosition


class PositionQuery(Schema):
    car_id: Id | None = Field(default=None, description="one vehicle (none: every vehicle of the filters)")
    mechanism_id: Id | None = Field(default=None, description="the vehicles of an organisation and those under it")
    time: Time | None = Field(default=None, description="the moment (yyyy-MM-dd HH:mm:ss); none: now (the latest)")
    within_minutes: int = Field(
        default=30, ge=1, le=1440, description="with time: a vehicle's last fix at most this long before it counts"
    )


class VehiclePosition(Schema):
    car_id: Id
    car_no: str
    mechanism_id: Id | None = None
    device_number: str | None = None
    lat: float
    lon: float
    speed: float = 0.0
    direction: int = 0
    gps_time: Time


@telemetry_res.LIVE.action(
    "GET",
    f"{FICS}/positionTrailing/carPosition",
    summary="Where the vehicles were at a moment: for one vehicle (carId) or those of an organisation branch "
    "(mechanismId; none: every vehicle of the caller), each vehicle's last valid fix at or before time and at most "
    "withinMinutes before it; without time, each vehicle's latest known position. A vehicle without such a fix is "
    "left out",
    kind="read",
    query=PositionQuery,
    answer=list[VehiclePosition],
    tag="positionTrailing",
)
async def car_position(ctx: crud.Ctx, query: PositionQuery) -> list[VehiclePosition]:
    cars = ctx.scope.select(Vehicle).where(*ctx.scope.in_branch(Vehicle.mechanism_id, query.mechanism_id))
    if query.car_id is not None:
        cars = cars.where(Vehicle.id == query.car_id)
    if query.time is None:
        out = []
        for car, st in await _vehicles(ctx, cars):
            if st is not None and st.lat is not None and st.lon is not None and st.device_time is not None:
                live = live_state(car, st)
                out.append(_position(car, live.lat, live.lon, live.speed, live.direction, live.gps_time))
        return out
    ids = cars.with_only_columns(Vehicle.id)
    tenant = ctx.scope.tenant_id
    window = [
        Position.tenant_id == tenant,
        Position.vehicle_id.in_(ids),
        Position.device_time <= query.time,
        Position.device_time >= query.time - timedelta(minutes=query.within_minutes),
        Position.status.bitwise_and(STATUS_FIX) != 0,
    ]
    last = (
        select(Position.vehicle_id.label("vehicle_id"), func.max(Position.device_time).label("at"))
        .where(*window)
        .group_by(Position.vehicle_id)
        .subquery()
    )
    stmt = (
        select(Vehicle, Position.lat, Position.lon, Position.speed, Position.direction, Position.device_time)
        .join(last, last.c.vehicle_id == Vehicle.id)
        .join(
            Position,
            and_(
                Position.tenant_id == tenant,
                Position.vehicle_id == last.c.vehicle_id,
                Position.device_time == last.c.at,
            ),
        )
        .where(*ctx.scope.where(Vehicle))
        .order_by(Vehicle.car_no, Vehicle.id)
    )
    return [_position(*row) for row in (await ctx.session.execute(stmt)).all()]


def _position(car: Vehicle, lat: Any, lon: Any, speed: Any, direction: Any, when: Any) -> VehiclePosition:
    return VehiclePosition(
        car_id=car.id,
        car_no=car.car_no,
        mechanism_id=car.mechanism_id,
        device_number=car.device_number,
        lat=lat,
        lon=lon,
        speed=speed or 0.0,
        direction=direction or 0,
        gps_time=when,
    )


# ------------------------------------------------------------------------------------------- getCarMonitorInfo


class MonitorQuery(Schema):
    car_id: Id


class MonitorInfo(LiveVehicle):
    """A vehicle's card on the live monitor: its live state, its names, its terminal and what it did today."""

    mechanism_name: str = ""
    car_type_name: str = ""
    car_status_name: str = ""
    frame_number: str | None = None
    model_number: str | None = None
    rated_load_kg: float | None = None
    speed_limit_kmh: float | None = None
    protocol: str | None = Field(default=None, description="the terminal's protocol (jt808, mqtt, http)")
    firmware_version: str | None = None
    today_boot_hours: float = Field(default=0.0, description="hours with ACC on today (the tenant's local day)")
    today_work_hours: float = Field(default=0.0, description="hours working today")
    today_distance_km: float = 0.0
    today_alarms: int = Field(default=0, description="alarms raised today")
    latest_alarm_kind: str | None = Field(default=None, description="the kind of its most recent alarm")
    latest_alarm_time: Time | None = None


@telemetry_res.LIVE.action(
    "GET",
    f"{FICS}/carInfo/getCarMonitorInfo",
    summary="One vehicle's card on the live monitor: its live state, organisation, type and status names, terminal, "
    "today's use (boot and work hours, distance, alarms) and its most recent alarm",
    kind="read",
    query=MonitorQuery,
    answer=MonitorInfo,
)
async def monitor_info(ctx: crud.Ctx, query: MonitorQuery) -> MonitorInfo:
    car, st = await _one(ctx, query.car_id)
    names = await organisation_names(ctx, {car.mechanism_id} if car.mechanism_id else set())
    types = await dict_labels(ctx.session, "car_type")
    statuses = await dict_labels(ctx.session, "car_status")
    term = None
    if car.device_number:
        found = await ctx.session.execute(ctx.scope.select(Terminal).where(Terminal.device_number == car.device_number))
        term = found.scalars().first()
    day = (
        await ctx.session.execute(
            ctx.scope.select(DailyStat).where(DailyStat.vehicle_id == car.id, DailyStat.day == today())
        )
    ).scalar_one_or_none()
    latest = (
        await ctx.session.execute(
            select(Event.kind, Event.begin_time)
            .where(Event.tenant_id == car.tenant_id, Event.vehicle_id == car.id)
            .order_by(Event.begin_time.desc())
            .limit(1)
        )
    ).first()
    counts = ("collision_n", "speeding_n", "overload_n", "fence_n", "battery_n", "fault_n", "other_n")
    return MonitorInfo(
        **live_state(car, st).model_dump(),
        mechanism_name=names.get(car.mechanism_id, "") if car.mechanism_id else "",
        car_type_name=types.get(str(car.car_type), ""),
        car_status_name=statuses.get(str(car.car_status), ""),
        frame_number=car.frame_number,
        model_number=car.model_number,
        rated_load_kg=car.rated_load_kg,
        speed_limit_kmh=car.speed_limit_kmh,
        protocol=term.protocol if term else None,
        firmware_version=term.firmware_version if term else None,
        today_boot_hours=hours(day.boot_s) if day else 0.0,
        today_work_hours=hours(day.work_s) if day else 0.0,
        today_distance_km=round(day.distance_km, 3) if day else 0.0,
        today_alarms=sum(getattr(day, c) for c in counts) if day else 0,
        latest_alarm_kind=latest[0] if latest else None,
        latest_alarm_time=latest[1] if latest else None,
    )


# ------------------------------------------------------------------------------------ getCarGPSListByCode(New)


class GpsRow(Schema):
    """One stored position as the terminal reported it."""

    gps_time: Time
    lat: float
    lon: float
    speed: float
    direction: int
    altitude: int
    acc: bool
    located: bool = Field(description="the terminal had a satellite fix (else lat/lon are not a position)")
    mileage: float | None = None
    load_kg: float | None = None
    alarm: int = 0
    status: int = 0


class ByCodeIn(Schema):
    device_number: str = Field(min_length=1, max_length=20, description="the terminal's device number (code)")
    begin_time: Time | None = Field(default=None, description="default: a day before endTime")
    end_time: Time | None = Field(default=None, description="default: now")


class ByCodePaged(ByCodeIn):
    current: int = Field(default=1, ge=1, le=10_000_000, description="page number, from 1")
    size: int = Field(default=100, ge=1, le=1000, description="rows per page")


class ByCodeCursor(ByCodeIn):
    after: Time | None = Field(default=None, description="the nextTime of the previous answer (none: from the start)")
    size: int = Field(default=500, ge=1, le=1000, description="rows of this answer")


class GpsSlice(Schema):
    car_id: Id
    car_no: str
    records: list[GpsRow]
    next_time: Time | None = Field(default=None, description="ask again with after=nextTime for more; none: the end")


async def _car_of_device(ctx: crud.Ctx, device: str) -> Vehicle:
    stmt = ctx.scope.select(Vehicle).where(Vehicle.device_number == device.strip())
    car = (await ctx.session.execute(stmt.order_by(Vehicle.id).limit(1))).scalar_one_or_none()
    if car is None:
        raise NotFound(t("not_found"))
    return car


def _positions(car: Vehicle, begin: datetime, end: datetime) -> Any:
    return select(Position).where(
        Position.tenant_id == car.tenant_id,
        Position.vehicle_id == car.id,
        Position.device_time >= begin,
        Position.device_time <= end,
    )


def _gps(p: Position) -> GpsRow:
    return GpsRow(
        gps_time=p.device_time,
        lat=p.lat,
        lon=p.lon,
        speed=p.speed,
        direction=p.direction,
        altitude=p.altitude,
        acc=bool(p.status & 1),
        located=bool(p.status & STATUS_FIX),
        mileage=p.mileage_km,
        load_kg=p.load_kg,
        alarm=p.alarm,
        status=p.status,
    )


def _period_of(body: ByCodeIn) -> tuple[datetime, datetime]:
    return period(PeriodQuery(car_id=0, begin_time=body.begin_time, end_time=body.end_time))


@telemetry_res.TRACK.action(
    "POST",
    f"{FICS}/carInfo/getCarGPSListByCode",
    summary="Every stored position of the vehicle of a terminal (deviceNumber) between beginTime and endTime (at most "
    "7 days), oldest first, unsimplified, paged (current, size ≤ 1,000): the data table of a track",
    kind="sub",
    body=ByCodePaged,
    answer=Page[GpsRow],
)
async def gps_list(ctx: crud.Ctx, body: ByCodePaged) -> dict[str, Any]:
    car = await _car_of_device(ctx, body.device_number)
    begin, end = _period_of(body)
    stmt = _positions(car, begin, end)
    total = int(
        (await ctx.session.execute(select(func.count()).select_from(stmt.order_by(None).subquery()))).scalar_one()
    )
    q = PageQuery(body.current, body.size)
    size, offset = limits(q)
    rows = (await ctx.session.execute(stmt.order_by(Position.device_time).limit(size).offset(offset))).scalars()
    return page_body([_gps(p) for p in rows], total, -(-total // size) if total else 0, q)


@telemetry_res.TRACK.action(
    "POST",
    f"{FICS}/carInfo/getCarGPSListByCodeNew",
    summary="The stored positions of the vehicle of a terminal (deviceNumber) between beginTime and endTime (at most "
    "7 days), oldest first, read by a cursor instead of pages: each answer holds up to size positions after the time "
    "after and the nextTime to ask from (none at the end), so a week is read without counting or skipping rows",
    kind="sub",
    body=ByCodeCursor,
    answer=GpsSlice,
)
async def gps_list_by_cursor(ctx: crud.Ctx, body: ByCodeCursor) -> GpsSlice:
    car = await _car_of_device(ctx, body.device_number)
    begin, end = _period_of(body)
    stmt = _positions(car, begin, end)
    if body.after is not None:
        stmt = stmt.where(Position.device_time > body.after)
    rows = list((await ctx.session.execute(stmt.order_by(Position.device_time).limit(body.size + 1))).scalars().all())
    more = len(rows) > body.size
    rows = rows[: body.size]
    return GpsSlice(
        car_id=car.id,
        car_no=car.car_no,
        records=[_gps(p) for p in rows],
        next_time=rows[-1].device_time if more and rows else None,
    )


# ------------------------------------------------------------------------------------------ getCarPositionTracking


class TracksIn(Schema):
    car_ids: list[Id] = Field(min_length=1, max_length=MAX_TRACKS, description=f"the vehicles (1 to {MAX_TRACKS})")
    begin_time: Time | None = Field(default=None, description="default: a day before endTime")
    end_time: Time | None = Field(default=None, description="default: now")
    zoom: float | None = Field(default=None, ge=0, le=24, description="the map's zoom: no detail finer than a pixel")
    max_points: int = Field(default=MAX_POINTS, ge=2, le=MAX_POINTS, description="the most points of all tracks")


class TrackPointBrief(Schema):
    gps_time: Time
    lat: float
    lon: float
    speed: float


class VehicleTrack(Schema):
    car_id: Id
    car_no: str
    total: int = Field(description="the located positions stored in the period")
    count: int = Field(description="the points sent")
    distance_km: float
    points: list[TrackPointBrief]


@telemetry_res.TRACK.action(
    "POST",
    f"{FICS}/carInfo/getCarPositionTracking",
    summary=f"The tracks of several vehicles (carIds, 1 to {MAX_TRACKS}) over one period (at most 7 days), side by "
    "side: each simplified like positionTrailing's for the map's zoom, all together never more than maxPoints "
    "(≤ 2,000: each vehicle its share); a vehicle the caller does not see is not found",
    kind="read",
    body=TracksIn,
    answer=list[VehicleTrack],
)
async def tracks(ctx: crud.Ctx, body: TracksIn) -> list[VehicleTrack]:
    wanted = list(dict.fromkeys(body.car_ids))
    found = (await ctx.session.execute(ctx.scope.select(Vehicle).where(Vehicle.id.in_(wanted)))).scalars().all()
    cars = {c.id: c for c in found}
    if len(cars) != len(wanted):
        raise NotFound(t("not_found"))
    begin, end = period(PeriodQuery(car_id=wanted[0], begin_time=body.begin_time, end_time=body.end_time))
    stmt = (
        select(Position.vehicle_id, Position.device_time, Position.lat, Position.lon, Position.speed)
        .where(
            Position.tenant_id == ctx.scope.tenant_id,
            Position.vehicle_id.in_(wanted),
            Position.device_time >= begin,
            Position.device_time <= end,
            Position.status.bitwise_and(STATUS_FIX) != 0,
        )
        .order_by(Position.vehicle_id, Position.device_time)
        .limit(MAX_SAMPLES + 1)
    )
    by_car: dict[int, list[Any]] = {ident: [] for ident in wanted}
    for row in (await ctx.session.execute(stmt)).all():
        by_car[row.vehicle_id].append(row)
    share = max(2, body.max_points // len(wanted))
    out = []
    for ident in wanted:
        rows = by_car[ident]
        keep = {0, len(rows) - 1} if rows else set()
        chosen = simplify(rows, body.zoom, share, keep)
        out.append(
            VehicleTrack(
                car_id=ident,
                car_no=cars[ident].car_no,
                total=len(rows),
                count=len(chosen),
                distance_km=_km([_Sample(r) for r in rows]),
                points=[
                    TrackPointBrief(gps_time=rows[i].device_time, lat=rows[i].lat, lon=rows[i].lon, speed=rows[i].speed)
                    for i in chosen
                ],
            )
        )
    return out


class _Sample:
    """A row of ``tracks`` as ``track._km`` reads one (it has no odometer)."""

    __slots__ = ("lat", "lon", "mileage_km")

    def __init__(self, row: Any) -> None:
        self.lat, self.lon, self.mileage_km = row.lat, row.lon, None


# -------------------------------------------------------------------------------------- getCarPositionTrackingInfo


class TripIn(PeriodQuery):
    stop_minutes: int = Field(default=3, ge=1, le=240, description="a standstill this long is a stop")


class Place(Schema):
    time: Time
    lat: float
    lon: float


class TripSummary(Schema):
    """One vehicle's trip over a period, summed from its located positions."""

    car_id: Id
    car_no: str
    begin_time: Time
    end_time: Time
    positions: int = Field(description="located positions stored in the period")
    first: Place | None = Field(default=None, description="where the period's first position was")
    last: Place | None = Field(default=None, description="where its last position was")
    distance_km: float
    moving_s: int = Field(description="seconds between consecutive positions while moving")
    max_speed: float
    average_speed: float = Field(description="distance / moving time, km/h")
    stops: int = Field(description="standstills of at least stopMinutes")
    stopped_s: int = Field(description="their seconds together")
    alarms: int = Field(description="alarms raised in the period")


@telemetry_res.TRACK.action(
    "POST",
    f"{FICS}/carInfo/getCarPositionTrackingInfo",
    summary="The summary of one vehicle's trip over a period (a form: carId, beginTime, endTime, stopMinutes; at most "
    "7 days): first and last position, distance, moving time, top and average speed, stops and their time, alarms",
    kind="sub",
    body=TripIn,
    answer=TripSummary,
    form=True,
)
async def trip_summary(ctx: crud.Ctx, body: TripIn) -> TripSummary:
    car, _ = await _one(ctx, body.car_id)
    begin, end = period(body)
    rows = (await _samples(ctx, car, begin, end, fixed=True))[:MAX_SAMPLES]
    limits_ = await _limits(ctx, car)
    stops = stops_of(rows, limits_, timedelta(minutes=body.stop_minutes))
    moving = 0.0
    for a, b in pairwise(rows):
        if a.speed >= limits_.move_kmh:
            moving += min((b.device_time - a.device_time).total_seconds(), limits_.gap_cap_s)
    distance = _km(rows)
    alarms = (
        await ctx.session.execute(
            select(func.count()).where(
                Event.tenant_id == car.tenant_id,
                Event.vehicle_id == car.id,
                Event.begin_time >= begin,
                Event.begin_time <= end,
            )
        )
    ).scalar_one()
    return TripSummary(
        car_id=car.id,
        car_no=car.car_no,
        begin_time=begin,
        end_time=end,
        positions=len(rows),
        first=Place(time=rows[0].device_time, lat=rows[0].lat, lon=rows[0].lon) if rows else None,
        last=Place(time=rows[-1].device_time, lat=rows[-1].lat, lon=rows[-1].lon) if rows else None,
        distance_km=distance,
        moving_s=int(moving),
        max_speed=max((r.speed for r in rows), default=0.0),
        average_speed=round(distance / (moving / 3600.0), 2) if moving else 0.0,
        stops=len(stops),
        stopped_s=int(sum((until - rows[a].device_time).total_seconds() for a, _, until in stops)),
        alarms=int(alarms),
    )
