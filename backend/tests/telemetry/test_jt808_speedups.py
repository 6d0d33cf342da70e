"""The compiled fast path (``codecs/jt808/_speedups.pyx``) against its model, the pure-Python decoders: for any input,
valid or not, the same objects (compared by value and by ``repr``, so that ``-0.0`` against ``0.0`` or an enum member
against its number shows) or the same error (type and message). And the choice between them: the compiled one is
used where it is built, the pure-Python one where it is not or ``LIFTDESK_PURE_PYTHON=1``."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from jt808_decoders import compiled
from test_jt808_properties import locations

from liftdesk.telemetry.codecs.jt808 import Jt808Version, Location, Subpackage, encode_frame, escape, speedups
from liftdesk.telemetry.gateway import mapping

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def same(run: Callable[[Callable[..., object]], object], pick: str) -> None:
    """``run`` given the pure-Python and the compiled ``pick`` decoder gives the same value or raises the same."""

    def outcome(decoders: speedups.Decoders) -> tuple[str, str]:
        try:
            return "value", repr(run(getattr(decoders, pick)))
        except Exception as exc:
            return type(exc).__name__, str(exc)

    assert outcome(compiled()) == outcome(speedups.PURE)


def bcd(value: int) -> int:
    return (value // 10) << 4 | value % 10


#: BCD[6] times: valid ones (the GMT+8 day boundary, month ends and leap days included), zeros, and garbage.
local_times = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31, 23, 59, 59))
times = st.one_of(
    local_times.map(lambda d: bytes(bcd(v) for v in (d.year % 100, d.month, d.day, d.hour, d.minute, d.second))),
    st.sampled_from(
        [b"\x00" * 6, b"\x24\x02\x29\x07\x59\x59", b"\x23\x02\x29\x01\x00\x00", b"\x00\x01\x01\x00\x00\x00"]
    ),
    st.lists(
        st.sampled_from([0x00, 0x09, 0x12, 0x29, 0x31, 0x32, 0x59, 0x60, 0x99, 0x1A, 0xA1, 0xFF]),
        min_size=6,
        max_size=6,
    ).map(bytes),
    st.binary(min_size=6, max_size=6),
)

ITEM_SIZES = {
    0x01: 4, 0x02: 2, 0x03: 2, 0x04: 2, 0x11: 5, 0x12: 6, 0x13: 7, 0x25: 4, 0x2A: 2, 0x2B: 4, 0x30: 1, 0x31: 1,
    0xE0: 2, 0xE1: 4, 0xE2: 1, 0xE3: 3, 0xE4: 1, 0xE5: 1,
}  # fmt: skip


@st.composite
def item(draw: st.DrawFn) -> bytes:
    item_id = draw(st.sampled_from([*ITEM_SIZES, 0xE6, 0xE7, 0x14, 0x64, 0xDF, 0xEF, 0xFF]) | st.integers(0, 0xFF))
    if item_id == 0xE6 and draw(st.booleans()):  # a battery, well formed or nearly
        temps = draw(st.binary(max_size=6))
        cells = draw(st.binary(max_size=12).map(lambda b: b[: len(b) // 2 * 2]))
        head = bytes([draw(st.integers(0, 255))]) + draw(st.binary(min_size=4, max_size=4))
        value = head + bytes([draw(st.integers(0, 6)), len(temps)]) + temps + bytes([len(cells) // 2]) + cells
        value += draw(st.sampled_from([b"", b"\x00\x01", b"\x02", b"\x00\x00\x00"]))
    elif item_id == 0xE7 and draw(st.booleans()):  # fault codes, well formed or nearly
        codes = draw(st.lists(st.binary(min_size=0, max_size=4), max_size=3))
        value = bytes([len(codes) + draw(st.sampled_from([0, 0, 1]))]) + b"".join(bytes([len(c)]) + c for c in codes)
    else:
        size = ITEM_SIZES.get(item_id, 3)
        value = draw(st.binary(min_size=size, max_size=size) | st.binary(max_size=9))
        if item_id in (0xE2, 0xE3, 0xE4, 0x11, 0x12) and value and draw(st.booleans()):
            value = bytes([draw(st.integers(0, 6))]) + value[1:]  # enum values just in and out of range
    return bytes([item_id, len(value)]) + value


@st.composite
def location_bodies(draw: st.DrawFn) -> bytes:
    fixed = draw(st.binary(min_size=22, max_size=22)) + draw(times)
    if draw(st.booleans()):  # the coordinates zero with the hemisphere bits set: 0.0, never -0.0
        fixed = fixed[:4] + bytes([0, 0, 0, 0x0C]) + b"\x00" * 8 + fixed[16:]
    items = b"".join(draw(st.lists(item(), max_size=10)))
    return fixed + items + draw(st.sampled_from([b"", b"\x01", b"\x01\x04\x00", b"\xe6\x09\x50"]))


bodies = location_bodies() | st.binary(max_size=40)


@SETTINGS
@given(bodies, st.booleans())
@example(b"\x00" * 27, True)
@example(b"\x00" * 28, True)
def test_location_bodies_decode_the_same(body: bytes, liftdesk: bool) -> None:
    same(lambda decode: decode(body, liftdesk=liftdesk), "decode_location")


@SETTINGS
@given(st.lists(location_bodies() | st.binary(max_size=30), max_size=5), st.integers(0, 3), st.data())
def test_location_batches_decode_the_same(items: list[bytes], kind: int, data: st.DataObject) -> None:
    count = len(items) + data.draw(st.sampled_from([0, 0, 0, 1, -1]))
    body = max(count, 0).to_bytes(2, "big") + bytes([kind])
    body += b"".join(len(i).to_bytes(2, "big") + i for i in items)
    body = body[: data.draw(st.integers(0, len(body)))] if data.draw(st.booleans()) else body
    same(lambda parse: parse(body, Jt808Version.V2013, liftdesk=True), "parse_location_batch")


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    """Frames of any message as a terminal sends them (2013/2019, sub-packaged or not, bodies holding 0x7E and
    0x7D), then perhaps damaged: a byte changed, cut short, a bad escape, delimiters missing."""
    body = draw(location_bodies() | st.binary(max_size=60).map(lambda b: b + b"\x7e\x7d\x01\x02"))
    sub = draw(st.none() | st.tuples(st.integers(1, 3), st.integers(1, 3)))
    version = draw(st.sampled_from(list(Jt808Version)))
    msg_id = draw(st.sampled_from([0x0200, 0x0704, 0x0002, 0x0102]))
    terminal = draw(st.text("0123456789", min_size=1, max_size=12))
    subpackage = None if sub is None else Subpackage(max(sub), min(sub))
    serial = draw(st.integers(0, 0xFFFF))
    frame = bytearray(
        encode_frame(msg_id, body, terminal=terminal, serial=serial, version=version, subpackage=subpackage)
    )
    damage = draw(st.sampled_from(["none", "none", "byte", "cut", "escape", "bare", "flag", "2019 bit"]))
    if damage == "byte":
        frame[draw(st.integers(0, len(frame) - 1))] = draw(st.integers(0, 255))
    elif damage == "cut":
        frame = frame[: draw(st.integers(0, len(frame)))]
    elif damage == "escape":
        frame.insert(draw(st.integers(1, len(frame) - 1)), 0x7D)
    elif damage == "bare":
        frame = frame[1:-1]
    elif damage == "flag":
        frame.insert(draw(st.integers(1, len(frame) - 1)), 0x7E)
    elif damage == "2019 bit":  # a 2013 header with bit 14 set ("2013 force"), checksum made right again
        content = bytearray(frame[1:-1].replace(b"\x7d\x02", b"\x7e").replace(b"\x7d\x01", b"\x7d"))
        content[2] |= 0x40
        content[-1] = 0
        for byte in content[:-1]:
            content[-1] ^= byte
        frame = bytearray(b"\x7e" + escape(bytes(content)) + b"\x7e")
    return bytes(frame)


@SETTINGS
@given(frames() | st.binary(max_size=40))
@example(b"")
@example(b"\x7e")
@example(b"\x7e\x7e")
def test_frames_decode_the_same(frame: bytes) -> None:
    same(lambda decode: decode(frame), "decode_packet")


def test_not_bytes_is_handed_to_the_pure_python_decoders() -> None:
    frame = encode_frame(0x0200, b"\x00" * 28, terminal="1", serial=1)
    same(lambda decode: decode(bytearray(frame)), "decode_packet")
    same(lambda decode: decode(bytearray(b"\x00" * 30)), "decode_location")
    same(lambda decode: decode(bytearray(b"\x00\x01\x00\x00\x1c" + b"\x00" * 28)), "parse_location_batch")


def test_every_local_hour_of_a_leap_day_and_a_new_year() -> None:
    """The GMT+8 → UTC shift across a day, a month (leap February), a year: as ``_wire.decode_time`` computes it."""
    for start in (datetime(2024, 2, 29), datetime(2023, 3, 1), datetime(2000, 1, 1), datetime(2099, 12, 31)):
        for hour in range(24):
            d = start + timedelta(hours=hour, minutes=7, seconds=5)
            when = bytes(bcd(v) for v in (d.year % 100, d.month, d.day, d.hour, d.minute, d.second))
            body = b"\x00" * 22 + when
            loc = compiled().decode_location(body)
            assert loc == speedups.PURE.decode_location(body)
            assert loc.time == d.replace(tzinfo=UTC) - timedelta(hours=8) and loc.time.tzinfo is UTC


# ----------------------------------------------------------------------------- which decoders run


def test_the_codec_runs_the_compiled_decoders_where_they_are_built() -> None:
    assert speedups.ACTIVE is compiled()
    assert speedups.AVAILABLE == (speedups.PURE, speedups.COMPILED)


PROBE = """
import sys
{prelude}
from liftdesk.telemetry.codecs.jt808 import Location, decode_message, encode_single, speedups
frame = encode_single(Location(0, 2, 31.2, 121.5, 5, 8.5, 90, None, mileage_km=1.5), terminal="1", serial=3)
body = decode_message(frame).body
assert body.mileage_km == 1.5 and body.speed_kmh == 8.5, body
print(speedups.ACTIVE.name, speedups.UNAVAILABLE)
"""


def probe(prelude: str = "", **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "LIFTDESK_PURE_PYTHON"} | env
    script = PROBE.format(prelude=prelude)
    done = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_without_the_compiled_module_the_pure_python_decoders_run() -> None:
    """Not built (no compiler when installing): the import fails, the codec decodes in pure Python."""
    compiled()
    prelude = "sys.modules['liftdesk.telemetry.codecs.jt808._speedups'] = None  # as if it were not built"
    assert probe(prelude).startswith("python ")
    assert probe(LIFTDESK_PURE_PYTHON="1") == "python LIFTDESK_PURE_PYTHON is set"
    assert probe() == "compiled None"


# ----------------------------------------------------------------------------- the gateway's mapping to a fix


def compiled_to_fix() -> Callable[..., object]:
    compiled()
    assert mapping.COMPILED_LOCATION_TO_FIX is not None, "the compiled location_to_fix is not built"
    assert mapping.to_fix is mapping.COMPILED_LOCATION_TO_FIX
    return mapping.COMPILED_LOCATION_TO_FIX


RECEIVED = datetime(2026, 7, 1, 12, 0, 0)


@SETTINGS
@given(location_bodies(), st.booleans())
def test_decoded_positions_map_to_the_same_fix(body: bytes, liftdesk: bool) -> None:
    """Every field of the fix and every ``extra`` key, in the same order (the order the track API shows)."""
    loc = speedups.PURE.decode_location(body, liftdesk=liftdesk)
    expected = mapping.location_to_fix(loc, RECEIVED)
    fix = compiled_to_fix()(loc, RECEIVED)
    assert repr(fix) == repr(expected) and fix == expected


@SETTINGS
@given(locations())
def test_generated_positions_map_to_the_same_fix(loc: Location) -> None:
    """Positions as the property tests build them (fault codes, batteries with BMS flags, any charge state)."""
    assert repr(compiled_to_fix()(loc, RECEIVED)) == repr(mapping.location_to_fix(loc, RECEIVED))


def test_times_in_other_zones_map_as_the_pure_python_function_maps_them() -> None:
    base = Location(0, 3, 31.2, 121.5, 5, 8.5, 90, None)
    for when in (
        datetime(2026, 7, 1, 8, 30, tzinfo=UTC),
        datetime(2026, 7, 1, 8, 30, 0, 5, tzinfo=UTC, fold=1),
        datetime(2026, 7, 1, 8, 30, tzinfo=timezone(timedelta(hours=8))),
        datetime(2026, 7, 1, 8, 30),
    ):
        loc = dataclasses.replace(base, time=when)
        assert repr(compiled_to_fix()(loc, RECEIVED)) == repr(mapping.location_to_fix(loc, RECEIVED))
