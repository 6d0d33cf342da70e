"""Platform commands other than areas: terminal parameters (0x8103 set, 0x8104 / 0x8106 query), terminal control
(0x8105), upgrade package (0x8108), alarm confirmation (0x8203), text (0x8300) and vehicle control (0x8500).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import ClassVar

from .._wire import (
    U16,
    U32,
    check_range,
    check_uint,
    decode_str,
    encode_fixed_str,
    encode_len_str,
    encode_str,
    enum_or_int,
)
from ..errors import EncodeError
from ..packet import Jt808Version
from ..params import ParamItem, ParamValue, decode_param_items, encode_param_items
from ..terminal import UpgradeType

V2013 = Jt808Version.V2013
V2019 = Jt808Version.V2019

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
