"""JT/T 808 codec objects → the canonical telemetry types (:mod:`liftdesk.telemetry.messages`).

Pure functions: no sockets, no database. Times become naive UTC; coordinates are taken as the codec gives them
(it already applies the south/west status bits, so latitude/longitude are signed degrees).

Nothing a terminal sends is dropped here: what has a place in :class:`Fix` goes there, the rest of a report goes
into ``Fix.extra`` under these keys (stored with the position, ``extra`` in the track API):

================  ======  ==================================================================================
key               item    value
================  ======  ==================================================================================
fuel_l            0x02    litres
recorder_speed    0x03    km/h from the tachograph (the report's own speed is the GNSS speed)
alarm_event_id    0x04    the alarm event's id
overspeed         0x11    ``{"area_type": n, "area_id": n | null}`` (area type 0 = no particular area)
area_alarm        0x12    ``{"area_type": n, "area_id": n, "leaving": bool}``
route_time        0x13    ``{"segment_id": n, "travel_time_s": n, "too_long": bool}``
ext_signals       0x25    DWORD of extended vehicle signals
io_status         0x2A    WORD of IO states
analog            0x2B    ``[AD0, AD1]``
rssi, satellites  0x30/1  signal strength, satellites in use
fork_state        0xE3    ``lowered`` / ``lifting`` / ``lowering`` / ``raised`` (``Fix.lifting``: the middle two)
battery_state     0xE6    ``full`` / ``fault`` (charge states the canonical battery has no value for)
bms_flags         0xE6    the BMS flags WORD when any is set (each set flag is also a fault code, below)
items             any     ``{"0x64": "<hex>", ...}``: every item not interpreted (another vendor's 0xE0-0xFF
                          included, and a standard item of unexpected length); a repeated id gets ``#2``, ``#3``
items_skipped     any     how many such items were left out because the report's raw items passed
                          ``MAX_RAW_ITEM_BYTES`` (a sane terminal never gets near it)
trailing          –       hex of bytes after the last complete item (a truncated item)
time_missing      –       true when the report had no valid time (it is dated when received)
================  ======  ==================================================================================

BMS flags other than "electrolyte low" (which is ``Battery.liquid_low``) become fault codes ``BMS-<FLAG NAME>``
(``BMS-BIT<n>`` for a reserved bit), so they raise fault alarms like the codes of item 0xE7.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from liftdesk.telemetry.codecs.jt808 import (
    BatteryInfo,
    BmsFlag,
    ChargeState,
    ForkliftStatus,
    ForkState,
    Header,
    Location,
    SeatBelt,
    speedups,
)
from liftdesk.telemetry.messages import FAULTS_BMS, FAULTS_VEHICLE, Battery, Fix
from liftdesk.telemetry.messages import ChargeState as FixChargeState

log = logging.getLogger("liftdesk.gateway")

#: Device numbers shorter than this are left-padded with zeros (the 2013 header's BCD[6] is 12 digits).
DEVICE_WIDTH = 12
#: Raw (uninterpreted) item bytes kept per report; a 0x0200 body is at most 1023 bytes unless sub-packaged, so
#: this only bounds what an abnormal terminal could make us store with every position.
MAX_RAW_ITEM_BYTES = 1024

_CHARGE = {
    ChargeState.IDLE: FixChargeState.IDLE,
    ChargeState.CHARGING: FixChargeState.CHARGING,
    ChargeState.DISCHARGING: FixChargeState.DISCHARGING,
    ChargeState.FULL: FixChargeState.IDLE,
    ChargeState.FAULT: FixChargeState.IDLE,
}


#: Fork states in which the hydraulics work (lift time, fleet-domain §4).
_HYDRAULICS_WORKING = frozenset({ForkState.LIFTING, ForkState.LOWERING})


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
    """Device numbers to look a terminal up by, best first: the padded form, without leading zeros, and padded to
    the 20 digits of a 2019 header (a vehicle may have been given the number as a 2019 terminal shows it)."""
    first = device_of(header)
    key = header.terminal_key
    return tuple(dict.fromkeys((first, key, key.rjust(20, "0"))))


def battery_of(info: BatteryInfo) -> Battery:
    return Battery(
        soc_pct=float(info.soc_pct),
        voltage_v=info.voltage_v,
        current_a=info.current_a,
        charge_state=_CHARGE.get(info.charge_state, FixChargeState.IDLE),
        temperatures_c=tuple(float(t) for t in info.temperatures_c),
        cell_voltages_mv=tuple(info.cell_voltages_mv),
        liquid_low=info.liquid_low,
    )


def bms_fault_codes(flags: int) -> tuple[str, ...]:
    """The BMS flags other than "electrolyte low" as fault codes (``BMS-CELL_OVER_VOLTAGE``, ``BMS-BIT12``)."""
    codes = []
    for bit in range(1, 16):
        if flags & (1 << bit):
            try:
                name = BmsFlag(1 << bit).name
            except ValueError:
                name = None
            codes.append(f"BMS-{name}" if name else f"BMS-BIT{bit}")
    return tuple(codes)


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
        kw["lifting"] = status.forks.state in _HYDRAULICS_WORKING
        extra["fork_state"] = status.forks.state.name.lower()
    if status.lock_level is not None:
        kw["lock_level"] = int(status.lock_level)
    if status.speed_limit_kmh:  # 0 means "no limit in force"
        kw["speed_limit_kmh"] = float(status.speed_limit_kmh)
    faults: tuple[str, ...] = status.fault_codes or ()
    families = FAULTS_VEHICLE if status.fault_codes is not None else 0
    if status.battery is not None:
        kw["battery"] = battery_of(status.battery)
        if status.battery.charge_state in (ChargeState.FULL, ChargeState.FAULT):
            extra["battery_state"] = status.battery.charge_state.name.lower()
        flags = status.battery.bms_flags
        if flags is not None:
            families |= FAULTS_BMS
        if flags:
            extra["bms_flags"] = flags
            faults += tuple(c for c in bms_fault_codes(flags) if c not in faults)
    if faults:
        kw["fault_codes"] = faults
    if families:
        kw["fault_families"] = families
    return kw, extra


def raw_items(items: tuple[tuple[int, bytes], ...], extra: dict[str, Any]) -> None:
    """Items the codec did not interpret → ``extra["items"]`` as hex, within ``MAX_RAW_ITEM_BYTES``."""
    kept: dict[str, str] = {}
    budget = MAX_RAW_ITEM_BYTES
    skipped = 0
    for item_id, value in items:
        if len(value) > budget:
            skipped += 1
            continue
        budget -= len(value)
        key = f"0x{item_id:02x}"
        if key in kept:
            n = 2
            while f"{key}#{n}" in kept:
                n += 1
            key = f"{key}#{n}"
        kept[key] = value.hex()
    if kept:
        extra["items"] = kept
    if skipped:
        extra["items_skipped"] = skipped
        log.warning("a report carried more than %d bytes of unknown items: %d left out", MAX_RAW_ITEM_BYTES, skipped)


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
    if loc.tachograph_speed_kmh is not None:
        extra["recorder_speed"] = loc.tachograph_speed_kmh
    if loc.overspeed is not None:
        extra["overspeed"] = {"area_type": int(loc.overspeed.area_type), "area_id": loc.overspeed.area_id}
    if loc.area_alarm is not None:
        a = loc.area_alarm
        extra["area_alarm"] = {"area_type": int(a.area_type), "area_id": a.area_id, "leaving": a.leaving}
    if loc.route_time is not None:
        r = loc.route_time
        extra["route_time"] = {"segment_id": r.segment_id, "travel_time_s": r.travel_time_s, "too_long": r.too_long}
    if loc.analog is not None:
        extra["analog"] = list(loc.analog)
    if loc.unknown_items:
        raw_items(loc.unknown_items, extra)
    if loc.trailing:
        extra["trailing"] = loc.trailing[:MAX_RAW_ITEM_BYTES].hex()
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


def _compiled() -> Callable[[Location, datetime], Fix] | None:
    """:func:`location_to_fix` compiled (``_speedups.pyx``, built with the codec's fast path), where it is."""
    if speedups.COMPILED is None:  # not built, or LIFTDESK_PURE_PYTHON=1: the mapping follows the codec
        return None
    try:
        from ._speedups import location_to_fix as compiled
    except ImportError as exc:
        log.info("location_to_fix: pure Python (%s)", exc)
        return None
    return compiled


#: The compiled :func:`location_to_fix`, None where it is not built (or turned off).
COMPILED_LOCATION_TO_FIX = _compiled()
#: What the gateway maps positions with: the compiled function where built, else :func:`location_to_fix`.
to_fix = COMPILED_LOCATION_TO_FIX or location_to_fix
