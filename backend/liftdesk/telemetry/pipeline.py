"""The telemetry pipeline: one ordered list of stages every fix goes through, then one durable write per batch.

    order (per terminal, by device time) → late / duplicate → odometer → durations → state machine →
    collision → speeding → overload → fences → battery → faults → offline cleared → position → remember

``Pipeline.submit`` returns only when the report's batch is committed, so a terminal is acknowledged only after
its data is durable. One writer task drains the queue in batches: that keeps per-vehicle order and lets positions
be written in bulk.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, timezone
from typing import Any

from sqlalchemy import select

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Terminal, Vehicle
from liftdesk.system.models import DictBiz, Param
from liftdesk.telemetry.fences import VehicleFences, attach_fences, fences, load_fences
from liftdesk.telemetry.messages import ALARM_COLLISION, DriverChange, Fix, Report
from liftdesk.telemetry.models import VehicleState
from liftdesk.telemetry.rules import PARAM_KEYS, Thresholds, collision_level
from liftdesk.telemetry.view import live_message

log = logging.getLogger("liftdesk.pipeline")
#: A position row: tenant, vehicle, device time, server time, lat, lon, speed, direction, altitude, alarm, status,
#: mileage, load, extra (JSON): the order of ``store.POSITION_COLUMNS``.
PositionRow = tuple[
    str, int, datetime, datetime, float, float, float, int, int, int, int, float | None, float | None, str | None
]
LIVE_TOPIC = "live.vehicle"
TENANT_THRESHOLDS = "telemetry_threshold"  # business dictionary code of a tenant's thresholds
ONE_DAY = timedelta(days=1)

STATE_OFF, STATE_IDLE, STATE_MOVING, STATE_LOADED = "off", "idle", "moving", "loaded"
ALARM_COUNTERS = {
    "collision": "collision_n",
    "speeding": "speeding_n",
    "overload": "overload_n",
    "fence": "fence_n",
    "fence_in": "fence_n",
    "fence_out": "fence_n",
    "fence_cross": "fence_n",
    "fence_speeding": "fence_n",
    "fault": "fault_n",
}


@dataclass
class OpenAlarm:
    event_id: int
    begin: datetime
    value: float
    max_value: float


@dataclass
class VehicleCtx:
    vehicle_id: int
    tenant_id: str
    mechanism_id: int | None
    device: str
    limits: Thresholds
    last: Fix | None = None
    state: str = STATE_OFF
    state_since: datetime | None = None
    mileage_km: float | None = None
    open: dict[str, OpenAlarm] = field(default_factory=dict)  # key: the kind, or "<kind>:<fenceId>" for fences
    driver_name: str | None = None
    fences: VehicleFences | None = None  # enabled bound fences + inside/outside memory (telemetry/fences.py)
    car_no: str | None = None
    can: dict[str, dict[str, Any]] = field(default_factory=dict)  # CAN id (hex) → {data, channel, time}: the latest


@dataclass
class Batch:
    """Everything one durable write carries."""

    tz: timezone
    now: datetime = field(default_factory=utcnow)  # server time of every row the batch writes
    positions: list[PositionRow] = field(default_factory=list)  # newer than anything stored: plain COPY
    late_positions: list[PositionRow] = field(default_factory=list)  # may already be stored: insert-or-ignore
    states: dict[int, VehicleCtx] = field(default_factory=dict)
    new_events: list[dict[str, Any]] = field(default_factory=list)
    closed_events: list[dict[str, Any]] = field(default_factory=list)
    daily: dict[tuple[int, date], dict[str, Any]] = field(default_factory=dict)
    late: int = 0
    duplicates: int = 0

    def day(self, v: VehicleCtx, when: datetime) -> dict[str, Any]:
        local = (when + self.tz.utcoffset(None)).date()
        key = (v.vehicle_id, local)
        row = self.daily.get(key)
        if row is None:
            row = {
                "vehicle_id": v.vehicle_id,
                "day": local,
                "tenant_id": v.tenant_id,
                "mechanism_id": v.mechanism_id,
                "boot_s": 0.0,
                "move_s": 0.0,
                "load_s": 0.0,
                "move_load_s": 0.0,
                "work_s": 0.0,
                "distance_km": 0.0,
                "collision_n": 0,
                "speeding_n": 0,
                "overload_n": 0,
                "fence_n": 0,
                "battery_n": 0,
                "fault_n": 0,
                "other_n": 0,
            }
            self.daily[key] = row
        return row

    def open_alarm(
        self,
        v: VehicleCtx,
        kind: str,
        fix: Fix,
        value: float,
        limit: float | None,
        level: int = 1,
        detail: dict[str, Any] | None = None,
        instant: bool = False,
        key: str | None = None,
    ) -> None:
        """``key`` (default: the kind) names the alarm in ``v.open``: one open alarm per key, so per-fence keys
        let a vehicle hold one alarm per fence while the event's kind stays ``fence_in``."""
        event_id = next_id()
        self.new_events.append(
            {
                "id": event_id,
                "tenant_id": v.tenant_id,
                "vehicle_id": v.vehicle_id,
                "mechanism_id": v.mechanism_id,
                "kind": kind,
                "level": level,
                "begin_time": fix.time,
                "end_time": fix.time if instant else None,
                "value": value,
                "max_value": value,
                "limit_value": limit,
                "lat": fix.lat,
                "lon": fix.lon,
                "driver_name": v.driver_name,
                "detail": json.dumps(detail or {}, ensure_ascii=False),
                "create_time": self.now,
            }
        )
        counter = ALARM_COUNTERS.get(kind) or ("battery_n" if kind.startswith("battery") else "other_n")
        self.day(v, fix.time)[counter] += 1
        if not instant:
            v.open[key or kind] = OpenAlarm(event_id, fix.time, value, value)

    def close_alarm(self, v: VehicleCtx, key: str, when: datetime) -> None:
        alarm = v.open.pop(key, None)
        if alarm is not None:
            self.closed_events.append({"id": alarm.event_id, "end_time": when, "max_value": alarm.max_value})


Stage = Callable[[Fix, VehicleCtx, Batch], bool]


def late_or_duplicate(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """Older than what we have: kept as a position (a blind-zone backfill fills the track) but it does not
    drive the state machine backwards. Same time as the last: a re-sent duplicate, dropped."""
    if v.last is None:
        return True
    if fix.time == v.last.time:
        b.duplicates += 1
        return False
    if fix.time < v.last.time:
        b.late += 1
        b.late_positions.append(position_row(fix, v, b.now))
        return False
    return True


def odometer(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """Distance: the terminal's odometer when it sends one, else the great-circle distance between valid fixes."""
    last = v.last
    if fix.mileage_km is not None:
        if last is not None and v.mileage_km is not None and fix.mileage_km >= v.mileage_km:
            b.day(v, fix.time)["distance_km"] += fix.mileage_km - v.mileage_km
        v.mileage_km = fix.mileage_km
    elif last is not None and fix.valid and last.valid:
        d = haversine_km(last.lat, last.lon, fix.lat, fix.lon)
        if d < 5.0:  # a jump beyond what a forklift can travel in one report is a bad fix, not distance
            b.day(v, fix.time)["distance_km"] += d
            v.mileage_km = (v.mileage_km or 0.0) + d
    return True


def durations(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """The previous sample's flags hold from its time until this one (capped): add them to the day(s)."""
    last = v.last
    if last is None or not last.acc:
        return True
    start = last.time
    end = min(fix.time, start + timedelta(seconds=v.limits.gap_cap_s))
    moving = last.speed_kmh >= v.limits.move_kmh
    loaded = (last.load_kg or 0.0) >= v.limits.load_kg
    offset = b.tz.utcoffset(None)
    while start < end:
        next_local_midnight = datetime.combine((start + offset).date() + ONE_DAY, datetime.min.time())
        cut = min(end, next_local_midnight - offset)
        secs = (cut - start).total_seconds()
        row = b.day(v, start)
        row["boot_s"] += secs
        if moving:
            row["move_s"] += secs
        if loaded:
            row["load_s"] += secs
        if moving and loaded:
            row["move_load_s"] += secs
        if moving or loaded:
            row["work_s"] += secs
        start = cut
    return True


def state_machine(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    if not fix.acc:
        new = STATE_OFF
    elif (fix.load_kg or 0.0) >= v.limits.load_kg:
        new = STATE_LOADED
    elif fix.speed_kmh >= v.limits.move_kmh:
        new = STATE_MOVING
    else:
        new = STATE_IDLE
    if new != v.state or v.state_since is None:
        v.state, v.state_since = new, fix.time
    return True


def collision(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    threshold = v.limits.collision_g
    impact = fix.impact_g
    if impact is not None and impact >= threshold:
        level = collision_level(impact, threshold)
        b.open_alarm(
            v,
            "collision",
            fix,
            impact,
            threshold,
            level=level,
            instant=True,
            detail={"direction": fix.impact_direction},
        )
    elif impact is None and fix.alarm & ALARM_COLLISION and not (v.last and v.last.alarm & ALARM_COLLISION):
        b.open_alarm(v, "collision", fix, 0.0, threshold, level=1, instant=True, detail={"source": "alarm bit 29"})
    return True


def _interval_alarm(
    kind: str,
    value: float | None,
    limit: float,
    fix: Fix,
    v: VehicleCtx,
    b: Batch,
    detail: dict[str, Any] | None = None,
) -> None:
    current = v.open.get(kind)
    if value is not None and value > limit:
        if current is None:
            b.open_alarm(v, kind, fix, value, limit, detail=detail)
        else:
            current.max_value = max(current.max_value, value)
    elif current is not None:
        b.close_alarm(v, kind, fix.time)


def speeding(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    limit = fix.speed_limit_kmh if fix.speed_limit_kmh else v.limits.speed_limit_kmh
    _interval_alarm("speeding", fix.speed_kmh if fix.acc else None, limit, fix, v, b)
    return True


def overload(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    _interval_alarm("overload", fix.load_kg, v.limits.overload_kg, fix, v, b)
    return True


def battery(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    bat = fix.battery
    if bat is None:
        return True
    lim = v.limits
    _interval_alarm("battery_high_voltage", bat.voltage_v, lim.battery_high_v, fix, v, b)
    _interval_alarm("battery_low_voltage", -bat.voltage_v, -lim.battery_low_v, fix, v, b)
    _interval_alarm("battery_over_current", abs(bat.current_a), lim.battery_over_current_a, fix, v, b)
    _interval_alarm("battery_over_temperature", bat.max_temperature_c, lim.battery_over_temp_c, fix, v, b)
    _interval_alarm("battery_liquid_level", 1.0 if bat.liquid_low else 0.0, 0.5, fix, v, b)
    return True


def faults(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    if not fix.fault_codes:
        return True
    before = set(v.last.fault_codes) if v.last else set()
    for code in fix.fault_codes:
        if code not in before:
            b.open_alarm(v, "fault", fix, 0.0, None, instant=True, detail={"code": code})
    return True


def offline_cleared(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    b.close_alarm(v, "offline", fix.time)
    return True


def position(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    b.positions.append(position_row(fix, v, b.now))
    return True


def remember(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    v.last = fix
    b.states[v.vehicle_id] = v
    return True


STAGES: list[Stage] = [
    late_or_duplicate,
    odometer,
    durations,
    state_machine,
    collision,
    speeding,
    overload,
    fences,
    battery,
    faults,
    offline_cleared,
    position,
    remember,
]


def position_row(fix: Fix, v: VehicleCtx, now: datetime) -> PositionRow:
    """One ``fics_position`` row, its values in the order of ``store.POSITION_COLUMNS`` (COPY takes tuples)."""
    extra: dict[str, Any] = dict(fix.extra)
    for key in ("impact_g", "impact_direction", "seat_belt", "fork_height_mm", "lock_level", "speed_limit_kmh"):
        value = getattr(fix, key)
        if value is not None:
            extra[key] = value
    if fix.battery is not None:
        bat = fix.battery
        extra["battery"] = {
            "soc": bat.soc_pct,
            "v": bat.voltage_v,
            "a": bat.current_a,
            "state": str(bat.charge_state),
            "t": list(bat.temperatures_c),
            "cells": list(bat.cell_voltages_mv),
        }
    if fix.fault_codes:
        extra["faults"] = list(fix.fault_codes)
    return (
        v.tenant_id,
        v.vehicle_id,
        fix.time,
        now,
        fix.lat,
        fix.lon,
        fix.speed_kmh,
        fix.direction,
        fix.altitude_m,
        fix.alarm,
        fix.status,
        fix.mileage_km,
        fix.load_kg,
        json.dumps(extra, ensure_ascii=False) if extra else None,
    )


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0088 * math.asin(min(1.0, math.sqrt(a)))


def run_stages(fixes: list[Fix], v: VehicleCtx, b: Batch, stages: list[Stage] = STAGES) -> None:
    for fix in sorted(fixes, key=lambda f: f.time):
        for stage in stages:
            if not stage(fix, v, b):
                break


def remember_can(v: VehicleCtx, report: Report) -> None:
    """The latest frame of each CAN id (what a CAN data page shows); the frames themselves are not kept."""
    when = report.received_at.isoformat() + "Z"
    for frame in report.can:
        key = f"{frame.can_id:08X}"
        v.can[key] = {"data": frame.data.hex().upper(), "channel": frame.channel, "time": when}


def live_view(v: VehicleCtx) -> dict[str, Any]:
    fix = v.last
    return live_message(
        vehicle_id=v.vehicle_id,
        tenant_id=v.tenant_id,
        car_no=v.car_no,
        mechanism_id=v.mechanism_id,
        device=v.device,
        time=fix.time if fix else None,
        lat=fix.lat if fix else None,
        lon=fix.lon if fix else None,
        speed=fix.speed_kmh if fix else 0.0,
        direction=fix.direction if fix else 0,
        state=v.state,
        acc=fix.acc if fix else False,
        load_kg=fix.load_kg if fix else None,
        soc=fix.battery.soc_pct if fix and fix.battery else None,
        open_keys=v.open,
        online=True,
    )


class Pipeline:
    def __init__(
        self, db: Database, bus: Bus, tz_minutes: int = 480, max_batch: int = 4000, max_wait_s: float = 0.02
    ) -> None:
        from liftdesk.telemetry.store import TelemetryStore

        self.db = db
        self.bus = bus
        self.store = TelemetryStore(db)
        self.tz = timezone(timedelta(minutes=tz_minutes))
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self._queue: asyncio.Queue[tuple[list[Report], asyncio.Future[None]]] = asyncio.Queue()
        self._ctx: dict[str, VehicleCtx | None] = {}
        self._task: asyncio.Task[None] | None = None
        self._writing: asyncio.Task[bool] | None = None  # the write of the batch before the one being staged
        self._tenant_limits: dict[str, Thresholds] = {}
        self.written = 0
        self.batches = 0

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="telemetry-pipeline")

    async def stop(self) -> None:
        for task in (self._task, self._writing):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._writing = None

    def forget(self, device: str | None = None) -> None:
        """Drop cached vehicle contexts (after a vehicle or its thresholds changed)."""
        if device is None:
            self._ctx.clear()
            self._tenant_limits.clear()
        else:
            self._ctx.pop(device, None)

    async def set_driver(self, device: str, name: str | None) -> None:
        """The driver on duty changed: through the queue like positions, so that a batch in flight cannot write
        the previous name back, and the positions before the change keep the previous driver."""
        await self.submit(Report(device, (), utcnow(), driver=DriverChange(name)))

    async def submit(self, report: Report | Sequence[Report]) -> None:
        """Queue a report (or several, e.g. every position one read from a socket brought); return once they are
        committed (raise if the write failed). Several reports cost one queue entry and one future."""
        if self._task is None:
            await self.start()
        reports = [report] if isinstance(report, Report) else list(report)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((reports, fut))
        await fut

    async def _collect(self) -> list[tuple[list[Report], asyncio.Future[None]]]:
        """The next batch's queue entries: what is queued, waiting up to ``max_wait_s`` for up to ``max_batch``."""
        loop = asyncio.get_running_loop()
        first = await self._queue.get()
        items = [first]
        count = sum(len(r.fixes) for r in first[0])
        deadline = loop.time() + self.max_wait_s
        while count < self.max_batch:
            if self._queue.empty():
                timeout = deadline - loop.time()
                if timeout <= 0:
                    break
                try:
                    # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation when the item
                    # arrives at the same moment, and stop() would then wait forever.
                    async with asyncio.timeout(timeout):
                        item = await self._queue.get()
                except TimeoutError:
                    break
            else:
                item = self._queue.get_nowait()
            items.append(item)
            count += sum(len(r.fixes) for r in item[0])
        return items

    async def _run(self) -> None:
        """Batches are staged while the previous one is being written (the stages are CPU, the write mostly waits
        for the database), and written one after the other. A batch counts on the previous one's write: when that
        fails, it fails too, and the contexts both touched are dropped (the database is the truth)."""
        while True:
            items = await self._collect()
            reports = [r for rs, _ in items for r in rs]
            if self._writing is not None and any(r.device not in self._ctx for r in reports):
                await self._writing  # a context read from the database now must see the write in flight
                self._writing = None
            try:
                batch = await self.stage(reports)
            except Exception as exc:
                log.exception("telemetry batch of %d reports failed; not acknowledged", len(items))
                self._fail(items, exc)
                continue
            if self._writing is not None:
                written = await self._writing
                self._writing = None
                if not written:
                    self._fail(items, RuntimeError("the batch before this one was not written"))
                    continue
            self._writing = asyncio.create_task(self._commit_items(batch, items))

    async def _commit_items(self, batch: Batch, items: list[tuple[list[Report], asyncio.Future[None]]]) -> bool:
        try:
            await self.commit(batch)
        except Exception as exc:
            log.exception("telemetry batch of %d reports failed; not acknowledged", len(items))
            self._fail(items, exc)
            return False
        for _, fut in items:
            if not fut.done():
                fut.set_result(None)
        return True

    def _fail(self, items: list[tuple[list[Report], asyncio.Future[None]]], exc: BaseException) -> None:
        for reports, fut in items:
            for report in reports:
                self._ctx.pop(report.device, None)  # the cached state may be ahead of the database
            if not fut.done():
                fut.set_exception(exc)

    async def process(self, reports: list[Report]) -> Batch:
        """Run the stages over reports and write the result in one transaction."""
        batch = await self.stage(reports)
        await self.commit(batch)
        return batch

    async def stage(self, reports: list[Report]) -> Batch:
        """Run the stages over reports (loading the contexts they need): the batch to write."""
        batch = Batch(tz=self.tz)
        by_device: dict[str, list[Fix]] = {}
        await self._load_contexts(list({r.device for r in reports if r.device not in self._ctx}))
        for report in reports:
            if report.driver is not None:
                ctx = await self._context(report.device)
                if ctx is not None:  # the positions before the change are the previous driver's
                    run_stages(by_device.pop(report.device, []), ctx, batch)
                    ctx.driver_name = report.driver.name[:64] if report.driver.name else None
                    batch.states[ctx.vehicle_id] = ctx
            if report.can:
                ctx = await self._context(report.device)
                if ctx is not None:
                    remember_can(ctx, report)
                    batch.states[ctx.vehicle_id] = ctx
            by_device.setdefault(report.device, []).extend(report.fixes)
        for device, fixes in by_device.items():
            ctx = await self._context(device)
            if ctx is None:
                continue
            run_stages(fixes, ctx, batch)
        return batch

    async def commit(self, batch: Batch) -> None:
        """Write a staged batch in one transaction, then publish the vehicles' new live states."""
        await self.store.write(batch)
        self.written += len(batch.positions) + len(batch.late_positions)
        self.batches += 1
        for v in batch.states.values():
            await self.bus.publish(LIVE_TOPIC, live_view(v))

    async def _limits(self, tenant_id: str) -> Thresholds:
        """Defaults ← platform parameters (``telemetry.*`` in blade_param) ← the tenant's business dictionary
        ``telemetry_threshold`` (entry key = the parameter key, value = the number); a vehicle's own columns
        override these later."""
        cached = self._tenant_limits.get(tenant_id)
        if cached is None:
            async with self.db.sessionmaker() as s:
                rows = await s.execute(
                    select(Param.param_key, Param.param_value).where(
                        Param.param_key.in_(PARAM_KEYS.values()), Param.is_deleted == 0
                    )
                )
                values = dict(rows.all())
                tenant_rows = await s.execute(
                    select(DictBiz.dict_key, DictBiz.dict_value).where(
                        DictBiz.tenant_id == tenant_id,
                        DictBiz.code == TENANT_THRESHOLDS,
                        DictBiz.parent_id != 0,
                        DictBiz.is_deleted == 0,
                    )
                )
                values.update(dict(tenant_rows.all()))
            overrides: dict[str, Any] = {}
            for name, key in PARAM_KEYS.items():
                if key in values:
                    with contextlib.suppress(ValueError):
                        overrides[name] = type(getattr(Thresholds(), name))(values[key])
            cached = replace(Thresholds(), **overrides)
            self._tenant_limits[tenant_id] = cached
        return cached

    async def _load_contexts(self, devices: list[str]) -> None:
        """Load the contexts of many devices with four queries (a gateway restart brings them all at once)."""
        if not devices:
            return
        async with self.db.sessionmaker() as s:
            terms = (await s.execute(select(Terminal).where(Terminal.device_number.in_(devices)))).scalars().all()
            bound = {t.device_number: t.vehicle_id for t in terms if t.vehicle_id}
            cars = (
                (
                    await s.execute(
                        select(Vehicle).where(
                            Vehicle.is_deleted == 0,
                            (Vehicle.id.in_(list(bound.values()))) | (Vehicle.device_number.in_(devices)),
                        )
                    )
                )
                .scalars()
                .all()
            )
            by_id = {c.id: c for c in cars}
            by_device = {c.device_number: c for c in cars if c.device_number}
            states = {
                st.vehicle_id: st
                for st in (await s.execute(select(VehicleState).where(VehicleState.vehicle_id.in_(list(by_id)))))
                .scalars()
                .all()
            }
            fenced = await load_fences(s, by_id)
        for device in devices:
            car = by_id.get(bound[device]) if device in bound else by_device.get(device)
            ctx = None if car is None else await self._build(device, car, states.get(car.id))
            if ctx is not None:
                attach_fences(ctx, fenced.get(ctx.vehicle_id, ()))
            self._ctx[device] = ctx

    async def _context(self, device: str) -> VehicleCtx | None:
        if device not in self._ctx:
            await self._load_contexts([device])
        return self._ctx[device]

    async def _build(self, device: str, car: Vehicle, state: VehicleState | None) -> VehicleCtx:
        limits = await self._limits(car.tenant_id)
        vehicle_limits: dict[str, Any] = {
            "speed_limit_kmh": car.speed_limit_kmh,
            "overload_kg": car.overload_threshold_kg or car.rated_load_kg,
            "collision_g": car.collision_threshold_g,
        }
        limits = replace(limits, **{k: val for k, val in vehicle_limits.items() if val})
        ctx = VehicleCtx(car.id, car.tenant_id, car.mechanism_id, device, limits, car_no=car.car_no)
        if state is not None:
            ctx.state, ctx.state_since, ctx.mileage_km = state.state, state.state_since, state.mileage_km
            ctx.driver_name = state.driver_name
            ctx.can = dict(json.loads(state.extra or "{}").get("can", {}))
            if state.device_time is not None and state.lat is not None and state.lon is not None:
                ctx.last = Fix(
                    time=state.device_time,
                    lat=state.lat,
                    lon=state.lon,
                    speed_kmh=state.speed,
                    direction=state.direction,
                    alarm=state.alarm,
                    status=state.status,
                    mileage_km=state.mileage_km,
                    load_kg=state.load_kg,
                )
            for kind, raw in json.loads(state.open_events or "{}").items():
                ctx.open[kind] = OpenAlarm(
                    int(raw["id"]), datetime.fromisoformat(raw["begin"]), float(raw["value"]), float(raw["max"])
                )
        return ctx
