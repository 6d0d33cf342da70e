"""Byte-level framing: escaping, the XOR checksum and splitting a TCP stream into frames.

A frame on the wire is ``0x7E | escaped(header | body | checksum) | 0x7E``; inside it 0x7E is
sent as ``7D 02`` and 0x7D as ``7D 01``.  Everything here works on whole ``bytes`` objects
with ``bytes.replace``/``bytes.find``/``int.from_bytes`` so there is no Python loop per byte.
"""

from __future__ import annotations

from .errors import EscapeError

FLAG = 0x7E
FLAG_BYTE = b"\x7e"
_ESC = b"\x7d"
_ESC_7D = b"\x7d\x01"
_ESC_7E = b"\x7d\x02"

#: Shortest unescaped frame content: a 2013 header (12 bytes) plus the checksum byte.
MIN_FRAME_CONTENT = 13
#: Longest unescaped frame content: 2019 sub-package header (21) + body (1023) + checksum (1).
MAX_FRAME_CONTENT = 21 + 1023 + 1
#: Longest escaped frame content (every byte escaped).
MAX_ESCAPED_CONTENT = 2 * MAX_FRAME_CONTENT


def escape(data: bytes) -> bytes:
    """Escape 0x7D then 0x7E (the order matters: escaping 0x7E first would re-escape its 0x7D)."""
    return data.replace(_ESC, _ESC_7D).replace(FLAG_BYTE, _ESC_7E)


def unescape(data: bytes) -> bytes:
    """Undo :func:`escape`; raise :class:`EscapeError` for a 0x7D not followed by 0x01/0x02.

    ``7D 02`` is replaced before ``7D 01``: every 0x7D in escaped data starts an escape pair,
    and a pair's second byte is never 0x7D, so the first pass cannot match across pairs, and
    the 0x7E it produces cannot be mistaken for anything by the second pass.  (The other order
    would turn an escaped ``7D 02`` literal — sent as ``7D 01 02`` — into 0x7E.)
    """
    if _ESC not in data:
        return data
    if data.count(_ESC) != data.count(_ESC_7D) + data.count(_ESC_7E):
        raise EscapeError("0x7d not followed by 0x01 or 0x02")
    return data.replace(_ESC_7E, FLAG_BYTE).replace(_ESC_7D, _ESC)


def checksum(data: bytes) -> int:
    """XOR of all bytes.

    Folds the number ``int.from_bytes(data)`` in halves, 64-bit aligned, then XORs the last
    eight bytes together: a handful of big-integer operations instead of one Python step per
    byte (about 4x faster than ``functools.reduce`` on a 1 KB body, equal on 60 bytes).
    """
    size = len(data)
    pad = -size % 8
    value = int.from_bytes(data, "big")
    bits = (size + pad) * 8
    while bits > 64:
        half = ((bits // 64 + 1) // 2) * 64
        value = (value >> half) ^ (value & ((1 << half) - 1))
        bits = half
    value ^= value >> 32
    value ^= value >> 16
    value ^= value >> 8
    return value & 0xFF


class FrameSplitter:
    """Cut a byte stream into candidate frames.

    ``feed`` takes chunks of any size (as they come off a socket) and returns the complete
    frames they finish, as the escaped content *between* the 0x7E delimiters (pass them to
    :func:`~.packet.decode_packet`, which also accepts frames with delimiters).

    Every run of bytes between two 0x7E is a candidate, so back-to-back frames work whether
    they share a delimiter (``7E a 7E b 7E``) or not (``7E a 7E 7E b 7E``).  Dropped as
    garbage: bytes before the first 0x7E, runs shorter than any header, and a run that grows
    past ``max_frame`` without a delimiter (the splitter then waits for the next 0x7E).  A
    garbage run that *looks* like a frame is still returned; the checksum rejects it.
    """

    __slots__ = ("_buf", "_max", "_synced", "dropped_bytes")

    def __init__(self, max_frame: int = MAX_ESCAPED_CONTENT) -> None:
        self._buf = bytearray()
        self._synced = False
        self._max = max_frame
        #: Bytes discarded so far (for connection statistics).
        self.dropped_bytes = 0

    @property
    def pending(self) -> int:
        """Bytes buffered for an unfinished frame."""
        return len(self._buf)

    def feed(self, chunk: bytes) -> list[bytes]:
        frames: list[bytes] = []
        buf = self._buf
        start = 0
        find = chunk.find
        while True:
            end = find(FLAG, start)
            if end < 0:
                break
            if self._synced:
                if buf:
                    buf += chunk[start:end]
                    segment = bytes(buf)
                    buf.clear()
                else:
                    segment = chunk[start:end]
                if MIN_FRAME_CONTENT <= len(segment) <= self._max:
                    frames.append(segment)
                else:
                    self.dropped_bytes += len(segment)
            else:
                self.dropped_bytes += end - start
                self._synced = True
            start = end + 1
        rest = len(chunk) - start
        if rest > 0:
            if self._synced:
                buf += chunk[start:]
                if len(buf) > self._max:
                    self.dropped_bytes += len(buf)
                    buf.clear()
                    self._synced = False
            else:
                self.dropped_bytes += rest
        return frames

    def reset(self) -> None:
        """Forget any partial frame (e.g. after the connection was re-established)."""
        self._buf.clear()
        self._synced = False
