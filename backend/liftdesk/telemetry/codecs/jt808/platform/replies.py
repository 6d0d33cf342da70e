"""The platform's answers to a terminal: the general reply (0x8001), the request to re-send missing sub-packages
(0x8003) and the registration reply (0x8100).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar

from .._wire import U16, check_uint, decode_str, encode_str, enum_or_int
from ..errors import EncodeError
from ..packet import Header, Jt808Version
from ..terminal import ReplyResult, encode_reply

V2013 = Jt808Version.V2013
V2019 = Jt808Version.V2019
_REPLY = struct.Struct(">HHB")

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
