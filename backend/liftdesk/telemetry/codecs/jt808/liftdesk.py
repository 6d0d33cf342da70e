"""Liftdesk's own JT/T 808 vendor extension for industrial trucks (see ``docs/protocol.md``).

This is *not* part of JT/T 808.  The standard leaves 0x0200 additional items 0xE0-0xFF and
0x0900 pass-through types 0xF0-0xFF to vendors; Liftdesk terminals use them as follows:

=====  ==========================  =================================================================
Item   Name                        Value
=====  ==========================  =================================================================
0xE0   load weight                 WORD kg
0xE1   impact                      WORD peak acceleration in 0.01 g, WORD direction in degrees 0-359
0xE2   seat belt                   BYTE 0 unfastened, 1 fastened
0xE3   forks                       BYTE state (0 lowered, 1 lifting, 2 lowering, 3 raised), WORD height mm
0xE4   lock level                  BYTE 0 unlocked, 1 soft lock, 2 full lock
0xE5   speed limit in force        BYTE km/h (0 = none)
0xE6   battery                     see :class:`BatteryInfo` (optionally ending with the BMS flags)
0xE7   active fault codes          BYTE count, then per code BYTE length (1-32) + ASCII
=====  ==========================  =================================================================

Pass-through 0xF0 carries a snapshot (BCD[6] time + the same item list); 0xF1 carries a
battery report (BCD[6] time + the 0xE6 value).  Other vendors use the same ranges for other
things, so decoders only apply this table when asked to (``liftdesk=True``, the default; the
gateway decides per terminal by its maker).

Later additions are compatible with frames from older firmware: the BMS flags WORD is an
optional tail of the battery value (absent → ``BatteryInfo.bms_flags`` is None), and 0xE7 is a
new item id (older platforms keep it raw).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum, IntFlag

from ._wire import U16, check_range, check_uint, decode_time, encode_time, scaled
from .errors import EncodeError


class LiftdeskItem(IntEnum):
    """Additional-item ids of the Liftdesk extension (0x0200 and pass-through 0xF0)."""

    LOAD = 0xE0
    IMPACT = 0xE1
    SEAT_BELT = 0xE2
    FORKS = 0xE3
    LOCK_LEVEL = 0xE4
    SPEED_LIMIT = 0xE5
    BATTERY = 0xE6
    FAULT_CODES = 0xE7


class LiftdeskPassThrough(IntEnum):
    """0x0900 pass-through types of the Liftdesk extension."""

    SNAPSHOT = 0xF0
    BATTERY = 0xF1


class SeatBelt(IntEnum):
    UNFASTENED = 0
    FASTENED = 1


class ForkState(IntEnum):
    LOWERED = 0
    LIFTING = 1
    LOWERING = 2
    RAISED = 3


class LockLevel(IntEnum):
    """Lock level (working hypothesis, to confirm on devices: 1 = creep speed and no lift)."""

    UNLOCKED = 0
    SOFT = 1
    FULL = 2


class ChargeState(IntEnum):
    IDLE = 0
    CHARGING = 1
    DISCHARGING = 2
    FULL = 3
    FAULT = 4


class BmsFlag(IntFlag):
    """The BMS flags WORD at the end of a battery value: conditions the battery management system reports.

    Bits 10-15 are reserved; a terminal that sets one is passed on as it is (the platform names it by number).
    """

    LIQUID_LOW = 1 << 0  #: electrolyte level low (flooded lead-acid): the battery needs water
    CELL_OVER_VOLTAGE = 1 << 1
    CELL_UNDER_VOLTAGE = 1 << 2
    OVER_TEMPERATURE = 1 << 3
    UNDER_TEMPERATURE = 1 << 4
    CHARGE_OVER_CURRENT = 1 << 5
    DISCHARGE_OVER_CURRENT = 1 << 6
    INSULATION_FAULT = 1 << 7
    CELL_IMBALANCE = 1 << 8
    BMS_FAULT = 1 << 9  #: the BMS itself (internal fault, lost contact with its cell monitors)


#: Fault code limits of item 0xE7 (they fit the canonical ``Fix.fault_codes`` and the MQTT contract).
MAX_FAULT_CODES = 64
MAX_FAULT_CODE_LENGTH = 32


@dataclass(frozen=True, slots=True)
class Impact:
    accel_g: float  #: peak acceleration, 0.01 g resolution
    direction_deg: int  #: 0 = straight ahead, clockwise seen from above


@dataclass(frozen=True, slots=True)
class Forks:
    state: ForkState
    height_mm: int


@dataclass(frozen=True, slots=True)
class BatteryInfo:
    """Traction battery (BMS) data.

    Wire layout: SOC BYTE % · voltage WORD 0.1 V · current int16 0.1 A (positive = charging,
    negative = discharging) · charge state BYTE · temperature count BYTE + int8 °C each ·
    cell count BYTE + WORD mV each · optionally the BMS flags WORD (:class:`BmsFlag`).
    """

    soc_pct: int
    voltage_v: float
    current_a: float
    charge_state: ChargeState
    temperatures_c: tuple[int, ...] = ()
    cell_voltages_mv: tuple[int, ...] = ()
    #: :class:`BmsFlag` bits; None when the terminal does not send the flags (firmware before they existed).
    bms_flags: int | None = None

    @property
    def liquid_low(self) -> bool:
        return bool(self.bms_flags and self.bms_flags & BmsFlag.LIQUID_LOW)


@dataclass(frozen=True, slots=True)
class ForkliftStatus:
    """Everything a Liftdesk terminal reports through vendor items; absent items are ``None``."""

    load_kg: int | None = None
    impact: Impact | None = None
    seat_belt: SeatBelt | None = None
    forks: Forks | None = None
    lock_level: LockLevel | None = None
    speed_limit_kmh: int | None = None
    battery: BatteryInfo | None = None
    #: Item 0xE7: the fault codes active now (``()`` = the item says none is); None when the item is absent.
    fault_codes: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class LiftdeskSnapshot:
    """Pass-through 0xF0: a forklift status snapshot outside a position report."""

    time: datetime | None
    status: ForkliftStatus
    unknown_items: tuple[tuple[int, bytes], ...] = ()


@dataclass(frozen=True, slots=True)
class LiftdeskBatteryReport:
    """Pass-through 0xF1: a battery report."""

    time: datetime | None
    battery: BatteryInfo


_IMPACT = struct.Struct(">HH")
_FORKS = struct.Struct(">BH")
_BATTERY_HEAD = struct.Struct(">BHhBB")


# --------------------------------------------------------------------------- decoding


def decode_battery(raw: bytes) -> BatteryInfo:
    soc, voltage, current, state, n_temps = _BATTERY_HEAD.unpack_from(raw, 0)
    offset = _BATTERY_HEAD.size
    temps = struct.unpack_from(f">{n_temps}b", raw, offset)
    offset += n_temps
    n_cells = raw[offset]
    offset += 1
    cells = struct.unpack_from(f">{n_cells}H", raw, offset)
    offset += 2 * n_cells
    flags: int | None = None
    if len(raw) == offset + 2:  # the optional BMS flags
        flags = U16.unpack_from(raw, offset)[0]
    elif len(raw) != offset:
        raise ValueError("battery item length does not match its cell count")
    return BatteryInfo(soc, voltage / 10, current / 10, ChargeState(state), temps, cells, flags)


def decode_fault_codes(raw: bytes) -> tuple[str, ...]:
    """Item 0xE7: count BYTE, then each code as length BYTE (1-32) + printable ASCII (0x21-0x7E)."""
    count = raw[0]
    if count > MAX_FAULT_CODES:
        raise ValueError(f"{count} fault codes exceed {MAX_FAULT_CODES}")
    codes: list[str] = []
    offset = 1
    for _ in range(count):
        size = raw[offset]
        code = raw[offset + 1 : offset + 1 + size]
        if not 1 <= size <= MAX_FAULT_CODE_LENGTH or len(code) != size or not all(0x21 <= c <= 0x7E for c in code):
            raise ValueError("fault code is empty, too long, truncated or not printable ASCII")
        codes.append(code.decode("ascii"))
        offset += 1 + size
    if offset != len(raw):
        raise ValueError("fault code item length does not match its codes")
    return tuple(codes)


def decode_status(items: list[tuple[int, bytes]]) -> tuple[ForkliftStatus, list[tuple[int, bytes]]]:
    """Interpret Liftdesk items; items with an unexpected length or value are returned raw."""
    load_kg: int | None = None
    impact: Impact | None = None
    seat_belt: SeatBelt | None = None
    forks: Forks | None = None
    lock_level: LockLevel | None = None
    speed_limit: int | None = None
    battery: BatteryInfo | None = None
    faults: tuple[str, ...] | None = None
    rest: list[tuple[int, bytes]] = []
    for item_id, value in items:
        size = len(value)
        try:
            if item_id == 0xE0 and size == 2:
                load_kg = U16.unpack(value)[0]
            elif item_id == 0xE1 and size == 4:
                accel, direction = _IMPACT.unpack(value)
                impact = Impact(accel / 100, direction)
            elif item_id == 0xE2 and size == 1:
                seat_belt = SeatBelt(value[0])
            elif item_id == 0xE3 and size == 3:
                state, height = _FORKS.unpack(value)
                forks = Forks(ForkState(state), height)
            elif item_id == 0xE4 and size == 1:
                lock_level = LockLevel(value[0])
            elif item_id == 0xE5 and size == 1:
                speed_limit = value[0]
            elif item_id == 0xE6:
                battery = decode_battery(value)
            elif item_id == 0xE7 and size >= 1:
                faults = decode_fault_codes(value)
            else:
                rest.append((item_id, value))
        except (ValueError, struct.error, IndexError):
            rest.append((item_id, value))
    status = ForkliftStatus(load_kg, impact, seat_belt, forks, lock_level, speed_limit, battery, faults)
    return status, rest


def split_items(data: bytes, offset: int = 0) -> tuple[list[tuple[int, bytes]], bytes]:
    """TLV list {id BYTE, length BYTE, value} → items and the unparseable tail (usually empty)."""
    items: list[tuple[int, bytes]] = []
    end = len(data)
    while offset + 2 <= end:
        stop = offset + 2 + data[offset + 1]
        if stop > end:
            break
        items.append((data[offset], data[offset + 2 : stop]))
        offset = stop
    return items, data[offset:]


def decode_snapshot(payload: bytes) -> LiftdeskSnapshot:
    if len(payload) < 6:
        raise ValueError("snapshot shorter than its time field")
    items, tail = split_items(payload, 6)
    if tail:
        raise ValueError("snapshot item list is truncated")
    status, rest = decode_status(items)
    return LiftdeskSnapshot(decode_time(payload[:6]), status, tuple(rest))


def decode_battery_report(payload: bytes) -> LiftdeskBatteryReport:
    if len(payload) < 6:
        raise ValueError("battery report shorter than its time field")
    return LiftdeskBatteryReport(decode_time(payload[:6]), decode_battery(payload[6:]))


# --------------------------------------------------------------------------- encoding


def encode_battery(battery: BatteryInfo) -> bytes:
    what = "battery"
    soc = check_range(battery.soc_pct, 0, 100, f"{what}.soc_pct")
    voltage = scaled(battery.voltage_v, 10, 0, 0xFFFF, f"{what}.voltage_v")
    current = scaled(battery.current_a, 10, -0x8000, 0x7FFF, f"{what}.current_a")
    state = check_uint(int(battery.charge_state), 8, f"{what}.charge_state")
    temps = battery.temperatures_c
    cells = battery.cell_voltages_mv
    if len(temps) > 0xFF or len(cells) > 0xFF:
        raise EncodeError(f"{what}: at most 255 temperatures and 255 cells")
    for t in temps:
        check_range(t, -128, 127, f"{what}.temperatures_c")
    for c in cells:
        check_uint(c, 16, f"{what}.cell_voltages_mv")
    flags = b"" if battery.bms_flags is None else U16.pack(check_uint(int(battery.bms_flags), 16, f"{what}.bms_flags"))
    return (
        _BATTERY_HEAD.pack(soc, voltage, current, state, len(temps))
        + struct.pack(f">{len(temps)}b", *temps)
        + bytes((len(cells),))
        + struct.pack(f">{len(cells)}H", *cells)
        + flags
    )


def encode_fault_codes(codes: tuple[str, ...]) -> bytes:
    if len(codes) > MAX_FAULT_CODES:
        raise EncodeError(f"fault_codes: at most {MAX_FAULT_CODES} codes")
    out = bytearray((len(codes),))
    for code in codes:
        try:
            raw = code.encode("ascii")
        except (AttributeError, UnicodeEncodeError):  # not a string, or not ASCII: refused below
            raw = b""
        if not 1 <= len(raw) <= MAX_FAULT_CODE_LENGTH or not all(0x21 <= c <= 0x7E for c in raw):
            raise EncodeError(f"fault_codes: {code!r} is not 1-{MAX_FAULT_CODE_LENGTH} printable ASCII characters")
        out.append(len(raw))
        out += raw
    return bytes(out)


def encode_item(item_id: int, value: bytes) -> bytes:
    if len(value) > 0xFF:
        raise EncodeError(f"additional item 0x{item_id:02x}: {len(value)} bytes exceed the 255-byte item limit")
    return bytes((item_id, len(value))) + value


def encode_status(status: ForkliftStatus) -> bytes:
    """ForkliftStatus → its TLV items, in item-id order."""
    out = bytearray()
    if status.load_kg is not None:
        out += encode_item(0xE0, U16.pack(check_uint(status.load_kg, 16, "load_kg")))
    if status.impact is not None:
        accel = scaled(status.impact.accel_g, 100, 0, 0xFFFF, "impact.accel_g")
        direction = check_range(status.impact.direction_deg, 0, 359, "impact.direction_deg")
        out += encode_item(0xE1, _IMPACT.pack(accel, direction))
    if status.seat_belt is not None:
        out += encode_item(0xE2, bytes((check_uint(int(status.seat_belt), 8, "seat_belt"),)))
    if status.forks is not None:
        state = check_uint(int(status.forks.state), 8, "forks.state")
        out += encode_item(0xE3, _FORKS.pack(state, check_uint(status.forks.height_mm, 16, "forks.height_mm")))
    if status.lock_level is not None:
        out += encode_item(0xE4, bytes((check_uint(int(status.lock_level), 8, "lock_level"),)))
    if status.speed_limit_kmh is not None:
        out += encode_item(0xE5, bytes((check_uint(status.speed_limit_kmh, 8, "speed_limit_kmh"),)))
    if status.battery is not None:
        out += encode_item(0xE6, encode_battery(status.battery))
    if status.fault_codes is not None:
        out += encode_item(0xE7, encode_fault_codes(status.fault_codes))
    return bytes(out)


def encode_snapshot(snapshot: LiftdeskSnapshot) -> bytes:
    """Pass-through 0xF0 payload (without the type byte)."""
    out = encode_time(snapshot.time) + encode_status(snapshot.status)
    for item_id, value in snapshot.unknown_items:
        out += encode_item(check_uint(item_id, 8, "unknown item id"), value)
    return out


def encode_battery_report(report: LiftdeskBatteryReport) -> bytes:
    """Pass-through 0xF1 payload (without the type byte)."""
    return encode_time(report.time) + encode_battery(report.battery)


__all__ = [
    "MAX_FAULT_CODES",
    "MAX_FAULT_CODE_LENGTH",
    "BatteryInfo",
    "BmsFlag",
    "ChargeState",
    "ForkState",
    "ForkliftStatus",
    "Forks",
    "Impact",
    "LiftdeskBatteryReport",
    "LiftdeskItem",
    "LiftdeskPassThrough",
    "LiftdeskSnapshot",
    "LockLevel",
    "SeatBelt",
]
