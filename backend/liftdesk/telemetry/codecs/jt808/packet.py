"""Header, packet decoding/encoding and message serial numbers.

One decoder serves 2011/2013 and 2019 terminals: bit 14 of the body properties says which
header follows.  2011 and 2013 share the same header (BCD[6] terminal number); 2019 adds a
protocol-version byte and widens the number to BCD[10].
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from ._wire import U16, U16U16
from .errors import ChecksumError, EncodeError, FrameError, HeaderError
from .framing import FLAG_BYTE, MIN_FRAME_CONTENT, checksum, escape, unescape

MAX_BODY = 1023
_VERSION_FLAG = 0x4000
_SUBPACKAGE_FLAG = 0x2000
_HEAD_2019 = struct.Struct(">HHB")


class Jt808Version(IntEnum):
    """Header/body layout family.  2011 terminals use the 2013 header and are reported as V2013."""

    V2013 = 2013
    V2019 = 2019


@dataclass(frozen=True, slots=True)
class Subpackage:
    """Packet item of a sub-packaged message: ``index`` counts from 1 to ``total``."""

    total: int
    index: int


@dataclass(frozen=True, slots=True)
class Header:
    msg_id: int
    #: Terminal number as the lowercase hex of its BCD field: 12 digits (2013) or 20 (2019),
    #: left-padded with zeros.  Kept as hex because some real terminals put non-decimal
    #: nibbles there; use :attr:`terminal_key` to match one device across versions.
    terminal: str
    serial: int
    version: Jt808Version = Jt808Version.V2013
    #: 2019 protocol version byte (1 for the 2019 edition); 0 on 2013 headers.
    protocol_version: int = 0
    #: Bits 10-12 of the body properties (bit 10 = RSA); 0 means plain text.
    encryption: int = 0
    subpackage: Subpackage | None = None

    @property
    def terminal_key(self) -> str:
        """Terminal number without the left zero padding (same for 2013 and 2019 headers)."""
        return self.terminal.lstrip("0") or "0"


@dataclass(frozen=True, slots=True)
class Packet:
    """A checked frame: parsed header plus the still-undecoded body bytes."""

    header: Header
    body: bytes


def decode_packet(frame: bytes) -> Packet:
    """Unescape one frame, verify its checksum and parse the header.

    ``frame`` may include or omit the 0x7E delimiters.  Raises :class:`FrameError` subclasses
    (:class:`~.errors.EscapeError`, :class:`~.errors.ChecksumError`, :class:`HeaderError`).

    The body length in the properties must match the bytes present.  One tolerated deviation:
    some terminals set the 2019 flag (bit 14) but send a 2013 header; when only the 2013 layout
    fits the frame length, the frame is read as 2013 (SmallChi/JT808 calls this "2013 force").
    """
    if frame[:1] == FLAG_BYTE:
        frame = frame[1:]
    if frame[-1:] == FLAG_BYTE:
        frame = frame[:-1]
    if FLAG_BYTE in frame:
        raise FrameError("unescaped 0x7e inside a frame (split the stream with FrameSplitter first)")
    raw = unescape(frame)
    size = len(raw) - 1
    if size + 1 < MIN_FRAME_CONTENT:
        raise HeaderError(f"frame too short: {size + 1} bytes")
    expected = checksum(raw[:size])
    if expected != raw[size]:
        raise ChecksumError(expected, raw[size])
    msg_id, props = U16U16.unpack_from(raw, 0)
    body_len = props & 0x3FF
    sub = props & _SUBPACKAGE_FLAG
    extra = 4 if sub else 0
    if props & _VERSION_FLAG and size == 17 + extra + body_len:
        version = Jt808Version.V2019
        protocol_version = raw[4]
        terminal = raw[5:15].hex()
        offset = 15
    elif size == 12 + extra + body_len:
        version = Jt808Version.V2013
        protocol_version = 0
        terminal = raw[4:10].hex()
        offset = 10
    else:
        layout = "2019" if props & _VERSION_FLAG else "2013"
        raise HeaderError(
            f"message 0x{msg_id:04x}: {size + 1} bytes do not fit a {layout} header with a {body_len}-byte body"
        )
    serial = U16.unpack_from(raw, offset)[0]
    offset += 2
    subpackage = None
    if sub:
        total, index = U16U16.unpack_from(raw, offset)
        subpackage = Subpackage(total, index)
        offset += 4
    header = Header(msg_id, terminal, serial, version, protocol_version, (props >> 10) & 0x7, subpackage)
    return Packet(header, raw[offset:size])


def _terminal_bcd(terminal: str, width: int) -> bytes:
    if (
        not isinstance(terminal, str)
        or not terminal.isascii()
        or len(terminal) > width * 2
        or any(c not in "0123456789abcdefABCDEF" for c in terminal)
    ):
        raise EncodeError(f"terminal: {terminal!r} is not a number of at most {width * 2} (BCD) digits")
    return bytes.fromhex(terminal.rjust(width * 2, "0"))


def encode_frame(
    msg_id: int,
    body: bytes,
    *,
    terminal: str,
    serial: int,
    version: Jt808Version = Jt808Version.V2013,
    protocol_version: int = 1,
    encryption: int = 0,
    subpackage: Subpackage | None = None,
) -> bytes:
    """Header + body + checksum, escaped and wrapped in 0x7E.  ``body`` must fit in 1023 bytes."""
    if not 0 <= msg_id <= 0xFFFF:
        raise EncodeError(f"msg_id: {msg_id!r} is not a WORD")
    if not 0 <= serial <= 0xFFFF:
        raise EncodeError(f"serial: {serial!r} is not a WORD")
    if not 0 <= encryption <= 7:
        raise EncodeError(f"encryption: {encryption!r} does not fit in 3 bits")
    if len(body) > MAX_BODY:
        raise EncodeError(f"body of {len(body)} bytes exceeds {MAX_BODY}; use encode_frames to sub-package it")
    props = len(body) | (encryption << 10)
    if subpackage is not None:
        props |= _SUBPACKAGE_FLAG
    if version is Jt808Version.V2019:
        if not 0 <= protocol_version <= 0xFF:
            raise EncodeError(f"protocol_version: {protocol_version!r} is not a BYTE")
        head = _HEAD_2019.pack(msg_id, props | _VERSION_FLAG, protocol_version) + _terminal_bcd(terminal, 10)
    else:
        head = U16U16.pack(msg_id, props) + _terminal_bcd(terminal, 6)
    head += U16.pack(serial)
    if subpackage is not None:
        if not 1 <= subpackage.index <= subpackage.total <= 0xFFFF:
            raise EncodeError(f"subpackage: {subpackage!r} needs 1 <= index <= total <= 65535")
        head += U16U16.pack(subpackage.total, subpackage.index)
    content = head + body
    return FLAG_BYTE + escape(content + bytes((checksum(content),))) + FLAG_BYTE


def encode_frames(
    msg_id: int,
    body: bytes,
    *,
    terminal: str,
    serial: int,
    version: Jt808Version = Jt808Version.V2013,
    protocol_version: int = 1,
    max_body: int = MAX_BODY,
) -> list[bytes]:
    """Encode a message, splitting bodies longer than ``max_body`` into sub-packages.

    Sub-packages get consecutive serial numbers starting at ``serial`` (wrapping at 65535), as
    the standard's re-send request (0x8003/0x0005) assumes; take them from
    :meth:`SerialCounter.next` with ``count=len(result)`` or :func:`subpackage_count`.
    """
    if not 1 <= max_body <= MAX_BODY:
        raise EncodeError(f"max_body: {max_body!r} is outside 1..{MAX_BODY}")
    if len(body) <= max_body:
        return [
            encode_frame(
                msg_id, body, terminal=terminal, serial=serial, version=version, protocol_version=protocol_version
            )
        ]
    total = subpackage_count(len(body), max_body)
    if total > 0xFFFF:
        raise EncodeError(f"body of {len(body)} bytes needs {total} sub-packages, more than 65535")
    return [
        encode_frame(
            msg_id,
            body[i * max_body : (i + 1) * max_body],
            terminal=terminal,
            serial=(serial + i) & 0xFFFF,
            version=version,
            protocol_version=protocol_version,
            subpackage=Subpackage(total, i + 1),
        )
        for i in range(total)
    ]


_GENERAL_REPLY_TAIL = struct.Struct(">HHHB")  # this frame's serial, then the 0x8001 body: serial, id, result


def encode_general_replies(
    terminal: str,
    replies: Sequence[tuple[int, int, int]],
    *,
    first_serial: int,
    version: Jt808Version = Jt808Version.V2013,
    protocol_version: int = 1,
) -> bytes:
    """Many platform general replies (0x8001) to one terminal at once, as the bytes of consecutive frames.

    ``replies`` holds (reply serial, reply message id, result); the frames get the serials ``first_serial``,
    ``first_serial + 1``, … (take them from :meth:`SerialCounter.next` with ``count=len(replies)``). The same bytes
    as :func:`encode_frame` of each :class:`~.platform.PlatformGeneralReply`, with the header built once: the
    gateway acknowledges every position this way.
    """
    if version is Jt808Version.V2019:
        head = _HEAD_2019.pack(0x8001, 5 | _VERSION_FLAG, protocol_version & 0xFF) + _terminal_bcd(terminal, 10)
    else:
        head = U16U16.pack(0x8001, 5) + _terminal_bcd(terminal, 6)
    head_sum = checksum(head)
    out = []
    pack = _GENERAL_REPLY_TAIL.pack
    for i, (reply_serial, reply_msg_id, result) in enumerate(replies):
        tail = pack((first_serial + i) & 0xFFFF, reply_serial & 0xFFFF, reply_msg_id & 0xFFFF, result & 0xFF)
        out.append(head + tail + bytes((head_sum ^ checksum(tail),)))
    return b"".join([FLAG_BYTE + escape(content) + FLAG_BYTE for content in out])


def subpackage_count(body_length: int, max_body: int = MAX_BODY) -> int:
    """How many frames :func:`encode_frames` produces for a body of ``body_length`` bytes."""
    return 1 if body_length <= max_body else -(-body_length // max_body)


class SerialCounter:
    """Per-connection message serial numbers (WORD, wrapping to 0 after 65535)."""

    __slots__ = ("_next",)

    def __init__(self, start: int = 0) -> None:
        self._next = start & 0xFFFF

    def next(self, count: int = 1) -> int:
        """Reserve ``count`` consecutive serials and return the first."""
        first = self._next
        self._next = (first + count) & 0xFFFF
        return first
