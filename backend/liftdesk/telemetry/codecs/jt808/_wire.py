"""Primitive JT/T 808 data types: integers, BCD, GB 2312/GBK strings and GMT+8 times.

Private to the package.  Decoding helpers raise ``ValueError``/``struct.error``/``IndexError``
freely; the message dispatcher turns those into :class:`~.errors.BodyError`.  Encoding helpers
raise :class:`~.errors.EncodeError` with the field name.
"""

from __future__ import annotations

import struct
from datetime import UTC, date, datetime, timedelta, timezone
from enum import IntEnum
from typing import TypeVar

from .errors import EncodeError

#: Terminals report local Beijing time (GMT+8) without any zone information.
CHINA_TZ = timezone(timedelta(hours=8), "GMT+8")
_EIGHT_HOURS = timedelta(hours=8)

U8 = struct.Struct(">B")
U16 = struct.Struct(">H")
U32 = struct.Struct(">I")
I16 = struct.Struct(">h")
U16U16 = struct.Struct(">HH")
U32U32 = struct.Struct(">II")

ZERO_TIME = b"\x00" * 6

_E = TypeVar("_E", bound=IntEnum)


def enum_or_int(enum_type: type[_E], value: int) -> _E | int:
    """Return the enum member for ``value``, or ``value`` itself when the enum does not know it."""
    try:
        return enum_type(value)
    except ValueError:
        return value


# --------------------------------------------------------------------------- integers


def check_uint(value: int, bits: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < (1 << bits):
        raise EncodeError(f"{what}: {value!r} is not an unsigned {bits}-bit integer")
    return value


def check_range(value: int, low: int, high: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise EncodeError(f"{what}: {value!r} is outside {low}..{high}")
    return value


def scaled(value: float, scale: int, low: int, high: int, what: str) -> int:
    """Turn a float in display units into the integer the wire carries (``value * scale``)."""
    try:
        raw = round(value * scale)
    except (TypeError, ValueError, OverflowError) as exc:
        raise EncodeError(f"{what}: {value!r} is not a number") from exc
    if not low <= raw <= high:
        raise EncodeError(f"{what}: {value!r} is outside {low / scale}..{high / scale}")
    return raw


# --------------------------------------------------------------------------- BCD


def bcd_digits(raw: bytes) -> str:
    """Packed BCD → decimal digit string (``b'\\x01\\x35'`` → ``'0135'``)."""
    text = raw.hex()
    if not text.isdigit():
        raise ValueError(f"not BCD: {text}")
    return text


def digits_bcd(digits: str, width: int, what: str) -> bytes:
    """Decimal digit string → packed BCD of ``width`` bytes, left-padded with zeros."""
    if not isinstance(digits, str) or not (digits.isascii() and digits.isdigit()) or len(digits) > width * 2:
        raise EncodeError(f"{what}: {digits!r} is not a string of at most {width * 2} decimal digits")
    return bytes.fromhex(digits.rjust(width * 2, "0"))


def decode_time(raw: bytes) -> datetime | None:
    """BCD[6] ``YYMMDDhhmmss`` in GMT+8 → aware UTC datetime; ``None`` when zero or invalid.

    Terminals without a fix often send all zeros, and a few send garbage; neither is worth
    dropping the rest of the report for.
    """
    s = raw.hex()
    try:
        local = datetime(
            2000 + int(s[0:2]), int(s[2:4]), int(s[4:6]), int(s[6:8]), int(s[8:10]), int(s[10:12]), tzinfo=UTC
        )
    except ValueError:
        return None
    return local - _EIGHT_HOURS


def encode_time(value: datetime | None, what: str = "time") -> bytes:
    """Aware datetime → BCD[6] in GMT+8; ``None`` → six zero bytes."""
    if value is None:
        return ZERO_TIME
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise EncodeError(f"{what}: {value!r} must be a timezone-aware datetime")
    local = value.astimezone(CHINA_TZ)
    if not 2000 <= local.year <= 2099:
        raise EncodeError(f"{what}: {value!r} is outside the years 2000..2099 a BCD[6] time can carry")
    return bytes.fromhex(
        f"{local.year % 100:02d}{local.month:02d}{local.day:02d}{local.hour:02d}{local.minute:02d}{local.second:02d}"
    )


def decode_date(raw: bytes) -> date | None:
    """BCD[4] ``YYYYMMDD`` → date; ``None`` when zero or invalid."""
    s = raw.hex()
    try:
        return date(int(s[0:4]), int(s[4:6]), int(s[6:8]))
    except ValueError:
        return None


def encode_date(value: date | None, what: str) -> bytes:
    if value is None:
        return b"\x00" * 4
    if not isinstance(value, date):
        raise EncodeError(f"{what}: {value!r} is not a date")
    return bytes.fromhex(f"{value.year:04d}{value.month:02d}{value.day:02d}")


# --------------------------------------------------------------------------- strings


def decode_str(raw: bytes) -> str:
    """GBK bytes → text, dropping NUL/space padding on either side (terminals pad both ways)."""
    return raw.decode("gbk", errors="replace").strip("\x00 ")


def encode_str(value: str, what: str) -> bytes:
    if not isinstance(value, str):
        raise EncodeError(f"{what}: {value!r} is not a string")
    try:
        return value.encode("gbk")
    except UnicodeEncodeError as exc:
        raise EncodeError(f"{what}: {value!r} cannot be encoded in GBK") from exc


def encode_fixed_str(value: str, width: int, what: str) -> bytes:
    """Text → GBK padded on the right with NULs to exactly ``width`` bytes."""
    raw = encode_str(value, what)
    if len(raw) > width:
        raise EncodeError(f"{what}: {value!r} needs {len(raw)} bytes, the field holds {width}")
    return raw.ljust(width, b"\x00")


def encode_len_str(value: str, what: str, length_bytes: int = 1) -> bytes:
    """Text → length prefix (BYTE or WORD) + GBK."""
    raw = encode_str(value, what)
    if len(raw) >= 1 << (8 * length_bytes):
        raise EncodeError(f"{what}: {value!r} is too long ({len(raw)} bytes)")
    return len(raw).to_bytes(length_bytes, "big") + raw
