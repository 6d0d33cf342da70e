"""Escaping, checksum, packet header parsing and the stream splitter."""

from __future__ import annotations

import functools
import operator

import pytest
from jt808_samples import SAMPLES, sample

from liftdesk.telemetry.codecs.jt808 import (
    ChecksumError,
    EncodeError,
    EscapeError,
    FrameError,
    FrameSplitter,
    HeaderError,
    Jt808Version,
    SerialCounter,
    Subpackage,
    checksum,
    decode_packet,
    encode_frame,
    escape,
    unescape,
)

# ----------------------------------------------------------------------------- escaping

ESCAPES = [
    (b"", b""),
    (b"\x01\x02\x03", b"\x01\x02\x03"),
    (b"\x7e", b"\x7d\x02"),
    (b"\x7d", b"\x7d\x01"),
    (b"\x7e\x7d", b"\x7d\x02\x7d\x01"),
    (b"\x7d\x7e", b"\x7d\x01\x7d\x02"),
    # a literal 7D 02 must not come back as 7E (wrong replace order would do that)
    (b"\x7d\x02", b"\x7d\x01\x02"),
    (b"\x7d\x01", b"\x7d\x01\x01"),
    (b"\x7e\x7e\x7e", b"\x7d\x02\x7d\x02\x7d\x02"),
    (b"\x7d\x7d", b"\x7d\x01\x7d\x01"),
    (b"\x00\x7e\x02", b"\x00\x7d\x02\x02"),
]


@pytest.mark.parametrize(("plain", "escaped"), ESCAPES)
def test_escape(plain: bytes, escaped: bytes) -> None:
    assert escape(plain) == escaped


@pytest.mark.parametrize(("plain", "escaped"), ESCAPES)
def test_unescape(plain: bytes, escaped: bytes) -> None:
    assert unescape(escaped) == plain


@pytest.mark.parametrize("bad", [b"\x7d", b"\x01\x7d", b"\x7d\x03", b"\x7d\x00\x7e", b"\x7d\x7d\x01", b"\x7d\xa0"])
def test_unescape_rejects_dangling_escape(bad: bytes) -> None:
    with pytest.raises(EscapeError):
        unescape(bad)


# ----------------------------------------------------------------------------- checksum


@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 1045])
def test_checksum_matches_plain_xor(size: int) -> None:
    data = bytes((i * 37 + 11) & 0xFF for i in range(size))
    assert checksum(data) == functools.reduce(operator.xor, data, 0)


def test_checksum_of_published_frame() -> None:
    # SmallChi README: the 0x0200 example's checksum byte is 0x13
    raw = unescape(sample("smallchi_0200_escaped")[1:-1])
    assert raw[-1] == 0x13
    assert checksum(raw[:-1]) == 0x13


# ----------------------------------------------------------------------------- decode_packet


def test_decode_packet_2013_header_with_escapes() -> None:
    packet = decode_packet(sample("smallchi_0200_escaped"))
    h = packet.header
    assert (h.msg_id, h.terminal, h.serial, h.version) == (0x0200, "123456789012", 126, Jt808Version.V2013)
    assert h.protocol_version == 0 and h.encryption == 0 and h.subpackage is None
    assert len(packet.body) == 38
    assert packet.body.endswith(b"\x02\x02\x00\x7d")  # fuel item, unescaped


def test_decode_packet_2019_header_with_escaped_length() -> None:
    packet = decode_packet(sample("gojt808_0200_2019_adas"))
    h = packet.header
    assert (h.msg_id, h.version, h.protocol_version) == (0x0200, Jt808Version.V2019, 1)
    assert h.terminal == "00000000020232609559"
    assert h.terminal_key == "20232609559"
    assert h.serial == 0x0A4F
    assert len(packet.body) == 0x7E


def test_decode_packet_accepts_frame_without_delimiters() -> None:
    frame = sample("traccar_0002")
    assert decode_packet(frame[1:-1]) == decode_packet(frame)


def test_version_flag_on_2013_header_is_read_as_2013() -> None:
    packet = decode_packet(sample("smallchi_2013_force"))
    assert packet.header.version is Jt808Version.V2013
    assert packet.header.terminal == "010030000681"
    assert packet.body == b"J10030000681"


def _reframe(content: bytes) -> bytes:
    return b"\x7e" + escape(content + bytes((checksum(content),))) + b"\x7e"


def test_checksum_failure_raises_checksum_error() -> None:
    raw = bytearray(unescape(sample("traccar_0002")[1:-1]))
    raw[-1] ^= 0x01
    with pytest.raises(ChecksumError) as info:
        decode_packet(b"\x7e" + escape(bytes(raw)) + b"\x7e")
    assert info.value.actual == info.value.expected ^ 0x01


def test_flipped_body_bit_raises_checksum_error() -> None:
    raw = bytearray(unescape(sample("traccar_0200_tacho")[1:-1]))
    raw[20] ^= 0x40
    with pytest.raises(ChecksumError):
        decode_packet(escape(bytes(raw)))


def test_body_length_mismatch_raises_header_error() -> None:
    content = bytearray(unescape(sample("traccar_0002")[1:-1])[:-1])
    content[3] = 0x01  # claims a one-byte body that is not there
    with pytest.raises(HeaderError):
        decode_packet(_reframe(bytes(content)))


@pytest.mark.parametrize(
    ("frame", "error"),
    [
        (b"", HeaderError),
        (b"\x7e\x7e", HeaderError),
        (b"\x7e\x00\x02\x00\x00\x7e", HeaderError),
        (b"\x7e\x00\x02\x7e\x00\x7e", FrameError),
        (SAMPLES["traccar_bad_escape"].frame, EscapeError),
    ],
)
def test_broken_frames(frame: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        decode_packet(frame)


# ----------------------------------------------------------------------------- encode_frame


def test_encode_frame_reproduces_published_2013_frame() -> None:
    frame = encode_frame(0x0102, b"456121111", terminal="12345678900", serial=12345)
    assert frame == sample("smallchi_0102_2013")


def test_encode_frame_reproduces_published_escaped_frame() -> None:
    original = sample("smallchi_0200_escaped")
    packet = decode_packet(original)
    assert encode_frame(0x0200, packet.body, terminal="123456789012", serial=126) == original


def test_encode_frame_2019_header_layout() -> None:
    frame = encode_frame(0x0002, b"", terminal="13912344321", serial=7, version=Jt808Version.V2019)
    content = unescape(frame[1:-1])
    assert content[:5] == bytes.fromhex("0002400001")
    assert content[5:15] == bytes.fromhex("00000000013912344321")
    assert content[15:17] == b"\x00\x07"
    assert len(content) == 18


def test_encode_frame_subpackage_header() -> None:
    frame = encode_frame(0x0801, b"abc", terminal="1", serial=9, subpackage=Subpackage(3, 2))
    packet = decode_packet(frame)
    assert packet.header.subpackage == Subpackage(3, 2)
    assert packet.body == b"abc"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"terminal": "1234567890123"},  # 13 digits on a 2013 header
        {"terminal": "12-34"},
        {"serial": 65536},
        {"serial": -1},
        {"body": b"x" * 1024},
        {"subpackage": Subpackage(2, 3)},
        {"encryption": 8},
    ],
)
def test_encode_frame_rejects_bad_arguments(kwargs: dict[str, object]) -> None:
    args: dict[str, object] = {"terminal": "13800138000", "serial": 1, "body": b""}
    args.update(kwargs)
    body = args.pop("body")
    assert isinstance(body, bytes)
    with pytest.raises(EncodeError):
        encode_frame(0x0002, body, **args)  # type: ignore[arg-type]


def test_serial_counter_wraps() -> None:
    counter = SerialCounter(65534)
    assert [counter.next(), counter.next(), counter.next()] == [65534, 65535, 0]
    assert counter.next(3) == 1
    assert counter.next() == 4


# ----------------------------------------------------------------------------- FrameSplitter

STREAM_FRAMES = [sample("smallchi_0200_escaped"), sample("traccar_0002"), sample("gojt808_0200_2019_adas")]
GARBAGE = b"(794104004140,1,001,BASE,2,TIME)"  # text a traccar device interleaves, see [TRC]
STREAM = GARBAGE + STREAM_FRAMES[0] + STREAM_FRAMES[1] + b"\x7e" + STREAM_FRAMES[2]
EXPECTED = [f[1:-1] for f in STREAM_FRAMES]


def test_splitter_whole_stream() -> None:
    splitter = FrameSplitter()
    assert splitter.feed(STREAM) == EXPECTED
    assert splitter.dropped_bytes == len(GARBAGE)
    assert splitter.pending == 0


@pytest.mark.parametrize("cut", range(len(STREAM) + 1))
def test_splitter_cut_at_every_boundary(cut: int) -> None:
    splitter = FrameSplitter()
    assert splitter.feed(STREAM[:cut]) + splitter.feed(STREAM[cut:]) == EXPECTED


def test_splitter_byte_by_byte() -> None:
    splitter = FrameSplitter()
    frames: list[bytes] = []
    for i in range(len(STREAM)):
        frames += splitter.feed(STREAM[i : i + 1])
    assert frames == EXPECTED


def test_splitter_shared_delimiter() -> None:
    a, b = EXPECTED[0], EXPECTED[1]
    assert FrameSplitter().feed(b"\x7e" + a + b"\x7e" + b + b"\x7e") == [a, b]


def test_splitter_drops_runts_and_overlong_runs() -> None:
    splitter = FrameSplitter(max_frame=100)
    frames = splitter.feed(b"\x7e\x01\x02\x7e" + b"\x55" * 150 + b"\x7e" + EXPECTED[1] + b"\x7e")
    # a 2-byte runt and a 150-byte run longer than max_frame are dropped
    assert frames == [EXPECTED[1]]
    assert splitter.dropped_bytes == 2 + 150


def test_splitter_resyncs_after_buffer_overflow_across_chunks() -> None:
    splitter = FrameSplitter(max_frame=100)
    assert splitter.feed(b"\x7e" + b"\x55" * 150) == []
    assert splitter.pending == 0  # overflowed and dropped, now waiting for a delimiter
    assert splitter.feed(b"\x55" * 5 + STREAM_FRAMES[1]) == [EXPECTED[1]]
    assert splitter.dropped_bytes == 155


def test_splitter_frames_decode() -> None:
    packets = [decode_packet(f) for f in FrameSplitter().feed(STREAM)]
    assert [p.header.msg_id for p in packets] == [0x0200, 0x0002, 0x0200]


def test_splitter_reset_discards_partial_frame() -> None:
    splitter = FrameSplitter()
    splitter.feed(b"\x7e" + EXPECTED[0][:10])
    splitter.reset()
    assert splitter.pending == 0
    assert splitter.feed(EXPECTED[0][10:] + STREAM_FRAMES[1]) == [EXPECTED[1]]
