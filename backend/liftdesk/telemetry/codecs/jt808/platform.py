"""Platform → terminal message bodies: dataclasses with ``encode(version)``, plus parsers.

The gateway builds these; the parsers let the device simulator (and the tests) read them
back.  Areas (0x8600-0x8605) and text messages differ between 2013 and 2019, so their
encoders take the terminal's header version.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime, time
from enum import IntEnum, IntFlag
from typing import ClassVar

from ._wire import (
    CHINA_TZ,
    U16,
    U32,
    check_range,
    check_uint,
    decode_str,
    encode_fixed_str,
    encode_len_str,
    encode_str,
    encode_time,
    enum_or_int,
    scaled,
)
from .errors import EncodeError
from .packet import Header, Jt808Version
from .params import ParamItem, ParamValue, decode_param_items, encode_param_items
from .terminal import ReplyResult, UpgradeType, encode_reply

V2013 = Jt808Version.V2013
V2019 = Jt808Version.V2019
_REPLY = struct.Struct(">HHB")
_LATLON = struct.Struct(">II")


# --------------------------------------------------------------------------- 0x8001


@dataclass(frozen=True, slots=True)
class PlatformGeneralReply:
    """0x8001 platform general reply."""

    msg_id: ClassVar[int] = 0x8001
    reply_serial: int
    reply_msg_id: int
    result: ReplyResult | int = ReplyResult.SUCCESS

    @classmethod
    def to(cls, header: Header, result: ReplyResult | int = ReplyResult.SUCCESS) -> PlatformGeneralReply:
        """The reply acknowledging the message with ``header``."""
        return cls(header.serial, header.msg_id, result)

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return encode_reply(self.reply_serial, self.reply_msg_id, self.result)


def parse_platform_general_reply(body: bytes, version: Jt808Version = V2013) -> PlatformGeneralReply:
    serial, msg_id, result = _REPLY.unpack_from(body, 0)
    return PlatformGeneralReply(serial, msg_id, enum_or_int(ReplyResult, result))


# --------------------------------------------------------------------------- 0x8003


@dataclass(frozen=True, slots=True)
class ResendRequest:
    """0x8003 the platform asks for the sub-packages of a message it is missing.

    ``original_serial`` is the serial of the message's first sub-package; ``serials`` are the serials of the
    packages to send again (a message's sub-packages carry consecutive serials, so serial = first + index - 1).
    The count is a BYTE in 2013 and a WORD in 2019.
    """

    msg_id: ClassVar[int] = 0x8003
    original_serial: int
    serials: tuple[int, ...]

    def encode(self, version: Jt808Version = V2013) -> bytes:
        count = len(self.serials)
        if count > (0xFFFF if version is V2019 else 0xFF):
            raise EncodeError(f"serials: {count} are more than one request can carry")
        head = U16.pack(check_uint(self.original_serial, 16, "original_serial"))
        head += U16.pack(count) if version is V2019 else bytes((count,))
        return head + b"".join(U16.pack(check_uint(s, 16, "serials")) for s in self.serials)


def parse_resend_request(body: bytes, version: Jt808Version = V2013) -> ResendRequest:
    original = U16.unpack_from(body, 0)[0]
    if version is V2019:
        count, offset = U16.unpack_from(body, 2)[0], 4
    else:
        count, offset = body[2], 3
    if len(body) < offset + 2 * count:
        raise ValueError(f"{count} serials need {offset + 2 * count} bytes")
    return ResendRequest(original, struct.unpack_from(f">{count}H", body, offset))


# --------------------------------------------------------------------------- 0x8100


class RegistrationResult(IntEnum):
    SUCCESS = 0
    VEHICLE_REGISTERED = 1
    VEHICLE_UNKNOWN = 2
    TERMINAL_REGISTERED = 3
    TERMINAL_UNKNOWN = 4


@dataclass(frozen=True, slots=True)
class RegistrationReply:
    """0x8100 registration reply; ``auth_code`` is sent only on success."""

    msg_id: ClassVar[int] = 0x8100
    reply_serial: int
    result: RegistrationResult | int
    auth_code: str | None = None

    def encode(self, version: Jt808Version = V2013) -> bytes:
        out = U16.pack(check_uint(self.reply_serial, 16, "reply_serial")) + bytes(
            (check_uint(int(self.result), 8, "result"),)
        )
        if self.result == RegistrationResult.SUCCESS:
            if not self.auth_code:
                raise EncodeError("auth_code: required when registration succeeds")
            out += encode_str(self.auth_code, "auth_code")
        return out


def parse_registration_reply(body: bytes, version: Jt808Version = V2013) -> RegistrationReply:
    serial = U16.unpack_from(body, 0)[0]
    result = enum_or_int(RegistrationResult, body[2])
    code = decode_str(body[3:]) if result == RegistrationResult.SUCCESS else None
    return RegistrationReply(serial, result, code)


# --------------------------------------------------------------------------- 0x8103, 0x8104, 0x8106


@dataclass(frozen=True, slots=True)
class SetParams:
    """0x8103 set terminal parameters (validated against the parameter table on encode)."""

    msg_id: ClassVar[int] = 0x8103
    params: tuple[ParamItem, ...]

    @classmethod
    def of(cls, values: dict[int, ParamValue]) -> SetParams:
        return cls(tuple(ParamItem(int(k), v) for k, v in values.items()))

    def as_dict(self) -> dict[int, ParamValue]:
        return {p.id: p.value for p in self.params}

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return encode_param_items(self.params)


def parse_set_params(body: bytes, version: Jt808Version = V2013) -> SetParams:
    return SetParams(decode_param_items(body, 0))


@dataclass(frozen=True, slots=True)
class QueryAllParams:
    """0x8104 query all terminal parameters (empty body)."""

    msg_id: ClassVar[int] = 0x8104

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return b""


@dataclass(frozen=True, slots=True)
class QueryParams:
    """0x8106 query the listed terminal parameters."""

    msg_id: ClassVar[int] = 0x8106
    param_ids: tuple[int, ...]

    def encode(self, version: Jt808Version = V2013) -> bytes:
        if len(self.param_ids) > 0xFF:
            raise EncodeError("param_ids: at most 255 per query")
        return bytes((len(self.param_ids),)) + b"".join(
            U32.pack(check_uint(p, 32, "param_ids")) for p in self.param_ids
        )


def parse_query_params(body: bytes, version: Jt808Version = V2013) -> QueryParams:
    count = body[0]
    if len(body) < 1 + 4 * count:
        raise ValueError(f"{count} parameter ids need {1 + 4 * count} bytes")
    return QueryParams(struct.unpack_from(f">{count}I", body, 1))


# --------------------------------------------------------------------------- 0x8105


class TerminalCommand(IntEnum):
    UPGRADE = 1  #: params: URL;APN;user;password;address;TCP port;UDP port;maker;hw;fw;timeout
    CONNECT_SERVER = 2  #: params: control;auth code;APN;user;password;address;TCP;UDP;timeout
    POWER_OFF = 3
    RESET = 4
    FACTORY_RESET = 5
    CLOSE_DATA_LINK = 6
    CLOSE_WIRELESS = 7


@dataclass(frozen=True, slots=True)
class TerminalControl:
    """0x8105 terminal control; ``params`` are joined with ';' on the wire."""

    msg_id: ClassVar[int] = 0x8105
    command: TerminalCommand | int
    params: tuple[str, ...] = ()

    def encode(self, version: Jt808Version = V2013) -> bytes:
        for p in self.params:
            if ";" in p:
                raise EncodeError(f"params: {p!r} contains the ';' separator")
        head = bytes((check_uint(int(self.command), 8, "command"),))
        return head + (encode_str(";".join(self.params), "params") if self.params else b"")


def parse_terminal_control(body: bytes, version: Jt808Version = V2013) -> TerminalControl:
    text = body[1:].decode("gbk", errors="replace").rstrip("\x00")
    return TerminalControl(enum_or_int(TerminalCommand, body[0]), tuple(text.split(";")) if text else ())


# --------------------------------------------------------------------------- 0x8203

#: Alarm bits an operator may confirm with 0x8203 (JT/T 808 table "manual alarm confirmation"): emergency (0),
#: danger warning (3), area (20), route (21), segment time (22), illegal ignition (27), illegal move (28).
CONFIRMABLE_ALARMS = (1 << 0) | (1 << 3) | (1 << 20) | (1 << 21) | (1 << 22) | (1 << 27) | (1 << 28)


@dataclass(frozen=True, slots=True)
class AlarmConfirmation:
    """0x8203 manual alarm confirmation: the alarms in ``alarm_types`` (0x0200 alarm bits) are handled.

    ``alarm_serial`` is the serial of the 0x0200 that raised them; 0 confirms every alarm of those types.
    """

    msg_id: ClassVar[int] = 0x8203
    alarm_serial: int
    alarm_types: int

    def encode(self, version: Jt808Version = V2013) -> bytes:
        types = check_uint(int(self.alarm_types), 32, "alarm_types")
        if not types or types & ~CONFIRMABLE_ALARMS:
            raise EncodeError(f"alarm_types: 0x{types:08x} is empty or has bits that cannot be confirmed")
        return U16.pack(check_uint(self.alarm_serial, 16, "alarm_serial")) + U32.pack(types)


def parse_alarm_confirmation(body: bytes, version: Jt808Version = V2013) -> AlarmConfirmation:
    serial = U16.unpack_from(body, 0)[0]
    return AlarmConfirmation(serial, U32.unpack_from(body, 2)[0])


# --------------------------------------------------------------------------- 0x8300


class TextFlag(IntFlag):
    URGENT = 1 << 0  #: 2013; in 2019 bits 0-1 are a priority (1 service, 2 urgent, 3 notice)
    PRIORITY_HIGH_BIT = 1 << 1
    DISPLAY = 1 << 2
    TTS = 1 << 3
    AD_SCREEN = 1 << 4  #: 2013
    CAN_FAULT_CODE = 1 << 5  #: 2019: text is CAN fault code information


class TextType(IntEnum):
    NOTICE = 1
    SERVICE = 2


@dataclass(frozen=True, slots=True)
class TextMessage:
    """0x8300 text message (GBK).  2019 adds ``text_type`` (defaults to NOTICE)."""

    msg_id: ClassVar[int] = 0x8300
    flags: TextFlag | int
    text: str
    text_type: TextType | int | None = None

    def encode(self, version: Jt808Version = V2013) -> bytes:
        out = bytes((check_uint(int(self.flags), 8, "flags"),))
        if version is V2019:
            text_type = TextType.NOTICE if self.text_type is None else self.text_type
            out += bytes((check_uint(int(text_type), 8, "text_type"),))
        return out + encode_str(self.text, "text")


def parse_text_message(body: bytes, version: Jt808Version = V2013) -> TextMessage:
    flags = body[0]
    if version is V2019:
        return TextMessage(flags, decode_str(body[2:]), enum_or_int(TextType, body[1]))
    return TextMessage(flags, decode_str(body[1:]))


# --------------------------------------------------------------------------- 0x8500


class VehicleControlType(IntEnum):
    DOORS = 0x0001  #: param BYTE: 0 unlock, 1 lock
    LIFTDESK_LOCK_LEVEL = 0xF001  #: Liftdesk vendor control, param BYTE: LockLevel


#: Parameter length of each 2019 control type (the wire carries no length).
CONTROL_PARAM_LENGTHS: dict[int, int] = {VehicleControlType.DOORS: 1, VehicleControlType.LIFTDESK_LOCK_LEVEL: 1}


@dataclass(frozen=True, slots=True)
class VehicleControlItem:
    control_type: VehicleControlType | int
    param: bytes


@dataclass(frozen=True, slots=True)
class VehicleControl:
    """0x8500 vehicle control.

    2019: a list of (control type WORD, parameter).  2013: a single flag byte whose bit 0
    locks the doors, represented here as one DOORS item.
    """

    msg_id: ClassVar[int] = 0x8500
    controls: tuple[VehicleControlItem, ...]

    @classmethod
    def doors(cls, lock: bool) -> VehicleControl:
        return cls((VehicleControlItem(VehicleControlType.DOORS, bytes((int(lock),))),))

    @classmethod
    def lock_level(cls, level: int) -> VehicleControl:
        """Liftdesk: apply a lock level now (2019 terminals; see docs/protocol.md)."""
        check_range(level, 0, 2, "lock level")
        return cls((VehicleControlItem(VehicleControlType.LIFTDESK_LOCK_LEVEL, bytes((level,))),))

    def encode(self, version: Jt808Version = V2013) -> bytes:
        if version is V2013:
            if (
                len(self.controls) != 1
                or self.controls[0].control_type != VehicleControlType.DOORS
                or len(self.controls[0].param) != 1
            ):
                raise EncodeError("controls: 2013 terminals only support one DOORS control with a 1-byte param")
            return bytes((self.controls[0].param[0] & 1,))
        out = bytearray(U16.pack(check_uint(len(self.controls), 16, "control count")))
        for item in self.controls:
            expected = CONTROL_PARAM_LENGTHS.get(int(item.control_type))
            if expected is not None and len(item.param) != expected:
                raise EncodeError(f"control 0x{int(item.control_type):04x}: param must be {expected} bytes")
            out += U16.pack(check_uint(int(item.control_type), 16, "control_type")) + item.param
        return bytes(out)


def parse_vehicle_control(body: bytes, version: Jt808Version = V2013) -> VehicleControl:
    if version is V2013:
        return VehicleControl.doors(bool(body[0] & 1))
    count = U16.unpack_from(body, 0)[0]
    offset = 2
    items = []
    for _ in range(count):
        control_type = U16.unpack_from(body, offset)[0]
        size = CONTROL_PARAM_LENGTHS.get(control_type)
        if size is None:
            raise ValueError(f"control type 0x{control_type:04x} has no known parameter length")
        param = body[offset + 2 : offset + 2 + size]
        if len(param) != size:
            raise ValueError("vehicle control is truncated")
        items.append(VehicleControlItem(enum_or_int(VehicleControlType, control_type), param))
        offset += 2 + size
    return VehicleControl(tuple(items))


# --------------------------------------------------------------------------- 0x8108


@dataclass(frozen=True, slots=True)
class UpgradePackage:
    """0x8108 upgrade package.  Usually longer than one frame: encode_message sub-packages it."""

    msg_id: ClassVar[int] = 0x8108
    upgrade_type: UpgradeType | int
    maker_id: str
    version: str
    package: bytes

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return (
            bytes((check_uint(int(self.upgrade_type), 8, "upgrade_type"),))
            + encode_fixed_str(self.maker_id, 11 if version is V2019 else 5, "maker_id")
            + encode_len_str(self.version, "version")
            + U32.pack(check_uint(len(self.package), 32, "package length"))
            + self.package
        )


def parse_upgrade_package(body: bytes, version: Jt808Version = V2013) -> UpgradePackage:
    width = 11 if version is V2019 else 5
    o = 1 + width
    n = body[o]
    version_s = decode_str(body[o + 1 : o + 1 + n])
    o += 1 + n
    size = U32.unpack_from(body, o)[0]
    o += 4
    package = body[o : o + size]
    if len(package) != size:
        raise ValueError(f"package announces {size} bytes, carries {len(package)}")
    return UpgradePackage(enum_or_int(UpgradeType, body[0]), decode_str(body[1 : 1 + width]), version_s, package)


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
