"""The ordered stages every plausible fix goes through (:data:`STAGES`, run by :func:`run_stages`): late or
duplicate → odometer → durations → state machine → collision → speeding → overload → fences → battery →
JT/T 808 alarm bits → faults → offline cleared → driver off → position → remember. Each takes (fix, context, batch) and
returns False to stop the fix there. Also the interval counting they share and the position row.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from liftdesk.telemetry.fences import fences
from liftdesk.telemetry.messages import ALARM_COLLISION, Fix, fault_family
from liftdesk.telemetry.pipeline.context import (
    STATE_IDLE,
    STATE_LOADED,
    STATE_MOVING,
    STATE_OFF,
    Batch,
    PositionRow,
    VehicleCtx,
)
from liftdesk.telemetry.rules import Thresholds, collision_level
from liftdesk.telemetry.store import fix_signature

ONE_DAY = timedelta(days=1)

STATUS_LOAD = (1 << 8) | (1 << 9)  # 0x0200 status bits 8-9: 00 empty, 01 half, 11 full (fleet-domain §4 fallback)

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


FAULT_KEY = "fault:"


def faults(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """One fault episode per code (``v.open`` key ``fault:<code>``): it opens when the code first shows and stays
    open while it is reported, and only a report that carries the code's list without it ends it
    (``Fix.fault_families``): a report that leaves the list out (a heartbeat position, an event frame) says
    nothing about the codes, so a code that a controller keeps reporting between such reports is one alarm, not
    one per return."""
    codes = fix.fault_codes
    for code in codes:
        key = FAULT_KEY + code
        if key not in v.open:
            b.open_alarm(v, "fault", fix, 0.0, None, key=key, detail={"code": code})
    reported = fix.fault_families
    if reported and v.open:
        for key in [k for k in v.open if k.startswith(FAULT_KEY)]:
            code = key[len(FAULT_KEY) :]
            if code not in codes and reported & fault_family(code):
                b.close_alarm(v, key, fix.time)
    return True


def offline_cleared(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    b.close_alarm(v, "offline", fix.time)
    return True


def driver_off(fix: Fix, v: VehicleCtx, b: Batch) -> bool:
    """Power-off ends the driver's duty: the fix that turns ACC off, and those after it, carry no driver (the next
    driver presents a card again; a terminal reports the card still in its slot again at power-on)."""
    last = v.last
    if not v.scratch and last is not None and last.acc and not fix.acc:
        v.driver_id = v.driver_name = v.driver_card = None
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
    driver_off,
    position,
    remember,
]


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
        None if v.scratch else v.driver_id,  # a backfill's driver then is not known
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
