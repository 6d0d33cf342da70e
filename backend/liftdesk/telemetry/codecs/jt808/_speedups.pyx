# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled fast path of the hot decoders: :func:`decode_packet` (unescape, checksum, header), :func:`decode_location`
(0x0200 body with its additional items, Liftdesk's vendor items included) and :func:`parse_location_batch` (0x0704).

Built by ``make install`` (Cython, ``setup.py``); ``speedups.py`` chooses it when it imports, else the pure-Python
codec is used. Each function gives exactly what its pure-Python model gives (``packet.decode_packet``,
``location.decode_location``, ``terminal.parse_location_batch``; the tests run both over the same frames): the same
objects with the same values. Two rules keep it so:

* malformed input is never judged here: whatever the pure-Python decoder would refuse (a bad escape, checksum,
  header, a body shorter than its fixed part, a truncated batch item) is handed to it, and it raises its own error;
* the frozen dataclasses are the codec's own classes, filled field by field as their ``__init__`` fills them (without
  the ``object.__setattr__`` call per field a frozen dataclass's ``__init__`` makes). The import checks that their
  fields are still the ones filled here; a class that changed makes the import fail, and the pure-Python path runs.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.datetime cimport datetime_new, import_datetime
from cpython.object cimport PyObject_GenericSetAttr
from cpython.unicode cimport PyUnicode_FromStringAndSize
from libc.string cimport memchr

import dataclasses
import struct
from datetime import UTC

from . import location as _location_module
from . import packet as _packet_module
from . import terminal as _terminal_module
from .liftdesk import (
    BatteryInfo,
    ChargeState,
    ForkliftStatus,
    Forks,
    ForkState,
    Impact,
    LockLevel,
    SeatBelt,
    decode_fault_codes,
)
from .location import AreaAlarmInfo, AreaType, Location, OverspeedInfo, RouteTimeInfo
from .packet import Header, Jt808Version, Packet, Subpackage
from .terminal import BatchType, LocationBatch

import_datetime()

_py_decode_packet = _packet_module.decode_packet
_py_decode_location = _location_module.decode_location
_py_parse_location_batch = _terminal_module.parse_location_batch
_object_new = object.__new__
_UTC = UTC
_V2013 = Jt808Version.V2013
_V2019 = Jt808Version.V2019
_AREA_TYPES = tuple(AreaType(i) for i in range(5))
_SEAT_BELTS = tuple(SeatBelt)
_FORK_STATES = tuple(ForkState)
_LOCK_LEVELS = tuple(LockLevel)
_CHARGE_STATES = tuple(ChargeState)
_BATCH_TYPES = tuple(BatchType)
_EMPTY = b""

#: The fields filled below, class by class, in the order of their ``__init__``.
_FIELDS = {
    Header: ("msg_id", "terminal", "serial", "version", "protocol_version", "encryption", "subpackage"),
    Packet: ("header", "body"),
    Subpackage: ("total", "index"),
    Location: (
        "alarm", "status", "latitude", "longitude", "altitude_m", "speed_kmh", "direction", "time", "mileage_km",
        "fuel_l", "tachograph_speed_kmh", "alarm_event_id", "overspeed", "area_alarm", "route_time", "ext_signals",
        "io_status", "analog", "signal_strength", "satellites", "forklift", "unknown_items", "trailing",
    ),
    OverspeedInfo: ("area_type", "area_id"),
    AreaAlarmInfo: ("area_type", "area_id", "leaving"),
    RouteTimeInfo: ("segment_id", "travel_time_s", "too_long"),
    LocationBatch: ("batch_type", "locations"),
    ForkliftStatus: (
        "load_kg", "impact", "seat_belt", "forks", "lock_level", "speed_limit_kmh", "battery", "fault_codes",
    ),
    Impact: ("accel_g", "direction_deg"),
    Forks: ("state", "height_mm"),
    BatteryInfo: (
        "soc_pct", "voltage_v", "current_a", "charge_state", "temperatures_c", "cell_voltages_mv", "bms_flags",
    ),
}
for _members in (_AREA_TYPES, _SEAT_BELTS, _FORK_STATES, _LOCK_LEVELS, _CHARGE_STATES, _BATCH_TYPES):
    if [int(m) for m in _members] != list(range(len(_members))):
        raise ImportError(f"{type(_members[0]).__name__} is no longer numbered 0..n: its compiled decoder reads it")
for _cls, _names in _FIELDS.items():
    _params = _cls.__dataclass_params__
    if tuple(f.name for f in dataclasses.fields(_cls)) != _names:
        raise ImportError(f"{_cls.__name__} has changed: its compiled decoder no longer fills it")
    if not _params.frozen or "__slots__" not in _cls.__dict__ or hasattr(_cls, "__post_init__"):
        raise ImportError(f"{_cls.__name__} is no longer a frozen slots dataclass")


cdef inline object _set(object obj, str name, object value):
    PyObject_GenericSetAttr(obj, name, value)


cdef inline unsigned int _u16(const unsigned char* p) noexcept nogil:
    return (p[0] << 8) | p[1]


cdef inline unsigned int _u32(const unsigned char* p) noexcept nogil:
    return (<unsigned int>p[0] << 24) | (<unsigned int>p[1] << 16) | (<unsigned int>p[2] << 8) | p[3]


cdef inline int _bcd(unsigned char b) noexcept nogil:
    """A packed BCD byte → 0..99, or -1 when a nibble is not a decimal digit."""
    if (b >> 4) > 9 or (b & 0xF) > 9:
        return -1
    return (b >> 4) * 10 + (b & 0xF)


cdef inline int _days_in_month(int year, int month) noexcept nogil:
    if month == 2:
        return 29 if (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)) else 28
    if month == 4 or month == 6 or month == 9 or month == 11:
        return 30
    return 31


cdef object _time(const unsigned char* p):
    """BCD[6] YYMMDDhhmmss in GMT+8 → aware UTC datetime; None when zero or invalid (``_wire.decode_time``)."""
    cdef int year = _bcd(p[0]), month = _bcd(p[1]), day = _bcd(p[2])
    cdef int hour = _bcd(p[3]), minute = _bcd(p[4]), second = _bcd(p[5])
    if year < 0 or month < 1 or month > 12 or day < 1 or hour < 0 or hour > 23:
        return None
    if minute < 0 or minute > 59 or second < 0 or second > 59:
        return None
    year += 2000
    if day > _days_in_month(year, month):
        return None
    hour -= 8
    if hour < 0:
        hour += 24
        day -= 1
        if day == 0:
            month -= 1
            if month == 0:
                month = 12
                year -= 1
            day = _days_in_month(year, month)
    return datetime_new(year, month, day, hour, minute, second, 0, _UTC)


cdef inline object _area_type(unsigned int value):
    return _AREA_TYPES[value] if value <= 4 else value


# --------------------------------------------------------------------------- frames


cdef inline object _hex(const unsigned char* p, Py_ssize_t n):
    cdef char buf[40]
    cdef Py_ssize_t i
    cdef const char* digits = b"0123456789abcdef"
    for i in range(n):
        buf[2 * i] = digits[p[i] >> 4]
        buf[2 * i + 1] = digits[p[i] & 0xF]
    return PyUnicode_FromStringAndSize(buf, 2 * n)


def decode_packet(frame):
    """``packet.decode_packet``: one frame (with or without its 0x7E delimiters) → :class:`Packet`."""
    if type(frame) is not bytes:
        return _py_decode_packet(frame)
    cdef bytes data = <bytes>frame
    cdef const unsigned char* src = <const unsigned char*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t start = 0, end = PyBytes_GET_SIZE(data), i, escapes = 0, n
    if end > start and src[start] == 0x7E:
        start += 1
    if end > start and src[end - 1] == 0x7E:
        end -= 1
    n = end - start
    if n > 0 and memchr(src + start, 0x7E, n) != NULL:
        return _py_decode_packet(frame)  # it raises FrameError
    cdef bytes raw
    cdef unsigned char* out
    cdef Py_ssize_t j = 0
    for i in range(start, end):
        if src[i] == 0x7D:
            if i + 1 >= end or (src[i + 1] != 0x01 and src[i + 1] != 0x02):
                return _py_decode_packet(frame)  # it raises EscapeError
            escapes += 1
    if escapes == 0:
        raw = data if n == PyBytes_GET_SIZE(data) else data[start:end]
    else:
        raw = PyBytes_FromStringAndSize(NULL, n - escapes)
        out = <unsigned char*>PyBytes_AS_STRING(raw)
        i = start
        while i < end:
            if src[i] == 0x7D:
                out[j] = 0x7E if src[i + 1] == 0x02 else 0x7D
                i += 2
            else:
                out[j] = src[i]
                i += 1
            j += 1
    cdef const unsigned char* r = <const unsigned char*>PyBytes_AS_STRING(raw)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(raw) - 1
    if size + 1 < 13:
        return _py_decode_packet(frame)  # it raises HeaderError
    cdef unsigned char check = 0
    for i in range(size):
        check ^= r[i]
    if check != r[size]:
        return _py_decode_packet(frame)  # it raises ChecksumError
    cdef unsigned int msg_id = _u16(r), props = _u16(r + 2)
    cdef Py_ssize_t body_len = props & 0x3FF
    cdef unsigned int sub = props & 0x2000
    cdef Py_ssize_t extra = 4 if sub else 0
    cdef Py_ssize_t offset
    cdef unsigned int protocol_version
    if props & 0x4000 and size == 17 + extra + body_len:
        version = _V2019
        protocol_version = r[4]
        terminal = _hex(r + 5, 10)
        offset = 15
    elif size == 12 + extra + body_len:
        version = _V2013
        protocol_version = 0
        terminal = _hex(r + 4, 6)
        offset = 10
    else:
        return _py_decode_packet(frame)  # it raises HeaderError
    cdef unsigned int serial = _u16(r + offset)
    offset += 2
    subpackage = None
    if sub:
        subpackage = _object_new(Subpackage)
        _set(subpackage, "total", _u16(r + offset))
        _set(subpackage, "index", _u16(r + offset + 2))
        offset += 4
    header = _object_new(Header)
    _set(header, "msg_id", msg_id)
    _set(header, "terminal", terminal)
    _set(header, "serial", serial)
    _set(header, "version", version)
    _set(header, "protocol_version", protocol_version)
    _set(header, "encryption", (props >> 10) & 0x7)
    _set(header, "subpackage", subpackage)
    packet = _object_new(Packet)
    _set(packet, "header", header)
    _set(packet, "body", raw[offset:size])
    return packet


# --------------------------------------------------------------------------- locations


cdef object _battery(bytes value):
    """``liftdesk.decode_battery``; None where it raises (the item then stays raw)."""
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(value)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(value), offset = 7, k
    cdef int current
    if size < 7:
        return None
    cdef unsigned int n_temps = p[6], n_cells, state = p[5]
    if offset + n_temps >= size:  # the temperatures, then at least the cell count
        return None
    temps = tuple([<signed char>p[offset + k] for k in range(n_temps)])
    offset += n_temps
    n_cells = p[offset]
    offset += 1
    if offset + 2 * n_cells > size:
        return None
    cells = tuple([_u16(p + offset + 2 * k) for k in range(n_cells)])
    offset += 2 * n_cells
    if size == offset + 2:
        flags = _u16(p + offset)
    elif size == offset:
        flags = None
    else:
        return None
    if state >= len(_CHARGE_STATES):
        return None
    current = <short>_u16(p + 3)
    battery = _object_new(BatteryInfo)
    _set(battery, "soc_pct", p[0])
    _set(battery, "voltage_v", <double>_u16(p + 1) / 10.0)
    _set(battery, "current_a", <double>current / 10.0)
    _set(battery, "charge_state", _CHARGE_STATES[state])
    _set(battery, "temperatures_c", temps)
    _set(battery, "cell_voltages_mv", cells)
    _set(battery, "bms_flags", flags)
    return battery


cdef object _forklift(list vendor, list unknown):
    """``liftdesk.decode_status`` of the vendor items; what it does not take goes to ``unknown``. None when it takes
    nothing (``decode_location`` drops an empty status)."""
    load_kg = impact = seat_belt = forks = lock_level = speed_limit = battery = faults = None
    cdef bytes value
    cdef const unsigned char* p
    cdef Py_ssize_t size
    cdef int item_id
    rest = []
    for item in vendor:
        item_id = item[0]
        value = item[1]
        p = <const unsigned char*>PyBytes_AS_STRING(value)
        size = PyBytes_GET_SIZE(value)
        if item_id == 0xE0 and size == 2:
            load_kg = _u16(p)
        elif item_id == 0xE1 and size == 4:
            impact = _object_new(Impact)
            _set(impact, "accel_g", <double>_u16(p) / 100.0)
            _set(impact, "direction_deg", _u16(p + 2))
        elif item_id == 0xE2 and size == 1 and p[0] < len(_SEAT_BELTS):
            seat_belt = _SEAT_BELTS[p[0]]
        elif item_id == 0xE3 and size == 3 and p[0] < len(_FORK_STATES):
            forks = _object_new(Forks)
            _set(forks, "state", _FORK_STATES[p[0]])
            _set(forks, "height_mm", _u16(p + 1))
        elif item_id == 0xE4 and size == 1 and p[0] < len(_LOCK_LEVELS):
            lock_level = _LOCK_LEVELS[p[0]]
        elif item_id == 0xE5 and size == 1:
            speed_limit = p[0]
        elif item_id == 0xE6:
            decoded = _battery(value)
            if decoded is None:
                rest.append(item)
            else:
                battery = decoded
        elif item_id == 0xE7 and size >= 1:
            try:
                faults = decode_fault_codes(value)
            except (ValueError, IndexError, struct.error):
                rest.append(item)
        else:
            rest.append(item)
    unknown.extend(rest)
    if (
        load_kg is None and impact is None and seat_belt is None and forks is None and lock_level is None
        and speed_limit is None and battery is None and faults is None
    ):
        return None
    status = _object_new(ForkliftStatus)
    _set(status, "load_kg", load_kg)
    _set(status, "impact", impact)
    _set(status, "seat_belt", seat_belt)
    _set(status, "forks", forks)
    _set(status, "lock_level", lock_level)
    _set(status, "speed_limit_kmh", speed_limit)
    _set(status, "battery", battery)
    _set(status, "fault_codes", faults)
    return status


cdef object _location(bytes body, bint liftdesk):
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(body)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(body), offset = 28, stop, length
    cdef unsigned int status = _u32(p + 4), lat = _u32(p + 8), lon = _u32(p + 12), item_id
    cdef const unsigned char* v
    mileage = fuel = tacho = event_id = ext = io = rssi = sats = overspeed = area = route = analog = forklift = None
    unknown = None
    vendor = None
    while offset + 2 <= size:
        item_id = p[offset]
        length = p[offset + 1]
        stop = offset + 2 + length
        if stop > size:
            break
        v = p + offset + 2
        if item_id == 0x01 and length == 4:
            mileage = <double>_u32(v) / 10.0
        elif item_id == 0x30 and length == 1:
            rssi = v[0]
        elif item_id == 0x31 and length == 1:
            sats = v[0]
        elif item_id == 0x02 and length == 2:
            fuel = <double>_u16(v) / 10.0
        elif item_id == 0x03 and length == 2:
            tacho = <double>_u16(v) / 10.0
        elif item_id == 0x04 and length == 2:
            event_id = _u16(v)
        elif item_id == 0x25 and length == 4:
            ext = _u32(v)
        elif item_id == 0x2A and length == 2:
            io = _u16(v)
        elif item_id == 0x2B and length == 4:
            analog = (_u16(v + 2), _u16(v))
        elif item_id == 0x11 and (length == 1 or length == 5):
            overspeed = _object_new(OverspeedInfo)
            _set(overspeed, "area_type", _area_type(v[0]))
            _set(overspeed, "area_id", _u32(v + 1) if length == 5 else None)
        elif item_id == 0x12 and length == 6:
            area = _object_new(AreaAlarmInfo)
            _set(area, "area_type", _area_type(v[0]))
            _set(area, "area_id", _u32(v + 1))
            _set(area, "leaving", v[5] != 0)
        elif item_id == 0x13 and length == 7:
            route = _object_new(RouteTimeInfo)
            _set(route, "segment_id", _u32(v))
            _set(route, "travel_time_s", _u16(v + 4))
            _set(route, "too_long", v[6] != 0)
        elif item_id >= 0xE0 and liftdesk:
            if vendor is None:
                vendor = []
            vendor.append((item_id, body[offset + 2 : stop]))
        else:
            if unknown is None:
                unknown = []
            unknown.append((item_id, body[offset + 2 : stop]))
        offset = stop
    if vendor is not None:
        if unknown is None:
            unknown = []
        forklift = _forklift(vendor, unknown)
    loc = _object_new(Location)
    _set(loc, "alarm", _u32(p))
    _set(loc, "status", status)
    # negated as integers, as the model does: a zero coordinate is +0.0 whatever its hemisphere bit
    _set(loc, "latitude", <double>(-<long long>lat) / 1e6 if status & 0x4 else <double>lat / 1e6)
    _set(loc, "longitude", <double>(-<long long>lon) / 1e6 if status & 0x8 else <double>lon / 1e6)
    _set(loc, "altitude_m", <short>_u16(p + 16))
    _set(loc, "speed_kmh", <double>_u16(p + 18) / 10.0)
    _set(loc, "direction", _u16(p + 20))
    _set(loc, "time", _time(p + 22))
    _set(loc, "mileage_km", mileage)
    _set(loc, "fuel_l", fuel)
    _set(loc, "tachograph_speed_kmh", tacho)
    _set(loc, "alarm_event_id", event_id)
    _set(loc, "overspeed", overspeed)
    _set(loc, "area_alarm", area)
    _set(loc, "route_time", route)
    _set(loc, "ext_signals", ext)
    _set(loc, "io_status", io)
    _set(loc, "analog", analog)
    _set(loc, "signal_strength", rssi)
    _set(loc, "satellites", sats)
    _set(loc, "forklift", forklift)
    _set(loc, "unknown_items", () if unknown is None else tuple(unknown))
    _set(loc, "trailing", _EMPTY if offset == size else body[offset:])
    return loc


def decode_location(body, *, liftdesk=True):
    """``location.decode_location``: a 0x0200 body → :class:`Location`."""
    if type(body) is not bytes or PyBytes_GET_SIZE(body) < 28:
        return _py_decode_location(body, liftdesk=liftdesk)  # it raises for a short body
    return _location(<bytes>body, liftdesk)


def parse_location_batch(body, version=_V2013, *, liftdesk=True):
    """``terminal.parse_location_batch``: a 0x0704 body → :class:`LocationBatch`."""
    if type(body) is not bytes or PyBytes_GET_SIZE(body) < 3:
        return _py_parse_location_batch(body, version, liftdesk=liftdesk)
    cdef bytes data = <bytes>body
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(data), offset = 3, item_size, start, k
    cdef unsigned int count = _u16(p), kind = p[2]
    locations = []
    for k in range(count):
        if offset + 2 > size:
            return _py_parse_location_batch(body, version, liftdesk=liftdesk)  # it raises
        item_size = _u16(p + offset)
        start = offset + 2
        offset = start + item_size
        if offset > size or item_size < 28:
            return _py_parse_location_batch(body, version, liftdesk=liftdesk)  # it raises
        locations.append(_location(data[start:offset], liftdesk))
    batch = _object_new(LocationBatch)
    _set(batch, "batch_type", _BATCH_TYPES[kind] if kind < len(_BATCH_TYPES) else kind)
    _set(batch, "locations", tuple(locations))
    return batch
