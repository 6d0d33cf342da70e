"""Location report body (0x0200, also the items of 0x0704 and the tail of 0x0201/0x0500).

28 fixed bytes — alarm DWORD, status DWORD, latitude DWORD (1e-6 degrees), longitude DWORD,
altitude WORD (m), speed WORD (0.1 km/h), direction WORD (degrees), time BCD[6] (GMT+8) —
then additional items {id BYTE, length BYTE, value}.

Coordinates are whatever the terminal sends: WGS-84 unless status bit 5 says the state
encryption plugin already offset them.  Nothing here converts datums.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum, IntFlag
from typing import ClassVar

from ._wire import U16, U32, check_range, check_uint, decode_time, encode_time, scaled
from .errors import EncodeError
from .liftdesk import ForkliftStatus, decode_status, encode_item, encode_status
from .packet import Jt808Version

_BASIC = struct.Struct(">IIIIhHH6s")
_AREA = struct.Struct(">BIB")
_ROUTE = struct.Struct(">IHB")
_OVERSPEED_AREA = struct.Struct(">BI")
BASIC_SIZE = _BASIC.size  # 28
_SOUTH = 0x4
_WEST = 0x8


class AlarmFlag(IntFlag):
    """Alarm bits of 0x0200 (JT/T 808-2019 table 24; 2013 differences noted)."""

    EMERGENCY = 1 << 0  #: cleared by the platform's ack (0x8203)
    OVERSPEED = 1 << 1
    FATIGUE = 1 << 2
    DANGEROUS_DRIVING = 1 << 3  #: 2013: "danger warning"
    GNSS_MODULE_FAULT = 1 << 4
    GNSS_ANTENNA_DISCONNECTED = 1 << 5
    GNSS_ANTENNA_SHORT = 1 << 6
    MAIN_POWER_LOW = 1 << 7
    MAIN_POWER_LOST = 1 << 8
    DISPLAY_FAULT = 1 << 9
    TTS_FAULT = 1 << 10
    CAMERA_FAULT = 1 << 11
    IC_CARD_MODULE_FAULT = 1 << 12
    OVERSPEED_WARNING = 1 << 13
    FATIGUE_WARNING = 1 << 14
    ILLEGAL_DRIVING = 1 << 15  #: 2019
    TYRE_PRESSURE = 1 << 16  #: 2019
    RIGHT_TURN_BLIND_SPOT = 1 << 17  #: 2019
    DAILY_DRIVING_OVERTIME = 1 << 18
    PARKING_OVERTIME = 1 << 19
    AREA_IN_OUT = 1 << 20  #: ack-cleared
    ROUTE_IN_OUT = 1 << 21  #: ack-cleared
    ROUTE_TIME_ABNORMAL = 1 << 22  #: ack-cleared
    ROUTE_DEVIATION = 1 << 23
    VSS_FAULT = 1 << 24
    FUEL_ABNORMAL = 1 << 25
    THEFT = 1 << 26
    ILLEGAL_IGNITION = 1 << 27  #: ack-cleared
    ILLEGAL_MOVE = 1 << 28  #: ack-cleared
    COLLISION = 1 << 29  #: 2019: collision/rollover alarm; 2013: collision warning
    ROLLOVER_WARNING = 1 << 30
    ILLEGAL_DOOR_OPEN = 1 << 31  #: 2013 only (reserved in 2019)


#: Alarms that stay set until the platform confirms them with 0x8203.
ACK_CLEARED_ALARMS = (
    AlarmFlag.EMERGENCY
    | AlarmFlag.AREA_IN_OUT
    | AlarmFlag.ROUTE_IN_OUT
    | AlarmFlag.ROUTE_TIME_ABNORMAL
    | AlarmFlag.ILLEGAL_IGNITION
    | AlarmFlag.ILLEGAL_MOVE
)


class StatusFlag(IntFlag):
    """Status bits of 0x0200.  Bits 8-9 are a two-bit load field: see :class:`LoadState`."""

    ACC_ON = 1 << 0
    POSITIONED = 1 << 1
    SOUTH = 1 << 2
    WEST = 1 << 3
    OUT_OF_SERVICE = 1 << 4
    COORDINATES_ENCRYPTED = 1 << 5
    FORWARD_COLLISION_WARNING = 1 << 6  #: 2019
    LANE_DEPARTURE_WARNING = 1 << 7  #: 2019
    LOAD_LOW_BIT = 1 << 8
    LOAD_HIGH_BIT = 1 << 9
    FUEL_CIRCUIT_CUT = 1 << 10
    ELECTRIC_CIRCUIT_CUT = 1 << 11
    DOORS_LOCKED = 1 << 12
    DOOR1_OPEN = 1 << 13  #: front door
    DOOR2_OPEN = 1 << 14  #: middle door
    DOOR3_OPEN = 1 << 15  #: rear door
    DOOR4_OPEN = 1 << 16  #: driver's door
    DOOR5_OPEN = 1 << 17  #: custom
    GPS = 1 << 18
    BEIDOU = 1 << 19
    GLONASS = 1 << 20
    GALILEO = 1 << 21
    MOVING = 1 << 22  #: 2019


class LoadState(IntEnum):
    EMPTY = 0
    HALF = 1
    RESERVED = 2
    FULL = 3


class ExtSignal(IntFlag):
    """Extended vehicle signals, additional item 0x25."""

    LOW_BEAM = 1 << 0
    HIGH_BEAM = 1 << 1
    RIGHT_TURN = 1 << 2
    LEFT_TURN = 1 << 3
    BRAKE = 1 << 4
    REVERSE = 1 << 5
    FOG_LIGHT = 1 << 6
    CLEARANCE_LIGHTS = 1 << 7
    HORN = 1 << 8
    AIR_CONDITIONER = 1 << 9
    NEUTRAL = 1 << 10
    RETARDER = 1 << 11
    ABS = 1 << 12
    HEATER = 1 << 13
    CLUTCH = 1 << 14


class IoStatus(IntFlag):
    """IO status, additional item 0x2A."""

    DEEP_SLEEP = 1 << 0
    SLEEP = 1 << 1


class AreaType(IntEnum):
    NONE = 0
    CIRCLE = 1
    RECTANGLE = 2
    POLYGON = 3
    ROUTE = 4


class LocationItem(IntEnum):
    """Standard additional-item ids decoded into :class:`Location` fields."""

    MILEAGE = 0x01
    FUEL = 0x02
    TACHOGRAPH_SPEED = 0x03
    ALARM_EVENT_ID = 0x04
    OVERSPEED = 0x11
    AREA_IN_OUT = 0x12
    ROUTE_TIME = 0x13
    EXT_SIGNALS = 0x25
    IO_STATUS = 0x2A
    ANALOG = 0x2B
    SIGNAL_STRENGTH = 0x30
    SATELLITES = 0x31


@dataclass(frozen=True, slots=True)
class OverspeedInfo:
    """Item 0x11: where the overspeed alarm applies (``area_id`` is None for NONE)."""

    area_type: AreaType | int
    area_id: int | None = None


@dataclass(frozen=True, slots=True)
class AreaAlarmInfo:
    """Item 0x12: entered (``leaving=False``) or left an area or route."""

    area_type: AreaType | int
    area_id: int
    leaving: bool


@dataclass(frozen=True, slots=True)
class RouteTimeInfo:
    """Item 0x13: a route segment was driven too fast (``too_long=False``) or too slowly."""

    segment_id: int
    travel_time_s: int
    too_long: bool


@dataclass(frozen=True, slots=True)
class Location:
    """One decoded position.  Latitude/longitude are signed degrees (south/west negative)."""

    msg_id: ClassVar[int] = 0x0200

    alarm: int
    status: int
    latitude: float
    longitude: float
    altitude_m: int
    speed_kmh: float
    direction: int
    #: Fix time converted from GMT+8 to UTC; ``None`` if the terminal sent zeros or garbage.
    time: datetime | None
    mileage_km: float | None = None
    fuel_l: float | None = None
    tachograph_speed_kmh: float | None = None
    alarm_event_id: int | None = None
    overspeed: OverspeedInfo | None = None
    area_alarm: AreaAlarmInfo | None = None
    route_time: RouteTimeInfo | None = None
    ext_signals: int | None = None
    io_status: int | None = None
    #: Item 0x2B: (AD0, AD1).
    analog: tuple[int, int] | None = None
    signal_strength: int | None = None
    satellites: int | None = None
    #: Liftdesk vendor items 0xE0-0xE6 (None when the report has none or they were not asked for).
    forklift: ForkliftStatus | None = None
    #: Items this decoder does not interpret, in arrival order, raw.
    unknown_items: tuple[tuple[int, bytes], ...] = ()
    #: Bytes after the last complete item (a truncated item); normally empty.
    trailing: bytes = b""

    @property
    def alarm_flags(self) -> AlarmFlag:
        return AlarmFlag(self.alarm)

    @property
    def status_flags(self) -> StatusFlag:
        return StatusFlag(self.status)

    @property
    def acc_on(self) -> bool:
        return bool(self.status & StatusFlag.ACC_ON)

    @property
    def positioned(self) -> bool:
        return bool(self.status & StatusFlag.POSITIONED)

    @property
    def load_state(self) -> LoadState:
        return LoadState((self.status >> 8) & 0x3)

    @property
    def ext_signal_flags(self) -> ExtSignal | None:
        return None if self.ext_signals is None else ExtSignal(self.ext_signals)

    @property
    def io_flags(self) -> IoStatus | None:
        return None if self.io_status is None else IoStatus(self.io_status)

    def encode(self, version: Jt808Version = Jt808Version.V2013) -> bytes:
        """0x0200 body (the same in every version)."""
        return encode_location(self)


def decode_location(body: bytes, *, liftdesk: bool = True) -> Location:
    """Parse a 0x0200 body.  ``liftdesk=False`` keeps items 0xE0-0xFF raw (other vendors' devices).

    Standard items with an unexpected length are kept raw in ``unknown_items`` rather than
    failing the whole position.
    """
    alarm, status, lat, lon, altitude, speed, direction, when = _BASIC.unpack_from(body, 0)
    latitude = -lat / 1e6 if status & _SOUTH else lat / 1e6
    longitude = -lon / 1e6 if status & _WEST else lon / 1e6
    size = len(body)
    if size == BASIC_SIZE:
        return Location(alarm, status, latitude, longitude, altitude, speed / 10, direction, decode_time(when))

    mileage = fuel = tacho = None
    event_id = ext = io = rssi = sats = None
    overspeed = None
    area = None
    route = None
    analog = None
    unknown: list[tuple[int, bytes]] = []
    vendor: list[tuple[int, bytes]] = []
    offset = BASIC_SIZE
    while offset + 2 <= size:
        item_id = body[offset]
        stop = offset + 2 + body[offset + 1]
        if stop > size:
            break
        value = body[offset + 2 : stop]
        length = stop - offset - 2
        offset = stop
        if item_id == 0x01 and length == 4:
            mileage = U32.unpack(value)[0] / 10
        elif item_id == 0x30 and length == 1:
            rssi = value[0]
        elif item_id == 0x31 and length == 1:
            sats = value[0]
        elif item_id == 0x02 and length == 2:
            fuel = U16.unpack(value)[0] / 10
        elif item_id == 0x03 and length == 2:
            tacho = U16.unpack(value)[0] / 10
        elif item_id == 0x04 and length == 2:
            event_id = U16.unpack(value)[0]
        elif item_id == 0x25 and length == 4:
            ext = U32.unpack(value)[0]
        elif item_id == 0x2A and length == 2:
            io = U16.unpack(value)[0]
        elif item_id == 0x2B and length == 4:
            analog = (value[2] << 8 | value[3], value[0] << 8 | value[1])
        elif item_id == 0x11 and length == 1:
            overspeed = OverspeedInfo(_area_type(value[0]))
        elif item_id == 0x11 and length == 5:
            kind, area_id = _OVERSPEED_AREA.unpack(value)
            overspeed = OverspeedInfo(_area_type(kind), area_id)
        elif item_id == 0x12 and length == 6:
            kind, area_id, leaving = _AREA.unpack(value)
            area = AreaAlarmInfo(_area_type(kind), area_id, bool(leaving))
        elif item_id == 0x13 and length == 7:
            segment, seconds, too_long = _ROUTE.unpack(value)
            route = RouteTimeInfo(segment, seconds, bool(too_long))
        elif item_id >= 0xE0 and liftdesk:
            vendor.append((item_id, value))
        else:
            unknown.append((item_id, value))
    forklift = None
    if vendor:
        forklift, rest = decode_status(vendor)
        unknown.extend(rest)
        if forklift == _EMPTY_STATUS:
            forklift = None
    return Location(
        alarm,
        status,
        latitude,
        longitude,
        altitude,
        speed / 10,
        direction,
        decode_time(when),
        mileage,
        fuel,
        tacho,
        event_id,
        overspeed,
        area,
        route,
        ext,
        io,
        analog,
        rssi,
        sats,
        forklift,
        tuple(unknown),
        body[offset:],
    )


_EMPTY_STATUS = ForkliftStatus()


def _area_type(value: int) -> AreaType | int:
    return AreaType(value) if value <= 4 else value


def encode_location(loc: Location) -> bytes:
    """Location → 0x0200 body.  The south/west status bits are derived from the coordinate signs."""
    status = check_uint(loc.status, 32, "status")
    # The hemisphere bits follow the signs; at exactly 0 the caller's bit is kept (-0.0 round-trips).
    if loc.latitude < 0:
        status |= _SOUTH
    elif loc.latitude > 0:
        status &= ~_SOUTH
    if loc.longitude < 0:
        status |= _WEST
    elif loc.longitude > 0:
        status &= ~_WEST
    out = bytearray(
        _BASIC.pack(
            check_uint(loc.alarm, 32, "alarm"),
            status,
            scaled(abs(loc.latitude), 1_000_000, 0, 90_000_000, "latitude"),
            scaled(abs(loc.longitude), 1_000_000, 0, 180_000_000, "longitude"),
            check_range(loc.altitude_m, -0x8000, 0x7FFF, "altitude_m"),
            scaled(loc.speed_kmh, 10, 0, 0xFFFF, "speed_kmh"),
            check_uint(loc.direction, 16, "direction"),
            encode_time(loc.time),
        )
    )
    if loc.mileage_km is not None:
        out += encode_item(0x01, U32.pack(scaled(loc.mileage_km, 10, 0, 0xFFFFFFFF, "mileage_km")))
    if loc.fuel_l is not None:
        out += encode_item(0x02, U16.pack(scaled(loc.fuel_l, 10, 0, 0xFFFF, "fuel_l")))
    if loc.tachograph_speed_kmh is not None:
        speed = scaled(loc.tachograph_speed_kmh, 10, 0, 0xFFFF, "tachograph_speed_kmh")
        out += encode_item(0x03, U16.pack(speed))
    if loc.alarm_event_id is not None:
        out += encode_item(0x04, U16.pack(check_uint(loc.alarm_event_id, 16, "alarm_event_id")))
    if loc.overspeed is not None:
        kind = check_uint(int(loc.overspeed.area_type), 8, "overspeed.area_type")
        if loc.overspeed.area_id is None:
            out += encode_item(0x11, bytes((kind,)))
        else:
            area_id = check_uint(loc.overspeed.area_id, 32, "overspeed.area_id")
            out += encode_item(0x11, _OVERSPEED_AREA.pack(kind, area_id))
    if loc.area_alarm is not None:
        a = loc.area_alarm
        kind = check_uint(int(a.area_type), 8, "area_alarm.area_type")
        out += encode_item(0x12, _AREA.pack(kind, check_uint(a.area_id, 32, "area_alarm.area_id"), int(a.leaving)))
    if loc.route_time is not None:
        r = loc.route_time
        segment = check_uint(r.segment_id, 32, "route_time.segment_id")
        seconds = check_uint(r.travel_time_s, 16, "route_time.travel_time_s")
        out += encode_item(0x13, _ROUTE.pack(segment, seconds, int(r.too_long)))
    if loc.ext_signals is not None:
        out += encode_item(0x25, U32.pack(check_uint(loc.ext_signals, 32, "ext_signals")))
    if loc.io_status is not None:
        out += encode_item(0x2A, U16.pack(check_uint(loc.io_status, 16, "io_status")))
    if loc.analog is not None:
        ad0, ad1 = loc.analog
        out += encode_item(
            0x2B, U16.pack(check_uint(ad1, 16, "analog AD1")) + U16.pack(check_uint(ad0, 16, "analog AD0"))
        )
    if loc.signal_strength is not None:
        out += encode_item(0x30, bytes((check_uint(loc.signal_strength, 8, "signal_strength"),)))
    if loc.satellites is not None:
        out += encode_item(0x31, bytes((check_uint(loc.satellites, 8, "satellites"),)))
    if loc.forklift is not None:
        out += encode_status(loc.forklift)
    for item_id, value in loc.unknown_items:
        out += encode_item(check_uint(item_id, 8, "unknown item id"), value)
    if loc.trailing:
        raise EncodeError("trailing: a location with a truncated item cannot be re-encoded")
    return bytes(out)
