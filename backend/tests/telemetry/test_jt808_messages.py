"""Builders and parsers of every message body: exact bytes where the standard fixes them,
round trips (encode → frame → decode) for the rest, and malformed bodies."""

from __future__ import annotations

import struct
from dataclasses import replace
from datetime import UTC, date, datetime, time

import pytest

from liftdesk.telemetry.codecs.jt808 import (
    AlarmConfirmation,
    AreaAttr,
    AreaRules,
    AreaSetMode,
    AreaType,
    Authentication,
    BatchType,
    Body,
    BodyError,
    CanData,
    CanItem,
    CardReadResult,
    CardStatus,
    CircleArea,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    DriverIdentity,
    EncodeError,
    ExtSignal,
    GeneralReply,
    Header,
    Heartbeat,
    IoStatus,
    Jt808Version,
    Location,
    LocationBatch,
    LocationQueryReply,
    Logout,
    OverspeedInfo,
    ParamId,
    ParamItem,
    ParamQueryReply,
    PassThrough,
    PlatformGeneralReply,
    PolygonArea,
    QueryAllParams,
    QueryParams,
    RawBody,
    RectangleArea,
    Registration,
    RegistrationReply,
    RegistrationResult,
    ReplyResult,
    ResendRequest,
    SetCircleAreas,
    SetParams,
    SetPolygonArea,
    SetRectangleAreas,
    SubpackageAssembler,
    TerminalAttributes,
    TerminalCommand,
    TerminalControl,
    TextFlag,
    TextMessage,
    TextType,
    UpgradeOutcome,
    UpgradePackage,
    UpgradeResult,
    UpgradeType,
    VehicleControl,
    VehicleControlReply,
    decode_location,
    decode_message,
    decode_packet,
    encode_message,
    parse_body,
    parse_packet,
)

V2013, V2019 = Jt808Version.V2013, Jt808Version.V2019
T0 = datetime(2024, 3, 1, 4, 5, 6, tzinfo=UTC)
LOC = Location(0, 0x3, 31.230416, 121.473701, 12, 23.4, 270, T0, mileage_km=12.5, satellites=11)


def _lat(value: float) -> bytes:
    return struct.pack(">I", round(abs(value) * 1_000_000))


# ----------------------------------------------------------------------------- exact builder bytes

EXACT_BODIES: list[tuple[str, Body, Jt808Version, bytes]] = [
    ("8001", PlatformGeneralReply(0x1234, 0x0200, ReplyResult.SUCCESS), V2013, bytes.fromhex("1234020000")),
    (
        "8001 alarm ack",
        PlatformGeneralReply(7, 0x0200, ReplyResult.ALARM_CONFIRMED),
        V2013,
        bytes.fromhex("0007020004"),
    ),
    ("8100 ok", RegistrationReply(9, RegistrationResult.SUCCESS, "AUTH01"), V2013, b"\x00\x09\x00AUTH01"),
    ("8100 refused", RegistrationReply(9, RegistrationResult.TERMINAL_REGISTERED), V2013, b"\x00\x09\x03"),
    (
        "8103",
        SetParams.of({ParamId.HEARTBEAT_INTERVAL: 30, ParamId.MAIN_SERVER: "1.2.3.4", ParamId.TCP_PORT: 7008}),
        V2013,
        bytes.fromhex("0300000001040000001e0000001307") + b"1.2.3.4" + bytes.fromhex("000000180400001b60"),
    ),
    (
        "8103 vendor",
        SetParams.of({ParamId.SPEED_LIMIT: 12, ParamId.LOCK_LEVEL: 1, ParamId.COLLISION_THRESHOLD: 150}),
        V2019,
        bytes.fromhex("030000f002010c0000f00101010000f0030200 96".replace(" ", "")),
    ),
    ("8104", QueryAllParams(), V2013, b""),
    ("8106", QueryParams((0x0001, 0xF008)), V2013, bytes.fromhex("02000000010000f008")),
    ("8105 reset", TerminalControl(TerminalCommand.RESET), V2013, b"\x04"),
    (
        "8105 connect",
        TerminalControl(TerminalCommand.CONNECT_SERVER, ("0", "AUTH", "cmnet", "", "", "gw.example.com", "7008")),
        V2013,
        b"\x020;AUTH;cmnet;;;gw.example.com;7008",
    ),
    ("8300 2013", TextMessage(TextFlag.DISPLAY | TextFlag.TTS, "你好"), V2013, bytes.fromhex("0cc4e3bac3")),
    (
        "8300 2019",
        TextMessage(TextFlag.DISPLAY, "OK", TextType.SERVICE),
        V2019,
        bytes.fromhex("0402") + b"OK",
    ),
    ("8500 2013 lock", VehicleControl.doors(True), V2013, b"\x01"),
    ("8500 2019 lock", VehicleControl.doors(True), V2019, bytes.fromhex("0001000101")),
    ("8500 2019 liftdesk", VehicleControl.lock_level(2), V2019, bytes.fromhex("0001f00102")),
    ("8601 all", DeleteCircleAreas(), V2013, b"\x00"),
    ("8603", DeleteRectangleAreas((5,)), V2013, bytes.fromhex("0100000005")),
    ("8605", DeletePolygonAreas((1, 2)), V2013, bytes.fromhex("020000000100000002")),
    (
        "8600 2013",
        SetCircleAreas(
            AreaSetMode.APPEND,
            (
                CircleArea(
                    1,
                    AreaAttr.ENTER_ALARM_PLATFORM,
                    31.2,
                    121.5,
                    500,
                    AreaRules(max_speed_kmh=10, overspeed_duration_s=5),
                ),
            ),
        ),
        V2013,
        bytes.fromhex("010100000001000a") + _lat(31.2) + _lat(121.5) + bytes.fromhex("000001f4000a05"),
    ),
    (
        "8600 2019 south-west, daily window",
        SetCircleAreas(
            AreaSetMode.UPDATE,
            (
                CircleArea(
                    2,
                    0,
                    -33.9,
                    -70.6,
                    80,
                    AreaRules(time(8, 30), time(18, 0), 15, 10, 12, "Yard"),
                ),
            ),
        ),
        V2019,
        bytes.fromhex("00010000000200c3")
        + _lat(33.9)
        + _lat(70.6)
        + bytes.fromhex("00000050000000083000000000180000000f0a000c0004")
        + b"Yard",
    ),
    (
        "8604 2019",
        SetPolygonArea(
            PolygonArea(
                3,
                0,
                ((1.0, 2.0), (1.5, 2.0), (1.5, 2.5)),
                AreaRules(max_speed_kmh=20, overspeed_duration_s=3, night_max_speed_kmh=15, name="P"),
            )
        ),
        V2019,
        bytes.fromhex("0000000300020014030003")
        + _lat(1.0)
        + _lat(2.0)
        + _lat(1.5)
        + _lat(2.0)
        + _lat(1.5)
        + _lat(2.5)
        + bytes.fromhex("000f0001")
        + b"P",
    ),
    (
        "8108 2013",
        UpgradePackage(UpgradeType.TERMINAL, "LD001", "1.2.3", b"\xde\xad"),
        V2013,
        b"\x00LD001\x051.2.3" + bytes.fromhex("00000002dead"),
    ),
    ("0001", GeneralReply(3, 0x8103, ReplyResult.UNSUPPORTED), V2013, bytes.fromhex("0003810303")),
    ("0002", Heartbeat(), V2019, b""),
    ("0108", UpgradeResult(UpgradeType.GNSS_MODULE, UpgradeOutcome.FAILURE), V2013, bytes.fromhex("3401")),
    ("0900", PassThrough(0x41, b"\x01\x02"), V2013, bytes.fromhex("410102")),
    # original serial, count (BYTE in 2013, WORD in 2019), the serials to send again
    ("8003 2013", ResendRequest(0x0102, (0x0104, 0x0106)), V2013, bytes.fromhex("01020201040106")),
    ("8003 2019", ResendRequest(0xFFFF, (0x0000,)), V2019, bytes.fromhex("ffff00010000")),
    # alarm serial (0 = all of these types), the alarm bits: emergency + illegal move
    ("8203", AlarmConfirmation(0, (1 << 0) | (1 << 28)), V2013, bytes.fromhex("000010000001")),
]


@pytest.mark.parametrize(("name", "body", "version", "expected"), EXACT_BODIES, ids=[e[0] for e in EXACT_BODIES])
def test_builder_bytes(name: str, body: Body, version: Jt808Version, expected: bytes) -> None:
    assert body.encode(version) == expected


@pytest.mark.parametrize(("name", "body", "version", "expected"), EXACT_BODIES, ids=[e[0] for e in EXACT_BODIES])
def test_builder_bytes_parse_back(name: str, body: Body, version: Jt808Version, expected: bytes) -> None:
    parsed = parse_body(body.msg_id, expected, version)
    assert _without_derived_bits(parsed) == _without_derived_bits(body)


_DERIVED = AreaAttr.TIME_BOUND | AreaAttr.SPEED_LIMIT | AreaAttr.SOUTH | AreaAttr.WEST


def _without_derived_bits(body: Body) -> Body:
    """Area attribute bits 0/1/6/7 are set by the encoder from the rules and coordinate signs."""
    if isinstance(body, SetCircleAreas):
        return replace(body, areas=tuple(replace(a, attributes=a.attributes & ~_DERIVED) for a in body.areas))
    if isinstance(body, SetRectangleAreas):
        return replace(body, areas=tuple(replace(a, attributes=a.attributes & ~_DERIVED) for a in body.areas))
    if isinstance(body, SetPolygonArea):
        return replace(body, area=replace(body.area, attributes=body.area.attributes & ~_DERIVED))
    return body


def test_area_attribute_bits_follow_rules_and_signs() -> None:
    area = CircleArea(1, AreaAttr.NO_DOOR_OPEN | AreaAttr.SOUTH, 10.0, -20.0, 5, AreaRules(start=time(1), end=time(2)))
    parsed = parse_body(0x8600, SetCircleAreas(AreaSetMode.UPDATE, (area,)).encode(V2013))
    assert isinstance(parsed, SetCircleAreas)
    assert parsed.areas[0].attributes == AreaAttr.NO_DOOR_OPEN | AreaAttr.TIME_BOUND | AreaAttr.WEST
    assert (parsed.areas[0].latitude, parsed.areas[0].longitude) == (10.0, -20.0)


def test_general_reply_to_header() -> None:
    header = Header(0x0200, "013800138000", 77)
    assert PlatformGeneralReply.to(header) == PlatformGeneralReply(77, 0x0200, ReplyResult.SUCCESS)


# ----------------------------------------------------------------------------- round trips through frames

ROUND_TRIPS: list[tuple[str, Body, Jt808Version]] = [
    ("0001", GeneralReply(65535, 0x8300, ReplyResult.FAILURE), V2019),
    ("0002", Heartbeat(), V2013),
    ("0003", Logout(), V2019),
    ("0100 2013", Registration(44, 300, "LIFTD", "FL-200", "T000001", 1, "粤B12345"), V2013),
    ("0100 2019", Registration(44, 300, "LIFTDESK", "FL-200 Pro", "866496077582164", 0, "LGWEF4A51LH012345"), V2019),
    ("0102 2013", Authentication("abc123"), V2013),
    ("0102 2019", Authentication("abc123", "866496077582164", "FW 2.1.0"), V2019),
    (
        "0104",
        ParamQueryReply(
            12,
            (
                ParamItem(ParamId.HEARTBEAT_INTERVAL, 60),
                ParamItem(ParamId.MAIN_SERVER, "gw.example.com:7008;10.0.0.1:7008"),
                ParamItem(ParamId.PLATE_COLOR, 2),
                ParamItem(ParamId.CAN_ID_SAMPLING, bytes(8)),
                ParamItem(0x1234, b"\x01\x02\x03"),
                ParamItem(ParamId.FUNCTION_SWITCHES, 0b1010101),
            ),
        ),
        V2013,
    ),
    (
        "0107 2013",
        TerminalAttributes(0x0006, "LD001", "FL-200", "T000001", "89860012345678901234", "HW1", "FW2", 3, 0x21),
        V2013,
    ),
    (
        "0107 2019",
        TerminalAttributes(0x0006, "LIFTDESK", "FL-200", "866496077582164", "89860012345678901234", "H", "F", 1, 1),
        V2019,
    ),
    ("0108", UpgradeResult(UpgradeType.TERMINAL, UpgradeOutcome.SUCCESS), V2013),
    ("0200", LOC, V2013),
    ("0201", LocationQueryReply(5, LOC), V2013),
    ("0500", VehicleControlReply(6, LOC), V2019),
    (
        "0702 2013 in",
        DriverIdentity(
            CardStatus.INSERTED, T0, CardReadResult.SUCCESS, "张三", "11010519491231002X", "交通局", date(2027, 1, 31)
        ),
        V2013,
    ),
    (
        "0702 2019 in",
        DriverIdentity(
            CardStatus.INSERTED,
            T0,
            CardReadResult.SUCCESS,
            "Li",
            "C-1",
            "Issuer",
            date(2030, 6, 1),
            "110105194912310021",
        ),
        V2019,
    ),
    ("0702 read failed", DriverIdentity(CardStatus.INSERTED, T0, CardReadResult.CARD_LOCKED), V2013),
    ("0702 out", DriverIdentity(CardStatus.REMOVED, T0), V2019),
    ("0704", LocationBatch(BatchType.BLIND_ZONE, (LOC, LOC)), V2019),
    (
        "0705",
        CanData(
            time(13, 14, 15, 678_000),
            (CanItem(0, True, False, 0x18FEF100, bytes(range(8))), CanItem(1, False, True, 0x123, b"\xff" * 8)),
        ),
        V2013,
    ),
    ("0900", PassThrough(0x0B, b"card"), V2013),
    ("8103", SetParams.of({ParamId.MAX_SPEED: 25, ParamId.OVERSPEED_DURATION: 10}), V2019),
    (
        "8105",
        TerminalControl(TerminalCommand.UPGRADE, ("http://fw/x.bin", "", "", "", "", "", "", "LD001", "", "2.0", "60")),
        V2019,
    ),
    (
        "8602 2013",
        SetRectangleAreas(
            AreaSetMode.MODIFY,
            (RectangleArea(9, AreaAttr.EXIT_ALARM_PLATFORM, (31.3, 121.4), (31.2, 121.5)),),
        ),
        V2013,
    ),
    (
        "8602 2019 time-bound",
        SetRectangleAreas(
            AreaSetMode.APPEND,
            (
                RectangleArea(
                    9,
                    AreaAttr.TIME_BOUND | AreaAttr.NO_COMMS_INSIDE,
                    (31.3, 121.4),
                    (31.2, 121.5),
                    AreaRules(T0, datetime(2024, 4, 1, tzinfo=UTC), name="Dock 3"),
                ),
            ),
        ),
        V2019,
    ),
    (
        "8604 2013",
        SetPolygonArea(PolygonArea(4, AreaAttr.ENTER_ALARM_DRIVER, ((1.0, 2.0), (3.0, 4.0), (5.0, 6.5)))),
        V2013,
    ),
    ("8108 2019", UpgradePackage(UpgradeType.IC_CARD_READER, "LIFTDESK", "v9", bytes(range(256)) * 12), V2019),
    ("8300 2019 default type", TextMessage(TextFlag.URGENT, "Stop"), V2019),
]


def _expected_after_round_trip(body: Body, version: Jt808Version) -> Body:
    if isinstance(body, TextMessage) and version is V2019 and body.text_type is None:
        return TextMessage(body.flags, body.text, TextType.NOTICE)
    return body


@pytest.mark.parametrize(("name", "body", "version"), ROUND_TRIPS, ids=[e[0] for e in ROUND_TRIPS])
def test_round_trip_through_frames(name: str, body: Body, version: Jt808Version) -> None:
    frames = encode_message(body, terminal="13800138000", serial=65534, version=version)
    assembler = SubpackageAssembler()
    packets = [assembler.add(decode_packet(f)) for f in frames]
    assert all(p is None for p in packets[:-1])
    packet = packets[-1]
    assert packet is not None
    message = parse_packet(packet)
    assert message.header.version is version
    assert message.header.terminal_key == "13800138000"
    assert message.header.serial == 65534
    assert _without_derived_bits(message.body) == _without_derived_bits(_expected_after_round_trip(body, version))
    assert message.body.encode(version) == body.encode(version)


def test_long_upgrade_package_is_subpackaged() -> None:
    package = bytes(range(256)) * 12
    frames = encode_message(UpgradePackage(0, "LD001", "v1", package), terminal="1", serial=10, max_body=1000)
    assert len(frames) == 4
    headers = [decode_packet(f).header for f in frames]
    assert [h.serial for h in headers] == [10, 11, 12, 13]
    assert [(h.subpackage.total, h.subpackage.index) for h in headers if h.subpackage] == [(4, i) for i in (1, 2, 3, 4)]
    # a single sub-package cannot be parsed on its own
    assert isinstance(decode_message(frames[0]).body, RawBody)


# ----------------------------------------------------------------------------- location items


def _item_body(*items: bytes) -> bytes:
    return LOC.encode()[:28] + b"".join(items)


ITEMS = [
    ("0x01 mileage", bytes.fromhex("0104000004d2"), "mileage_km", 123.4),
    ("0x02 fuel", bytes.fromhex("020201f4"), "fuel_l", 50.0),
    ("0x03 tachograph", bytes.fromhex("030200c8"), "tachograph_speed_kmh", 20.0),
    ("0x04 event id", bytes.fromhex("04020102"), "alarm_event_id", 0x0102),
    ("0x11 no area", bytes.fromhex("110100"), "overspeed", OverspeedInfo(AreaType.NONE)),
    ("0x11 polygon", bytes.fromhex("11050300000007"), "overspeed", OverspeedInfo(AreaType.POLYGON, 7)),
    ("0x25 signals", bytes.fromhex("250400000030"), "ext_signals", 0x30),
    ("0x2a io", bytes.fromhex("2a020002"), "io_status", 2),
    ("0x2b analog", bytes.fromhex("2b0400640032"), "analog", (0x32, 0x64)),
    ("0x30 rssi", bytes.fromhex("300117"), "signal_strength", 23),
    ("0x31 satellites", bytes.fromhex("31010c"), "satellites", 12),
]


@pytest.mark.parametrize(("name", "item", "field", "value"), ITEMS, ids=[i[0] for i in ITEMS])
def test_standard_location_item(name: str, item: bytes, field: str, value: object) -> None:
    loc = decode_location(_item_body(item))
    assert getattr(loc, field) == value
    assert loc.unknown_items == ()
    assert loc.encode() == _item_body(item)


def test_area_and_route_items() -> None:
    loc = decode_location(_item_body(bytes.fromhex("1206010000002a01"), bytes.fromhex("1307000000090e1001")))
    assert loc.area_alarm is not None and loc.route_time is not None
    assert (loc.area_alarm.area_type, loc.area_alarm.area_id, loc.area_alarm.leaving) == (AreaType.CIRCLE, 42, True)
    assert (loc.route_time.segment_id, loc.route_time.travel_time_s, loc.route_time.too_long) == (9, 3600, True)


def test_signal_and_io_flags() -> None:
    loc = decode_location(_item_body(bytes.fromhex("250400000030"), bytes.fromhex("2a020001")))
    assert loc.ext_signal_flags == ExtSignal.BRAKE | ExtSignal.REVERSE
    assert loc.io_flags == IoStatus.DEEP_SLEEP


def test_wrong_length_standard_item_is_kept_raw() -> None:
    loc = decode_location(_item_body(bytes.fromhex("01020001"), bytes.fromhex("310109")))
    assert loc.mileage_km is None
    assert loc.unknown_items == ((0x01, b"\x00\x01"),)
    assert loc.satellites == 9


def test_truncated_item_lands_in_trailing() -> None:
    loc = decode_location(_item_body(bytes.fromhex("31010c"), bytes.fromhex("0104000001")))
    assert loc.satellites == 12
    assert loc.trailing == bytes.fromhex("0104000001")
    with pytest.raises(EncodeError):
        loc.encode()


def test_zero_time_decodes_to_none() -> None:
    body = bytearray(LOC.encode())
    body[22:28] = bytes(6)
    assert decode_location(bytes(body)).time is None


def test_time_is_converted_from_gmt8() -> None:
    body = bytearray(LOC.encode())
    body[22:28] = bytes.fromhex("240101000000")  # 2024-01-01 00:00:00 in Beijing
    assert decode_location(bytes(body)).time == datetime(2023, 12, 31, 16, tzinfo=UTC)


# ----------------------------------------------------------------------------- malformed bodies

MALFORMED = [
    ("0001 short", 0x0001, b"\x00\x01\x02", V2013),
    ("0200 short", 0x0200, bytes(27), V2013),
    ("0100 short", 0x0100, bytes(20), V2019),
    ("0100 2019 never uses the 2011 widths", 0x0100, bytes(30), V2019),
    ("0104 truncated item", 0x0104, bytes.fromhex("00010100000001040000"), V2013),
    ("0104 count too high", 0x0104, bytes.fromhex("00010200000001010a"), V2013),
    ("0107 truncated", 0x0107, bytes(40), V2013),
    ("0108 short", 0x0108, b"\x00", V2013),
    ("0702 short", 0x0702, b"\x01\x24", V2013),
    ("0702 truncated card", 0x0702, bytes.fromhex("01240101000000000541"), V2013),
    ("0704 missing item", 0x0704, bytes.fromhex("000200001c") + bytes(28), V2013),
    ("0705 missing item", 0x0705, bytes.fromhex("00011314150000"), V2013),
    ("0900 empty", 0x0900, b"", V2013),
    ("0900 liftdesk snapshot truncated", 0x0900, bytes.fromhex("f0240101000000e002"), V2013),
    ("8103 bytes after last item", 0x8103, bytes.fromhex("000001"), V2013),
    ("8500 unknown control", 0x8500, bytes.fromhex("0001123401"), V2019),
    ("8604 vertices missing", 0x8604, bytes.fromhex("0000000100000005"), V2013),
    ("8108 short package", 0x8108, b"\x00LD001\x00" + bytes.fromhex("0000000a00"), V2013),
    ("8003 serials missing", 0x8003, bytes.fromhex("0001020001"), V2013),
    ("8003 2019 count is a WORD", 0x8003, bytes.fromhex("00010200010002"), V2019),
    ("8203 short", 0x8203, bytes.fromhex("000000"), V2013),
]


@pytest.mark.parametrize(("name", "msg_id", "body", "version"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_body_raises_body_error(name: str, msg_id: int, body: bytes, version: Jt808Version) -> None:
    with pytest.raises(BodyError) as info:
        parse_body(msg_id, body, version)
    assert info.value.msg_id == msg_id


def test_2019_authentication_with_2013_body_falls_back_to_bare_code() -> None:
    assert parse_body(0x0102, b"AUTH0001", V2019) == Authentication("AUTH0001")


def test_2019_driver_identity_without_id_card_number() -> None:
    body = DriverIdentity(CardStatus.INSERTED, T0, CardReadResult.SUCCESS, "Li", "C-1", "X", date(2030, 1, 1))
    parsed = parse_body(0x0702, body.encode(V2013), V2019)
    assert parsed == body


def test_unknown_message_id_is_raw() -> None:
    assert parse_body(0x0F01, b"\x01") == RawBody(0x0F01, b"\x01")


def test_2011_deregistration_is_a_logout() -> None:
    assert parse_body(0x0101, b"") == Logout()


# ----------------------------------------------------------------------------- builder validation

BAD_BUILDS: list[tuple[str, Body, Jt808Version, str]] = [
    ("model too long", Registration(0, 0, "M", "x" * 21, "T", 1, "P"), V2013, "model"),
    ("not GBK", Authentication("\U0001f600"), V2013, "auth_code"),
    ("latitude", Location(0, 0, 91.0, 0.0, 0, 0.0, 0, None), V2013, "latitude"),
    ("naive time", Location(0, 0, 1.0, 1.0, 0, 0.0, 0, datetime(2024, 1, 1)), V2013, "time"),
    ("year 2100", Location(0, 0, 1.0, 1.0, 0, 0.0, 0, datetime(2100, 1, 1, 12, tzinfo=UTC)), V2013, "time"),
    ("altitude", Location(0, 0, 1.0, 1.0, 40000, 0.0, 0, None), V2013, "altitude_m"),
    ("auth code missing", RegistrationReply(1, RegistrationResult.SUCCESS), V2013, "auth_code"),
    ("2013 liftdesk lock", VehicleControl.lock_level(1), V2013, "2013"),
    ("param range", SetParams.of({ParamId.SPEED_LIMIT: 31}), V2013, "speed_limit"),
    ("separator in param", TerminalControl(TerminalCommand.RESET, ("a;b",)), V2013, "';'"),
    (
        "hemispheres mixed",
        SetPolygonArea(PolygonArea(1, 0, ((1.0, 1.0), (-1.0, 1.0), (1.0, 2.0)))),
        V2013,
        "equator",
    ),
    ("card without result", DriverIdentity(CardStatus.INSERTED, T0), V2013, "read_result"),
    ("CAN id width", CanData(None, (CanItem(0, False, False, 1 << 29, bytes(8)),)), V2013, "can_id"),
    ("2013 re-send request over 255", ResendRequest(1, tuple(range(256))), V2013, "more than one request"),
    ("alarm not confirmable", AlarmConfirmation(0, 1 << 1), V2013, "alarm_types"),
    ("no alarm to confirm", AlarmConfirmation(0, 0), V2013, "alarm_types"),
]


@pytest.mark.parametrize(("name", "body", "version", "needle"), BAD_BUILDS, ids=[b[0] for b in BAD_BUILDS])
def test_builder_rejects_bad_values(name: str, body: Body, version: Jt808Version, needle: str) -> None:
    with pytest.raises(EncodeError, match=needle):
        body.encode(version)


def test_registration_reply_without_code_parses() -> None:
    assert parse_body(0x8100, b"\x00\x01\x04") == RegistrationReply(1, RegistrationResult.TERMINAL_UNKNOWN, None)


def test_unknown_enum_values_are_kept_as_ints() -> None:
    reply = parse_body(0x0001, bytes.fromhex("0001020009"))
    assert reply == GeneralReply(1, 0x0200, 9)
