"""Terminal → platform message bodies: dataclasses, parsers and encoders.

Each dataclass carries its ``msg_id`` and an ``encode(version)`` method (used by the device
simulator and the tests); each ``parse_*`` function takes the body bytes and the header's
layout version.  Parsers raise ``ValueError``/``struct.error``/``IndexError`` on malformed
input; :func:`~.codec.parse_body` turns those into :class:`~.errors.BodyError`.  A fixed-size
body followed by extra bytes is accepted and the extra ignored.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import date, datetime, time
from enum import IntEnum
from typing import ClassVar

from ._wire import (
    U16,
    check_range,
    check_uint,
    decode_date,
    decode_str,
    decode_time,
    encode_date,
    encode_fixed_str,
    encode_len_str,
    encode_str,
    encode_time,
    enum_or_int,
)
from .drivers import BehaviorAlarm, FaceComparison, decode_behavior, decode_face, encode_behavior, encode_face
from .errors import EncodeError
from .liftdesk import (
    LiftdeskBatteryReport,
    LiftdeskPassThrough,
    LiftdeskSnapshot,
    decode_battery_report,
    decode_snapshot,
    encode_battery_report,
    encode_snapshot,
)
from .location import Location, decode_location
from .packet import Jt808Version
from .params import ParamItem, ParamValue, decode_param_items, encode_param_items

V2013 = Jt808Version.V2013
V2019 = Jt808Version.V2019

_REPLY = struct.Struct(">HHB")
_CAN_ITEM = struct.Struct(">I8s")


class ReplyResult(IntEnum):
    """Result of 0x0001 / 0x8001 general replies (4 is platform-only)."""

    SUCCESS = 0
    FAILURE = 1
    BAD_MESSAGE = 2
    UNSUPPORTED = 3
    ALARM_CONFIRMED = 4


# --------------------------------------------------------------------------- 0x0001


@dataclass(frozen=True, slots=True)
class GeneralReply:
    """0x0001 terminal general reply."""

    msg_id: ClassVar[int] = 0x0001
    reply_serial: int
    reply_msg_id: int
    result: ReplyResult | int = ReplyResult.SUCCESS

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return encode_reply(self.reply_serial, self.reply_msg_id, self.result)


def encode_reply(reply_serial: int, reply_msg_id: int, result: int) -> bytes:
    return _REPLY.pack(
        check_uint(reply_serial, 16, "reply_serial"),
        check_uint(reply_msg_id, 16, "reply_msg_id"),
        check_uint(int(result), 8, "result"),
    )


def parse_general_reply(body: bytes, version: Jt808Version = V2013) -> GeneralReply:
    serial, msg_id, result = _REPLY.unpack_from(body, 0)
    return GeneralReply(serial, msg_id, enum_or_int(ReplyResult, result))


# --------------------------------------------------------------------------- 0x0002, 0x0003


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """0x0002 heartbeat (empty body)."""

    msg_id: ClassVar[int] = 0x0002

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return b""


@dataclass(frozen=True, slots=True)
class Logout:
    """0x0003 terminal logout (empty body)."""

    msg_id: ClassVar[int] = 0x0003

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return b""


# --------------------------------------------------------------------------- 0x0100

#: (maker, model, terminal id) widths per layout.
_REG_WIDTHS: dict[Jt808Version | str, tuple[int, int, int]] = {
    "2011": (5, 8, 7),
    V2013: (5, 20, 7),
    V2019: (11, 30, 30),
}
_REG_HEAD = struct.Struct(">HH")


@dataclass(frozen=True, slots=True)
class Registration:
    """0x0100 terminal registration.  ``plate`` holds the VIN when ``plate_color`` is 0."""

    msg_id: ClassVar[int] = 0x0100
    province_id: int
    city_id: int
    maker_id: str
    model: str
    terminal_id: str
    plate_color: int
    plate: str

    def encode(self, version: Jt808Version = V2013) -> bytes:
        maker, model, tid = _REG_WIDTHS[version]
        return (
            _REG_HEAD.pack(check_uint(self.province_id, 16, "province_id"), check_uint(self.city_id, 16, "city_id"))
            + encode_fixed_str(self.maker_id, maker, "maker_id")
            + encode_fixed_str(self.model, model, "model")
            + encode_fixed_str(self.terminal_id, tid, "terminal_id")
            + bytes((check_uint(self.plate_color, 8, "plate_color"),))
            + encode_str(self.plate, "plate")
        )


def parse_registration(body: bytes, version: Jt808Version = V2013) -> Registration:
    """2013 and 2019 field widths by header version; a 2013-header body too short for the
    2013 layout (37 fixed bytes) is read with the 2011 widths (maker 5, model 8, id 7)."""
    layout: Jt808Version | str = version
    if version is V2013 and len(body) < 37:
        layout = "2011"
    maker, model, tid = _REG_WIDTHS[layout]
    fixed = 4 + maker + model + tid
    if len(body) < fixed + 1:
        raise ValueError(f"registration body of {len(body)} bytes is shorter than {fixed + 1}")
    province, city = _REG_HEAD.unpack_from(body, 0)
    o = 4
    return Registration(
        province,
        city,
        decode_str(body[o : o + maker]),
        decode_str(body[o + maker : o + maker + model]),
        decode_str(body[o + maker + model : fixed]),
        body[fixed],
        decode_str(body[fixed + 1 :]),
    )


# --------------------------------------------------------------------------- 0x0102


@dataclass(frozen=True, slots=True)
class Authentication:
    """0x0102 authentication.  2019 adds the IMEI and software version (None on 2013)."""

    msg_id: ClassVar[int] = 0x0102
    auth_code: str
    imei: str | None = None
    software_version: str | None = None

    def encode(self, version: Jt808Version = V2013) -> bytes:
        if version is V2013:
            return encode_str(self.auth_code, "auth_code")
        return (
            encode_len_str(self.auth_code, "auth_code")
            + encode_fixed_str(self.imei or "", 15, "imei")
            + encode_fixed_str(self.software_version or "", 20, "software_version")
        )


def parse_authentication(body: bytes, version: Jt808Version = V2013) -> Authentication:
    """2013: the whole body is the code.  2019: length BYTE + code + IMEI[15] + version[20].

    A 2019-header body too short for its announced code length is read as a bare 2013 code
    (terminals upgraded to 2019 headers keep old bodies); the code check then decides.
    """
    if version is V2013 or not body or len(body) < 36 + body[0]:
        return Authentication(decode_str(body))
    n = body[0]
    return Authentication(
        decode_str(body[1 : 1 + n]), decode_str(body[1 + n : 16 + n]), decode_str(body[16 + n : 36 + n])
    )


# --------------------------------------------------------------------------- 0x0104


@dataclass(frozen=True, slots=True)
class ParamQueryReply:
    """0x0104 reply to 0x8104/0x8106: the parameters the terminal holds."""

    msg_id: ClassVar[int] = 0x0104
    reply_serial: int
    params: tuple[ParamItem, ...]

    def as_dict(self) -> dict[int, ParamValue]:
        return {p.id: p.value for p in self.params}

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return U16.pack(check_uint(self.reply_serial, 16, "reply_serial")) + encode_param_items(self.params)


def parse_param_query_reply(body: bytes, version: Jt808Version = V2013) -> ParamQueryReply:
    return ParamQueryReply(U16.unpack_from(body, 0)[0], decode_param_items(body, 2))


# --------------------------------------------------------------------------- 0x0107

_ATTR_WIDTHS = {V2013: (5, 20, 7), V2019: (11, 30, 30)}


@dataclass(frozen=True, slots=True)
class TerminalAttributes:
    """0x0107 reply to 0x8107."""

    msg_id: ClassVar[int] = 0x0107
    terminal_type: int
    maker_id: str
    model: str
    terminal_id: str
    #: ICCID as the hex of its BCD[10] field (20 digits).
    iccid: str
    hardware_version: str
    firmware_version: str
    gnss_modules: int
    comm_modules: int

    def encode(self, version: Jt808Version = V2013) -> bytes:
        maker, model, tid = _ATTR_WIDTHS[version]
        iccid = self.iccid.rjust(20, "0")
        if len(iccid) != 20 or not iccid.isascii() or any(c not in "0123456789abcdefABCDEF" for c in iccid):
            raise EncodeError(f"iccid: {self.iccid!r} is not up to 20 BCD digits")
        return (
            U16.pack(check_uint(self.terminal_type, 16, "terminal_type"))
            + encode_fixed_str(self.maker_id, maker, "maker_id")
            + encode_fixed_str(self.model, model, "model")
            + encode_fixed_str(self.terminal_id, tid, "terminal_id")
            + bytes.fromhex(iccid)
            + encode_len_str(self.hardware_version, "hardware_version")
            + encode_len_str(self.firmware_version, "firmware_version")
            + bytes(
                (check_uint(self.gnss_modules, 8, "gnss_modules"), check_uint(self.comm_modules, 8, "comm_modules"))
            )
        )


def parse_terminal_attributes(body: bytes, version: Jt808Version = V2013) -> TerminalAttributes:
    maker, model, tid = _ATTR_WIDTHS[version]
    o = 2
    maker_id = decode_str(body[o : o + maker])
    o += maker
    model_s = decode_str(body[o : o + model])
    o += model
    terminal_id = decode_str(body[o : o + tid])
    o += tid
    iccid = body[o : o + 10].hex()
    o += 10
    hw_len = body[o]
    hardware = decode_str(body[o + 1 : o + 1 + hw_len])
    o += 1 + hw_len
    fw_len = body[o]
    firmware = decode_str(body[o + 1 : o + 1 + fw_len])
    o += 1 + fw_len
    if len(body) < o + 2:
        raise ValueError("terminal attributes are truncated")
    return TerminalAttributes(
        U16.unpack_from(body, 0)[0], maker_id, model_s, terminal_id, iccid, hardware, firmware, body[o], body[o + 1]
    )


# --------------------------------------------------------------------------- 0x0108


class UpgradeType(IntEnum):
    TERMINAL = 0
    IC_CARD_READER = 12
    GNSS_MODULE = 52


class UpgradeOutcome(IntEnum):
    SUCCESS = 0
    FAILURE = 1
    CANCELLED = 2


@dataclass(frozen=True, slots=True)
class UpgradeResult:
    """0x0108 result of an upgrade pushed with 0x8108."""

    msg_id: ClassVar[int] = 0x0108
    upgrade_type: UpgradeType | int
    result: UpgradeOutcome | int

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return bytes((check_uint(int(self.upgrade_type), 8, "upgrade_type"), check_uint(int(self.result), 8, "result")))


def parse_upgrade_result(body: bytes, version: Jt808Version = V2013) -> UpgradeResult:
    return UpgradeResult(enum_or_int(UpgradeType, body[0]), enum_or_int(UpgradeOutcome, body[1]))


# --------------------------------------------------------------------------- 0x0201, 0x0500


@dataclass(frozen=True, slots=True)
class LocationQueryReply:
    """0x0201 reply to 0x8201: the platform's serial plus a 0x0200 body."""

    msg_id: ClassVar[int] = 0x0201
    reply_serial: int
    location: Location

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return U16.pack(check_uint(self.reply_serial, 16, "reply_serial")) + self.location.encode()


@dataclass(frozen=True, slots=True)
class VehicleControlReply:
    """0x0500 reply to 0x8500: the platform's serial plus a 0x0200 body."""

    msg_id: ClassVar[int] = 0x0500
    reply_serial: int
    location: Location

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return U16.pack(check_uint(self.reply_serial, 16, "reply_serial")) + self.location.encode()


# --------------------------------------------------------------------------- 0x0702


class CardStatus(IntEnum):
    INSERTED = 1  #: driver on duty
    REMOVED = 2  #: driver off duty


class CardReadResult(IntEnum):
    SUCCESS = 0
    AUTH_FAILED = 1
    CARD_LOCKED = 2
    CARD_REMOVED = 3
    CHECKSUM_ERROR = 4


@dataclass(frozen=True, slots=True)
class DriverIdentity:
    """0x0702 driver identity (IC card in/out).

    Card fields are present only for an inserted card read successfully.  2019 adds the
    driver's ID card number; vendor-specific bytes after the standard fields end up in
    ``extra``.
    """

    msg_id: ClassVar[int] = 0x0702
    status: CardStatus | int
    time: datetime | None
    read_result: CardReadResult | int | None = None
    driver_name: str | None = None
    certificate_no: str | None = None
    issuer: str | None = None
    certificate_expiry: date | None = None
    id_card_no: str | None = None
    extra: bytes = b""

    def encode(self, version: Jt808Version = V2013) -> bytes:
        out = bytes((check_uint(int(self.status), 8, "status"),)) + encode_time(self.time)
        if self.status != CardStatus.INSERTED:
            return out
        if self.read_result is None:
            raise EncodeError("read_result: required when a card is inserted")
        out += bytes((check_uint(int(self.read_result), 8, "read_result"),))
        if self.read_result != CardReadResult.SUCCESS:
            return out
        out += (
            encode_len_str(self.driver_name or "", "driver_name")
            + encode_fixed_str(self.certificate_no or "", 20, "certificate_no")
            + encode_len_str(self.issuer or "", "issuer")
            + encode_date(self.certificate_expiry, "certificate_expiry")
        )
        if version is V2019:
            out += encode_fixed_str(self.id_card_no or "", 20, "id_card_no")
        return out + self.extra


def parse_driver_identity(body: bytes, version: Jt808Version = V2013) -> DriverIdentity:
    if len(body) < 7:
        raise ValueError("driver identity shorter than status + time")
    status = enum_or_int(CardStatus, body[0])
    when = decode_time(body[1:7])
    if status != CardStatus.INSERTED or len(body) == 7:
        return DriverIdentity(status, when)
    result = enum_or_int(CardReadResult, body[7])
    if result != CardReadResult.SUCCESS:
        return DriverIdentity(status, when, result)
    o = 8
    name_len = body[o]
    name = decode_str(body[o + 1 : o + 1 + name_len])
    o += 1 + name_len
    certificate = decode_str(body[o : o + 20])
    o += 20
    issuer_len = body[o]
    issuer = decode_str(body[o + 1 : o + 1 + issuer_len])
    o += 1 + issuer_len
    if len(body) < o + 4:
        raise ValueError("driver identity is truncated")
    expiry = decode_date(body[o : o + 4])
    o += 4
    id_card = None
    if version is V2019 and len(body) >= o + 20:  # some 2019 terminals keep the 2013 layout
        id_card = decode_str(body[o : o + 20])
        o += 20
    return DriverIdentity(status, when, result, name, certificate, issuer, expiry, id_card, body[o:])


# --------------------------------------------------------------------------- 0x0704


class BatchType(IntEnum):
    NORMAL = 0
    BLIND_ZONE = 1  #: backfill of positions stored while offline


@dataclass(frozen=True, slots=True)
class LocationBatch:
    """0x0704 batch upload of stored positions."""

    msg_id: ClassVar[int] = 0x0704
    batch_type: BatchType | int
    locations: tuple[Location, ...]

    @property
    def blind_zone(self) -> bool:
        return self.batch_type == BatchType.BLIND_ZONE

    def encode(self, version: Jt808Version = V2013) -> bytes:
        out = bytearray(U16.pack(check_uint(len(self.locations), 16, "location count")))
        out.append(check_uint(int(self.batch_type), 8, "batch_type"))
        for loc in self.locations:
            raw = loc.encode()
            out += U16.pack(len(raw)) + raw
        return bytes(out)


def parse_location_batch(body: bytes, version: Jt808Version = V2013, *, liftdesk: bool = True) -> LocationBatch:
    count = U16.unpack_from(body, 0)[0]
    kind = enum_or_int(BatchType, body[2])
    offset = 3
    locations: list[Location] = []
    for _ in range(count):
        size = U16.unpack_from(body, offset)[0]
        start = offset + 2
        offset = start + size
        if offset > len(body):
            raise ValueError(f"batch item {len(locations) + 1} of {count} is truncated")
        locations.append(decode_location(body[start:offset], liftdesk=liftdesk))
    return LocationBatch(kind, tuple(locations))


# --------------------------------------------------------------------------- 0x0705


@dataclass(frozen=True, slots=True)
class CanItem:
    """One CAN frame.  The wire DWORD packs channel (bit 31), extended frame (30),
    averaged value (29) and the 29-bit CAN id."""

    channel: int
    extended: bool
    averaged: bool
    can_id: int
    data: bytes

    @property
    def raw_id(self) -> int:
        return self.channel << 31 | int(self.extended) << 30 | int(self.averaged) << 29 | self.can_id


@dataclass(frozen=True, slots=True)
class CanData:
    """0x0705 CAN bus data upload."""

    msg_id: ClassVar[int] = 0x0705
    #: Receive time of the first frame, device-local (GMT+8) time of day; None if invalid.
    received_at: time | None
    items: tuple[CanItem, ...]

    def encode(self, version: Jt808Version = V2013) -> bytes:
        t = self.received_at
        stamp = (
            b"\x00" * 5
            if t is None
            else bytes.fromhex(f"{t.hour:02d}{t.minute:02d}{t.second:02d}{t.microsecond // 1000:04d}")
        )
        out = bytearray(U16.pack(check_uint(len(self.items), 16, "CAN item count")) + stamp)
        for item in self.items:
            check_range(item.channel, 0, 1, "CAN channel")
            check_uint(item.can_id, 29, "can_id")
            if len(item.data) != 8:
                raise EncodeError(f"CAN data: {len(item.data)} bytes, expected 8")
            out += _CAN_ITEM.pack(item.raw_id, item.data)
        return bytes(out)


def parse_can_data(body: bytes, version: Jt808Version = V2013) -> CanData:
    count = U16.unpack_from(body, 0)[0]
    if len(body) < 7 + 12 * count:
        raise ValueError(f"{count} CAN items need {7 + 12 * count} bytes, got {len(body)}")
    s = body[2:7].hex()
    try:
        received: time | None = time(int(s[0:2]), int(s[2:4]), int(s[4:6]), int(s[6:10]) * 1000)
    except ValueError:
        received = None
    items = []
    for i in range(count):
        raw_id, data = _CAN_ITEM.unpack_from(body, 7 + 12 * i)
        items.append(CanItem(raw_id >> 31, bool(raw_id & 1 << 30), bool(raw_id & 1 << 29), raw_id & 0x1FFFFFFF, data))
    return CanData(received, tuple(items))


# --------------------------------------------------------------------------- 0x0900


class PassThroughType(IntEnum):
    GNSS_DETAIL = 0x00
    IC_CARD = 0x0B
    SERIAL_PORT_1 = 0x41
    SERIAL_PORT_2 = 0x42
    LIFTDESK_SNAPSHOT = 0xF0
    LIFTDESK_BATTERY = 0xF1
    LIFTDESK_FACE = 0xF2  #: a face comparison (``drivers.FaceComparison``)
    LIFTDESK_BEHAVIOR = 0xF3  #: a driver behaviour alarm of the DMS camera (``drivers.BehaviorAlarm``)


LiftdeskReport = LiftdeskSnapshot | LiftdeskBatteryReport | FaceComparison | BehaviorAlarm


@dataclass(frozen=True, slots=True)
class PassThrough:
    """0x0900 uplink pass-through.  Liftdesk types 0xF0-0xF3 are also decoded into ``liftdesk``."""

    msg_id: ClassVar[int] = 0x0900
    kind: PassThroughType | int
    payload: bytes
    liftdesk: LiftdeskReport | None = None

    @classmethod
    def of(cls, report: LiftdeskReport) -> PassThrough:
        """Wrap a Liftdesk report (the payload is encoded from it)."""
        if isinstance(report, LiftdeskSnapshot):
            return cls(PassThroughType.LIFTDESK_SNAPSHOT, encode_snapshot(report), report)
        if isinstance(report, FaceComparison):
            return cls(PassThroughType.LIFTDESK_FACE, encode_face(report), report)
        if isinstance(report, BehaviorAlarm):
            return cls(PassThroughType.LIFTDESK_BEHAVIOR, encode_behavior(report), report)
        return cls(PassThroughType.LIFTDESK_BATTERY, encode_battery_report(report), report)

    def encode(self, version: Jt808Version = V2013) -> bytes:
        return bytes((check_uint(int(self.kind), 8, "kind"),)) + self.payload


def parse_pass_through(body: bytes, version: Jt808Version = V2013, *, liftdesk: bool = True) -> PassThrough:
    kind = enum_or_int(PassThroughType, body[0])
    payload = body[1:]
    report: LiftdeskReport | None = None
    if liftdesk and kind == LiftdeskPassThrough.SNAPSHOT:
        report = decode_snapshot(payload)
    elif liftdesk and kind == LiftdeskPassThrough.BATTERY:
        report = decode_battery_report(payload)
    elif liftdesk and kind == PassThroughType.LIFTDESK_FACE:
        report = decode_face(payload)
    elif liftdesk and kind == PassThroughType.LIFTDESK_BEHAVIOR:
        report = decode_behavior(payload)
    return PassThrough(kind, payload, report)
