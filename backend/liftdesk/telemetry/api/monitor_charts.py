"""The charts of one vehicle (``monitor/*``), from its stored telemetry, read through the caller's scope (``_one``).

Definitions (fleet-domain §4; hours with two decimals, days and hours local to the tenant):

* **Total mileage** (``getTotalMileage``): the distance of each day of the range (the daily aggregates'
  ``distance_km``: by the odometer, else between fixes) and the odometer now.
* **Work-time heat map** (``getWorkTimeThermal``): for each day of the range and each hour of the day, the hours the
  vehicle *worked* in that hour. A sample holds its flags from its time until the next sample, at most the gap cap
  (``telemetry.gapCapSeconds``; a longer silence is unknown, not work), exactly as the pipeline counts the daily
  aggregates (``stages.count_interval``); it is work while ACC is on and it moves (speed ≥ the moving speed), carries
  a load (≥ the vehicle's load threshold) or lifts (hydraulics working). The cells of a day add up to its ``work_s``
  (but for a sample before the range holding into its first minutes: at most the gap cap, not counted here).
* **Efficiency calendar** (``getWorkEfficiencyCalendar``): each day of a month, hours on (ACC), hours worked, and the
  utilisation = work / boot in percent (0 when the vehicle was never on).
* **Waterfall** (``getCarTeamWaterfall``): the stored data knows no shifts or teams (terminals send no shift, the
  driver of each report is not kept), so the breakdown is of the range's hours on: boot = empty travel
  (move − loaded move) + loaded (loaded, standing or moving) + lifting only (work − move ∪ load) + idle (boot − work);
  each step per day too.
* **Temperatures** (``getTemperature``): the battery probes each report carried (``extra.battery.t``), the hottest and
  the coolest, per bucket of time (1 minute, or longer so that the period holds at most :data:`MAX_BUCKETS`): the
  maximum of the hottest and the minimum of the coolest. Terminals send no engine temperature: a combustion vehicle's
  series is empty.
* **Run condition** (``getRunCondition``): the hours with ACC on over the period in each band of speed (km/h) and of
  load (percent of the rated load; without a rated load: empty / loaded), samples held as above.

The engine and exhaust after-treatment charts (``getThrottleOpening``, ``getFuelInjectionQuantity``,
``getEcuPostProcessing``, ``getDifferentialPressure``, ``getStrengthenRoadSpectrum``, ``getFilteredFlowResistance``)
read the decoded CAN history instead: :mod:`liftdesk.telemetry.api.monitor_can`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from itertools import pairwise
from typing import Any

from pydantic import Field

from liftdesk.core import crud
from liftdesk.core.report import Day, hours, percent, today
from liftdesk.core.schemas import Id, Schema, Time
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.schemas import CarQuery
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.api.live import FICS, _one
from liftdesk.telemetry.api.status import CarDays, daily_rows, extra_of, hour_cuts, samples, utc_span
from liftdesk.telemetry.api.track import PeriodQuery, _limits, period
from liftdesk.telemetry.messages import STATUS_ACC
from liftdesk.telemetry.rules import Thresholds

#: The most buckets of a time series.
MAX_BUCKETS = 1_000


def held(rows: list[Any], limits: Thresholds, end: datetime) -> Iterator[tuple[Any, datetime, datetime]]:
    """(sample, from, until) of each sample with ACC on: it holds until the next sample, at most the gap cap, never
    past ``end`` (the pipeline's ``count_interval``)."""
    cap = timedelta(seconds=limits.gap_cap_s)
    for i, row in enumerate(rows):
        if not row.status & STATUS_ACC:
            continue
        nxt = rows[i + 1].device_time if i + 1 < len(rows) else end
        until = min(nxt, row.device_time + cap, end)
        if until > row.device_time:
            yield row, row.device_time, until


def flags(row: Any, limits: Thresholds) -> tuple[bool, bool, bool]:
    """(moving, loaded, lifting) of a sample, as the pipeline decides them (``stages.is_loaded``)."""
    moving = row.speed >= limits.move_kmh
    loaded = row.load_kg >= limits.load_kg if row.load_kg is not None else bool(row.status & (3 << 8))
    return moving, loaded, bool(extra_of(row.extra).get("lifting"))


# -------------------------------------------------------------------------------------------- getTotalMileage


class MileageDay(Schema):
    day: Day
    distance_km: float


class Mileage(Schema):
    car_id: Id
    odometer_km: float | None = Field(default=None, description="the odometer now (the latest report's)")
    total_km: float = Field(description="the distance over the range")
    days: list[MileageDay]


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getTotalMileage",
    summary="One vehicle's distance per local day (at most 7) and its odometer now",
    kind="aggregate",
    query=CarDays,
    answer=Mileage,
    tag="monitor",
)
async def total_mileage(ctx: crud.Ctx, query: CarDays) -> Mileage:
    car, st = await _one(ctx, query.car_id)
    days = query.days()
    stats = await daily_rows(ctx, car, days)
    out = [MileageDay(day=d, distance_km=round(stats[d].distance_km, 3) if d in stats else 0.0) for d in days]
    return Mileage(
        car_id=car.id,
        odometer_km=st.mileage_km if st else None,
        total_km=round(sum(d.distance_km for d in out), 3),
        days=out,
    )


# ----------------------------------------------------------------------------------------- getWorkTimeThermal


class Thermal(Schema):
    car_id: Id
    days: list[Day]
    hours: list[int] = Field(description="0 to 23")
    cells: list[tuple[int, int, float]] = Field(description="[day index, hour, hours worked] of every hour worked")
    total_hours: float


async def _rows_of_days(ctx: crud.Ctx, car: Vehicle, days: tuple[date, ...]) -> tuple[list[Any], datetime]:
    begin, end = utc_span(days[0], days[-1])
    return await samples(ctx, car, begin, end), end


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getWorkTimeThermal",
    summary="One vehicle's hours worked per hour of the day and local day (at most 7 days): a heat map",
    kind="aggregate",
    query=CarDays,
    answer=Thermal,
    tag="monitor",
)
async def work_time_thermal(ctx: crud.Ctx, query: CarDays) -> Thermal:
    car, _ = await _one(ctx, query.car_id)
    days = query.days()
    rows, end = await _rows_of_days(ctx, car, days)
    limits = await _limits(ctx, car)
    index = {d: i for i, d in enumerate(days)}
    secs: dict[tuple[int, int], float] = {}
    for row, a, b in held(rows, limits, end):
        if not any(flags(row, limits)):
            continue
        for loc, s in hour_cuts(a, b):
            i = index.get(loc.date())
            if i is not None:
                secs[(i, loc.hour)] = secs.get((i, loc.hour), 0.0) + s
    return Thermal(
        car_id=car.id,
        days=list(days),
        hours=list(range(24)),
        cells=[(i, h, hours(s)) for (i, h), s in sorted(secs.items())],
        total_hours=hours(sum(secs.values())),
    )


# ----------------------------------------------------------------------------------- getWorkEfficiencyCalendar

_MONTH = r"^(19\d\d|[2-8]\d\d\d|9[0-8]\d\d|99[0-8]\d|999[0-8])-(0[1-9]|1[0-2])$"


class CarMonth(CarQuery):
    month: str | None = Field(
        default=None, pattern=_MONTH, description="yyyy-MM (the tenant's local month); default: this month"
    )


class CalendarDay(Schema):
    day: Day
    boot_hours: float
    work_hours: float
    utilisation: float = Field(description="work / boot, percent")


class Calendar(Schema):
    car_id: Id
    month: str
    days: list[CalendarDay]
    utilisation: float = Field(description="the month's work / boot, percent")


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getWorkEfficiencyCalendar",
    summary="One vehicle's utilisation (work / boot) on each day of a month (yyyy-MM): a calendar",
    kind="aggregate",
    query=CarMonth,
    answer=Calendar,
    tag="monitor",
)
async def efficiency_calendar(ctx: crud.Ctx, query: CarMonth) -> Calendar:
    car, _ = await _one(ctx, query.car_id)
    month = query.month or today().strftime("%Y-%m")
    first = datetime.strptime(month + "-01", "%Y-%m-%d").date()
    nxt = (first.replace(day=28) + timedelta(days=4)).replace(day=1)
    days = tuple(first + timedelta(days=i) for i in range((nxt - first).days))
    stats = await daily_rows(ctx, car, days)
    out: list[CalendarDay] = []
    boot = work = 0.0
    for d in days:
        s = stats.get(d)
        b, w = (s.boot_s, s.work_s) if s else (0.0, 0.0)
        boot, work = boot + b, work + w
        out.append(CalendarDay(day=d, boot_hours=hours(b), work_hours=hours(w), utilisation=percent(w, b)))
    return Calendar(car_id=car.id, month=month, days=out, utilisation=percent(work, boot))


# ---------------------------------------------------------------------------------------- getCarTeamWaterfall


class Breakdown(Schema):
    boot_hours: float
    empty_move_hours: float = Field(description="moving without a load")
    loaded_hours: float = Field(description="carrying a load, standing or moving")
    lift_only_hours: float = Field(description="lifting, neither moving nor loaded")
    idle_hours: float = Field(description="on, not working")


class WaterfallDay(Breakdown):
    day: Day


class Waterfall(Schema):
    car_id: Id
    total: Breakdown
    days: list[WaterfallDay]


def _breakdown(boot: float, work: float, move: float, load: float, move_load: float) -> dict[str, float]:
    empty = max(0.0, move - move_load)
    lift_only = max(0.0, work - (move + load - move_load))
    return {
        "boot_hours": hours(boot),
        "empty_move_hours": hours(empty),
        "loaded_hours": hours(load),
        "lift_only_hours": hours(lift_only),
        "idle_hours": hours(max(0.0, boot - work)),
    }


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getCarTeamWaterfall",
    summary="One vehicle's hours on over a range of local days (at most 7) broken down: empty travel, loaded, "
    "lifting only, idle (a waterfall); the data knows no shifts, so per day",
    kind="aggregate",
    query=CarDays,
    answer=Waterfall,
    tag="monitor",
)
async def team_waterfall(ctx: crud.Ctx, query: CarDays) -> Waterfall:
    car, _ = await _one(ctx, query.car_id)
    days = query.days()
    stats = await daily_rows(ctx, car, days)
    sums = [0.0] * 5
    out: list[WaterfallDay] = []
    for d in days:
        s = stats.get(d)
        vals = (s.boot_s, s.work_s, s.move_s, s.load_s, s.move_load_s) if s else (0.0,) * 5
        sums = [a + b for a, b in zip(sums, vals, strict=True)]
        out.append(WaterfallDay(day=d, **_breakdown(*vals)))
    return Waterfall(car_id=car.id, total=Breakdown(**_breakdown(*sums)), days=out)


# --------------------------------------------------------------------------------------------- getTemperature


class TemperaturePoint(Schema):
    time: Time = Field(description="the bucket's start")
    max_c: float
    min_c: float


class Temperatures(Schema):
    car_id: Id
    source: str = Field(description="battery: the traction battery's probes")
    begin_time: Time
    end_time: Time
    points: list[TemperaturePoint]


#: The bucket lengths of a time series (seconds), the shortest that keeps it within :data:`MAX_BUCKETS`.
STEPS = (60, 120, 300, 600, 900, 1800, 3600)


def _step(begin: datetime, end: datetime) -> timedelta:
    span = (end - begin).total_seconds()
    return timedelta(seconds=next((s for s in STEPS if span / s <= MAX_BUCKETS), STEPS[-1]))


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getTemperature",
    summary="One vehicle's battery temperatures over a period (beginTime/endTime, at most 7 days): the hottest and "
    "coolest probe per bucket of time (1 minute or longer, at most 1,000 buckets)",
    kind="aggregate",
    query=PeriodQuery,
    answer=Temperatures,
    tag="monitor",
)
async def temperature(ctx: crud.Ctx, query: PeriodQuery) -> Temperatures:
    car, _ = await _one(ctx, query.car_id)
    begin, end = period(query)
    step = _step(begin, end)
    buckets: dict[int, tuple[float, float]] = {}
    for row in await samples(ctx, car, begin, end + timedelta(microseconds=1)):
        battery = extra_of(row.extra).get("battery")
        probes = battery.get("t") if isinstance(battery, dict) else None
        temps = [float(x) for x in probes or [] if isinstance(x, int | float) and not isinstance(x, bool)]
        if not temps:
            continue
        k = int((row.device_time - begin) / step)
        hi, lo = buckets.get(k, (max(temps), min(temps)))
        buckets[k] = (max(hi, *temps), min(lo, *temps))
    return Temperatures(
        car_id=car.id,
        source="battery",
        begin_time=begin,
        end_time=end,
        points=[TemperaturePoint(time=begin + k * step, max_c=hi, min_c=lo) for k, (hi, lo) in sorted(buckets.items())],
    )


# -------------------------------------------------------------------------------------------- getRunCondition

#: Lower bounds of the speed bands above standing (km/h).
SPEED_BANDS = (5.0, 10.0, 15.0)
#: Upper bounds of the load bands (percent of the rated load); above the last: overloaded.
LOAD_BANDS = (25.0, 50.0, 75.0, 100.0)


class RunCondition(Schema):
    car_id: Id
    begin_time: Time
    end_time: Time
    speed_bands: list[str] = Field(description="standing (below the moving speed), then km/h bands")
    load_bands: list[str] = Field(description="empty, then percent of the rated load (or: loaded, without one)")
    cells: list[tuple[int, int, float]] = Field(description="[speed band, load band, hours] of every band used")
    total_hours: float = Field(description="hours on (ACC) over the period")


def _speed_band(speed: float, limits: Thresholds) -> int:
    if speed < limits.move_kmh:
        return 0
    return 1 + sum(1 for b in SPEED_BANDS if speed >= b)


def _load_band(row: Any, loaded: bool, rated: float | None) -> int:
    if not loaded:
        return 0
    if not rated or row.load_kg is None:
        return 1
    pct = 100.0 * row.load_kg / rated
    return 1 + sum(1 for b in LOAD_BANDS if pct > b)


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getRunCondition",
    summary="One vehicle's hours on over a period (at most 7 days) by band of speed and of load",
    kind="aggregate",
    query=PeriodQuery,
    answer=RunCondition,
    tag="monitor",
)
async def run_condition(ctx: crud.Ctx, query: PeriodQuery) -> RunCondition:
    car, _ = await _one(ctx, query.car_id)
    begin, end = period(query)
    limits = await _limits(ctx, car)
    rated = car.rated_load_kg
    secs: dict[tuple[int, int], float] = {}
    for row, a, b in held(await samples(ctx, car, begin, end), limits, end):
        _, loaded, _ = flags(row, limits)
        key = (_speed_band(row.speed, limits), _load_band(row, loaded, rated))
        secs[key] = secs.get(key, 0.0) + (b - a).total_seconds()
    edges = [limits.move_kmh, *SPEED_BANDS]
    speed_bands = ["0", *(f"{lo:g}-{hi:g}" for lo, hi in pairwise(edges)), f">={edges[-1]:g}"]
    load_bands = ["0", "0-25%", "25-50%", "50-75%", "75-100%", ">100%"] if rated else ["0", "loaded"]
    return RunCondition(
        car_id=car.id,
        begin_time=begin,
        end_time=end,
        speed_bands=speed_bands,
        load_bands=load_bands,
        cells=[(s, ld, hours(v)) for (s, ld), v in sorted(secs.items())],
        total_hours=hours(sum(secs.values())),
    )
