"""JT/T 808 codec objects → the canonical telemetry types (:mod:`liftdesk.telemetry.messages`).

Pure functions: no sockets, no database. Times become naive UTC; coordinates are taken as the codec gives them
(it already applies the south/west status bits, so latitude/longitude are signed degrees).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from liftdesk.telemetry.codecs.jt808 import (
    BatteryInfo,
    ChargeState,
    ForkliftStatus,
    Header,
    Location,
    SeatBelt,
)
from liftdesk.telemetry.messages import Battery, Fix
from liftdesk.telemetry.messages import ChargeState as FixChargeState

#: Device numbers shorter than this are left-padded with zeros (the 2013 header's BCD[6] is 12 digits).
DEVICE_WIDTH = 12

_CHARGE = {
    ChargeState.IDLE: FixChargeState.IDLE,
    ChargeState.CHARGING: FixChargeState.CHARGING,
    ChargeState.DISCHARGING: FixChargeState.DISCHARGING,
    ChargeState.FULL: FixChargeState.IDLE,
    ChargeState.FAULT: FixChargeState.IDLE,
}


def naive_utc(value: datetime) -> datetime:
    """Aware → naive UTC; naive values are taken as UTC already."""
    if value.tzinfo is None:
        return value
    if value.tzinfo is UTC:  # what the codec produces: no conversion needed
        return value.replace(tzinfo=None)
    return value.astimezone(UTC).replace(tzinfo=None)


def device_of(header: Header) -> str:
    """The device number a terminal is known by, the same for its 2013 and 2019 headers.

    The header carries 12 (2013) or 20 (2019) BCD digits, left-padded with zeros. We strip the padding and pad
    back to 12 digits, so ``013511221122`` (2013) and ``00000000013511221122`` (2019) are one device, and a
    15-digit IMEI in a 2019 header stays 15 digits.
    """
    return header.terminal_key.rjust(DEVICE_WIDTH, "0")


def device_candidates(header: Header) -> tuple[str, ...]:
    """Device numbers to look a terminal up by, best first (the padded form, then without leading zeros)."""
    first = device_of(header)
    key = header.terminal_key
    return (first,) if key == first else (first, key)


def battery_of(info: BatteryInfo) -> Battery:
    return Battery(
        soc_pct=float(info.soc_pct),
        voltage_v=info.voltage_v,
        current_a=info.current_a,
        charge_state=_CHARGE.get(info.charge_state, FixChargeState.IDLE),
        temperatures_c=tuple(float(t) for t in info.temperatures_c),
        cell_voltages_mv=tuple(info.cell_voltages_mv),
    )


def forklift_fields(status: ForkliftStatus | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(Fix keyword arguments, extra) for the Liftdesk vendor items of a report."""
    if status is None:
        return {}, {}
    kw: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if status.load_kg is not None:
        kw["load_kg"] = float(status.load_kg)
    if status.impact is not None:
        kw["impact_g"] = status.impact.accel_g
        kw["impact_direction"] = status.impact.direction_deg
    if status.seat_belt is not None:
        kw["seat_belt"] = status.seat_belt == SeatBelt.FASTENED
    if status.forks is not None:
        kw["fork_height_mm"] = status.forks.height_mm
        extra["fork_state"] = status.forks.state.name.lower()
    if status.lock_level is not None:
        kw["lock_level"] = int(status.lock_level)
    if status.speed_limit_kmh:  # 0 means "no limit in force"
        kw["speed_limit_kmh"] = float(status.speed_limit_kmh)
    if status.battery is not None:
        kw["battery"] = battery_of(status.battery)
        if status.battery.charge_state in (ChargeState.FULL, ChargeState.FAULT):
            extra["battery_state"] = status.battery.charge_state.name.lower()
    return kw, extra


def location_to_fix(loc: Location, received_at: datetime) -> Fix:
    """One 0x0200 body (or 0x0704 item) → Fix. A report without a valid time is dated ``received_at``."""
    kw, extra = forklift_fields(loc.forklift)
    if loc.time is None:
        extra["time_missing"] = True
    if loc.satellites is not None:
        extra["satellites"] = loc.satellites
    if loc.signal_strength is not None:
        extra["rssi"] = loc.signal_strength
    if loc.fuel_l is not None:
        extra["fuel_l"] = loc.fuel_l
    if loc.ext_signals is not None:
        extra["ext_signals"] = loc.ext_signals
    if loc.io_status is not None:
        extra["io_status"] = loc.io_status
    if loc.alarm_event_id is not None:
        extra["alarm_event_id"] = loc.alarm_event_id
    return Fix(
        time=naive_utc(loc.time) if loc.time is not None else received_at,
        lat=loc.latitude,
        lon=loc.longitude,
        speed_kmh=loc.speed_kmh,
        direction=loc.direction,
        altitude_m=loc.altitude_m,
        alarm=loc.alarm,
        status=loc.status,
        mileage_km=loc.mileage_km,
        extra=extra,
        **kw,
    )
