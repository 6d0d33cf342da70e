"""Per-vehicle statistics and efficiency, summed from the daily aggregates (``fics_car_daily``): the statistics list
of the vehicles (``getCarStatisticsList``), one vehicle's efficiency day by day against its peers
(``getCarEfficiencyInfo``) and the fleet's efficiency by vehicle type with its workload bands
(``getCarEfficiencyReportStatistics``).

Definitions (fleet-domain §4, as in ``reporting.schemas``): boot = ACC on; work = moving ∪ loaded ∪ lifting; idle =
boot − work (per day, never below 0); work efficiency = work / boot; move efficiency = move / boot (both in
percent). **Workload bands** (spec 001 §9): a vehicle's work hours over the range against the mean of its peers
(the caller's vehicles of the same type, the filters applied), r = own / mean: ``overloaded`` r ≥ 2,
``unsaturated`` r ≤ 0.5, ``normal`` between; ``unused`` when it did not boot at all in the range; no band when the
peers did not work (a mean of 0).

Every query reads the vehicles through the caller's scope and the daily rows through it (tenant); the organisation
filter is the branch (``Scope.in_branch``). A page costs the same statements whatever its size.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import ColumnElement, Subquery, case, func, select

from liftdesk.core.crud import Ctx
from liftdesk.core.paging import PageQuery
from liftdesk.core.report import Day, Period, ReportQuery, Rows, hours, percent, windowed
from liftdesk.core.schemas import Id, Schema, dictionary
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.service import organisation_names
from liftdesk.reporting.schemas import EfficiencyQuery
from liftdesk.system.service import dict_labels
from liftdesk.telemetry.models import DailyStat

Band = Literal["overloaded", "normal", "unsaturated", "unused"]
OVERLOADED, UNSATURATED = 2.0, 0.5

#: Idle of one day: boot − work, never below 0 (``DailyStat.idle_s``).
_IDLE = case((DailyStat.boot_s > DailyStat.work_s, DailyStat.boot_s - DailyStat.work_s), else_=0.0)
_SECONDS = {
    "boot_s": DailyStat.boot_s,
    "work_s": DailyStat.work_s,
    "move_s": DailyStat.move_s,
    "load_s": DailyStat.load_s,
    "lift_s": DailyStat.lift_s,
    "move_load_s": DailyStat.move_load_s,
    "idle_s": _IDLE,
    "distance_km": DailyStat.distance_km,
}
ALARMS = {
    "collisions": "collision_n",
    "speedings": "speeding_n",
    "overloads": "overload_n",
    "fence_alarms": "fence_n",
    "battery_alarms": "battery_n",
    "faults": "fault_n",
    "other_alarms": "other_n",
}


def band(own: float, mean: float, booted: bool) -> Band | None:
    if not booted:
        return "unused"
    if mean <= 0:
        return None
    ratio = own / mean
    return "overloaded" if ratio >= OVERLOADED else "unsaturated" if ratio <= UNSATURATED else "normal"


def sums(ctx: Ctx, period: Period) -> Subquery:
    """Each vehicle's sums over the days of the period (the caller's tenant), and the days it booted."""
    return ctx.scope.apply(
        select(
            DailyStat.vehicle_id.label("vehicle_id"),
            *(func.sum(col).label(name) for name, col in _SECONDS.items()),
            *(func.sum(getattr(DailyStat, col)).label(name) for name, col in ALARMS.items()),
            func.count(case((DailyStat.boot_s > 0, DailyStat.day))).label("days_used"),
        )
        .where(DailyStat.day.in_(period.days))
        .group_by(DailyStat.vehicle_id),
        DailyStat,
    ).subquery("sums")


def _of(sub: Subquery, name: str) -> Any:
    return func.coalesce(sub.c[name], 0)


# ----------------------------------------------------------------------------------------- getCarStatisticsList


class StatisticsQuery(ReportQuery):
    car_no: str | None = Field(default=None, max_length=64, description="vehicle number contains this")
    car_type: Annotated[int, Field(ge=0, le=8), dictionary("car_type")] | None = None


class StatisticsFigures(Schema):
    """Hours (two decimals), kilometres and alarm counts over the range."""

    days_used: int = Field(default=0, description="days it booted")
    boot_hours: float = 0.0
    work_hours: float = 0.0
    move_hours: float = 0.0
    load_hours: float = 0.0
    lift_hours: float = 0.0
    idle_hours: float = 0.0
    distance_km: float = 0.0
    work_efficiency: float = Field(default=0.0, description="work / boot, percent")
    collisions: int = 0
    speedings: int = 0
    overloads: int = 0
    fence_alarms: int = 0
    battery_alarms: int = 0
    faults: int = 0
    other_alarms: int = 0
    alarms: int = Field(default=0, description="every alarm above together")


class StatisticsRow(StatisticsFigures):
    car_id: Id
    car_no: str
    device_number: str | None = None
    mechanism_id: Id | None = None
    mechanism_name: str = ""
    car_type: int
    car_type_name: str = ""


class StatisticsTotals(StatisticsFigures):
    vehicles: int = 0


def figures(values: dict[str, Any]) -> dict[str, Any]:
    """The fields of :class:`StatisticsFigures` from seconds, kilometres and counts (by their sums' names)."""
    counts = {name: int(values.get(name) or 0) for name in ALARMS}
    boot, work = float(values.get("boot_s") or 0), float(values.get("work_s") or 0)
    return {
        "days_used": int(values.get("days_used") or 0),
        "boot_hours": hours(boot),
        "work_hours": hours(work),
        "move_hours": hours(values.get("move_s")),
        "load_hours": hours(values.get("load_s")),
        "lift_hours": hours(values.get("lift_s")),
        "idle_hours": hours(values.get("idle_s")),
        "distance_km": round(float(values.get("distance_km") or 0), 3),
        "work_efficiency": percent(work, boot),
        **counts,
        "alarms": sum(counts.values()),
    }


def _filters(ctx: Ctx, q: StatisticsQuery | EfficiencyQuery) -> list[ColumnElement[bool]]:
    out = ctx.scope.in_branch(Vehicle.mechanism_id, q.mechanism_id)
    if q.car_no and q.car_no.strip():
        out.append(Vehicle.car_no.contains(q.car_no.strip(), autoescape=True))
    if q.car_type is not None:
        out.append(Vehicle.car_type == q.car_type)
    return out


_NAMES = (*_SECONDS, *ALARMS, "days_used")


async def statistics(ctx: Ctx, q: StatisticsQuery, period: Period, page: PageQuery | None) -> Rows:
    sub = sums(ctx, period)
    where = _filters(ctx, q)
    totals_stmt = ctx.scope.apply(
        select(func.count(Vehicle.id), *(func.sum(_of(sub, n)) for n in _NAMES))
        .select_from(Vehicle)
        .outerjoin(sub, sub.c.vehicle_id == Vehicle.id)
        .where(*where),
        Vehicle,
    )
    total, *summed = (await ctx.session.execute(totals_stmt)).one()
    listed = ctx.scope.apply(
        select(Vehicle.id, Vehicle.car_no, Vehicle.device_number, Vehicle.car_type, Vehicle.mechanism_id)
        .add_columns(*(_of(sub, n).label(n) for n in _NAMES))
        .outerjoin(sub, sub.c.vehicle_id == Vehicle.id)
        .where(*where)
        .order_by(Vehicle.car_no, Vehicle.id),
        Vehicle,
    )
    found = (await ctx.session.execute(windowed(listed, page))).all()
    names = await organisation_names(ctx, {r.mechanism_id for r in found if r.mechanism_id})
    types = await dict_labels(ctx.session, "car_type")
    records = [
        StatisticsRow(
            car_id=r.id,
            car_no=r.car_no,
            device_number=r.device_number,
            mechanism_id=r.mechanism_id,
            mechanism_name=names.get(r.mechanism_id, "") if r.mechanism_id else "",
            car_type=r.car_type,
            car_type_name=types.get(str(r.car_type), ""),
            **figures(r._mapping),
        )
        for r in found
    ]
    totals = StatisticsTotals(vehicles=int(total), **figures(dict(zip(_NAMES, summed, strict=True))))
    return Rows(records=records, total=int(total), totals=totals)


# ----------------------------------------------------------------------------------------- getCarEfficiencyInfo


class EfficiencyDay(Schema):
    day: Day
    boot_hours: float = 0.0
    work_hours: float = 0.0
    move_hours: float = 0.0
    load_hours: float = 0.0
    move_load_hours: float = 0.0
    idle_hours: float = 0.0
    work_efficiency: float = Field(default=0.0, description="work / boot, percent")
    move_efficiency: float = Field(default=0.0, description="move / boot, percent")


class VehicleEfficiency(Schema):
    car_id: Id
    car_no: str
    car_type: int
    car_type_name: str = ""
    days: list[EfficiencyDay] = Field(description="every day of the range (a day without data is zeros)")
    totals: EfficiencyDay = Field(description="the range together (day: its last day)")
    peers: int = Field(description="the caller's vehicles of its type (in mechanismId's branch), itself included")
    peer_work_hours: float = Field(description="their mean work hours over the range")
    workload_ratio: float | None = Field(default=None, description="its work hours / the peers' mean")
    workload_band: Band | None = Field(default=None, description="overloaded ≥ 2, unsaturated ≤ 0.5, unused: no boot")


def efficiency_day(day: Any, values: dict[str, float]) -> EfficiencyDay:
    boot = values.get("boot_s", 0.0)
    return EfficiencyDay(
        day=day,
        boot_hours=hours(boot),
        work_hours=hours(values.get("work_s")),
        move_hours=hours(values.get("move_s")),
        load_hours=hours(values.get("load_s")),
        move_load_hours=hours(values.get("move_load_s")),
        idle_hours=hours(values.get("idle_s")),
        work_efficiency=percent(values.get("work_s"), boot),
        move_efficiency=percent(values.get("move_s"), boot),
    )


async def vehicle_efficiency(ctx: Ctx, car: Vehicle, period: Period, branch: int | None = None) -> VehicleEfficiency:
    """``branch``: the peers are the vehicles of its type in that organisation and those under it (none: every
    vehicle of the caller)."""
    cols = ("boot_s", "work_s", "move_s", "load_s", "move_load_s", "idle_s")
    stmt = ctx.scope.apply(
        select(DailyStat.day, *(_SECONDS[c] for c in cols)).where(
            DailyStat.vehicle_id == car.id, DailyStat.day.in_(period.days)
        ),
        DailyStat,
    )
    by_day = {row[0]: dict(zip(cols, (float(v or 0) for v in row[1:]), strict=True)) for row in await _all(ctx, stmt)}
    total = {c: sum(d[c] for d in by_day.values()) for c in cols}
    worked = _peer_work(ctx, period)
    peers = ctx.scope.apply(
        select(func.count(Vehicle.id), func.coalesce(func.sum(func.coalesce(worked.c.work_s, 0)), 0))
        .select_from(Vehicle)
        .outerjoin(worked, worked.c.vehicle_id == Vehicle.id)
        .where(Vehicle.car_type == car.car_type, *ctx.scope.in_branch(Vehicle.mechanism_id, branch)),
        Vehicle,
    )
    count, work = (await ctx.session.execute(peers)).one()
    mean = float(work) / count if count else 0.0
    own = total["work_s"]
    types = await dict_labels(ctx.session, "car_type")
    return VehicleEfficiency(
        car_id=car.id,
        car_no=car.car_no,
        car_type=car.car_type,
        car_type_name=types.get(str(car.car_type), ""),
        days=[efficiency_day(d, by_day.get(d, {})) for d in period.days],
        totals=efficiency_day(period.end, total),
        peers=int(count),
        peer_work_hours=hours(mean),
        workload_ratio=round(own / mean, 2) if mean > 0 else None,
        workload_band=band(own, mean, total["boot_s"] > 0),
    )


def _peer_work(ctx: Ctx, period: Period) -> Subquery:
    return ctx.scope.apply(
        select(DailyStat.vehicle_id.label("vehicle_id"), func.sum(DailyStat.work_s).label("work_s"))
        .where(DailyStat.day.in_(period.days))
        .group_by(DailyStat.vehicle_id),
        DailyStat,
    ).subquery("peer_work")


async def _all(ctx: Ctx, stmt: Any) -> list[Any]:
    return list((await ctx.session.execute(stmt)).all())


# ------------------------------------------------------------------------------ getCarEfficiencyReportStatistics


class TypeEfficiency(Schema):
    car_type: int
    car_type_name: str = ""
    vehicles: int
    working_vehicles: int = Field(description="vehicles that worked in the range")
    boot_hours: float
    work_hours: float
    average_work_hours: float = Field(description="work hours per vehicle of the type")
    work_efficiency: float = Field(description="work / boot, percent")
    overloaded: int = Field(description="vehicles working at least twice the type's mean")
    normal: int
    unsaturated: int = Field(description="vehicles working at most half the type's mean")
    unused: int = Field(description="vehicles that did not boot in the range")


class FleetEfficiency(Schema):
    start_time: Day
    end_time: Day
    vehicles: int
    working_vehicles: int
    boot_hours: float
    work_hours: float
    move_hours: float
    load_hours: float
    move_load_hours: float
    idle_hours: float
    work_efficiency: float = Field(description="work / boot, percent")
    move_efficiency: float = Field(description="move / boot, percent")
    by_type: list[TypeEfficiency] = Field(description="per vehicle type, most vehicles first")


async def fleet_efficiency(ctx: Ctx, q: EfficiencyQuery, period: Period) -> FleetEfficiency:
    sub = sums(ctx, period)
    names = ("boot_s", "work_s", "move_s", "load_s", "move_load_s", "idle_s")
    stmt = ctx.scope.apply(
        select(Vehicle.car_type, *(_of(sub, n) for n in names))
        .select_from(Vehicle)
        .outerjoin(sub, sub.c.vehicle_id == Vehicle.id)
        .where(*_filters(ctx, q)),
        Vehicle,
    )
    rows = [(int(r[0]), dict(zip(names, (float(v or 0) for v in r[1:]), strict=True))) for r in await _all(ctx, stmt)]
    per_type: dict[int, list[dict[str, float]]] = defaultdict(list)
    for car_type, values in rows:
        per_type[car_type].append(values)
    labels = await dict_labels(ctx.session, "car_type")
    by_type = []
    for car_type, cars in per_type.items():
        work = sum(c["work_s"] for c in cars)
        boot = sum(c["boot_s"] for c in cars)
        mean = work / len(cars)
        bands = [band(c["work_s"], mean, c["boot_s"] > 0) for c in cars]
        by_type.append(
            TypeEfficiency(
                car_type=car_type,
                car_type_name=labels.get(str(car_type), ""),
                vehicles=len(cars),
                working_vehicles=sum(1 for c in cars if c["work_s"] > 0),
                boot_hours=hours(boot),
                work_hours=hours(work),
                average_work_hours=hours(mean),
                work_efficiency=percent(work, boot),
                overloaded=bands.count("overloaded"),
                normal=bands.count("normal"),
                unsaturated=bands.count("unsaturated"),
                unused=bands.count("unused"),
            )
        )
    by_type.sort(key=lambda x: (-x.vehicles, x.car_type))
    total = {n: sum(v[n] for _, v in rows) for n in names}
    return FleetEfficiency(
        start_time=period.start,
        end_time=period.end,
        vehicles=len(rows),
        working_vehicles=sum(1 for _, v in rows if v["work_s"] > 0),
        boot_hours=hours(total["boot_s"]),
        work_hours=hours(total["work_s"]),
        move_hours=hours(total["move_s"]),
        load_hours=hours(total["load_s"]),
        move_load_hours=hours(total["move_load_s"]),
        idle_hours=hours(total["idle_s"]),
        work_efficiency=percent(total["work_s"], total["boot_s"]),
        move_efficiency=percent(total["move_s"], total["boot_s"]),
        by_type=by_type,
    )
