"""Property tests: build → parse round trips, and hostile input only ever raises Jt808Error; each run once with the
pure-Python decoders and once with the compiled fast path (``jt808_decoders``)."""

from __future__ import annotations

import functools
import operator
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jt808_decoders import each_implementation

from liftdesk.telemetry.codecs.jt808 import (
    PARAM_SPECS,
    PARSERS,
    BatteryInfo,
    Body,
    ChargeState,
    ForkliftStatus,
    Forks,
    ForkState,
    FrameSplitter,
    Impact,
    Jt808Error,
    Jt808Version,
    LiftdeskBatteryReport,
    LiftdeskSnapshot,
    Location,
    LocationBatch,
    LockLevel,
    Message,
    OverspeedInfo,
    ParamItem,
    ParamQueryReply,
    ParamSpec,
    ParamType,
    ParamValue,
    PassThrough,
    PlatformGeneralReply,
    Registration,
    SeatBelt,
    SetParams,
    Subpackage,
    SubpackageAssembler,
    checksum,
    decode_message,
    encode_frame,
    encode_general_replies,
    encode_message,
    encode_single,
    escape,
    parse_packet,
    speedups,
    unescape,
)

decoders = each_implementation()

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

u8 = st.integers(0, 0xFF)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
versions = st.sampled_from(list(Jt808Version))


def tenths(high: int) -> st.SearchStrategy[float]:
    return st.integers(0, high).map(lambda raw: raw / 10)


# ASCII and a few GBK ideographs; no NUL or spaces, which fixed-width fields strip
TEXT_ALPHABET = st.sampled_from("ABCXYZabcxyz0123456789-_.:/#京沪粤苏测鲁")


def text(max_bytes: int) -> st.SearchStrategy[str]:
    return st.text(TEXT_ALPHABET, max_size=max_bytes).filter(lambda s: len(s.encode("gbk")) <= max_bytes)


times = st.one_of(
    st.none(),
    st.datetimes(min_value=datetime(2000, 1, 1, 0, 0), max_value=datetime(2099, 12, 31, 15, 59, 59)).map(
        lambda d: d.replace(microsecond=0, tzinfo=UTC)
    ),
)

batteries = st.builds(
    BatteryInfo,
    st.integers(0, 100),
    tenths(0xFFFF),
    st.integers(-0x8000, 0x7FFF).map(lambda raw: raw / 10),
    st.sampled_from(list(ChargeState)),
    st.lists(st.integers(-128, 127), max_size=8).map(tuple),
    st.lists(u16, max_size=24).map(tuple),
    st.none() | u16,  # the BMS flags (absent in frames of older firmware)
)

#: Item 0xE7: printable ASCII codes of 1-32 characters (the item then stays within 255 bytes).
fault_codes = st.lists(
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=32), max_size=6
).map(tuple)

forklift = st.builds(
    ForkliftStatus,
    st.none() | u16,
    st.none() | st.builds(Impact, u16.map(lambda raw: raw / 100), st.integers(0, 359)),
    st.none() | st.sampled_from(list(SeatBelt)),
    st.none() | st.builds(Forks, st.sampled_from(list(ForkState)), u16),
    st.none() | st.sampled_from(list(LockLevel)),
    st.none() | u8,
    st.none() | batteries,
    st.none() | fault_codes,
).filter(lambda f: f != ForkliftStatus())

STANDARD_ITEM_IDS = {0x01, 0x02, 0x03, 0x04, 0x11, 0x12, 0x13, 0x25, 0x2A, 0x2B, 0x30, 0x31}
unknown_items = st.lists(
    st.tuples(st.integers(0, 0xDF).filter(lambda i: i not in STANDARD_ITEM_IDS), st.binary(max_size=40)),
    max_size=4,
).map(tuple)


@st.composite
def locations(draw: st.DrawFn) -> Location:
    lat = draw(st.integers(0, 90_000_000)) / 1e6 * draw(st.sampled_from([1, -1]))
    lon = draw(st.integers(0, 180_000_000)) / 1e6 * draw(st.sampled_from([1, -1]))
    status = draw(u32) & ~0xC | (0x4 if lat < 0 else 0) | (0x8 if lon < 0 else 0)
    return Location(
        alarm=draw(u32),
        status=status,
        latitude=lat,
        longitude=lon,
        altitude_m=draw(st.integers(-0x8000, 0x7FFF)),
        speed_kmh=draw(tenths(0xFFFF)),
        direction=draw(st.integers(0, 359)),
        time=draw(times),
        mileage_km=draw(st.none() | tenths(0xFFFFFFFF)),
        fuel_l=draw(st.none() | tenths(0xFFFF)),
        tachograph_speed_kmh=draw(st.none() | tenths(0xFFFF)),
        alarm_event_id=draw(st.none() | u16),
        overspeed=draw(st.none() | st.builds(OverspeedInfo, st.integers(0, 4), st.none() | u32)),
        ext_signals=draw(st.none() | u32),
        io_status=draw(st.none() | u16),
        analog=draw(st.none() | st.tuples(u16, u16)),
        signal_strength=draw(st.none() | u8),
        satellites=draw(st.none() | u8),
        forklift=draw(st.none() | forklift),
        unknown_items=draw(unknown_items),
    )


@SETTINGS
@given(locations())
def test_location_body_round_trip(loc: Location) -> None:
    assert speedups.ACTIVE.decode_location(loc.encode()) == loc


@SETTINGS
@given(forklift, batteries, times.filter(lambda t: t is not None), versions)
def test_liftdesk_pass_through_round_trip(
    status: ForkliftStatus, battery: BatteryInfo, when: datetime, version: Jt808Version
) -> None:
    """0xF0 snapshots and 0xF1 battery reports (BMS flags and fault codes included) decode to what was sent."""
    for report in (LiftdeskSnapshot(when, status), LiftdeskBatteryReport(when, battery)):
        frame = encode_single(PassThrough.of(report), terminal="13800138000", serial=7, version=version)
        body = decode_message(frame).body
        assert isinstance(body, PassThrough) and body.liftdesk == report


def _round_trip(body: Body, version: Jt808Version = Jt808Version.V2013, serial: int = 1) -> Message:
    """Encode to frames (sub-packaged if needed), decode and reassemble them."""
    assembler = SubpackageAssembler()
    packet = None
    for frame in encode_message(body, terminal="13800138000", serial=serial, version=version):
        packet = assembler.add(speedups.ACTIVE.decode_packet(frame))
    assert packet is not None
    return parse_packet(packet)


@SETTINGS
@given(locations(), versions, u16)
def test_location_frame_round_trip(loc: Location, version: Jt808Version, serial: int) -> None:
    message = _round_trip(loc, version, serial)
    assert message.header.serial == serial and message.header.version is version
    assert message.body == loc


@SETTINGS
@given(st.lists(locations(), max_size=5), st.integers(0, 1), versions)
def test_location_batch_round_trip(locs: list[Location], kind: int, version: Jt808Version) -> None:
    batch = LocationBatch(kind, tuple(locs))
    assert _round_trip(batch, version).body == batch


@st.composite
def registrations(draw: st.DrawFn) -> tuple[Registration, Jt808Version]:
    version = draw(versions)
    maker, model, terminal_id = (5, 20, 7) if version is Jt808Version.V2013 else (11, 30, 30)
    reg = Registration(
        draw(u16), draw(u16), draw(text(maker)), draw(text(model)), draw(text(terminal_id)), draw(u8), draw(text(40))
    )
    return reg, version


@SETTINGS
@given(registrations(), st.text("0123456789", min_size=1, max_size=12))
def test_registration_round_trip(case: tuple[Registration, Jt808Version], terminal: str) -> None:
    reg, version = case
    (frame,) = encode_message(reg, terminal=terminal, serial=7, version=version)
    message = decode_message(frame)
    assert message.header.version is version
    assert message.header.terminal_key == (terminal.lstrip("0") or "0")
    assert message.body == reg


def _value_for(spec: ParamSpec) -> st.SearchStrategy[ParamValue]:
    if spec.type is ParamType.STRING:
        return text(60)
    if spec.type is ParamType.BYTES:
        return st.binary(min_size=spec.length or 0, max_size=spec.length or 32)
    high = spec.maximum if spec.maximum is not None else (1 << (8 * spec.type.value)) - 1
    low = spec.minimum or 0
    return st.integers(low, high)


param_sets = st.lists(
    st.sampled_from(sorted(PARAM_SPECS)).flatmap(lambda pid: st.tuples(st.just(pid), _value_for(PARAM_SPECS[pid]))),
    max_size=12,
    unique_by=lambda item: item[0],
)


@SETTINGS
@given(param_sets, versions)
def test_set_params_round_trip(items: list[tuple[int, ParamValue]], version: Jt808Version) -> None:
    parsed = _round_trip(SetParams(tuple(ParamItem(pid, value) for pid, value in items)), version).body
    assert isinstance(parsed, SetParams)
    assert parsed.as_dict() == dict(items)


@SETTINGS
@given(param_sets, u16)
def test_param_query_reply_round_trip(items: list[tuple[int, ParamValue]], serial: int) -> None:
    reply = ParamQueryReply(serial, tuple(ParamItem(pid, value) for pid, value in items))
    assert _round_trip(reply).body == reply


# ----------------------------------------------------------------------------- framing properties


@SETTINGS
@given(st.binary(max_size=300))
def test_escape_round_trip(data: bytes) -> None:
    escaped = escape(data)
    assert b"\x7e" not in escaped
    assert unescape(escaped) == data


@SETTINGS
@given(st.binary(max_size=2100))
def test_checksum_is_xor(data: bytes) -> None:
    assert checksum(data) == functools.reduce(operator.xor, data, 0)


frames_strategy = st.lists(
    st.tuples(st.sampled_from([0x0002, 0x0200, 0x0900]), st.binary(max_size=60), versions, u16).map(
        lambda t: encode_frame(t[0], t[1], terminal="13800138000", serial=t[3], version=t[2])
    ),
    min_size=1,
    max_size=6,
)


@SETTINGS
@given(
    frames_strategy,
    st.lists(st.integers(0, 2000), max_size=10),
    st.binary(max_size=20).filter(lambda b: b"\x7e" not in b),
)
def test_splitter_any_chunking(frames: list[bytes], cuts: list[int], garbage: bytes) -> None:
    stream = garbage + b"".join(frames)
    points = sorted({min(c, len(stream)) for c in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]
    splitter = FrameSplitter()
    out = [frame for chunk in chunks for frame in splitter.feed(chunk)]
    assert out == [f[1:-1] for f in frames]
    assert splitter.dropped_bytes == len(garbage)


# ----------------------------------------------------------------------------- hostile input


def _decode_all(data: bytes) -> None:
    assembler = SubpackageAssembler()
    for frame in FrameSplitter().feed(data):
        try:
            packet = assembler.add(speedups.ACTIVE.decode_packet(frame))
            if packet is not None:
                parse_packet(packet)
            decode_message(frame, liftdesk=False)
        except Jt808Error:
            pass


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_only_raise_jt808_errors(data: bytes) -> None:
    _decode_all(data)
    _decode_all(b"\x7e" + data + b"\x7e")


@settings(max_examples=1000, deadline=None)
@given(
    st.sampled_from(sorted(PARSERS)),
    st.binary(max_size=300),
    versions,
    st.none() | st.tuples(st.integers(0, 5), st.integers(0, 5)).map(lambda t: Subpackage(*t)),
)
def test_valid_frames_with_garbage_bodies_only_raise_jt808_errors(
    msg_id: int, body: bytes, version: Jt808Version, sub: Subpackage | None
) -> None:
    # correct framing and checksum, so the garbage reaches the body parsers
    try:
        frame = encode_frame(msg_id, body, terminal="1", serial=1, version=version, subpackage=sub)
    except Jt808Error:
        return  # e.g. an impossible sub-package index; nothing to decode
    _decode_all(frame)


@settings(max_examples=300, deadline=None)
@given(locations(), st.integers(0, 200), st.integers(0, 255))
def test_corrupted_location_frames_only_raise_jt808_errors(loc: Location, position: int, value: int) -> None:
    frame = bytearray(encode_message(loc, terminal="1", serial=1)[0])
    frame[min(position, len(frame) - 1)] = value
    _decode_all(bytes(frame))


@SETTINGS
@given(
    terminal=st.text("0123456789", min_size=1, max_size=12),
    version=st.sampled_from([Jt808Version.V2013, Jt808Version.V2019]),
    first=st.integers(0, 0xFFFF),
    replies=st.lists(
        st.tuples(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF), st.integers(0, 4)), min_size=1, max_size=40
    ),
)
def test_batched_general_replies_are_the_frames_one_by_one(
    terminal: str, version: Jt808Version, first: int, replies: list[tuple[int, int, int]]
) -> None:
    """The gateway acknowledges a read's positions with ``encode_general_replies``: byte for byte the frames of
    each PlatformGeneralReply encoded alone (serials, escaping of 0x7E/0x7D in serials and checksums included)."""
    batched = encode_general_replies(terminal, replies, first_serial=first, version=version, protocol_version=1)
    one_by_one = b"".join(
        encode_frame(
            0x8001,
            PlatformGeneralReply(serial, msg_id, result).encode(version),
            terminal=terminal,
            serial=(first + i) & 0xFFFF,
            version=version,
            protocol_version=1,
        )
        for i, (serial, msg_id, result) in enumerate(replies)
    )
    assert batched == one_by_one
    decoded = [parse_packet(speedups.ACTIVE.decode_packet(f)).body for f in FrameSplitter().feed(batched)]
    assert [(b.reply_serial, b.reply_msg_id, int(b.result)) for b in decoded] == replies  # type: ignore[union-attr]
