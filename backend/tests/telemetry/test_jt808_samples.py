"""Published frames (device captures and other implementations' vectors) decode to known values, with the
pure-Python decoders and with the compiled fast path (``jt808_decoders``)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from jt808_decoders import each_implementation
from jt808_samples import SAMPLES, sample

from liftdesk.telemetry.codecs.jt808 import (
    AlarmFlag,
    Authentication,
    BatchType,
    CardReadResult,
    CardStatus,
    DriverIdentity,
    Header,
    Heartbeat,
    Jt808Version,
    LoadState,
    Location,
    LocationBatch,
    PassThrough,
    PlatformGeneralReply,
    Registration,
    RegistrationReply,
    RegistrationResult,
    ReplyResult,
    StatusFlag,
    TerminalAttributes,
    decode_message,
    encode_frame,
    encode_single,
)

V2013, V2019 = Jt808Version.V2013, Jt808Version.V2019

decoders = each_implementation()


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


# (sample, header, body) — the whole body dataclass must compare equal.
EXACT = [
    ("traccar_0002", Header(0x0002, "043048325465", 183), Heartbeat()),
    (
        "traccar_0100_2013",
        Header(0x0100, "013511221122", 5),
        Registration(0, 0, "70107", "HB-R03GBD", "2366104", 2, "苏BA6860"),
    ),
    ("traccar_0102_2013", Header(0x0102, "013511221122", 6), Authentication("authentication")),
    ("smallchi_0102_2013", Header(0x0102, "012345678900", 12345), Authentication("456121111")),
    ("smallchi_2013_force", Header(0x0102, "010030000681", 0x0902), Authentication("J10030000681")),
    (
        "gojt808_0100_2011",
        Header(0x0100, "012345678901", 0),
        Registration(31, 115, "cd", "www.808.", "7654321", 1, "测A1234"),
    ),
    (
        "traccar_0702_2013",
        Header(0x0702, "018270611514", 444),
        DriverIdentity(
            CardStatus.INSERTED, utc(2025, 10, 9, 7, 7, 51), CardReadResult.SUCCESS, "", "0029b885", "", None
        ),
    ),
    (
        "traccar_0107_2013",
        Header(0x0107, "045460005635", 3),
        TerminalAttributes(0, "XC", "C5L", "9887125", "89883030000131882455", "", "C5L_V2.6 2026/06/04 15:31", 3, 1),
    ),
    (
        "traccar_0900",
        Header(0x0900, "413058889758", 0x8319),
        PassThrough(0x40, b"\x00\x18GTSL|6|1|0|10218094|1|\r\n"),
    ),
    ("gojt808_8001_2013", Header(0x8001, "012345678901", 0), PlatformGeneralReply(32767, 0x0002, 0)),
    (
        "gojt808_8100_2013",
        Header(0x8100, "012345678901", 0),
        RegistrationReply(0, RegistrationResult.SUCCESS, "12345678901"),
    ),
    (
        "traccar_0100_2019",
        Header(0x0100, "00000866496077582164", 0x5218, V2019, 1),
        Registration(0, 0, "", "MD300", "866496077582164", 4, ""),
    ),
    (
        "gojt808_0102_2019",
        Header(0x0102, "00000000017299841738", 0, V2019, 1),
        Authentication("17299841738", "123456789012345", "3.7.15"),
    ),
    (
        "gojt808_8001_2019",
        Header(0x8001, "00000000017299841738", 0, V2019, 1),
        PlatformGeneralReply(0, 0x0102, ReplyResult.SUCCESS),
    ),
    (
        "smallchi_0200_escaped",
        Header(0x0200, "123456789012", 126),
        Location(
            alarm=1,
            status=2,
            latitude=12.222222,
            longitude=132.444444,
            altitude_m=40,
            speed_kmh=6.0,
            direction=0,
            time=utc(2018, 10, 15, 2, 10, 10),  # 10:10:10 GMT+8
            mileage_km=10.0,
            fuel_l=12.5,
        ),
    ),
    (
        "traccar_0200_tacho",
        Header(0x0200, "013833501744", 25),
        Location(0, 0xC2, 22.6426, 114.032984, 128, 0.0, 8, utc(2015, 8, 17, 23, 21, 21), 75.7, 0.0, 0.0),
    ),
]


@pytest.mark.parametrize(("name", "header", "body"), EXACT, ids=[e[0] for e in EXACT])
def test_published_frame_decodes_exactly(name: str, header: Header, body: object) -> None:
    message = decode_message(sample(name))
    assert message.header == header
    assert message.body == body


# The 2011 layout is decode-only, and the MD300 pads an empty plate with 16 NULs, which an
# encoder given plate "" cannot know to reproduce; every other exact sample must re-encode.
REENCODABLE = [e for e in EXACT if e[0] not in {"gojt808_0100_2011", "traccar_0100_2019"}]


@pytest.mark.parametrize(("name", "header", "body"), REENCODABLE, ids=[e[0] for e in REENCODABLE])
def test_published_frame_reencodes_byte_for_byte(name: str, header: Header, body: object) -> None:
    message = decode_message(sample(name))
    frame = encode_single(
        message.body,
        terminal=header.terminal,
        serial=header.serial,
        version=header.version,
        protocol_version=header.protocol_version or 1,
    )
    if name == "smallchi_2013_force":
        assert frame != sample(name)  # we never set bit 14 on a 2013 header
        assert decode_message(frame).body == body
    else:
        assert frame.lower() == sample(name).lower()


def _location(name: str) -> Location:
    body = decode_message(sample(name)).body
    assert isinstance(body, Location)
    return body


def test_south_west_capture() -> None:
    loc = _location("traccar_0200_south_west")
    assert (loc.latitude, loc.longitude) == (-25.269608, -57.602956)
    assert StatusFlag.SOUTH in loc.status_flags and StatusFlag.WEST in loc.status_flags
    assert loc.acc_on is False and loc.positioned is True
    assert loc.altitude_m == 92 and loc.speed_kmh == 1.8
    assert loc.time == utc(2025, 11, 18, 3, 26, 11)
    assert (loc.signal_strength, loc.satellites) == (29, 12)
    # 0xD4/0xD5/0x0B/0xF4.. are another vendor's items: kept raw, in order
    assert [i for i, _ in loc.unknown_items] == [0xD4, 0xD5, 0x0B, 0xF4, 0xF9, 0xFE, 0xFD, 0xEF]
    assert loc.forklift is None
    assert loc.trailing == b""


def test_io_status_capture() -> None:
    loc = _location("traccar_0200_io")
    assert loc.mileage_km == 4326.4
    assert loc.io_status == 0 and loc.io_flags is not None and not loc.io_flags
    assert (loc.signal_strength, loc.satellites) == (27, 3)
    assert StatusFlag.GPS in loc.status_flags and loc.acc_on


def test_2019_capture_with_analog_and_video_items() -> None:
    message = decode_message(sample("fxft_0200_2019"))
    assert message.header.version is V2019 and message.header.terminal_key == "40620020586"
    loc = message.body
    assert isinstance(loc, Location)
    assert (loc.latitude, loc.longitude, loc.altitude_m) == (37.606347, 108.837283, 1323)
    assert loc.time == utc(2020, 12, 3, 8, 4, 6)
    assert loc.mileage_km == 7268.1 and loc.tachograph_speed_kmh == 0.0
    assert loc.ext_signals == 0 and loc.analog == (0, 0)
    assert (loc.signal_strength, loc.satellites) == (31, 20)
    assert [i for i, _ in loc.unknown_items] == [0x14, 0x15, 0x16, 0x17]  # JT/T 1078 items
    assert loc.status_flags == StatusFlag.ACC_ON | StatusFlag.POSITIONED | StatusFlag.GPS | StatusFlag.BEIDOU


def test_2019_adas_capture() -> None:
    loc = _location("gojt808_0200_2019_adas")
    assert loc.alarm_flags == AlarmFlag.OVERSPEED_WARNING
    assert (loc.latitude, loc.longitude) == (31.512562, 121.532076)
    assert loc.speed_kmh == 53.2 and loc.direction == 20
    assert loc.time == utc(2024, 11, 27, 7, 42, 30)
    assert loc.load_state is LoadState.EMPTY
    adas = dict(loc.unknown_items)[0x64]
    assert adas[:4] == b"\x00\x00\x00\x1f"  # alarm id 31, as go-jt808 decodes it


def test_2019_alarm_bits_decode_to_named_flags() -> None:
    loc = _location("xtream_0200_2019")
    assert loc.alarm == 0x00300000
    assert loc.alarm_flags == AlarmFlag.AREA_IN_OUT | AlarmFlag.ROUTE_IN_OUT
    assert StatusFlag.MOVING in loc.status_flags and loc.acc_on
    assert (loc.mileage_km, loc.fuel_l, loc.tachograph_speed_kmh, loc.signal_strength) == (66.7, 6.7, 77.7, 99)


def test_blind_zone_batch_capture() -> None:
    batch = decode_message(sample("traccar_0704_blind_zone")).body
    assert isinstance(batch, LocationBatch)
    assert batch.batch_type == BatchType.BLIND_ZONE and batch.blind_zone
    assert len(batch.locations) == 8
    times = [loc.time for loc in batch.locations if loc.time is not None]
    assert len(times) == 8
    assert times[0] == utc(2016, 5, 27, 1, 6, 24) and times[-1] == utc(2016, 5, 27, 1, 10, 2)
    assert times == sorted(times)
    assert all(loc.positioned and loc.mileage_km == 2.9 for loc in batch.locations)


def test_2019_batch_capture() -> None:
    message = decode_message(sample("traccar_0704_2019"))
    assert message.header == Header(0x0704, "00000866496077582164", 0x881D, V2019, 1)
    batch = message.body
    assert isinstance(batch, LocationBatch) and batch.batch_type == BatchType.NORMAL and not batch.blind_zone
    (loc,) = batch.locations
    assert loc.satellites == 14  # the value traccar asserts for this capture
    assert (loc.latitude, loc.longitude) == (-27.263378, 153.037383)
    assert loc.mileage_km == 960.2


def test_driver_card_expiry_absent_when_zero() -> None:
    body = decode_message(sample("traccar_0702_2013")).body
    assert isinstance(body, DriverIdentity)
    assert body.certificate_expiry is None


def test_all_samples_are_cited() -> None:
    for s in SAMPLES.values():
        assert s.source.startswith("[") and s.source[1:4] in {"TRC", "SCR", "GOJ", "FXF", "XTR"}


def test_certificate_expiry_is_decoded() -> None:
    # same layout as the traccar capture, with a validity date filled in
    body = bytes.fromhex("012510091507510000") + b"A123".ljust(20, b"\x00") + b"\x00" + bytes.fromhex("20301231")
    message = decode_message(encode_frame(0x0702, body, terminal="1", serial=1))
    assert isinstance(message.body, DriverIdentity)
    assert message.body.certificate_no == "A123"
    assert message.body.certificate_expiry == date(2030, 12, 31)
