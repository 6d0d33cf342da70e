"""Liftdesk vendor messages about drivers (``docs/protocol.md`` §4.6 and §4.7): not part of JT/T 808.

* **0x8F01 card list** (platform → terminal, vendor id range 0x8F00-0x8FFF): the IC cards a vehicle accepts, each
  with its 10-digit serial, the driver's licence validity and its PIN. The whole list every time (it replaces the
  one held); a long list is split into sub-packages like any JT/T 808 message (``encode_frames``)::

      format   BYTE    1 (the layout below)
      issued   DWORD   seconds since 1970-01-01 UTC when the platform built the list: a terminal keeps the newest
      crc      DWORD   CRC-32 (zlib / IEEE 802.3) of the entry bytes that follow: equal CRC, same list
      count    WORD    number of entries (0: no card is accepted)
      count x  serial BCD[5] (10 digits) | valid_until BCD[4] YYYYMMDD (00000000: no end) | pin_len BYTE 0-16 |
               pin ASCII digits

  Entries are sorted by serial; a serial appears once.

* **Pass-through 0xF2 face comparison** (terminal → platform, 0x0900)::

      time BCD[6] | result BYTE (0 matched, 1 no match, 2 no face) | similarity BYTE 0-100 % (0xFF unknown) |
      serial BCD[5] (the card of the driver matched; zeros: none) | trigger BYTE (0 power-on, 1 periodic,
      2 card inserted, 3 platform request) | photo_len BYTE | photo ASCII (the terminal's reference, optional)

* **Pass-through 0xF3 driver behaviour alarm** (the DMS camera)::

      time BCD[6] | type BYTE (:class:`DmsAlarm`) | level BYTE 1-2 | photo_len BYTE | photo ASCII
"""

from __future__ import annotations

import itertools
import zlib
from dataclasses import dataclass
from datetime import date, datetime
from enum import IntEnum
from typing import ClassVar

from ._wire import (
    U16,
    U32,
    bcd_digits,
    check_range,
    check_uint,
    decode_date,
    decode_time,
    digits_bcd,
    encode_date,
    encode_time,
    enum_or_int,
)
from .errors import EncodeError
from .packet import Jt808Version

CARD_LIST_MSG = 0x8F01
CARD_LIST_FORMAT = 1
SERIAL_DIGITS = 10
MAX_PIN = 16
MAX_PHOTO = 255
_HEAD = 1 + 4 + 4 + 2


def _check_serial(serial: str, what: str) -> str:
    if not (isinstance(serial, str) and serial.isascii() and serial.isdigit() and len(serial) == SERIAL_DIGITS):
        raise EncodeError(f"{what}: {serial!r} is not a card serial of exactly {SERIAL_DIGITS} digits")
    return serial


@dataclass(frozen=True, slots=True)
class CardEntry:
    """One card a vehicle accepts: its serial, the licence validity (last valid day; None: no end) and PIN."""

    serial: str
    valid_until: date | None = None
    pin: str | None = None

    def encode(self) -> bytes:
        _check_serial(self.serial, "serial")
        pin = self.pin or ""
        if not (pin == "" or (pin.isascii() and pin.isdigit() and len(pin) <= MAX_PIN)):
            raise EncodeError(f"pin of card {self.serial}: at most {MAX_PIN} digits")
        return (
            digits_bcd(self.serial, 5, "serial")
            + encode_date(self.valid_until, "valid_until")
            + bytes((len(pin),))
            + pin.encode("ascii")
        )


def entries_bytes(cards: tuple[CardEntry, ...]) -> bytes:
    return b"".join(c.encode() for c in cards)


def card_list_crc(cards: tuple[CardEntry, ...]) -> int:
    """The list's checksum: CRC-32 of its entries as sent."""
    return zlib.crc32(entries_bytes(cards)) & 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class CardList:
    """0x8F01: the whole card list of a vehicle (see the module docstring)."""

    msg_id: ClassVar[int] = CARD_LIST_MSG
    issued: int
    cards: tuple[CardEntry, ...] = ()

    @classmethod
    def of(cls, issued: int, cards: list[CardEntry] | tuple[CardEntry, ...]) -> CardList:
        """Sorted by serial; a serial given twice is refused."""
        ordered = tuple(sorted(cards, key=lambda c: c.serial))
        for a, b in itertools.pairwise(ordered):
            if a.serial == b.serial:
                raise EncodeError(f"serial: {a.serial} is listed twice")
        return cls(issued, ordered)

    @property
    def crc(self) -> int:
        return card_list_crc(self.cards)

    def encode(self, version: Jt808Version = Jt808Version.V2013) -> bytes:
        check_uint(self.issued, 32, "issued")
        if len(self.cards) > 0xFFFF:
            raise EncodeError(f"cards: {len(self.cards)} entries, at most 65535")
        entries = entries_bytes(self.cards)
        return (
            bytes((CARD_LIST_FORMAT,))
            + U32.pack(self.issued)
            + U32.pack(zlib.crc32(entries) & 0xFFFFFFFF)
            + U16.pack(len(self.cards))
            + entries
        )


def parse_card_list(body: bytes, version: Jt808Version = Jt808Version.V2013) -> CardList:
    """0x8F01 body → :class:`CardList`; a wrong format, count or checksum is malformed (ValueError)."""
    if len(body) < _HEAD:
        raise ValueError("card list shorter than its header")
    if body[0] != CARD_LIST_FORMAT:
        raise ValueError(f"card list format {body[0]} is not {CARD_LIST_FORMAT}")
    issued = U32.unpack_from(body, 1)[0]
    crc = U32.unpack_from(body, 5)[0]
    count = U16.unpack_from(body, 9)[0]
    entries = body[_HEAD:]
    if zlib.crc32(entries) & 0xFFFFFFFF != crc:
        raise ValueError("card list checksum does not match its entries")
    cards: list[CardEntry] = []
    o = 0
    for _ in range(count):
        if len(entries) < o + 10:
            raise ValueError("card list entry is truncated")
        serial = bcd_digits(entries[o : o + 5])
        valid = decode_date(entries[o + 5 : o + 9])
        n = entries[o + 9]
        if n > MAX_PIN or len(entries) < o + 10 + n:
            raise ValueError("card list PIN is truncated or too long")
        pin = entries[o + 10 : o + 10 + n].decode("ascii")
        if pin and not pin.isdigit():
            raise ValueError("card list PIN is not digits")
        cards.append(CardEntry(serial, valid, pin or None))
        o += 10 + n
    if o != len(entries):
        raise ValueError("card list has bytes after its entries")
    return CardList(issued, tuple(cards))


# --------------------------------------------------------------------------- pass-through 0xF2 / 0xF3


class FaceResult(IntEnum):
    MATCHED = 0
    NO_MATCH = 1
    NO_FACE = 2


class FaceTrigger(IntEnum):
    POWER_ON = 0
    PERIODIC = 1
    CARD_INSERTED = 2
    PLATFORM = 3


class DmsAlarm(IntEnum):
    """Driver behaviour alarms of the DMS camera (codes of the DSM alarm types where they have one)."""

    FATIGUE = 1
    PHONE = 2
    SMOKING = 3
    DISTRACTION = 4
    NO_FACE = 5  #: the driver is not in view (absent, or looking away for long)
    CAMERA_BLOCKED = 6
    FACE_MISMATCH = 17  #: the face in the seat is not the driver whose card is in


def _photo(photo: str | None) -> bytes:
    raw = (photo or "").encode("ascii", errors="strict") if (photo or "").isascii() else b""
    if photo and not raw:
        raise EncodeError(f"photo: {photo!r} is not ASCII")
    if len(raw) > MAX_PHOTO:
        raise EncodeError(f"photo: at most {MAX_PHOTO} characters")
    return bytes((len(raw),)) + raw


def _read_photo(payload: bytes, o: int) -> str | None:
    n = payload[o]
    if len(payload) != o + 1 + n:
        raise ValueError("photo reference length does not match")
    text = payload[o + 1 : o + 1 + n].decode("ascii")
    return text or None


@dataclass(frozen=True, slots=True)
class FaceComparison:
    """Pass-through 0xF2: one face comparison the terminal made."""

    time: datetime | None
    result: FaceResult | int
    similarity: int | None = None  #: percent 0-100; None: not measured
    serial: str | None = None  #: the card serial of the driver matched
    trigger: FaceTrigger | int = FaceTrigger.PERIODIC
    photo: str | None = None


@dataclass(frozen=True, slots=True)
class BehaviorAlarm:
    """Pass-through 0xF3: a driver behaviour alarm of the DMS camera."""

    time: datetime | None
    alarm: DmsAlarm | int
    level: int = 1
    photo: str | None = None


def encode_face(report: FaceComparison) -> bytes:
    similarity = 0xFF if report.similarity is None else check_range(report.similarity, 0, 100, "similarity")
    serial = b"\x00" * 5 if not report.serial else digits_bcd(_check_serial(report.serial, "serial"), 5, "serial")
    return (
        encode_time(report.time)
        + bytes((check_uint(int(report.result), 8, "result"), similarity))
        + serial
        + bytes((check_uint(int(report.trigger), 8, "trigger"),))
        + _photo(report.photo)
    )


def decode_face(payload: bytes) -> FaceComparison:
    if len(payload) < 15:
        raise ValueError("face comparison shorter than its fixed part")
    serial = bcd_digits(payload[8:13])
    return FaceComparison(
        decode_time(payload[:6]),
        enum_or_int(FaceResult, payload[6]),
        None if payload[7] == 0xFF else min(100, payload[7]),
        None if int(serial) == 0 else serial,
        enum_or_int(FaceTrigger, payload[13]),
        _read_photo(payload, 14),
    )


def encode_behavior(report: BehaviorAlarm) -> bytes:
    return (
        encode_time(report.time)
        + bytes((check_uint(int(report.alarm), 8, "alarm"), check_range(report.level, 1, 2, "level")))
        + _photo(report.photo)
    )


def decode_behavior(payload: bytes) -> BehaviorAlarm:
    if len(payload) < 9:
        raise ValueError("behaviour alarm shorter than its fixed part")
    return BehaviorAlarm(
        decode_time(payload[:6]), enum_or_int(DmsAlarm, payload[6]), max(1, min(2, payload[7])), _read_photo(payload, 8)
    )
