"""The charts of one vehicle's engine and exhaust after-treatment (``monitor/*``), from its CAN history: the J1939
parameters its terminal's CAN uploads (JT/T 808 0x0705, MQTT ``can``) carried, decoded by the pipeline
(``telemetry.can``: groups, parameters and units) and kept per vehicle and time (``fics_can_sample``).

A vehicle is read through the caller's scope (``_one``); the period rules are those of the other charts
(``beginTime``/``endTime``, a start before its end, at most 7 days, 400 naming the fields); series are in buckets of
time (1 minute, or longer so that the period holds at most :data:`MAX_BUCKETS`), each bucket's value computed from
the samples dated in it. A sample *holds* from its time until the next one, at most the gap cap
(``telemetry.gapCapSeconds``: a longer silence is unknown) and never past the period's end: the hours and litres
below are of held time. A vehicle without CAN data (an electric one, a terminal without a CAN adapter) gets empty
series and zero totals, not an error.

* **Throttle opening** (``getThrottleOpening``): the accelerator pedal position (SPN 91, %): per bucket its mean and
  maximum; over the period the hours in each band of 10 % (a distribution) and the time-weighted mean.
* **Fuel injection quantity** (``getFuelInjectionQuantity``): the engine fuel rate (SPN 183, L/h): per bucket its
  mean and maximum; over the period the litres injected (the rate over held time), the hours with a rate and the
  mean rate (litres / hours).
* **ECU post-processing** (``getEcuPostProcessing``): the after-treatment's state: the DPF soot load (SPN 3719, %)
  and the DEF (urea) tank level (SPN 1761, %), per bucket the latest of each; the latest of each over the period,
  and the DPF regenerations seen (:func:`regenerations`: the soot load falling by at least
  :data:`REGEN_DROP_PCT` points from its peak; the next one counts once it has risen again).
* **Differential pressure** (``getDifferentialPressure``): the DPF differential pressure (SPN 3251, kPa): per bucket
  its mean and maximum, and the period's maximum.
* **Strengthened road spectrum** (``getStrengthenRoadSpectrum``): the duty the engine went through, as the load
  spectra of durability testing count it: the hours with the engine running (speed > 0) in each band of engine
  speed (SPN 190, rpm: :data:`RPM_BANDS`) and of engine percent load at current speed (SPN 92: bands of 20 %), a
  2-D histogram.
* **Filtered flow resistance** (``getFilteredFlowResistance``): how hard the DPF is to blow through: its
  differential pressure over the exhaust mass flow, in kPa per t/h. The exhaust mass flow is the inlet air mass flow
  (SPN 132, kg/h) plus the fuel's mass (SPN 183 × :data:`DIESEL_KG_PER_L`). *Filtered*: samples with a flow under
  :data:`MIN_FLOW_KGH` (idle, where ΔP is sensor noise and the ratio meaningless) are left out, and each bucket's
  value is Σ ΔP / Σ flow over its remaining samples (a flow-weighted mean, not a mean of ratios that small flows
  would dominate). A rising resistance at the same flow means soot (or ash) filling the filter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from pydantic import Field
from sqlalchemy import select

from liftdesk.core import crud
from liftdesk.core.report import hours
from liftdesk.core.schemas import Id, Schema, Time
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.api.live import FICS, _one
from liftdesk.telemetry.api.monitor_charts import _step
from liftdesk.telemetry.api.track import MAX_SAMPLES, PeriodQuery, _limits, period
from liftdesk.telemetry.models import CanSample

#: The bounds between the engine-speed bands (rpm) of the road spectrum.
RPM_BANDS = (800.0, 1200.0, 1600.0, 2000.0, 2400.0)
#: The bounds between the load bands (percent load at current speed) of the road spectrum.
LOAD_BANDS = (20.0, 40.0, 60.0, 80.0)
#: The density of diesel fuel (kg/L, EN 590 at 15 °C): fuel rate (L/h) to mass flow (kg/h).
DIESEL_KG_PER_L = 0.835
#: Below this exhaust mass flow (kg/h) a sample says nothing about flow resistance.
MIN_FLOW_KGH = 100.0
#: A soot load falling by this many points from its peak: a DPF regeneration.
REGEN_DROP_PCT = 20.0
#: After a regeneration, the soot load rising this far above its lowest: filling again (the next one may count).
REFILL_PCT = 5.0


def regenerations(loads: list[float]) -> int:
    """The DPF regenerations in a series of soot loads (%): each fall of at least :data:`REGEN_DROP_PCT` points
    from the peak before it, however many samples it takes (an active regeneration burns the soot off over
    minutes); once counted, the next counts only after the load has risen :data:`REFILL_PCT` above its lowest."""
    count = 0
    falling = False
    peak = low = loads[0] if loads else 0.0
    for x in loads:
        if falling:
            low = min(low, x)
            if x >= low + REFILL_PCT:
                falling, peak = False, x
        elif x > peak:
            peak = x
        elif peak - x >= REGEN_DROP_PCT:
            count, falling, low = count + 1, True, x
    return count


async def can_rows(c: crud.Ctx, car: Vehicle, begin: datetime, end: datetime) -> list[Any]:
    """The CAN samples of one vehicle (read through the scope by the caller) in [begin, end], oldest first."""
    stmt = (
        select(CanSample)
        .where(
            CanSample.tenant_id == car.tenant_id,
            CanSample.vehicle_id == car.id,
            CanSample.sample_time >= begin,
            CanSample.sample_time <= end,
        )
        .order_by(CanSample.sample_time)
        .limit(MAX_SAMPLES)
    )
    return list((await c.session.execute(stmt)).scalars().all())


class _Period:
    """One vehicle's samples over the period asked for, with its bucket length and gap cap."""

    def __init__(self, car: Vehicle, begin: datetime, end: datetime, rows: list[Any], cap_s: float) -> None:
        self.car, self.begin, self.end, self.rows = car, begin, end, rows
        self.step = _step(begin, end)
        self.cap = timedelta(seconds=cap_s)

    def bucket(self, when: datetime) -> int:
        return int((when - self.begin) / self.step)

    def time_of(self, k: int) -> datetime:
        return self.begin + k * self.step

    def held(self, value: Callable[[Any], float | None]) -> Iterator[tuple[float, float]]:
        """(value, seconds held) of every sample with a value."""
        for i, row in enumerate(self.rows):
            v = value(row)
            if v is None:
                continue
            nxt = self.rows[i + 1].sample_time if i + 1 < len(self.rows) else self.end
            until = min(nxt, row.sample_time + self.cap, self.end)
            if until > row.sample_time:
                yield v, (until - row.sample_time).total_seconds()

    def buckets(self, value: Callable[[Any], float | None]) -> dict[int, list[float]]:
        out: dict[int, list[float]] = {}
        for row in self.rows:
            v = value(row)
            if v is not None:
                out.setdefault(self.bucket(row.sample_time), []).append(v)
        return out


async def _period(ctx: crud.Ctx, query: PeriodQuery) -> _Period:
    car, _ = await _one(ctx, query.car_id)
    begin, end = period(query)
    limits = await _limits(ctx, car)
    return _Period(car, begin, end, await can_rows(ctx, car, begin, end), limits.gap_cap_s)


class Spread(Schema):
    time: Time = Field(description="the bucket's start")
    avg: float = Field(description="the mean of the bucket's samples")
    max: float = Field(description="the highest of the bucket's samples")


def _spreads(p: _Period, value: Callable[[Any], float | None]) -> list[Spread]:
    return [
        Spread(time=p.time_of(k), avg=round(sum(vs) / len(vs), 2), max=round(max(vs), 2))
        for k, vs in sorted(p.buckets(value).items())
    ]


class CanChart(Schema):
    car_id: Id
    begin_time: Time
    end_time: Time
    step_s: int = Field(description="the length of a bucket of time (seconds)")


def _chart(p: _Period) -> dict[str, Any]:
    return {"car_id": p.car.id, "begin_time": p.begin, "end_time": p.end, "step_s": int(p.step.total_seconds())}


# ------------------------------------------------------------------------------------------ getThrottleOpening


class Throttle(CanChart):
    points: list[Spread] = Field(description="accelerator pedal position (%) per bucket")
    bands: list[str] = Field(description="bands of pedal position: 0-10% … 90-100%")
    band_hours: list[float] = Field(description="hours held in each band")
    average_pct: float = Field(description="the time-weighted mean over the period")


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getThrottleOpening",
    summary="One vehicle's accelerator pedal position (J1939 SPN 91) over a period (at most 7 days): per bucket of "
    "time and as hours in bands of 10 %",
    kind="aggregate",
    query=PeriodQuery,
    answer=Throttle,
    tag="monitor",
)
async def throttle_opening(ctx: crud.Ctx, query: PeriodQuery) -> Throttle:
    p = await _period(ctx, query)
    secs = [0.0] * 10
    weighted = 0.0
    for v, s in p.held(lambda r: r.pedal_pct):
        secs[min(9, int(v // 10))] += s
        weighted += v * s
    total = sum(secs)
    return Throttle(
        **_chart(p),
        points=_spreads(p, lambda r: r.pedal_pct),
        bands=[f"{10 * i}-{10 * i + 10}%" for i in range(10)],
        band_hours=[hours(s) for s in secs],
        average_pct=round(weighted / total, 2) if total else 0.0,
    )


# ------------------------------------------------------------------------------------ getFuelInjectionQuantity


class Fuel(CanChart):
    points: list[Spread] = Field(description="engine fuel rate (L/h) per bucket")
    litres: float = Field(description="litres injected over the period")
    hours: float = Field(description="hours with a fuel rate")
    average_lph: float = Field(description="litres / hours")


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getFuelInjectionQuantity",
    summary="One vehicle's engine fuel rate (J1939 SPN 183, L/h) over a period (at most 7 days) and the litres "
    "injected",
    kind="aggregate",
    query=PeriodQuery,
    answer=Fuel,
    tag="monitor",
)
async def fuel_injection(ctx: crud.Ctx, query: PeriodQuery) -> Fuel:
    p = await _period(ctx, query)
    litres = secs = 0.0
    for v, s in p.held(lambda r: r.fuel_lph):
        litres += v * s / 3600.0
        secs += s
    return Fuel(
        **_chart(p),
        points=_spreads(p, lambda r: r.fuel_lph),
        litres=round(litres, 2),
        hours=hours(secs),
        average_lph=round(litres * 3600.0 / secs, 2) if secs else 0.0,
    )


# ---------------------------------------------------------------------------------------- getEcuPostProcessing


class AfterTreatmentPoint(Schema):
    time: Time = Field(description="the bucket's start")
    soot_pct: float | None = Field(default=None, description="DPF soot load, the bucket's latest (%)")
    def_pct: float | None = Field(default=None, description="DEF tank level, the bucket's latest (%)")


class AfterTreatment(CanChart):
    points: list[AfterTreatmentPoint]
    soot_pct: float | None = Field(default=None, description="the latest DPF soot load of the period")
    def_pct: float | None = Field(default=None, description="the latest DEF tank level of the period")
    regenerations: int = Field(description="DPF regenerations seen (the soot load falling steeply)")


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getEcuPostProcessing",
    summary="One vehicle's exhaust after-treatment over a period (at most 7 days): DPF soot load (SPN 3719), DEF "
    "tank level (SPN 1761), DPF regenerations",
    kind="aggregate",
    query=PeriodQuery,
    answer=AfterTreatment,
    tag="monitor",
)
async def ecu_post_processing(ctx: crud.Ctx, query: PeriodQuery) -> AfterTreatment:
    p = await _period(ctx, query)
    soot = {k: vs[-1] for k, vs in p.buckets(lambda r: r.soot_pct).items()}
    urea = {k: vs[-1] for k, vs in p.buckets(lambda r: r.def_pct).items()}
    loads = [r.soot_pct for r in p.rows if r.soot_pct is not None]
    levels = [r.def_pct for r in p.rows if r.def_pct is not None]
    return AfterTreatment(
        **_chart(p),
        points=[
            AfterTreatmentPoint(time=p.time_of(k), soot_pct=soot.get(k), def_pct=urea.get(k))
            for k in sorted(soot.keys() | urea.keys())
        ],
        soot_pct=loads[-1] if loads else None,
        def_pct=levels[-1] if levels else None,
        regenerations=regenerations(loads),
    )


# -------------------------------------------------------------------------------------- getDifferentialPressure


class Pressure(CanChart):
    points: list[Spread] = Field(description="DPF differential pressure (kPa) per bucket")
    max_kpa: float | None = Field(default=None, description="the highest of the period")


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getDifferentialPressure",
    summary="One vehicle's DPF differential pressure (J1939 SPN 3251, kPa) over a period (at most 7 days)",
    kind="aggregate",
    query=PeriodQuery,
    answer=Pressure,
    tag="monitor",
)
async def differential_pressure(ctx: crud.Ctx, query: PeriodQuery) -> Pressure:
    p = await _period(ctx, query)
    points = _spreads(p, lambda r: r.dpf_dp_kpa)
    return Pressure(**_chart(p), points=points, max_kpa=max((x.max for x in points), default=None))


# ------------------------------------------------------------------------------------ getStrengthenRoadSpectrum


class RoadSpectrum(CanChart):
    rpm_bands: list[str] = Field(description="bands of engine speed (rpm)")
    load_bands: list[str] = Field(description="bands of engine percent load at current speed")
    cells: list[tuple[int, int, float]] = Field(description="[rpm band, load band, hours] of every band used")
    total_hours: float = Field(description="hours with the engine running and both parameters known")


def _band(value: float, bounds: tuple[float, ...]) -> int:
    return sum(1 for b in bounds if value >= b)


def _labels(bounds: tuple[float, ...], unit: str) -> list[str]:
    return [f"<{bounds[0]:g}{unit}", *(f"{a:g}-{b:g}{unit}" for a, b in pairwise(bounds)), f">={bounds[-1]:g}{unit}"]


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getStrengthenRoadSpectrum",
    summary="One vehicle's engine duty over a period (at most 7 days): hours by band of engine speed (SPN 190) and "
    "of load (SPN 92), a 2-D histogram",
    kind="aggregate",
    query=PeriodQuery,
    answer=RoadSpectrum,
    tag="monitor",
)
async def road_spectrum(ctx: crud.Ctx, query: PeriodQuery) -> RoadSpectrum:
    p = await _period(ctx, query)

    def key(r: Any) -> float | None:
        if r.engine_rpm is None or r.load_pct is None or r.engine_rpm <= 0:
            return None
        return float(_band(r.engine_rpm, RPM_BANDS) * 100 + _band(r.load_pct, LOAD_BANDS))

    secs: dict[int, float] = {}
    for k, s in p.held(key):
        secs[int(k)] = secs.get(int(k), 0.0) + s
    return RoadSpectrum(
        **_chart(p),
        rpm_bands=_labels(RPM_BANDS, ""),
        load_bands=_labels(LOAD_BANDS, "%"),
        cells=[(k // 100, k % 100, hours(s)) for k, s in sorted(secs.items())],
        total_hours=hours(sum(secs.values())),
    )


# ------------------------------------------------------------------------------------ getFilteredFlowResistance


class ResistancePoint(Schema):
    time: Time = Field(description="the bucket's start")
    resistance: float = Field(description="Σ ΔP / Σ exhaust flow: kPa per t/h")
    flow_kgh: float = Field(description="the mean exhaust mass flow of the samples counted (kg/h)")
    dp_kpa: float = Field(description="the mean DPF differential pressure of the samples counted (kPa)")


class Resistance(CanChart):
    points: list[ResistancePoint]
    resistance: float | None = Field(default=None, description="over the whole period (kPa per t/h)")
    min_flow_kgh: float = Field(description="samples under this exhaust flow are left out")


def exhaust_flow(row: Any) -> float | None:
    """The exhaust mass flow of a sample (kg/h): inlet air plus fuel; None without both."""
    if row.air_kgh is None or row.fuel_lph is None or row.dpf_dp_kpa is None:
        return None
    return float(row.air_kgh + row.fuel_lph * DIESEL_KG_PER_L)


@telemetry_res.VEHICLE_DETAIL.action(
    "GET",
    f"{FICS}/monitor/getFilteredFlowResistance",
    summary="One vehicle's DPF flow resistance over a period (at most 7 days): differential pressure over exhaust "
    "mass flow (kPa per t/h), idle samples filtered out",
    kind="aggregate",
    query=PeriodQuery,
    answer=Resistance,
    tag="monitor",
)
async def filtered_flow_resistance(ctx: crud.Ctx, query: PeriodQuery) -> Resistance:
    p = await _period(ctx, query)
    sums: dict[int, list[float]] = {}  # bucket → [Σ ΔP, Σ flow, n]
    for row in p.rows:
        flow = exhaust_flow(row)
        if flow is None or flow < MIN_FLOW_KGH:
            continue
        acc = sums.setdefault(p.bucket(row.sample_time), [0.0, 0.0, 0.0])
        acc[0] += row.dpf_dp_kpa
        acc[1] += flow
        acc[2] += 1
    dp, flow = sum(a[0] for a in sums.values()), sum(a[1] for a in sums.values())
    return Resistance(
        **_chart(p),
        points=[
            ResistancePoint(
                time=p.time_of(k),
                resistance=round(d * 1000.0 / f, 3),
                flow_kgh=round(f / n, 1),
                dp_kpa=round(d / n, 2),
            )
            for k, (d, f, n) in sorted(sums.items())
        ],
        resistance=round(dp * 1000.0 / flow, 3) if flow else None,
        min_flow_kgh=MIN_FLOW_KGH,
    )
