"""What the stages work on: a vehicle's context (:class:`VehicleCtx`: its thresholds, last fix, state, open
alarms, fences, clock fault) and the batch one durable write carries (:class:`Batch`: position rows, states,
events opened and closed, daily aggregates, counters), with the vehicle states and the daily counter of each
alarm kind.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, timezone
from typing import Any

from liftdesk.core.db import utcnow
from liftdesk.core.ids import next_id
from liftdesk.telemetry.fences import VehicleFences
from liftdesk.telemetry.messages import Fix
from liftdesk.telemetry.rules import Thresholds

#: A position row: tenant, vehicle, device time, server time, lat, lon, speed, direction, altitude, alarm, status,
#: mileage, load, extra (JSON), driver: the order of ``store.POSITION_COLUMNS``.
PositionRow = tuple[
    str,
    int,
    datetime,
    datetime,
    float,
    float,
    float,
    int,
    int,
    int,
    int,
    float | None,
    float | None,
    str | None,
    int | None,
]

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


@dataclass
class OpenAlarm:
    event_id: int  # 0: an alarm a backfill must not open again, held by an event it does not own (see replay_late)
    begin: datetime
    value: float
    max_value: float


@dataclass(frozen=True)
class ClockFault:
    """The latest live report of a terminal whose clock is wrong: where and how the vehicle is now, shown live and
    stored nowhere else (see the package docstring)."""

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
    driver_id: int | None = None  # the driver whose card the platform accepted (pipeline.drivers), until card-out
    driver_card: str | None = None  # the serial of that card
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
    faces: list[dict[str, Any]] = field(default_factory=list)  # face comparisons (fics_face_record rows)
    #: decoded CAN uploads (fics_can_sample rows): (tenant, vehicle, time received) → the parameters they carried
    can: dict[tuple[str, int, datetime], dict[str, float]] = field(default_factory=dict)
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
        driver: tuple[int | None, str | None] | None = None,
    ) -> None:
        """``key`` (default: the kind) names the alarm in ``v.open``: one open alarm per key, so per-fence keys
        let a vehicle hold one alarm per fence while the event's kind stays ``fence_in``. The event is placed
        where the vehicle is: the fix's position if valid, else the last valid one. It begins at the fix's time
        unless ``begin`` says otherwise (a fix whose time is not to be believed), and counts in its day's
        aggregates unless ``count`` is False. It names the driver on duty, or ``driver`` (id, name) when given (a
        refused card names whose card it was)."""
        event_id = next_id()
        begin = fix.time if begin is None else begin
        where = fix if fix.valid else v.located
        driver_id, driver_name = driver if driver is not None else (v.driver_id, v.driver_name)
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
                "driver_name": driver_name,
                "driver_id": driver_id,
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
