"""One vehicle's status (``carStatus/*``): its file and terminal, its meter now, its run history day by day and its
diagnosis. ``getCnt`` (counts of the fleet by state) is in ``telemetry.api.live``; the charts of ``monitor/*`` are in
``telemetry.api.monitor_charts``.

Everything is read from the stored telemetry of one vehicle read through the caller's scope (``live._one``): a
vehicle out of scope (another tenant's, another organisation's under a data rule) is "not found", whatever its id.

* **Days** are the tenant's local days (``LIFTDESK_TZ_OFFSET_MINUTES``), like the daily aggregates (``DailyStat``).
  A range of days (``startTime`` / ``endTime``, ``yyyy-MM-dd``, both included) follows the reports' rule
  (``core.report.ReportQuery.period``): the start not after the end, at most :data:`MAX_DAYS` days; a refusal is a
  400 naming the fields in the user's language. Default: the last seven days up to today.
* **Power**: a vehicle is ``combustion`` when its type is a combustion type of the ``car_type`` dictionary (0 diesel,
  1 petrol, 2 natural gas), else ``electric``. Electric vehicles report their battery (``extra.battery``: ``soc``,
  ``v``, ``a``, ``t``), combustion ones their fuel level (``extra.fuel_l``, JT/T 808 item 0x02).
* **Energy of a day** (``getStageCnt``): from the vehicle's consecutive samples of that day, oldest first: a fall of
  the state of charge (fuel level) between two samples is *used*, a rise is *charged* (*refuelled*).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import select

from liftdesk.core import crud
from liftdesk.core.report import Day, ReportQuery, hours, percent
from liftdesk.core.schemas import Id, Schema, Time, tenant_zone
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.schemas import CarQuery
from liftdesk.fleet.service import organisation_names
from liftdesk.system.service import dict_labels
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.api.live import FICS, _one
from liftdesk.telemetry.models import DailyStat, Event, Position, Terminal
from liftdesk.telemetry.view import alarm_kinds

#: The longest range of days one call takes (the specification: "up to 7 days selectable for a range").
MAX_DAYS = 7
#: ``car_type`` values of combustion vehicles (the dictionary: 0 diesel, 1 petrol, 2 natural gas).
COMBUSTION_TYPES = frozenset({0, 1, 2})
#: The most samples one range is read with (7 days of a report every 5 s is 121 k).
MAX_SAMPLES = 150_000

Power = Literal["electric", "combustion"]


class CarDays(CarQuery):
    """One vehicle and a range of the tenant's local days."""

    start_time: Day | None = Field(
        default=None, description="first day (yyyy-MM-dd, the tenant's local day); default: six days before endTime"
    )
    end_time: Day | None = Field(default=None, description="last day, included (yyyy-MM-dd); default: today")

    def days(self) -> tuple[date, ...]:
        """The days of the range, checked by the reports' rule (400 naming the fields)."""
        return ReportQuery(start_time=self.start_time, end_time=self.end_time).period(MAX_DAYS).days


def utc_span(first: date, last: date) -> tuple[datetime, datetime]:
    """The local days ``first`` to ``last`` (included) as naive UTC times [begin, end)."""
    offset = tenant_zone().utcoffset(None) or timedelta(0)
    begin = datetime.combine(first, datetime.min.time()) - offset
    return begin, datetime.combine(last + timedelta(days=1), datetime.min.time()) - offset


def local(t: datetime) -> datetime:
    """A naive UTC time as the tenant's local (naive) time."""
    return t + (tenant_zone().utcoffset(None) or timedelta(0))


def power_of(car: Vehicle) -> Power:
    return "combustion" if car.car_type in COMBUSTION_TYPES else "electric"


async def samples(c: crud.Ctx, car: Vehicle, begin: datetime, end: datetime) -> list[Any]:
    """The positions of one vehicle (read through the scope by the caller) in [begin, end), oldest first."""
    stmt = (
        select(
            Position.device_time,
            Position.speed,
            Position.status,
            Position.mileage_km,
            Position.load_kg,
            Position.extra,
        )
        .where(
            Position.tenant_id == car.tenant_id,
            Position.vehicle_id == car.id,
            Position.device_time >= begin,
            Position.device_time < end,
        )
        .order_by(Position.device_time)
        .limit(MAX_SAMPLES)
    )
    return list((await c.session.execute(stmt)).all())


async def daily_rows(c: crud.Ctx, car: Vehicle, days: tuple[date, ...]) -> dict[date, DailyStat]:
    """The daily aggregates of one vehicle over ``days`` (the caller's tenant), by day."""
    stmt = c.scope.apply(select(DailyStat).where(DailyStat.vehicle_id == car.id, DailyStat.day.in_(days)), DailyStat)
    return {r.day: r for r in (await c.session.execute(stmt)).scalars()}


def extra_of(raw: str | None) -> dict[str, Any]:
    value = json.loads(raw) if raw else {}
    return value if isinstance(value, dict) else {}


def energy_level(extra: dict[str, Any], power: Power) -> float | None:
    """The state of charge (%) of an electric vehicle's sample, the fuel level (L) of a combustion one's."""
    if power == "electric":
        battery = extra.get("battery")
        soc = battery.get("soc") if isinstance(battery, dict) else None
        return float(soc) if isinstance(soc, int | float) else None
    fuel = extra.get("fuel_l")
    return float(fuel) if isinstance(fuel, int | float) else None


# --------------------------------------------------------------------------------------------- getVehicleInfo


class VehicleInfo(Schema):
    car_id: Id
    car_no: str
    device_number: str | None = None
    sim_number: str | None = None
    frame_number: str | None = None
    brand: str | None = None
    model_number: str | None = None
    car_type: int
    car_type_name: str = ""
    power: Power = Field(description="electric, or combustion (car types 0-2)")
    mechanism_id: Id | None = None
    mechanism_name: str = ""
    rated_load_kg: float | None = None
    speed_limit_kmh: float | None = None
    collision_threshold_g: float | None = None
    overload_threshold_kg: float | None = None
    battery_type: str | None = None
    engine_number: str | None = None
    protocol: str | None = Field(default=None, description="the terminal's protocol (jt808, mqtt, http)")
    protocol_version: str | None = None
    terminal_model: str | None = None
    firmware_version: str | None = None
    hardware_version: str | None = None
    online: bool = False
    last_seen: Time | None = None
    registered_at: Time | None = None


@telemetry_res.LIVE.action(
    "GET",
    f"{FICS}/carStatus/getVehicleInfo",
    summary="One vehicle's file and its terminal (protocol, versions, online, last heard)",
    kind="read",
    query=CarQuery,
    answer=VehicleInfo,
    tag="carStatus",
)
async def vehicle_info(ctx: crud.Ctx, query: CarQuery) -> VehicleInfo:
    car, st = await _one(ctx, query.car_id)
    term = None
    if car.device_number:
        found = await ctx.session.execute(ctx.scope.select(Terminal).where(Terminal.device_number == car.device_number))
        term = found.scalars().first()
    names = await organisation_names(ctx, {car.mechanism_id} if car.mechanism_id else set())
    types = await dict_labels(ctx.session, "car_type")
    return VehicleInfo(
        car_id=car.id,
        car_no=car.car_no,
        device_number=car.device_number,
        sim_number=car.sim_number,
        frame_number=car.frame_number,
        brand=car.brand,
        model_number=car.model_number,
        car_type=car.car_type,
        car_type_name=types.get(str(car.car_type), ""),
        power=power_of(car),
        mechanism_id=car.mechanism_id,
        mechanism_name=names.get(car.mechanism_id, "") if car.mechanism_id else "",
        rated_load_kg=car.rated_load_kg,
        speed_limit_kmh=car.speed_limit_kmh,
        collision_threshold_g=car.collision_threshold_g,
        overload_threshold_kg=car.overload_threshold_kg,
        battery_type=car.battery_type,
        engine_number=car.engine_number,
        protocol=term.protocol if term else None,
        protocol_version=term.protocol_version if term else None,
        terminal_model=term.model if term else None,
        firmware_version=term.firmware_version if term else None,
        hardware_version=term.hardware_version if term else None,
        online=bool(st.online) if st else False,
        last_seen=st.last_seen if st else None,
        registered_at=term.registered_at if term else None,
    )


# ------------------------------------------------------------------------------------------- getRealTimeMeter


class Meter(Schema):
    """The vehicle's instrument now: its state row, and what its latest stored position carried beyond it."""

    car_id: Id
    power: Power
    online: bool = False
    acc: bool = False
    state: str = Field(default="off", description="off | idle | moving | loaded")
    state_since: Time | None = None
    gps_time: Time | None = None
    speed: float = 0.0
    speed_limit_kmh: float | None = Field(default=None, description="in force on the vehicle (or its setting)")
    load_kg: float | None = None
    rated_load_kg: float | None = None
    load_pct: float | None = Field(default=None, description="load / rated load, in percent")
    soc: float | None = Field(default=None, description="state of charge, % (electric)")
    battery_voltage_v: float | None = None
    battery_current_a: float | None = None
    battery_temperature_c: float | None = Field(default=None, description="the hottest battery probe")
    charge_state: str | None = None
    fuel_l: float | None = Field(default=None, description="fuel level, litres (combustion)")
    lock_level: int | None = Field(default=None, description="0 unlocked, 1 soft lock, 2 full lock")
    fork_height_mm: int | None = None
    seat_belt: bool | None = None
    mileage: float | None = None
    driver_name: str | None = None
    alarms: list[str] = Field(default_factory=list)


async def latest_extra(c: crud.Ctx, car: Vehicle) -> dict[str, Any]:
    """What the latest stored position of the vehicle carried beyond its columns."""
    stmt = (
        select(Position.extra)
        .where(Position.tenant_id == car.tenant_id, Position.vehicle_id == car.id)
        .order_by(Position.device_time.desc())
        .limit(1)
    )
    return extra_of((await c.session.execute(stmt)).scalar())


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@telemetry_res.LIVE.action(
    "GET",
    f"{FICS}/carStatus/getRealTimeMeter",
    summary="One vehicle's instrument now: speed, load, state of charge or fuel, lock level, state",
    kind="read",
    query=CarQuery,
    answer=Meter,
    tag="carStatus",
)
async def real_time_meter(ctx: crud.Ctx, query: CarQuery) -> Meter:
    car, st = await _one(ctx, query.car_id)
    meter = Meter(car_id=car.id, power=power_of(car), rated_load_kg=car.rated_load_kg)
    if st is None:
        return meter.model_copy(update={"speed_limit_kmh": car.speed_limit_kmh})
    extra = await latest_extra(ctx, car)
    found = extra.get("battery")
    battery: dict[str, Any] = found if isinstance(found, dict) else {}
    temps = [float(x) for x in battery.get("t", []) if _num(x) is not None]
    rated = car.rated_load_kg
    return meter.model_copy(
        update={
            "online": st.online,
            "acc": st.acc,
            "state": st.state,
            "state_since": st.state_since,
            "gps_time": st.device_time,
            "speed": st.speed,
            "speed_limit_kmh": st.speed_limit_kmh or car.speed_limit_kmh,
            "load_kg": st.load_kg,
            "load_pct": percent(st.load_kg, rated) if rated and st.load_kg is not None else None,
            "soc": st.soc_pct,
            "battery_voltage_v": _num(battery.get("v")),
            "battery_current_a": _num(battery.get("a")),
            "battery_temperature_c": max(temps) if temps else None,
            "charge_state": battery.get("state") if isinstance(battery.get("state"), str) else None,
            "fuel_l": _num(extra.get("fuel_l")),
            "lock_level": st.lock_level,
            "fork_height_mm": int(extra["fork_height_mm"]) if _num(extra.get("fork_height_mm")) is not None else None,
            "seat_belt": extra["seat_belt"] if isinstance(extra.get("seat_belt"), bool) else None,
            "mileage": st.mileage_km,
            "driver_name": st.driver_name,
            "alarms": alarm_kinds(json.loads(st.open_events or "{}")),
        }
    )


# ----------------------------------------------------------------------------------------------- getStageCnt


class StageDay(Schema):
    """One local day of a vehicle's run history (hours with two decimals)."""

    day: Day
    boot_hours: float = Field(description="ACC on")
    work_hours: float = Field(description="moving ∪ loaded ∪ lifting")
    move_hours: float
    load_hours: float
    lift_hours: float
    idle_hours: float = Field(description="boot − work")
    distance_km: float
    alarms: int
    energy_used: float = Field(description="state of charge used, % points (electric); fuel used, L (combustion)")
    energy_added: float = Field(description="% points charged (electric); litres refuelled (combustion)")


class StageHistory(Schema):
    car_id: Id
    power: Power
    days: list[StageDay]
    totals: StageDay = Field(description="the sums over the range (day: its last day)")


def _per_day_energy(rows: list[Any], power: Power) -> dict[date, tuple[float, float]]:
    out: dict[date, tuple[float, float]] = {}
    last: tuple[date, float] | None = None
    for row in rows:
        level = energy_level(extra_of(row.extra), power)
        if level is None:
            continue
        day = local(row.device_time).date()
        if last is not None and last[0] == day:
            used, added = out.get(day, (0.0, 0.0))
            change = level - last[1]
            out[day] = (used - min(change, 0.0), added + max(change, 0.0))
        last = (day, level)
    return out


def _alarms(stat: DailyStat) -> int:
    return sum(
        (
            stat.collision_n,
            stat.speeding_n,
            stat.overload_n,
            stat.fence_n,
            stat.battery_n,
            stat.fault_n,
            stat.other_n,
        )
    )


@telemetry_res.LIVE.action(
    "GET",
    f"{FICS}/carStatus/getStageCnt",
    summary="One vehicle's run history per local day (at most 7): hours on, working, moving, loaded, lifting and "
    "idle, distance, alarms, and the energy used and added (battery % points or fuel litres)",
    kind="aggregate",
    query=CarDays,
    answer=StageHistory,
    tag="carStatus",
)
async def stage_count(ctx: crud.Ctx, query: CarDays) -> StageHistory:
    car, _ = await _one(ctx, query.car_id)
    days = query.days()
    stats = await daily_rows(ctx, car, days)
    power = power_of(car)
    energy = _per_day_energy(await samples(ctx, car, *utc_span(days[0], days[-1])), power)
    sums = dict.fromkeys(("boot", "work", "move", "load", "lift", "idle", "km", "used", "added"), 0.0)
    alarms = 0
    out: list[StageDay] = []
    for day in days:
        s = stats.get(day)
        used, added = energy.get(day, (0.0, 0.0))
        secs = (s.boot_s, s.work_s, s.move_s, s.load_s, s.lift_s, s.idle_s, s.distance_km) if s else (0.0,) * 7
        n = _alarms(s) if s else 0
        for k, v in zip(sums, (*secs, used, added), strict=True):
            sums[k] += v
        alarms += n
        out.append(_stage(day, secs, n, used, added))
    total = (sums["boot"], sums["work"], sums["move"], sums["load"], sums["lift"], sums["idle"], sums["km"])
    return StageHistory(
        car_id=car.id, power=power, days=out, totals=_stage(days[-1], total, alarms, sums["used"], sums["added"])
    )


def _stage(day: date, secs: tuple[float, ...], alarms: int, used: float, added: float) -> StageDay:
    boot, work, move, load, lift, idle, km = secs
    return StageDay(
        day=day,
        boot_hours=hours(boot),
        work_hours=hours(work),
        move_hours=hours(move),
        load_hours=hours(load),
        lift_hours=hours(lift),
        idle_hours=hours(idle),
        distance_km=round(km, 3),
        alarms=alarms,
        energy_used=round(used, 2),
        energy_added=round(added, 2),
    )


# ------------------------------------------------------------------------------------------ getDiagnoseReport


class FaultItem(Schema):
    kind: str
    code: str | None = Field(default=None, description="the fault code (fault alarms)")
    level: int = 1
    begin_time: Time
    end_time: Time | None = None
    value: float | None = None
    limit_value: float | None = None


class Diagnosis(Schema):
    """Remote diagnosis of one vehicle: what is wrong now, and what went wrong over the days asked for."""

    car_id: Id
    online: bool = False
    clock_fault: bool = Field(default=False, description="the terminal's clock is wrong (its reports are misdated)")
    active_faults: list[str] = Field(default_factory=list, description="fault codes its latest report carried")
    open_alarms: list[str] = Field(default_factory=list, description="kinds of the alarms in progress")
    bms_flags: int | None = Field(default=None, description="the BMS flags word of the latest report, when any is set")
    counts: dict[str, int] = Field(default_factory=dict, description="alarms over the range, by kind")
    events: list[FaultItem] = Field(default_factory=list, description="faults and alarms over the range, newest first")
    healthy: bool = Field(description="no active fault, no alarm in progress, no clock fault")


#: The most events one diagnosis lists.
MAX_EVENTS = 500


def _events(car: Vehicle, begin: datetime, end: datetime) -> Any:
    return select(Event).where(
        Event.tenant_id == car.tenant_id,
        Event.vehicle_id == car.id,
        Event.begin_time >= begin,
        Event.begin_time < end,
    )


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/carStatus/getDiagnoseReport",
    summary="Remote diagnosis of one vehicle: its active fault codes and alarms in progress now, and its faults and "
    "alarms over a range of local days (at most 7), by kind and one by one",
    kind="sub",
    query=CarDays,
    answer=Diagnosis,
    tag="carStatus",
)
async def diagnose(ctx: crud.Ctx, query: CarDays) -> Diagnosis:
    car, st = await _one(ctx, query.car_id)
    days = query.days()
    state_extra = extra_of(st.extra) if st else {}
    latest = await latest_extra(ctx, car) if st else {}
    rows = (
        (await ctx.session.execute(_events(car, *utc_span(days[0], days[-1])).order_by(Event.begin_time.desc())))
        .scalars()
        .all()
    )
    counts: dict[str, int] = {}
    for e in rows:
        counts[e.kind] = counts.get(e.kind, 0) + 1
    faults = [str(c) for c in state_extra.get("faults", []) if isinstance(c, str | int)]
    open_alarms = alarm_kinds(json.loads(st.open_events or "{}")) if st else []
    clock = bool(st and st.clock_fault_time is not None)
    flags = latest.get("bms_flags")
    return Diagnosis(
        car_id=car.id,
        online=bool(st and st.online),
        clock_fault=clock,
        active_faults=faults,
        open_alarms=open_alarms,
        bms_flags=int(flags) if isinstance(flags, int) and flags else None,
        counts=dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        events=[_fault(e) for e in rows[:MAX_EVENTS]],
        healthy=not faults and not open_alarms and not clock,
    )


def _fault(e: Event) -> FaultItem:
    detail = extra_of(e.detail)
    code = detail.get("code")
    return FaultItem(
        kind=e.kind,
        code=str(code) if isinstance(code, str | int) else None,
        level=e.level,
        begin_time=e.begin_time,
        end_time=e.end_time,
        value=e.value,
        limit_value=e.limit_value,
    )


def hour_cuts(start: datetime, end: datetime) -> Iterator[tuple[datetime, float]]:
    """[start, end) cut at the local hours: (the local time each piece starts at, its seconds)."""
    while start < end:
        loc = local(start)
        next_hour = loc.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
        cut = min(end, start + (next_hour - loc))
        yield loc, (cut - start).total_seconds()
        start = cut
