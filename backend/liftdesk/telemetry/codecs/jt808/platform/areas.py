"""Area commands (0x8600-0x8605): circles, rectangles and polygons with their time and speed rules, set or
deleted by id. Their layout differs between 2013 and 2019 (names, night speed limits).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime, time
from enum import IntEnum, IntFlag
from typing import ClassVar

from .._wire import CHINA_TZ, U16, U32, check_uint, decode_str, encode_len_str, encode_time, enum_or_int, scaled
from ..errors import EncodeError
from ..packet import Jt808Version

V2013 = Jt808Version.V2013
V2019 = Jt808Version.V2019
_LATLON = struct.Struct(">II")

# --------------------------------------------------------------------------- 0x8600-0x8605


class AreaAttr(IntFlag):
    TIME_BOUND = 1 << 0  #: start/end times present
    SPEED_LIMIT = 1 << 1  #: max speed + overspeed duration (and 2019 night speed) present
    ENTER_ALARM_DRIVER = 1 << 2
    ENTER_ALARM_PLATFORM = 1 << 3
    EXIT_ALARM_DRIVER = 1 << 4
    EXIT_ALARM_PLATFORM = 1 << 5
    SOUTH = 1 << 6
    WEST = 1 << 7
    NO_DOOR_OPEN = 1 << 8
    NO_COMMS_INSIDE = 1 << 14
    COLLECT_GNSS_INSIDE = 1 << 15


class AreaSetMode(IntEnum):
    UPDATE = 0  #: replace all areas of this shape
    APPEND = 1
    MODIFY = 2


#: Area start/end: an aware datetime (absolute) or a ``time`` (daily, device-local GMT+8;
#: sent with the date part as zeros, as the standard allows).
AreaTime = datetime | time


@dataclass(frozen=True, slots=True)
class AreaRules:
    """Optional parts shared by every area shape; set ``attributes`` bits 0/1 from them."""

    start: AreaTime | None = None
    end: AreaTime | None = None
    max_speed_kmh: int | None = None
    overspeed_duration_s: int | None = None
    night_max_speed_kmh: int | None = None  #: 2019
    name: str = ""  #: 2019


@dataclass(frozen=True, slots=True)
class CircleArea:
    area_id: int
    attributes: AreaAttr | int
    latitude: float
    longitude: float
    radius_m: int
    rules: AreaRules = AreaRules()


@dataclass(frozen=True, slots=True)
class RectangleArea:
    area_id: int
    attributes: AreaAttr | int
    top_left: tuple[float, float]  #: (latitude, longitude)
    bottom_right: tuple[float, float]
    rules: AreaRules = AreaRules()


@dataclass(frozen=True, slots=True)
class PolygonArea:
    area_id: int
    attributes: AreaAttr | int
    vertices: tuple[tuple[float, float], ...]  #: (latitude, longitude) pairs
    rules: AreaRules = AreaRules()


def _encode_area_time(value: AreaTime | None, what: str) -> bytes:
    if isinstance(value, time):
        return bytes.fromhex(f"000000{value.hour:02d}{value.minute:02d}{value.second:02d}")
    if value is None:
        raise EncodeError(f"{what}: required because the area is time-bound")
    return encode_time(value, what)


def _decode_area_time(raw: bytes) -> AreaTime:
    s = raw.hex()
    if s[:6] == "000000":
        return time(int(s[6:8]), int(s[8:10]), int(s[10:12]))
    local = datetime(2000 + int(s[0:2]), int(s[2:4]), int(s[4:6]), int(s[6:8]), int(s[8:10]), int(s[10:12]))
    return local.replace(tzinfo=CHINA_TZ).astimezone(UTC)


def _attributes(attributes: int, rules: AreaRules, lats: list[float], lons: list[float]) -> int:
    attr = check_uint(int(attributes), 16, "attributes") & ~(0x1 | 0x2 | 0x40 | 0x80)
    if rules.start is not None or rules.end is not None:
        attr |= AreaAttr.TIME_BOUND
    if rules.max_speed_kmh is not None:
        attr |= AreaAttr.SPEED_LIMIT
    if any(lat < 0 for lat in lats):
        if any(lat > 0 for lat in lats):
            raise EncodeError("area: latitudes on both sides of the equator cannot be encoded")
        attr |= AreaAttr.SOUTH
    if any(lon < 0 for lon in lons):
        if any(lon > 0 for lon in lons):
            raise EncodeError("area: longitudes on both sides of the prime meridian cannot be encoded")
        attr |= AreaAttr.WEST
    return attr


def _encode_coord(lat: float, lon: float) -> bytes:
    return _LATLON.pack(
        scaled(abs(lat), 1_000_000, 0, 90_000_000, "latitude"),
        scaled(abs(lon), 1_000_000, 0, 180_000_000, "longitude"),
    )


def _decode_coord(body: bytes, offset: int, attr: int) -> tuple[float, float]:
    lat, lon = _LATLON.unpack_from(body, offset)
    return (-lat / 1e6 if attr & AreaAttr.SOUTH else lat / 1e6, -lon / 1e6 if attr & AreaAttr.WEST else lon / 1e6)


def _encode_rules(attr: int, rules: AreaRules, version: Jt808Version, *, polygon: bool = False) -> tuple[bytes, bytes]:
    """(the part before the shape-specific tail, the 2019 part after it)."""
    head = b""
    if attr & AreaAttr.TIME_BOUND:
        head += _encode_area_time(rules.start, "start") + _encode_area_time(rules.end, "end")
    tail = b""
    if attr & AreaAttr.SPEED_LIMIT:
        head += U16.pack(check_uint(rules.max_speed_kmh or 0, 16, "max_speed_kmh"))
        head += bytes((check_uint(rules.overspeed_duration_s or 0, 8, "overspeed_duration_s"),))
        if version is V2019:
            night = U16.pack(check_uint(rules.night_max_speed_kmh or 0, 16, "night_max_speed_kmh"))
            if polygon:
                tail += night
            else:
                head += night
    if version is V2019:
        tail += encode_len_str(rules.name, "name", length_bytes=2)
    return head, tail


def _decode_rules(
    body: bytes, o: int, attr: int, version: Jt808Version, *, polygon: bool = False
) -> tuple[AreaRules, int]:
    """Parse the time/speed rules at ``o`` (a polygon's 2019 night speed comes later)."""
    start = end = None
    max_speed = duration = night = None
    if attr & AreaAttr.TIME_BOUND:
        start = _decode_area_time(body[o : o + 6])
        end = _decode_area_time(body[o + 6 : o + 12])
        o += 12
    if attr & AreaAttr.SPEED_LIMIT:
        max_speed = U16.unpack_from(body, o)[0]
        duration = body[o + 2]
        o += 3
        if version is V2019 and not polygon:
            night = U16.unpack_from(body, o)[0]
            o += 2
    return AreaRules(start, end, max_speed, duration, night), o


def _decode_name(body: bytes, o: int) -> tuple[str, int]:
    n = U16.unpack_from(body, o)[0]
    raw = body[o + 2 : o + 2 + n]
    if len(raw) != n:
        raise ValueError("area name is truncated")
    return decode_str(raw), o + 2 + n


def _check_mode(mode: int, count: int) -> bytes:
    if count > 0xFF:
        raise EncodeError("areas: at most 255 per message")
    return bytes((check_uint(int(mode), 8, "mode"), count))


@dataclass(frozen=True, slots=True)
class SetCircleAreas:
    """0x8600 set circular areas."""

    msg_id: ClassVar[int] = 0x8600
    mode: AreaSetMode | int
    areas: tuple[CircleArea, ...]

    def encode(self, version: Jt808Version = V2013) -> bytes:
        out = bytearray(_check_mode(self.mode, len(self.areas)))
        for a in self.areas:
            attr = _attributes(a.attributes, a.rules, [a.latitude], [a.longitude])
            head, tail = _encode_rules(attr, a.rules, version)
            out += U32.pack(check_uint(a.area_id, 32, "area_id")) + U16.pack(attr)
            out += _encode_coord(a.latitude, a.longitude) + U32.pack(check_uint(a.radius_m, 32, "radius_m"))
            out += head + tail
        return bytes(out)


def parse_set_circle_areas(body: bytes, version: Jt808Version = V2013) -> SetCircleAreas:
    mode, count = body[0], body[1]
    o = 2
    areas = []
    for _ in range(count):
        area_id, attr = struct.unpack_from(">IH", body, o)
        lat, lon = _decode_coord(body, o + 6, attr)
        radius = U32.unpack_from(body, o + 14)[0]
        rules, o = _decode_rules(body, o + 18, attr, version)
        if version is V2019:
            name, o = _decode_name(body, o)
            rules = _with_name(rules, name)
        areas.append(CircleArea(area_id, attr, lat, lon, radius, rules))
    return SetCircleAreas(enum_or_int(AreaSetMode, mode), tuple(areas))


def _with_name(rules: AreaRules, name: str, night: int | None = None) -> AreaRules:
    return AreaRules(
        rules.start,
        rules.end,
        rules.max_speed_kmh,
        rules.overspeed_duration_s,
        rules.night_max_speed_kmh if night is None else night,
        name,
    )


@dataclass(frozen=True, slots=True)
class SetRectangleAreas:
    """0x8602 set rectangular areas."""

    msg_id: ClassVar[int] = 0x8602
    mode: AreaSetMode | int
    areas: tuple[RectangleArea, ...]

    def encode(self, version: Jt808Version = V2013) -> bytes:
        out = bytearray(_check_mode(self.mode, len(self.areas)))
        for a in self.areas:
            (lat1, lon1), (lat2, lon2) = a.top_left, a.bottom_right
            attr = _attributes(a.attributes, a.rules, [lat1, lat2], [lon1, lon2])
            head, tail = _encode_rules(attr, a.rules, version)
            out += U32.pack(check_uint(a.area_id, 32, "area_id")) + U16.pack(attr)
            out += _encode_coord(lat1, lon1) + _encode_coord(lat2, lon2) + head + tail
        return bytes(out)


def parse_set_rectangle_areas(body: bytes, version: Jt808Version = V2013) -> SetRectangleAreas:
    mode, count = body[0], body[1]
    o = 2
    areas = []
    for _ in range(count):
        area_id, attr = struct.unpack_from(">IH", body, o)
        top_left = _decode_coord(body, o + 6, attr)
        bottom_right = _decode_coord(body, o + 14, attr)
        rules, o = _decode_rules(body, o + 22, attr, version)
        if version is V2019:
            name, o = _decode_name(body, o)
            rules = _with_name(rules, name)
        areas.append(RectangleArea(area_id, attr, top_left, bottom_right, rules))
    return SetRectangleAreas(enum_or_int(AreaSetMode, mode), tuple(areas))


@dataclass(frozen=True, slots=True)
class SetPolygonArea:
    """0x8604 set one polygonal area.

    2019 appends the night max speed (when speed-limited) and the name after the vertices.
    """

    msg_id: ClassVar[int] = 0x8604
    area: PolygonArea

    def encode(self, version: Jt808Version = V2013) -> bytes:
        a = self.area
        attr = _attributes(a.attributes, a.rules, [v[0] for v in a.vertices], [v[1] for v in a.vertices])
        head, tail = _encode_rules(attr, a.rules, version, polygon=True)
        out = bytearray(U32.pack(check_uint(a.area_id, 32, "area_id")) + U16.pack(attr) + head)
        out += U16.pack(check_uint(len(a.vertices), 16, "vertex count"))
        for lat, lon in a.vertices:
            out += _encode_coord(lat, lon)
        return bytes(out + tail)


def parse_set_polygon_area(body: bytes, version: Jt808Version = V2013) -> SetPolygonArea:
    area_id, attr = struct.unpack_from(">IH", body, 0)
    rules, o = _decode_rules(body, 6, attr, version, polygon=True)
    count = U16.unpack_from(body, o)[0]
    o += 2
    if len(body) < o + 8 * count:
        raise ValueError(f"{count} vertices do not fit the body")
    vertices = tuple(_decode_coord(body, o + 8 * i, attr) for i in range(count))
    o += 8 * count
    if version is V2019:
        night = None
        if attr & AreaAttr.SPEED_LIMIT:
            night = U16.unpack_from(body, o)[0]
            o += 2
        name, o = _decode_name(body, o)
        rules = _with_name(rules, name, night)
    return SetPolygonArea(PolygonArea(area_id, attr, vertices, rules))


@dataclass(frozen=True, slots=True)
class _DeleteAreas:
    """0x8601 / 0x8603 / 0x8605 delete areas by id; no ids deletes all of that shape."""

    msg_id: ClassVar[int]
    area_ids: tuple[int, ...] = ()

    def encode(self, version: Jt808Version = V2013) -> bytes:
        if len(self.area_ids) > 0xFF:
            raise EncodeError("area_ids: at most 255 per message")
        return bytes((len(self.area_ids),)) + b"".join(U32.pack(check_uint(i, 32, "area_ids")) for i in self.area_ids)


@dataclass(frozen=True, slots=True)
class DeleteCircleAreas(_DeleteAreas):
    msg_id: ClassVar[int] = 0x8601


@dataclass(frozen=True, slots=True)
class DeleteRectangleAreas(_DeleteAreas):
    msg_id: ClassVar[int] = 0x8603


@dataclass(frozen=True, slots=True)
class DeletePolygonAreas(_DeleteAreas):
    msg_id: ClassVar[int] = 0x8605


def _parse_ids(body: bytes) -> tuple[int, ...]:
    count = body[0]
    if len(body) < 1 + 4 * count:
        raise ValueError(f"{count} area ids need {1 + 4 * count} bytes")
    ids: tuple[int, ...] = struct.unpack_from(f">{count}I", body, 1)
    return ids


def parse_delete_circle_areas(body: bytes, version: Jt808Version = V2013) -> DeleteCircleAreas:
    return DeleteCircleAreas(_parse_ids(body))


def parse_delete_rectangle_areas(body: bytes, version: Jt808Version = V2013) -> DeleteRectangleAreas:
    return DeleteRectangleAreas(_parse_ids(body))


def parse_delete_polygon_areas(body: bytes, version: Jt808Version = V2013) -> DeletePolygonAreas:
    return DeletePolygonAreas(_parse_ids(body))
