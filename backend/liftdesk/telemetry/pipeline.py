"""The telemetry pipeline: one ordered list of stages every fix goes through, then one durable write per batch.

    plausible (per terminal, in arrival order) → order (by device time) → late / duplicate → odometer → durations →
    state machine → collision → speeding → overload → fences → battery → JT/T 808 alarm bits → faults →
    offline cleared → position → remember

``Pipeline.submit`` returns only when the report's batch is committed, so a terminal is acknowledged only after
its data is durable; it raises :class:`~liftdesk.telemetry.messages.UnknownDevice` for a submission with a terminal
bound to no vehicle (nothing of that terminal was stored). One writer task drains the queue in batches: that keeps
per-vehicle order and lets positions be written in bulk.

What each kind of fix does:

* **newer than the vehicle's last fix** (the usual case): every stage, on the vehicle's live context.
* **the time of the last fix**: a re-send (equal to a fix already seen at that time) is dropped; a fix that
  differs (an alarm frame in the same second as the regular report: other alarm bits, an impact, a fault code)
  goes through the state and alarm stages but stores no second position (the primary key is tenant, vehicle,
  device time: the first one stays) and adds no distance or time.
* **older than the last fix** (a blind-zone backfill, 0x0704 type 1, or a late re-send): fixes already stored are
  dropped; the others are replayed after the live ones on a *scratch* context (:func:`replay_late`): durations and
  alarm stages with their own times, stored positions, no distance, and the live state (``last``, ``state``,
  ``open``) does not move back.
* **dated beyond plausibility** - older than the tenant's retention window, or more than :data:`CLOCK_AHEAD` ahead
  of the server clock - in a live report: the terminal's clock is wrong (one that was never set is common among
  other makers' terminals). Kept out of the history: no position row (its month may be dropped already), no daily
  aggregate, no alarm by its device time, and the context's ``last`` does not move (the history's order stays
  that of the plausible fixes). But it is where the vehicle is now: its position and values become the live state
  (:class:`ClockFault`: ``VehicleState`` and the live feed, dated by the server time it arrived at, with
  ``clockFault`` and the time the terminal gave it) and a ``terminal_clock`` alarm is open (dated by the server,
  not counted in the daily aggregates) until a plausible live fix arrives, which clears both. Which of the two
  holds at the end of a batch follows the order in which the reports arrived (:func:`run_live`): dates from a
  wrong clock cannot be ordered against right ones. Counted as ``clock_faults``, acknowledged.
* **from a blind-zone backfill and dated beyond plausibility**: history by nature (a terminal out of coverage
  for longer than the retention), not the vehicle's present: not stored, counted as ``expired``, acknowledged all
  the same - a re-send would meet the same fate; no clock verdict either way.
* **without a GNSS fix** (status bit 1 clear): stored with their status (the track leaves them out), their time,
  speed, ACC, load and battery count, but the vehicle stays where its last valid fix put it (state, live view,
  event locations, distance, fences).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from sqlalchemy import select

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Terminal, Vehicle
from liftdesk.system.models import Tenant
from liftdesk.telemetry.fences import VehicleFences, attach_fences, fences, load_fences
from liftdesk.telemetry.messages import ALARM_COLLISION, STATUS_FIX, DriverChange, Fix, Report, UnknownDevice
from liftdesk.telemetry.models import VehicleState
from liftdesk.telemetry.rules import (
    PARAM_PREFIX,
    TENANT_THRESHOLDS,
    Thresholds,
    collision_level,
    load_threshold_kg,
    tenant_thresholds,
)
from liftdesk.telemetry.store import fix_signature, retention_cut
from liftdesk.telemetry.view import EVENT_TOPIC, LIVE_TOPIC, LiveVehicle, alarm_kinds, event_message

log = logging.getLogger("liftdesk.pipeline")
#: A position row: tenant, vehicle, device time, server time, lat, lon, speed, direction, altitude, alarm, status,
#: mileage, load, extra (JSON): the order of ``store.POSITION_COLUMNS``.
PositionRow = tuple[
    str, int, datetime, datetime, float, float, float, int, int, int, int, float | None, float | None, str | None
]
ONE_DAY = timedelta(days=1)
#: How far ahead of the server clock a report may be dated and still be believed (a terminal's clock drifts a little,
#: and GNSS time runs a little ahead of a server a few seconds slow): later than this, the terminal's clock is wrong.
CLOCK_AHEAD = timedelta(minutes=10)
#: The alarm open while a terminal's clock is wrong (its reports dated beyond plausibility); see :func:`run_live`.
TERMINAL_CLOCK = "terminal_clock"
STATUS_LOAD = (1 << 8) | (1 << 9)  # 0x0200 status bits 8-9: 00 empty, 01 half, 11 full (fleet-domain §4 fallback)

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
}  # any other kind counts in battery_n (``battery_*``) or other_n (``jt808_*``, ...)

__all__ = ["CLOCK_AHEAD", "LIVE_TOPIC", "TENANT_THRESHOLDS", "TERMINAL_CLOCK", "Pipeline", "VehicleCtx", "live_view"]


@dataclass
class OpenAlarm:
    event_id: int  # 0: an alarm a backfill must not open again, held by an event it does not own (see replay_late)
    begin: datetime
    value: float
    max_value: float


@dataclass(frozen=True)
class ClockFault:
    """The latest live report of a terminal whose clock is wrong: where and how the vehicle is now, shown live and
    stored nowhere else (see the module docstring)."""

    fix: Fix  # as reported: its time is what the terminal's wrong clock said
    received: datetime  # the server time it arrived at (its batch's): the live state's time
    where: Fix | None  # the position shown: this fix when valid, else the last valid one (of the fault or history)


@dataclass
class VehicleCtx:
    vehicle_id: int
    tenant_id: str
    mechanism_id: int | None
    device: str
    limits: Thresholds  # the vehicle's own: tenant thresholds with its columns applied (load_kg: its w_min)
    last: Fix | None = None
    state: str = STATE_OFF
    state_since: datetime | None = None
    mileage_km: float | None = None
    open: dict[str, OpenAlarm] = field(default_factory=dict)  # key: the kind, or "<kind>:<fenceId>" for fences
    driver_name: str | None = None
    fences: VehicleFences | None = None  # enabled bound fences + inside/outside memory (telemetry/fences.py)
    car_no: str | None = None
    car_type: int | None = None
    can: dict[str, dict[str, Any]] = field(default_factory=dict)  # CAN id (hex) → {data, channel, time}: the latest
    located: Fix | None = None  # the last fix with a valid position: where the vehicle is
    twins: tuple[Fix, ...] = ()  # the other fixes seen with the time of ``last`` (usually none)
    # Signatures (store.fix_signature) of the fixes stored with the time of ``last`` before this context was loaded,
    # so that a re-send is known after a restart; None: unknown (a state written before they were kept).
    sigs: frozenset[int] | None = frozenset()
    keep_from: datetime = datetime.min  # the tenant's retention cut: older fixes are not stored
    scratch: bool = False  # a backfill's replay context (replay_late), not the vehicle's live one
    clock: ClockFault | None = None  # the terminal's clock is wrong: its latest report, the live state meanwhile
    gap: timedelta = field(init=False, repr=False)  # limits.gap_cap_s, ready to add

    def __post_init__(self) -> None:
        self.gap = timedelta(seconds=self.limits.gap_cap_s)

    def snapshot(self) -> VehicleCtx:
        """What a batch writes and publishes of this context, taken when the batch is staged: the pipeline stages
        the next batch on the live context while this one is being written, and the state a transaction stores
        must be that of its own fixes - were it ahead, a re-send of the next batch's fixes after a crash would be
        dropped as a duplicate and lost."""
        snap = replace(self)
        snap.open = {k: replace(a) for k, a in self.open.items()}
        snap.can = dict(self.can)
        return snap


@dataclass
class Batch:
    """Everything one durable write carries."""

    tz: timezone
    now: datetime = field(default_factory=utcnow)  # server time of every row the batch writes
    positions: list[PositionRow] = field(default_factory=list)  # newer than anything stored: plain COPY
    late_positions: list[PositionRow] = field(default_factory=list)  # backfill: insert-or-ignore
    states: dict[int, VehicleCtx] = field(default_factory=dict)
    open_only: dict[int, VehicleCtx] = field(default_factory=dict)  # states of which only open_events changed
    new_events: list[dict[str, Any]] = field(default_factory=list)
    closed_events: list[dict[str, Any]] = field(default_factory=list)
    daily: dict[tuple[int, date], dict[str, Any]] = field(default_factory=dict)
    late_fixes: list[tuple[VehicleCtx, Fix]] = field(default_factory=list)  # older than the live state: replayed
    backfilled: set[int] = field(default_factory=set)  # id() of the fixes of backfill reports
    unknown: set[str] = field(default_factory=set)  # terminals bound to no vehicle: their submissions fail
    late: int = 0  # late fixes stored (and replayed)
    duplicates: int = 0  # re-sent fixes dropped
    twins: int = 0  # same-time fixes that differed from the last: alarms only
    expired: int = 0  # backfilled fixes dated beyond plausibility: not stored
    clock_faults: int = 0  # live fixes dated beyond plausibility: the live state only (run_live)
    offset: timedelta = field(init=False)

    def __post_init__(self) -> None:
        self.offset = self.tz.utcoffset(None)

    def day(self, v: VehicleCtx, when: datetime) -> dict[str, Any]:
        local = (when + self.offset).date()
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
                "lift_s": 0.0,
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
        begin: datetime | None = None,
        count: bool = True,
    ) -> None:
        """``key`` (default: the kind) names the alarm in ``v.open``: one open alarm per key, so per-fence keys
        let a vehicle hold one alarm per fence while the event's kind stays ``fence_in``. The event is placed
        where the vehicle is: the fix's position if valid, else the last valid one. It begins at the fix's time
        unless ``begin`` says otherwise (a fix whose time is not to be believed), and counts in its day's
        aggregates unless ``count`` is False."""
        event_id = next_id()
        begin = fix.time if begin is None else begin
        where = fix if fix.valid else v.located
        self.new_events.append(
            {
                "id": event_id,
                "tenant_id": v.tenant_id,
                "vehicle_id": v.vehicle_id,
                "mechanism_id": v.mechanism_id,
                "kind": kind,
                "level": level,
                "begin_time": begin,
                "end_time": begin if instant else None,
                "value": value,
                "max_value": value,
                "limit_value": limit,
                "lat": where.lat if where is not None else None,
                "lon": where.lon if where is not None else None,
                "driver_name": v.driver_name,
                "detail": json.dumps(detail or {}, ensure_ascii=False),
                "create_time": self.now,
            }
        )
        if count:
            counter = ALARM_COUNTERS.get(kind) or ("battery_n" if kind.startswith("battery") else "other_n")
            self.day(v, begin)[counter] += 1
        if not instant:
            v.open[key or kind] = OpenAlarm(event_id, begin, value, value)

    def close_alarm(self, v: VehicleCtx, key: str, when: datetime) -> None:
        alarm = v.open.pop(key, None)
        if alarm is not None and alarm.event_id:
            self.closed_events.append(
                {
                    "id": alarm.event_id,
                    "tenant_id": v.tenant_id,
                    "begin_time": alarm.begin,
                    "end_time": when,
                    "max_value": alarm.max_value,
                }
            )


Stage = Callable[[Fix, VehicleCtx, Batch], bool]


def is_loaded(fix: Fix, limits: Thresholds) -> bool:
    """Carrying a load (fleet-domain §4): the weight at or above the vehicle's w_min (``limits.load_kg``, set to
    max(50 kg, 5 % of its rated load) when its context is built); without a weight, status bits 8-9 ≠ 00."""
    load = fix.load_kg
    if load is not None:
        return load >= limits.load_kg
    return bool(fix.status & STATUS_LOAD)


def count_interval(b: Batch, v: VehicleCtx, sample: Fix, until: datetime, sign: float = 1.0) -> None:
    """Add ``sample``'s flags over [its time, min(``until``, its time + the gap cap)] to the day(s) it spans
    (``sign`` -1: take them back). Nothing while ACC is off. Work = move ∪ load ∪ lift."""
    if not sample.acc:
        return
    start = sample.time
    end = min(until, start + v.gap)
    if start >= end:
        return
    lim = v.limits
    moving = sample.speed_kmh >= lim.move_kmh
    loaded = is_loaded(sample, lim)
    lifting = bool(sample.lifting)
    offset = b.offset
    while start < end:
        next_local_midnight = datetime.combine((start + offset).date() + ONE_DAY, datetime.min.time())
        cut = min(end, next_local_midnight - offset)
        secs = (cut - start).total_seconds() * sign
        row = b.day(v, start)
        row["boot_s"] += secs
        if moving:
            row["move_s"] += secs
        if loaded:
            row["load_s"] += secs
        if moving and loaded:
            row["move_load_s"] += secs
        if lifting:
            row["lift_s"] += secs
        if moving or loaded or lifting:
            row["work_s"] += secs
        start = cut


def late_or_duplicate(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """Older than the last fix: set aside for :func:`replay_late` after the live fixes. The time of the last fix:
    a re-send (equal to a fix seen at that time, or to one stored before a restart) is dropped; a fix that
    differs goes on (the stages below store no second row for it)."""
    last = v.last
    if last is None or fix.time > last.time:
        return True
    if fix.time < last.time:
        b.late_fixes.append((v, fix))
        return False
    if fix == last or fix in v.twins or v.sigs is None or (v.sigs and fix_signature(fix) in v.sigs):
        b.duplicates += 1
        return False
    b.twins += 1
    return True


def odometer(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """Distance: the terminal's odometer when it sends one, else the great-circle distance from the last valid
    position. A same-time fix travels nowhere; a backfill adds none (the live fixes around the blind zone
    already counted the way from one to the other)."""
    last = v.last
    if v.scratch or (last is not None and fix.time == last.time):
        return True
    if fix.mileage_km is not None:
        if last is not None and v.mileage_km is not None and fix.mileage_km >= v.mileage_km:
            b.day(v, fix.time)["distance_km"] += fix.mileage_km - v.mileage_km
        v.mileage_km = fix.mileage_km
    elif fix.valid and (here := v.located) is not None:
        d = haversine_km(here.lat, here.lon, fix.lat, fix.lon)
        if d < 5.0:  # a jump beyond what a forklift can travel in one report is a bad fix, not distance
            b.day(v, fix.time)["distance_km"] += d
            v.mileage_km = (v.mileage_km or 0.0) + d
    return True


def durations(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """The previous sample's flags hold from its time until this one, capped at ``gap_cap_s``: longer silences
    are unknown time, not idle (fleet-domain §4). See :func:`count_interval`."""
    last = v.last
    if last is not None:
        count_interval(b, v, last, fix.time)
    return True


def state_of(fix: Fix, limits: Thresholds) -> str:
    if not fix.acc:
        return STATE_OFF
    if is_loaded(fix, limits):
        return STATE_LOADED
    if fix.speed_kmh >= limits.move_kmh:
        return STATE_MOVING
    return STATE_IDLE


def state_machine(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    new = state_of(fix, v.limits)
    if new != v.state or v.state_since is None:
        v.state, v.state_since = new, fix.time
    return True


def collision(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """An impact at or above the vehicle's threshold, graded 1-5 (``rules.collision_level``); without a measured
    peak, the rising edge of alarm bit 29 (level 1)."""
    threshold = v.limits.collision_g
    impact = fix.impact_g
    if impact is not None and impact > 0 and impact >= threshold:
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


#: The JT/T 808 0x0200 alarm bits (codecs/jt808/location.py ``AlarmFlag``) that become interval events.
JT808_ALARMS: tuple[tuple[int, str], ...] = (
    (1 << 0, "jt808_emergency"),
    (1 << 1, "jt808_overspeed"),
    (1 << 4, "jt808_gnss_fault"),
    (1 << 5, "jt808_antenna_disconnected"),
    (1 << 6, "jt808_antenna_short"),
    (1 << 7, "jt808_power_low"),
    (1 << 8, "jt808_power_cut"),
    (1 << 11, "jt808_camera_fault"),
    (1 << 12, "jt808_ic_card_fault"),
    (1 << 19, "jt808_parking_overtime"),
    (1 << 24, "jt808_vss_fault"),
    (1 << 26, "jt808_theft"),
    (1 << 27, "jt808_illegal_ignition"),
    (1 << 28, "jt808_illegal_move"),
    (1 << 30, "jt808_rollover_warning"),
)
JT808_MASK = sum(bit for bit, _ in JT808_ALARMS)
JT808_OVERSPEED = 1 << 1


def jt808_alarms(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """The terminal's own alarm bits: an interval event opens when a bit turns on and closes when it turns off.
    Each counts in the day's ``other_n``.

    ===  ==============================  =====================================================================
    bit  kind                            note
    ===  ==============================  =====================================================================
    0    ``jt808_emergency``             panic button; the terminal clears it when the platform confirms it
                                         (0x8203), so the event lasts until someone confirms it
    1    ``jt808_overspeed``             the terminal's own limit; not opened while our ``speeding`` is open
                                         (one overspeed, counted once)
    4    ``jt808_gnss_fault``            GNSS module fault: positions become invalid
    5    ``jt808_antenna_disconnected``  GNSS antenna cut (tampering, or a cable torn off at a rack)
    6    ``jt808_antenna_short``         GNSS antenna short circuit
    7    ``jt808_power_low``             main power under-voltage (the traction battery feeding the terminal)
    8    ``jt808_power_cut``             main power cut: the terminal runs on its backup battery
    11   ``jt808_camera_fault``          camera fault (DMS / video terminals)
    12   ``jt808_ic_card_fault``         IC card reader fault: drivers cannot sign in
    19   ``jt808_parking_overtime``      parked longer than the terminal's limit
    24   ``jt808_vss_fault``             vehicle speed sensor fault: speeds are unreliable
    26   ``jt808_theft``                 anti-theft alarm
    27   ``jt808_illegal_ignition``      ignition without authorisation (cleared by the confirmation)
    28   ``jt808_illegal_move``          moved without authorisation (cleared by the confirmation)
    30   ``jt808_rollover_warning``      tip-over warning
    ===  ==============================  =====================================================================

    Bit 29 (collision) is the collision stage's; area and route bits (20-23) are left to our own fences; the
    road-vehicle bits (fatigue, tyres, lane, daily driving time...) mean nothing on a forklift.
    """
    bits = fix.alarm & JT808_MASK
    last = v.last
    if bits == (last.alarm & JT808_MASK if last is not None else 0):
        return True  # nothing turned on or off: the usual case, one comparison
    for bit, kind in JT808_ALARMS:
        if bits & bit:
            if kind not in v.open and not (bit == JT808_OVERSPEED and "speeding" in v.open):
                b.open_alarm(v, kind, fix, 1.0, None, detail={"bit": bit.bit_length() - 1})
        elif kind in v.open:
            b.close_alarm(v, kind, fix.time)
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
    """The fix's row; none for a same-time fix (the first one at that time stays). A backfill's rows are late."""
    last = v.last
    if last is not None and fix.time == last.time:
        return True
    row = position_row(fix, v, b.now, bool(b.backfilled) and id(fix) in b.backfilled)
    (b.late_positions if v.scratch else b.positions).append(row)
    return True


def remember(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    last = v.last
    if last is not None and fix.time == last.time:
        v.twins = (*v.twins, last)
    elif v.twins or v.sigs is None or v.sigs:
        v.twins, v.sigs = (), frozenset()
    v.last = fix
    if fix.valid:
        v.located = fix
    if not v.scratch:
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
    jt808_alarms,
    faults,
    offline_cleared,
    position,
    remember,
]


def run_live(fixes: list[Fix], v: VehicleCtx, b: Batch) -> None:
    """A vehicle's fixes of one batch on its live context, in the order they arrived: those dated within
    plausibility (from the tenant's retention cut, ``v.keep_from``, to :data:`CLOCK_AHEAD` past the server clock)
    go through the stages (:func:`run_stages`, in device time order); the others are kept out of the history. A
    live one tells the terminal's clock is wrong (:func:`clock_wrong`); a backfilled one is dropped. The clock
    verdict follows the arrival order: the last live fix to arrive decides whether the fault holds at the end of
    the batch (a wrong clock's dates cannot be ordered against right ones)."""
    ahead = b.now + CLOCK_AHEAD
    plausible: list[Fix] = []
    backfilled = b.backfilled
    for fix in fixes:
        if v.keep_from <= fix.time <= ahead:
            plausible.append(fix)
            if not (backfilled and id(fix) in backfilled):
                clock_right(v, b)
        elif backfilled and id(fix) in backfilled:
            b.expired += 1
        else:
            clock_wrong(fix, v, b)
    run_stages(plausible, v, b)


def clock_wrong(fix: Fix, v: VehicleCtx, b: Batch) -> None:
    """A live fix dated beyond plausibility: the vehicle's live state (position, speed, state) and nothing else -
    no position row, no daily aggregate, ``v.last`` stays the last plausible fix. A ``terminal_clock`` alarm opens
    (dated by the server: the fix's time is not to be believed, and its month may be gone; not counted in the
    daily aggregates) unless open already; its value is the clock's offset in seconds (negative: behind), its
    ``max_value`` the largest offset seen. The terminal is heard from, so an ``offline`` alarm ends."""
    b.clock_faults += 1
    previous = v.clock
    where = fix if fix.valid else (previous.where if previous is not None else v.located)
    v.clock = ClockFault(fix, b.now, where)
    new = state_of(fix, v.limits)
    if new != v.state or v.state_since is None:
        v.state, v.state_since = new, b.now  # in server time: the fix's own is not to be believed
    offset = (fix.time - b.now).total_seconds()
    alarm = v.open.get(TERMINAL_CLOCK)
    if alarm is None:
        ahead = fix.time > b.now
        detail = {
            "deviceTime": fix.time.isoformat(),
            "serverTime": b.now.isoformat(),
            "reason": "ahead" if ahead else "before_retention",
            "limit": (b.now + CLOCK_AHEAD).isoformat() if ahead else v.keep_from.isoformat(),
        }
        b.open_alarm(v, TERMINAL_CLOCK, fix, offset, None, level=2, detail=detail, begin=b.now, count=False)
    elif abs(offset) > abs(alarm.max_value):
        alarm.max_value = offset
    b.close_alarm(v, "offline", b.now)
    b.states[v.vehicle_id] = v


def clock_right(v: VehicleCtx, b: Batch) -> None:
    """A plausible live fix: the terminal's clock is right (again). The fault's live state gives way to the
    history's (the stages that follow put the fix there) and the ``terminal_clock`` alarm ends now."""
    if v.clock is None and TERMINAL_CLOCK not in v.open:
        return
    v.clock = None
    b.close_alarm(v, TERMINAL_CLOCK, b.now)
    b.states[v.vehicle_id] = v


def replay_late(v: VehicleCtx, late: list[Fix], stored: list[Fix], held: set[str], b: Batch) -> None:
    """Replay late fixes (oldest first, none of them stored yet) among the stored positions around them
    (``stored``: those within a gap cap of them, oldest first), on a scratch copy of ``v``: its limits and fences,
    the interval alarms other events already hold over that stretch (``held``: not opened again), its state from
    the first late fix. The live context is not touched.

    Durations, exactly once: each sample's flags hold until the next sample, capped at ``gap_cap_s``
    (:func:`durations`). When the blind zone began, the live stage counted the last sample before it (P) up to
    the first one after it (N) or the cap, whichever came first; the late fixes L1..Lk now sit between them. So
    P's interval is taken back (to N) and counted again (to L1, by the durations stage on the scratch context),
    each Li counts to the next one, and Lk to N (capped). A stored sample more than a cap before L1 is not
    looked at: its interval ended before L1 either way. The same holds between any two stored samples a backfill
    lands between.

    Events are written with their own times (and counted on their own days); an alarm still open after the last
    late fix ends at N (the sample that follows), as a live alarm ends at the first sample without it. Distance
    is not counted: the live stage measured P → N. Events take the driver on duty now.
    """
    scratch = VehicleCtx(
        v.vehicle_id,
        v.tenant_id,
        v.mechanism_id,
        v.device,
        v.limits,
        driver_name=v.driver_name,
        car_no=v.car_no,
        keep_from=v.keep_from,
        scratch=True,
    )
    if v.fences is not None and v.fences.fences:
        scratch.fences = VehicleFences(v.fences.fences)
    for key in held:
        scratch.open[key] = OpenAlarm(0, late[0].time, 0.0, 0.0)
    samples = sorted([(f, False) for f in stored] + [(f, True) for f in late], key=lambda s: s[0].time)
    next_stored: list[datetime] = [datetime.max] * len(samples)  # time of the next stored sample after each
    upcoming = datetime.max
    for i in range(len(samples) - 1, -1, -1):
        next_stored[i] = upcoming
        if not samples[i][1]:
            upcoming = samples[i][0].time
    after_late = False
    for i, (f, is_late) in enumerate(samples):
        if is_late:
            run_stages([f], scratch, b)  # counts the sample before it up to it, alarms, its row
            after_late = True
            continue
        if after_late and scratch.last is not None:
            count_interval(b, scratch, scratch.last, f.time)  # the late fix before this stored one ends here
        if i + 1 < len(samples) and samples[i + 1][1]:
            count_interval(b, scratch, f, next_stored[i], -1.0)  # ... and this one now ends at a late fix
        scratch.last = f
        if f.valid:
            scratch.located = f
            if scratch.fences is not None:
                scratch.fences.inside = {g.id: g.contains(f.lon, f.lat) for g in scratch.fences.fences}
        after_late = False
    if after_late and scratch.last is not None:
        count_interval(b, scratch, scratch.last, datetime.max)  # no stored sample within a cap: capped
    end = next((f.time for f in stored if f.time > late[-1].time), late[-1].time)
    for key in [k for k, a in scratch.open.items() if a.event_id]:
        b.close_alarm(scratch, key, end)


def position_row(fix: Fix, v: VehicleCtx, now: datetime, backfill: bool = False) -> PositionRow:
    """One ``fics_position`` row, its values in the order of ``store.POSITION_COLUMNS`` (COPY takes tuples)."""
    extra: dict[str, Any] = dict(fix.extra)
    for key in (
        "impact_g",
        "impact_direction",
        "seat_belt",
        "fork_height_mm",
        "lifting",
        "lock_level",
        "speed_limit_kmh",
    ):
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
    if backfill:
        extra["backfill"] = True  # sent from the terminal's blind-zone store (0x0704 type 1), not live
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


def live_view(v: VehicleCtx, now: datetime) -> dict[str, Any]:
    """The vehicle's live state: its last fix, or while its terminal's clock is wrong the latest report of the
    fault (dated by the server time it arrived at, ``clockFault`` set)."""
    fault = v.clock
    fix = fault.fix if fault is not None else v.last
    where = fault.where if fault is not None else v.located
    when = fault.received if fault is not None else fix.time if fix else None
    return LiveVehicle(
        car_id=v.vehicle_id,
        tenant_id=v.tenant_id,
        car_no=v.car_no,
        device_number=v.device,
        mechanism_id=v.mechanism_id,
        car_type=v.car_type,
        online=True,  # a report just came from its terminal
        acc=fix.acc if fix else False,
        state=v.state,
        lat=where.lat if where else None,
        lon=where.lon if where else None,
        speed=fix.speed_kmh if fix else 0.0,
        direction=fix.direction if fix else 0,
        gps_time=when,
        last_seen=now,
        mileage=v.mileage_km,
        load_kg=fix.load_kg if fix else None,
        soc=fix.battery.soc_pct if fix and fix.battery else None,
        lock_level=fix.lock_level if fix else None,
        alarms=alarm_kinds(v.open),
        driver_name=v.driver_name,
        clock_fault=fault is not None,
        clock_fault_time=fault.fix.time if fault is not None else None,
        can=dict(v.can),
    ).message()


@dataclass(frozen=True)
class TenantCfg:
    """What the pipeline keeps of a tenant: its thresholds and how many months of data it keeps (None: unknown
    tenant, nothing expires)."""

    limits: Thresholds
    retention_months: int | None


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
        self._tenants: dict[str, TenantCfg] = {}
        self._cuts: dict[str, tuple[date, datetime]] = {}  # tenant → (the day it was worked out on, retention cut)
        self._floors: dict[str, date] = {}  # tenant → first day kept, as the last retention run announced it
        self._offline: dict[str, dict[str, Any]] = {}  # device → offline notice not yet applied to its context
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
            self._tenants.clear()
            self._cuts.clear()
        else:
            self._ctx.pop(device, None)

    # ------------------------------------------------------------------ bus notices (wired in app.wire_telemetry)

    async def on_offline(self, msg: dict[str, Any]) -> None:
        """``jobs.OFFLINE_TOPIC``: the offline job opened an ``offline`` alarm and wrote it into the vehicle's stored
        state. A cached context does not know it: without this, the next report would write ``open_events`` back
        without it and the alarm would never end. Applied when the next batch is staged (see
        :meth:`_apply_offline`), so that it takes its place among the batches."""
        device = str(msg.get("deviceNumber") or "")
        if device:
            self._offline[device] = msg

    async def on_retention(self, msg: dict[str, Any]) -> None:
        """``jobs.RETENTION_TOPIC``: a retention run (in this process or another) dropped months of a tenant. The
        keepers forget those partitions and nothing older than the first day kept is stored from now on, even
        while this process still holds a longer retention period."""
        tenant = str(msg.get("tenantId") or "")
        with contextlib.suppress(TypeError, ValueError):
            keep = date.fromisoformat(str(msg.get("keepFrom")))
            if tenant and keep > self._floors.get(tenant, date.min):
                self._floors[tenant] = keep
                self._cuts.pop(tenant, None)
        dropped = msg.get("dropped")
        self.store.forget_partitions(str(n) for n in (dropped if isinstance(dropped, list) else ()))

    async def on_settings_changed(self, msg: dict[str, Any]) -> None:
        """``system.service.SETTINGS_CHANGED``: a parameter, a business dictionary entry or a tenant was saved or
        removed. Thresholds (``telemetry.*`` parameters: every tenant; a tenant's ``telemetry_threshold``
        dictionary: that tenant) are read again, and the contexts built on them rebuilt; a tenant's retention is
        read again."""
        kind, code, tenant = msg.get("kind"), str(msg.get("code") or ""), str(msg.get("tenantId") or "")
        if kind == "tenant":
            if tenant:
                self._tenants.pop(tenant, None)
                self._cuts.pop(tenant, None)
                self._floors.pop(tenant, None)
            return
        if kind == "param" and code.startswith(PARAM_PREFIX):
            self._drop_thresholds(None)
        elif kind == "dict_biz" and code == TENANT_THRESHOLDS and tenant:
            self._drop_thresholds(tenant)

    def _drop_thresholds(self, tenant: str | None) -> None:
        if tenant is None:
            self._tenants.clear()
            self._cuts.clear()
        else:
            self._tenants.pop(tenant, None)
            self._cuts.pop(tenant, None)
        # A context dropped now is loaded again by the next batch of its vehicle, after the write in flight.
        for device in [d for d, c in self._ctx.items() if c is not None and tenant in (None, c.tenant_id)]:
            del self._ctx[device]

    def _apply_offline(self, batch: Batch) -> None:
        """Put the offline alarms announced since the last batch into the cached contexts. A context not cached
        will be read from the database, which has the alarm. When the vehicle reported after the job looked
        (its fix was in a batch being written then), it is not offline: the alarm ends at once."""
        notices, self._offline = self._offline, {}
        for device, msg in notices.items():
            ctx = self._ctx.get(device)
            if ctx is None or "offline" in ctx.open:
                continue
            try:
                event_id = int(msg["eventId"])
                begin = datetime.fromisoformat(str(msg["begin"]))
                days = float(msg.get("days") or 0.0)
                seen = datetime.fromisoformat(str(msg["deviceTime"])) if msg.get("deviceTime") else None
            except (KeyError, TypeError, ValueError):
                log.warning("malformed offline notice for %s: %r", device, msg)
                continue
            ctx.open["offline"] = OpenAlarm(event_id, begin, days, days)
            if ctx.last is not None and seen is not None and ctx.last.time > seen:
                batch.close_alarm(ctx, "offline", max(begin, ctx.last.time))
            batch.open_only[ctx.vehicle_id] = ctx

    # ------------------------------------------------------------------ the queue and the writer

    async def set_driver(self, device: str, name: str | None) -> None:
        """The driver on duty changed: through the queue like positions, so that a batch in flight cannot write
        the previous name back, and the positions before the change keep the previous driver."""
        await self.submit(Report(device, (), utcnow(), driver=DriverChange(name)))

    async def submit(self, report: Report | Sequence[Report]) -> None:
        """Queue a report (or several, e.g. every position one read from a socket brought); return once they are
        committed (raise if the write failed). Several reports cost one queue entry and one future.

        Raises :class:`UnknownDevice` when a report's terminal is bound to no vehicle: that terminal's data was not
        stored (the other terminals' data of the submission was), so it must not be acknowledged. Only this
        submission fails; the others of the same batch are unaffected."""
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
        for reports, fut in items:
            if fut.done():
                continue
            unknown = frozenset(r.device for r in reports if r.device in batch.unknown) if batch.unknown else None
            if unknown:
                fut.set_exception(UnknownDevice(unknown))
            else:
                fut.set_result(None)
        return True

    def _fail(self, items: list[tuple[list[Report], asyncio.Future[None]]], exc: BaseException) -> None:
        for reports, fut in items:
            for report in reports:
                self._ctx.pop(report.device, None)  # the cached state may be ahead of the database
            if not fut.done():
                fut.set_exception(exc)

    async def process(self, reports: list[Report]) -> Batch:
        """Run the stages over reports and write the result in one transaction (raising :class:`UnknownDevice`,
        once the rest is written, when a terminal is bound to no vehicle)."""
        batch = await self.stage(reports)
        await self.commit(batch)
        if batch.unknown:
            raise UnknownDevice(frozenset(batch.unknown))
        return batch

    async def stage(self, reports: list[Report]) -> Batch:
        """Run the stages over reports (loading the contexts they need): the batch to write."""
        batch = Batch(tz=self.tz)
        by_device: dict[str, list[Fix]] = {}
        await self._load_contexts(list({r.device for r in reports if r.device not in self._ctx}))
        if self._offline:
            self._apply_offline(batch)
        for report in reports:
            if report.backfill and report.fixes:
                batch.backfilled.update(id(f) for f in report.fixes)
            if report.driver is not None:
                ctx = await self._context(report.device)
                if ctx is not None:  # the positions before the change are the previous driver's
                    await self._run_live(by_device.pop(report.device, []), ctx, batch)
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
                batch.unknown.add(device)
                continue
            await self._run_live(fixes, ctx, batch)
        if batch.late_fixes:
            await self._backfill(batch)
        if batch.expired:
            log.debug("%d backfilled fixes dated beyond plausibility: not stored", batch.expired)
        if batch.clock_faults:
            log.debug("%d fixes from terminals whose clock is wrong: live state only", batch.clock_faults)
        batch.states = {vid: v.snapshot() for vid, v in batch.states.items()}
        batch.open_only = {vid: v.snapshot() for vid, v in batch.open_only.items()}
        return batch

    async def _run_live(self, fixes: list[Fix], ctx: VehicleCtx, batch: Batch) -> None:
        if fixes:
            ctx.keep_from = await self._keep_from(ctx.tenant_id, batch.now.date())
            run_live(fixes, ctx, batch)

    async def _backfill(self, batch: Batch) -> None:
        """The late fixes of a batch: those not stored yet are replayed (:func:`replay_late`). Two look-ups per
        batch whatever the number of fixes (the stored positions around them, the alarms over their stretch), one
        per ``store.QUERY_CHUNK`` vehicles."""
        if self._writing is not None:
            await self._writing  # the write in flight may hold positions these fixes land among
        late: dict[int, tuple[VehicleCtx, list[Fix]]] = {}
        for v, fix in batch.late_fixes:  # in time order per vehicle: run_stages sorted them
            late.setdefault(v.vehicle_id, (v, []))[1].append(fix)
        stored = await self.store.stored_around(
            [(v.tenant_id, v.vehicle_id, fixes[0].time - v.gap, fixes[-1].time + v.gap) for v, fixes in late.values()]
        )
        fresh: dict[int, tuple[VehicleCtx, list[Fix]]] = {}
        for vid, (v, fixes) in late.items():
            seen = {f.time for f in stored.get(vid, ())}
            new: list[Fix] = []
            for f in fixes:
                if f.time in seen:  # stored already (a re-sent backfill), or a second fix with its time
                    batch.duplicates += 1
                    continue
                seen.add(f.time)
                new.append(f)
            if new:
                fresh[vid] = (v, new)
                batch.late += len(new)
        if not fresh:
            return
        held = await self.store.alarms_over(
            [(v.tenant_id, v.vehicle_id, fixes[0].time, fixes[-1].time) for v, fixes in fresh.values()]
        )
        for vid, (v, fixes) in fresh.items():
            replay_late(v, fixes, stored.get(vid, []), held.get(vid, set()), batch)

    async def commit(self, batch: Batch) -> None:
        """Write a staged batch in one transaction, then publish the vehicles' new live states and every new
        event (not coalesced: the live hub bounds them per browser)."""
        await self.store.write(batch)
        self.written += len(batch.positions) + len(batch.late_positions)
        self.batches += 1
        for v in batch.states.values():
            await self.bus.publish(LIVE_TOPIC, live_view(v, batch.now))
        for event in batch.new_events:
            await self.bus.publish(EVENT_TOPIC, event_message(event))

    # ------------------------------------------------------------------ contexts and tenants

    async def _tenant(self, tenant_id: str) -> TenantCfg:
        """A tenant's thresholds (``rules.tenant_thresholds``) and retention, cached until a bus notice says they
        changed (:meth:`on_settings_changed`)."""
        cached = self._tenants.get(tenant_id)
        if cached is None:
            async with self.db.sessionmaker() as s:
                limits = (await tenant_thresholds(s, [tenant_id]))[tenant_id]
                months = (
                    await s.execute(select(Tenant.retention_months).where(Tenant.tenant_id == tenant_id))
                ).scalar_one_or_none()
            cached = self._tenants[tenant_id] = TenantCfg(limits, months)
        return cached

    async def _limits(self, tenant_id: str) -> Thresholds:
        return (await self._tenant(tenant_id)).limits

    async def _keep_from(self, tenant_id: str, today: date) -> datetime:
        """The tenant's retention cut on ``today`` (``store.retention_start``, the rule retention drops by), or the
        first day the last retention run kept if that is later."""
        cached = self._cuts.get(tenant_id)
        if cached is not None and cached[0] == today:
            return cached[1]
        months = (await self._tenant(tenant_id)).retention_months
        cut = retention_cut(today, months) if months else datetime.min
        floor = self._floors.get(tenant_id)
        if floor is not None:
            cut = max(cut, datetime.combine(floor, time()))
        self._cuts[tenant_id] = (today, cut)
        return cut

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
        limits = replace(limits, load_kg=load_threshold_kg(limits, car.rated_load_kg))
        ctx = VehicleCtx(
            car.id, car.tenant_id, car.mechanism_id, device, limits, car_no=car.car_no, car_type=car.car_type
        )
        if state is not None:
            ctx.state, ctx.state_since, ctx.mileage_km = state.state, state.state_since, state.mileage_km
            ctx.driver_name = state.driver_name
            extra = json.loads(state.extra or "{}")
            ctx.can = dict(extra.get("can", {}))
            ctx.sigs = frozenset(int(s) for s in extra["sigs"]) if "sigs" in extra else None
            # The history's last fix: the columns, unless they show a clock fault's report (then it was kept beside
            # them, in ``extra["plain"]``, or there was none).
            plain: dict[str, Any] | None = {
                "time": state.device_time.isoformat() if state.device_time is not None else None,
                "lat": state.lat,
                "lon": state.lon,
                "speed": state.speed,
                "direction": state.direction,
                "alarm": state.alarm,
                "status": state.status,
                "load": state.load_kg,
            }
            if state.clock_fault_time is not None:
                shown = Fix(
                    time=state.clock_fault_time,
                    lat=state.lat if state.lat is not None else 0.0,
                    lon=state.lon if state.lon is not None else 0.0,
                    speed_kmh=state.speed,
                    direction=state.direction,
                    alarm=state.alarm,
                    status=state.status,
                    load_kg=state.load_kg,
                )
                where = None
                if state.lat is not None and state.lon is not None:
                    where = shown if shown.valid else replace(shown, status=shown.status | STATUS_FIX)
                ctx.clock = ClockFault(shown, state.device_time or state.server_time or utcnow(), where)
                plain = extra.get("plain")
            if plain is not None and plain.get("time"):
                known = plain.get("lat") is not None and plain.get("lon") is not None
                ctx.last = Fix(
                    time=datetime.fromisoformat(plain["time"]),
                    lat=float(plain["lat"]) if known else 0.0,
                    lon=float(plain["lon"]) if known else 0.0,
                    speed_kmh=float(plain.get("speed") or 0.0),
                    direction=int(plain.get("direction") or 0),
                    alarm=int(plain.get("alarm") or 0),
                    status=int(plain.get("status") or 0),
                    mileage_km=state.mileage_km,
                    load_kg=plain.get("load"),
                    lifting=extra.get("lifting"),
                    fault_codes=tuple(extra.get("faults", ())),
                )
                if known:  # the stored position is the last valid one, whatever the last fix's status says
                    ctx.located = ctx.last if ctx.last.valid else replace(ctx.last, status=ctx.last.status | STATUS_FIX)
            for kind, raw in json.loads(state.open_events or "{}").items():
                ctx.open[kind] = OpenAlarm(
                    int(raw["id"]), datetime.fromisoformat(raw["begin"]), float(raw["value"]), float(raw["max"])
                )
        return ctx
