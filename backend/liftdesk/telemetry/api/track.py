"""Track playback: a vehicle's track over up to 7 days, simplified for the view, its stops, the phases of its day
(off, idle, moving, loaded) and the alarms on the way; and the organisation tree of vehicles to pick one from.

Everything is computed from the stored positions and events (``fics_position``, ``fics_event``) of one vehicle read
through the caller's scope (``_one``): a vehicle out of scope is "not found", whatever its id.

* **Simplification** (``simplification``: Ramer-Douglas-Peucker in compiled code, on point indices so that each kept
  point keeps its time, speed and load). A view at zoom ``z`` needs no detail under a pixel:
  ``epsilon = 1 px in degrees at z``; and whatever the zoom, at most ``maxPoints`` (≤ 2,000) points go out: the
  tolerance doubles until they fit. The first and last points, and the first and last point of every stop, are
  always kept (a stop marker sits on the line).
* **Phases** replay the pipeline's own classifier (``stages.state_of``) over the samples with the vehicle's
  thresholds (``VehicleCtx`` limits: tenant parameters, then the vehicle's columns). A sample holds its state until
  the next one, at most ``gap_cap_s`` (fleet-domain §4): a longer silence is a ``none`` phase (no data), not idle.
* **Stops**: a run of samples below the moving speed lasting at least ``stopMinutes`` (default 3), from its first
  sample to the first one that moves again.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta
from itertools import pairwise
from math import cos, radians
from typing import Any, Literal

from pydantic import Field
from simplification.cutil import simplify_coords_idx
from sqlalchemy import func, select

from liftdesk.core import crud
from liftdesk.core.db import utcnow
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.schemas import Id, Schema, Time
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.schemas import CarQuery
from liftdesk.system.models import Dept
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.api.live import FICS, _one
from liftdesk.telemetry.messages import STATUS_FIX, Fix
from liftdesk.telemetry.models import Event, Position
from liftdesk.telemetry.pipeline.stages import haversine_km, state_of
from liftdesk.telemetry.rules import Thresholds, load_threshold_kg, tenant_thresholds

#: The most samples one period is read with (7 days of a report every 5 s is 121 k): beyond, the track says so.
MAX_SAMPLES = 150_000
#: The specification's range cap ("up to 7 days selectable for a range").
MAX_PERIOD = timedelta(days=7)
#: The most points one view is sent (the issue: "never sends more than about 2,000 points for a view").
MAX_POINTS = 2_000
#: The most alarms one detail list holds.
MAX_ALARMS = 2_000

Phase = Literal["off", "idle", "moving", "loaded", "none"]


class PeriodQuery(CarQuery):
    begin_time: Time | None = Field(default=None, description="default: a day before endTime")
    end_time: Time | None = Field(default=None, description="default: now")


class TrackQuery(PeriodQuery):
    zoom: float | None = Field(
        default=None, ge=0, le=24, description="the map's zoom: no detail finer than a pixel at it (none: just the cap)"
    )
    max_points: int = Field(default=MAX_POINTS, ge=2, le=MAX_POINTS, description="the most points sent")
    stop_minutes: int = Field(default=3, ge=1, le=240, description="a standstill this long is a stop")


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


class Stop(Schema):
    begin_time: Time
    end_time: Time
    duration_s: int
    lat: float
    lon: float


class Track(Schema):
    car_id: Id
    car_no: str
    begin_time: Time
    end_time: Time
    count: int = Field(description="the points sent")
    total: int = Field(description="the positions stored in the period (with a fix)")
    simplified: bool = Field(description="points were left out: none of them further than a pixel (or the cap's")
    truncated: bool = Field(description="the period holds more positions than one call reads; the end is missing")
    distance_km: float
    points: list[TrackPoint]
    stops: list[Stop]


class PhaseSpan(Schema):
    state: Phase
    begin_time: Time
    end_time: Time
    duration_s: int


class Phases(Schema):
    car_id: Id
    begin_time: Time
    end_time: Time
    spans: list[PhaseSpan]
    totals: dict[str, int] = Field(description="seconds in each phase over the period")


class AlarmCount(Schema):
    kind: str
    count: int


class AlarmQuery(PeriodQuery):
    kind: str | None = Field(default=None, max_length=32, description="only alarms of this kind")


class AlarmItem(Schema):
    id: Id
    kind: str
    level: int
    begin_time: Time
    end_time: Time | None = None
    value: float | None = None
    max_value: float | None = None
    limit_value: float | None = None
    lat: float | None = None
    lon: float | None = None
    driver_name: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


def period(query: PeriodQuery) -> tuple[datetime, datetime]:
    """The period asked for: a start before its end, at most 7 days (400s naming the fields otherwise)."""
    end = query.end_time or utcnow().replace(microsecond=0)
    begin = query.begin_time or end - timedelta(days=1)
    if begin >= end:
        raise ServiceError(t("field_range", field="beginTime"))
    if end - begin > MAX_PERIOD:
        raise ServiceError(t("period_too_long", field="beginTime/endTime", days=MAX_PERIOD.days))
    return begin, end


async def _limits(c: crud.Ctx, car: Vehicle) -> Thresholds:
    """The vehicle's thresholds as the pipeline builds them (``writer._build``)."""
    limits = (await tenant_thresholds(c.session, [car.tenant_id]))[car.tenant_id]
    own: dict[str, Any] = {
        "speed_limit_kmh": car.speed_limit_kmh,
        "overload_kg": car.overload_threshold_kg or car.rated_load_kg,
        "collision_g": car.collision_threshold_g,
    }
    limits = replace(limits, **{k: v for k, v in own.items() if v})
    return replace(limits, load_kg=load_threshold_kg(limits, car.rated_load_kg))


async def _samples(c: crud.Ctx, car: Vehicle, begin: datetime, end: datetime, fixed: bool) -> list[Any]:
    cols = (
        Position.device_time,
        Position.lat,
        Position.lon,
        Position.speed,
        Position.direction,
        Position.altitude,
        Position.status,
        Position.mileage_km,
        Position.load_kg,
        Position.alarm,
        Position.extra,
    )
    stmt = select(*cols).where(
        Position.tenant_id == car.tenant_id,
        Position.vehicle_id == car.id,
        Position.device_time >= begin,
        Position.device_time <= end,
    )
    if fixed:  # without a GNSS fix (status bit 1 clear) the coordinates are garbage (often 0, 0)
        stmt = stmt.where(Position.status.bitwise_and(STATUS_FIX) != 0)
    rows = await c.session.execute(stmt.order_by(Position.device_time).limit(MAX_SAMPLES + 1))
    return list(rows.all())


def _state(row: Any, limits: Thresholds) -> str:
    fix = Fix(time=row.device_time, lat=row.lat, lon=row.lon, speed_kmh=row.speed, status=row.status)
    if row.load_kg is not None:
        fix = replace(fix, load_kg=row.load_kg)
    return state_of(fix, limits)


def stops_of(rows: list[Any], limits: Thresholds, minimum: timedelta) -> list[tuple[int, int, datetime]]:
    """(first index, last index, end time) of each standstill of at least ``minimum``: from its first sample below
    the moving speed to the first sample that moves again (or the last sample)."""
    out: list[tuple[int, int, datetime]] = []
    start: int | None = None
    for i, row in enumerate(rows):
        moving = row.speed >= limits.move_kmh and bool(row.status & 1)
        if not moving and start is None:
            start = i
        elif moving and start is not None:
            if row.device_time - rows[start].device_time >= minimum:
                out.append((start, i - 1, row.device_time))
            start = None
    if start is not None and rows[-1].device_time - rows[start].device_time >= minimum:
        out.append((start, len(rows) - 1, rows[-1].device_time))
    return out


def _epsilon(zoom: float | None, lat: float) -> float:
    """One pixel (of a 512 px world tile) in degrees at ``zoom`` (longitude degrees shrink with the latitude)."""
    if zoom is None:
        return 0.0
    return 360.0 / (512 * 2**zoom) * max(0.2, cos(radians(lat)))


def simplify(rows: list[Any], zoom: float | None, cap: int, keep: set[int]) -> list[int]:
    """Indices of the points to send: no detail under a pixel at ``zoom``, at most ``cap`` of them."""
    if len(rows) <= 2:
        return list(range(len(rows)))
    coords = [[row.lon, row.lat] for row in rows]
    eps = _epsilon(zoom, rows[0].lat)
    idx = [int(i) for i in simplify_coords_idx(coords, eps)] if eps > 0 else list(range(len(rows)))
    step = eps or 1e-7

    def fits(ids: list[int]) -> bool:
        return len(ids) + len(keep) <= cap

    if not fits(idx):
        # The smallest tolerance step * 2^k (k >= 1) that fits: in strides of 4, then one halving back (the points
        # kept only fall as the tolerance grows), so a week of 60,000 points takes half the passes of doubling.
        while not fits(idx):
            step *= 4
            idx = [int(i) for i in simplify_coords_idx(coords, step)]
        finer = [int(i) for i in simplify_coords_idx(coords, step / 2)]
        if fits(finer):
            idx = finer
    return sorted(set(idx) | keep) if len(set(idx) | keep) <= cap else sorted(idx)


def _km(rows: list[Any]) -> float:
    """The distance over the period: by the odometer where the terminal reports one, else summed between fixes
    (a jump over 5 km between two reports is a bad fix, as in the pipeline)."""
    miles = [r.mileage_km for r in rows if r.mileage_km is not None]
    if len(miles) >= 2 and miles[-1] >= miles[0]:
        return round(float(miles[-1] - miles[0]), 3)
    total = 0.0
    for a, b in pairwise(rows):
        d = haversine_km(a.lat, a.lon, b.lat, b.lon)
        if d < 5.0:
            total += d
    return round(total, 3)


@telemetry_res.TRACK.action(
    "GET",
    f"{FICS}/positionTrailing/positionTrailing",
    summary="Track of one vehicle between beginTime and endTime (yyyy-MM-dd HH:mm:ss, at most 7 days apart; "
    "default: the day before endTime, which defaults to now), oldest first, simplified for the map's zoom and never "
    "more than maxPoints (≤ 2,000) points; with its stops",
    kind="sub",
    query=TrackQuery,
    answer=Track,
    tag="positionTrailing",
)
async def track(ctx: crud.Ctx, query: TrackQuery) -> Track:
    car, _ = await _one(ctx, query.car_id)
    begin, end = period(query)
    rows = await _samples(ctx, car, begin, end, fixed=True)
    truncated = len(rows) > MAX_SAMPLES
    rows = rows[:MAX_SAMPLES]
    limits = await _limits(ctx, car)
    stops = stops_of(rows, limits, timedelta(minutes=query.stop_minutes))
    keep = {0, len(rows) - 1} | {i for s in stops for i in (s[0], s[1])} if rows else set()
    chosen = simplify(rows, query.zoom, query.max_points, keep)
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
        for p in (rows[i] for i in chosen)
    ]
    return Track(
        car_id=car.id,
        car_no=car.car_no,
        begin_time=begin,
        end_time=end,
        count=len(points),
        total=len(rows),
        simplified=len(points) < len(rows),
        truncated=truncated,
        distance_km=_km(rows),
        points=points,
        stops=[
            Stop(
                begin_time=rows[a].device_time,
                end_time=until,
                duration_s=int((until - rows[a].device_time).total_seconds()),
                lat=rows[a].lat,
                lon=rows[a].lon,
            )
            for a, _, until in stops
        ],
    )


@telemetry_res.TRACK.action(
    "GET",
    f"{FICS}/positionTrailing/phaseData",
    summary="The phases of one vehicle over a period (off, idle, moving, loaded; none: no data), from its samples "
    "with the pipeline's classifier and the vehicle's thresholds, and the seconds in each",
    kind="sub",
    query=PeriodQuery,
    answer=Phases,
    tag="positionTrailing",
)
async def phases(ctx: crud.Ctx, query: PeriodQuery) -> Phases:
    car, _ = await _one(ctx, query.car_id)
    begin, end = period(query)
    rows = (await _samples(ctx, car, begin, end, fixed=False))[:MAX_SAMPLES]
    limits = await _limits(ctx, car)
    cap = timedelta(seconds=limits.gap_cap_s)
    spans: list[PhaseSpan] = []

    def add(state: Phase, a: datetime, b: datetime) -> None:
        if b <= a:
            return
        if spans and spans[-1].state == state and spans[-1].end_time == a:
            last = spans[-1]
            last.end_time = b
            last.duration_s = int((b - last.begin_time).total_seconds())
        else:
            spans.append(PhaseSpan(state=state, begin_time=a, end_time=b, duration_s=int((b - a).total_seconds())))

    cursor = begin
    for i, row in enumerate(rows):
        add("none", cursor, row.device_time)
        nxt = rows[i + 1].device_time if i + 1 < len(rows) else end
        held = min(nxt, row.device_time + cap, end)
        state = _state(row, limits)
        add(state, row.device_time, held)  # type: ignore[arg-type]
        cursor = held
    add("none", cursor, end)
    totals: dict[str, int] = dict.fromkeys(("off", "idle", "moving", "loaded", "none"), 0)
    for s in spans:
        totals[s.state] += s.duration_s
    return Phases(car_id=car.id, begin_time=begin, end_time=end, spans=spans, totals=totals)


def _events(car: Vehicle, begin: datetime, end: datetime) -> Any:
    return select(Event).where(
        Event.tenant_id == car.tenant_id,
        Event.vehicle_id == car.id,
        Event.begin_time >= begin,
        Event.begin_time <= end,
    )


@telemetry_res.TRACK.action(
    "GET",
    f"{FICS}/positionTrailing/alarmStatics",
    summary="How many alarms of each kind one vehicle raised over a period",
    kind="aggregate",
    query=PeriodQuery,
    answer=list[AlarmCount],
    tag="positionTrailing",
)
async def alarm_counts(ctx: crud.Ctx, query: PeriodQuery) -> list[AlarmCount]:
    car, _ = await _one(ctx, query.car_id)
    begin, end = period(query)
    sub = _events(car, begin, end).subquery()
    rows = await ctx.session.execute(
        select(sub.c.kind, func.count()).group_by(sub.c.kind).order_by(func.count().desc(), sub.c.kind)
    )
    return [AlarmCount(kind=kind, count=n) for kind, n in rows.all()]


@telemetry_res.TRACK.action(
    "GET",
    f"{FICS}/positionTrailing/alarmDetail",
    summary="The alarms of one vehicle over a period (kind: of one kind), oldest first, where they were raised",
    kind="sub",
    query=AlarmQuery,
    answer=list[AlarmItem],
    tag="positionTrailing",
)
async def alarm_detail(ctx: crud.Ctx, query: AlarmQuery) -> list[AlarmItem]:
    car, _ = await _one(ctx, query.car_id)
    begin, end = period(query)
    stmt = _events(car, begin, end)
    if query.kind:
        stmt = stmt.where(Event.kind == query.kind)
    rows = (await ctx.session.execute(stmt.order_by(Event.begin_time, Event.id).limit(MAX_ALARMS))).scalars()
    return [
        AlarmItem(
            id=e.id,
            kind=e.kind,
            level=e.level,
            begin_time=e.begin_time,
            end_time=e.end_time,
            value=e.value,
            max_value=e.max_value,
            limit_value=e.limit_value,
            lat=e.lat,
            lon=e.lon,
            driver_name=e.driver_name,
            detail=json.loads(e.detail) if e.detail else {},
        )
        for e in rows
    ]


class CarTreeNode(Schema):
    id: str = Field(description="dept-<id> or car-<id>")
    title: str
    type: Literal["dept", "car"]
    car_id: Id | None = None
    children: list[CarTreeNode] = Field(default_factory=list)


class TreeQuery(Schema):
    car_no: str | None = Field(default=None, max_length=64, description="only vehicles whose number holds this")


@telemetry_res.TRACK.action(
    "GET",
    f"{FICS}/positionTrailing/mechanismCarTree",
    summary="The caller's organisations with their vehicles under them (only branches that hold a vehicle)",
    kind="read",
    query=TreeQuery,
    answer=list[CarTreeNode],
    tag="positionTrailing",
)
async def car_tree(ctx: crud.Ctx, query: TreeQuery) -> list[CarTreeNode]:
    cars_q = ctx.scope.select(Vehicle).order_by(Vehicle.car_no, Vehicle.id)
    if query.car_no:
        cars_q = cars_q.where(Vehicle.car_no.contains(query.car_no.strip(), autoescape=True))
    cars = list((await ctx.session.execute(cars_q)).scalars().all())
    depts = list((await ctx.session.execute(ctx.scope.select(Dept).order_by(Dept.sort, Dept.id))).scalars().all())
    nodes = {d.id: CarTreeNode(id=f"dept-{d.id}", title=d.dept_name, type="dept") for d in depts}
    parent = {d.id: d.parent_id for d in depts}
    loose: list[CarTreeNode] = []
    for car in cars:
        leaf = CarTreeNode(id=f"car-{car.id}", title=car.car_no, type="car", car_id=car.id)
        (nodes[car.mechanism_id].children if car.mechanism_id in nodes else loose).append(leaf)

    def holds_car(n: CarTreeNode) -> bool:
        n.children = [c for c in n.children if c.type == "car" or holds_car(c)]
        return bool(n.children)

    roots: list[CarTreeNode] = []
    for d in depts:
        target = nodes[parent[d.id]].children if parent[d.id] in nodes else roots
        target.append(nodes[d.id])
    roots = [r for r in roots if holds_car(r)]
    return roots + loose
