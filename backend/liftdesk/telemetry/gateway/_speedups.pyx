# cython: language_level=3
"""Compiled :func:`location_to_fix` (``mapping.location_to_fix``): a decoded position → the pipeline's :class:`Fix`.

Built by ``make install`` with the codec's fast path (``setup.py``); ``mapping.py`` uses it when it imports. It gives
what the pure-Python function gives (``test_jt808_speedups`` compares them): the same values, the same ``extra`` keys
in the same order. Rare or odd cases (a time in another zone, BMS flags, unknown items, a fork state that is not a
:class:`ForkState`) run the pure-Python helpers. :class:`Fix` and :class:`Battery` are filled field by field as their
frozen-dataclass ``__init__`` fills them; the import checks that their fields are still those.
"""

from cpython.datetime cimport (
    datetime,
    datetime_day,
    datetime_fold,
    datetime_hour,
    datetime_minute,
    datetime_month,
    datetime_new,
    datetime_second,
    datetime_year,
    datetime_microsecond,
    datetime_tzinfo,
    import_datetime,
)
from cpython.object cimport PyObject_GenericSetAttr

import dataclasses
from datetime import UTC

from liftdesk.telemetry.codecs.jt808 import ChargeState, ForkState, SeatBelt
from liftdesk.telemetry.messages import FAULTS_BMS, FAULTS_VEHICLE, Battery, Fix

from .mapping import _CHARGE, _HYDRAULICS_WORKING, MAX_RAW_ITEM_BYTES, bms_fault_codes, naive_utc, raw_items
from .mapping import FixChargeState

import_datetime()

_object_new = object.__new__
_UTC = UTC
_FASTENED = SeatBelt.FASTENED
_ODD_CHARGE = (ChargeState.FULL, ChargeState.FAULT)
_FORK_NAMES = {state: state.name.lower() for state in ForkState}
_CHARGE_NAMES = {state: state.name.lower() for state in ChargeState}
_IDLE = FixChargeState.IDLE

_FIELDS = {
    Fix: (
        "time", "lat", "lon", "speed_kmh", "direction", "altitude_m", "alarm", "status", "mileage_km", "load_kg",
        "impact_g", "impact_direction", "seat_belt", "fork_height_mm", "lifting", "lock_level", "speed_limit_kmh",
        "battery", "fault_codes", "fault_families", "extra",
    ),
    Battery: (
        "soc_pct", "voltage_v", "current_a", "charge_state", "temperatures_c", "cell_voltages_mv", "liquid_low",
    ),
}
for _cls, _names in _FIELDS.items():
    if tuple(f.name for f in dataclasses.fields(_cls)) != _names:
        raise ImportError(f"{_cls.__name__} has changed: its compiled mapping no longer fills it")
    if not _cls.__dataclass_params__.frozen or "__slots__" not in _cls.__dict__ or hasattr(_cls, "__post_init__"):
        raise ImportError(f"{_cls.__name__} is no longer a frozen slots dataclass")


cdef inline object _set(object obj, str name, object value):
    PyObject_GenericSetAttr(obj, name, value)


cdef object _battery(info):
    """``mapping.battery_of``."""
    flags = info.bms_flags
    battery = _object_new(Battery)
    _set(battery, "soc_pct", float(info.soc_pct))
    _set(battery, "voltage_v", info.voltage_v)
    _set(battery, "current_a", info.current_a)
    _set(battery, "charge_state", _CHARGE.get(info.charge_state, _IDLE))
    _set(battery, "temperatures_c", tuple([float(t) for t in info.temperatures_c]))
    _set(battery, "cell_voltages_mv", tuple(info.cell_voltages_mv))
    _set(battery, "liquid_low", bool(flags and flags & 1))
    return battery


cdef object _naive(value):
    """``mapping.naive_utc``: the codec's UTC times directly, any other through the pure-Python function."""
    if type(value) is datetime and datetime_tzinfo(value) is _UTC:
        return datetime_new(
            datetime_year(value), datetime_month(value), datetime_day(value), datetime_hour(value),
            datetime_minute(value), datetime_second(value), datetime_microsecond(value), None, datetime_fold(value),
        )
    return naive_utc(value)


def location_to_fix(loc, received_at):
    """``mapping.location_to_fix``: one 0x0200 body (or 0x0704 item) → Fix, dated ``received_at`` without a time."""
    load_kg = impact_g = impact_direction = seat_belt = fork_height_mm = lifting = lock_level = None
    speed_limit = battery = None
    faults = ()
    families = 0
    extra = {}
    status = loc.forklift
    if status is not None:  # mapping.forklift_fields
        if status.load_kg is not None:
            load_kg = float(status.load_kg)
        impact = status.impact
        if impact is not None:
            impact_g = impact.accel_g
            impact_direction = impact.direction_deg
        if status.seat_belt is not None:
            seat_belt = status.seat_belt == _FASTENED
        forks = status.forks
        if forks is not None:
            fork_height_mm = forks.height_mm
            lifting = forks.state in _HYDRAULICS_WORKING
            extra["fork_state"] = _FORK_NAMES[forks.state] if type(forks.state) is ForkState else forks.state.name.lower()
        if status.lock_level is not None:
            lock_level = int(status.lock_level)
        if status.speed_limit_kmh:
            speed_limit = float(status.speed_limit_kmh)
        faults = status.fault_codes or ()
        if status.fault_codes is not None:
            families = FAULTS_VEHICLE
        info = status.battery
        if info is not None:
            battery = _battery(info)
            if info.charge_state in _ODD_CHARGE:
                state = info.charge_state
                extra["battery_state"] = _CHARGE_NAMES[state] if type(state) is ChargeState else state.name.lower()
            flags = info.bms_flags
            if flags is not None:
                families |= FAULTS_BMS
            if flags:
                extra["bms_flags"] = flags
                faults += tuple([c for c in bms_fault_codes(flags) if c not in faults])
    when = loc.time
    if when is None:
        extra["time_missing"] = True
    value = loc.satellites
    if value is not None:
        extra["satellites"] = value
    value = loc.signal_strength
    if value is not None:
        extra["rssi"] = value
    value = loc.fuel_l
    if value is not None:
        extra["fuel_l"] = value
    value = loc.ext_signals
    if value is not None:
        extra["ext_signals"] = value
    value = loc.io_status
    if value is not None:
        extra["io_status"] = value
    value = loc.alarm_event_id
    if value is not None:
        extra["alarm_event_id"] = value
    value = loc.tachograph_speed_kmh
    if value is not None:
        extra["recorder_speed"] = value
    value = loc.overspeed
    if value is not None:
        extra["overspeed"] = {"area_type": int(value.area_type), "area_id": value.area_id}
    value = loc.area_alarm
    if value is not None:
        extra["area_alarm"] = {"area_type": int(value.area_type), "area_id": value.area_id, "leaving": value.leaving}
    value = loc.route_time
    if value is not None:
        extra["route_time"] = {
            "segment_id": value.segment_id, "travel_time_s": value.travel_time_s, "too_long": value.too_long
        }
    value = loc.analog
    if value is not None:
        extra["analog"] = list(value)
    value = loc.unknown_items
    if value:
        raw_items(value, extra)
    value = loc.trailing
    if value:
        extra["trailing"] = value[:MAX_RAW_ITEM_BYTES].hex()
    fix = _object_new(Fix)
    _set(fix, "time", _naive(when) if when is not None else received_at)
    _set(fix, "lat", loc.latitude)
    _set(fix, "lon", loc.longitude)
    _set(fix, "speed_kmh", loc.speed_kmh)
    _set(fix, "direction", loc.direction)
    _set(fix, "altitude_m", loc.altitude_m)
    _set(fix, "alarm", loc.alarm)
    _set(fix, "status", loc.status)
    _set(fix, "mileage_km", loc.mileage_km)
    _set(fix, "load_kg", load_kg)
    _set(fix, "impact_g", impact_g)
    _set(fix, "impact_direction", impact_direction)
    _set(fix, "seat_belt", seat_belt)
    _set(fix, "fork_height_mm", fork_height_mm)
    _set(fix, "lifting", lifting)
    _set(fix, "lock_level", lock_level)
    _set(fix, "speed_limit_kmh", speed_limit)
    _set(fix, "battery", battery)
    _set(fix, "fault_codes", faults)
    _set(fix, "fault_families", families)
    _set(fix, "extra", extra)
    return fix
