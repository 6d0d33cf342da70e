"""Liftdesk's vendor extension: items 0xE0-0xE7 in 0x0200 and pass-through 0xF0/0xF1."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from liftdesk.telemetry.codecs.jt808 import (
    BatteryInfo,
    BmsFlag,
    ChargeState,
    EncodeError,
    ForkliftStatus,
    Forks,
    ForkState,
    Impact,
    Jt808Version,
    LiftdeskBatteryReport,
    LiftdeskSnapshot,
    Location,
    LockLevel,
    PassThrough,
    PassThroughType,
    SeatBelt,
    decode_location,
    decode_message,
    encode_message,
    parse_body,
)

T0 = datetime(2025, 6, 1, 0, 0, 0, tzinfo=UTC)
BASE = Location(0, 0x3, 22.5, 114.0, 5, 4.2, 90, T0)
BATTERY = BatteryInfo(76, 48.6, -35.5, ChargeState.DISCHARGING, (31, -2), (3310, 3305, 3298))
BMS = BatteryInfo(76, 48.6, -35.5, ChargeState.DISCHARGING, (31, -2), (3310, 3305, 3298), 0x0103)

# item bytes exactly as docs/protocol.md specifies them
ITEMS = [
    ("load", "e0020514", ForkliftStatus(load_kg=1300)),
    ("impact", "e104049200b4", ForkliftStatus(impact=Impact(11.70, 180))),
    ("seat belt", "e20101", ForkliftStatus(seat_belt=SeatBelt.FASTENED)),
    ("forks", "e303010dac", ForkliftStatus(forks=Forks(ForkState.LIFTING, 3500))),
    ("lock", "e40102", ForkliftStatus(lock_level=LockLevel.FULL)),
    ("speed limit", "e5010a", ForkliftStatus(speed_limit_kmh=10)),
    (
        "battery",
        "e6104c01e6fe9d02021ffe030cee0ce90ce2",
        ForkliftStatus(battery=BATTERY),
    ),
    (  # liquid low, cell over-voltage, cell imbalance
        "battery with BMS flags",
        "e6124c01e6fe9d02021ffe030cee0ce90ce20103",
        ForkliftStatus(battery=BMS),
    ),
    ("fault codes", "e70a020345313204462d3431", ForkliftStatus(fault_codes=("E12", "F-41"))),
    ("no fault active", "e70100", ForkliftStatus(fault_codes=())),
    (
        "BMS flags all clear",
        "e60a32019000000000000000",
        ForkliftStatus(battery=BatteryInfo(50, 40.0, 0.0, ChargeState.IDLE, (), (), 0)),
    ),
]


@pytest.mark.parametrize(("name", "hex_", "status"), ITEMS, ids=[i[0] for i in ITEMS])
def test_item_decodes(name: str, hex_: str, status: ForkliftStatus) -> None:
    loc = decode_location(BASE.encode() + bytes.fromhex(hex_))
    assert loc.forklift == status
    assert loc.unknown_items == ()


@pytest.mark.parametrize(("name", "hex_", "status"), ITEMS, ids=[i[0] for i in ITEMS])
def test_item_encodes(name: str, hex_: str, status: ForkliftStatus) -> None:
    loc = Location(0, 0x3, 22.5, 114.0, 5, 4.2, 90, T0, forklift=status)
    assert loc.encode() == BASE.encode() + bytes.fromhex(hex_)


def test_full_status_round_trip_through_a_frame() -> None:
    status = ForkliftStatus(
        1300, Impact(2.5, 45), SeatBelt.UNFASTENED, Forks(ForkState.RAISED, 1200), LockLevel.SOFT, 6, BATTERY
    )
    loc = Location(0, 0x3, 22.5, 114.0, 5, 4.2, 90, T0, mileage_km=10.0, satellites=9, forklift=status)
    (frame,) = encode_message(loc, terminal="13800138000", serial=3)
    decoded = decode_message(frame).body
    assert decoded == loc


def test_other_vendors_items_stay_raw_when_extension_is_off() -> None:
    body = BASE.encode() + bytes.fromhex("e0020514e40102")
    loc = decode_location(body, liftdesk=False)
    assert loc.forklift is None
    assert loc.unknown_items == ((0xE0, b"\x05\x14"), (0xE4, b"\x02"))


@pytest.mark.parametrize(
    "hex_",
    [
        "e00105",  # load with a 1-byte value
        "e20107",  # seat belt state 7 is undefined
        "e40103",  # lock level 3 is undefined
        "e303090000",  # fork state 9
        "e6024c01",  # battery truncated
        "e6094c01e6fe9d02000000",  # battery with a trailing byte
        "e60b4c01e6fe9d0200000000ff",  # battery with three trailing bytes (the flags are two)
        "e70101",  # one fault code announced, none there
        "e7020100",  # an empty fault code
        "e70401024120",  # a fault code with a space
        "e7050101414141",  # a fault code followed by stray bytes
        "e70141",  # 65 fault codes announced (more than 64)
        "f1020102",  # an id we do not define
    ],
)
def test_unexpected_vendor_items_are_kept_raw(hex_: str) -> None:
    raw = bytes.fromhex(hex_)
    loc = decode_location(BASE.encode() + raw)
    assert loc.forklift is None
    assert loc.unknown_items == ((raw[0], raw[2:]),)


def test_pass_through_snapshot() -> None:
    snapshot = LiftdeskSnapshot(T0, ForkliftStatus(load_kg=800, seat_belt=SeatBelt.FASTENED))
    body = PassThrough.of(snapshot).encode()
    # type, BCD time (08:00 GMT+8), then the same items as in 0x0200
    assert body == bytes.fromhex("f0250601080000e0020320e20101")
    parsed = parse_body(0x0900, body)
    assert parsed == PassThrough(PassThroughType.LIFTDESK_SNAPSHOT, body[1:], snapshot)


def test_pass_through_battery_report() -> None:
    report = LiftdeskBatteryReport(T0, BATTERY)
    body = PassThrough.of(report).encode()
    assert body[:7] == bytes.fromhex("f1250601080000")
    parsed = parse_body(0x0900, body)
    assert isinstance(parsed, PassThrough) and parsed.liftdesk == report


def test_pass_through_extension_off() -> None:
    body = PassThrough.of(LiftdeskBatteryReport(T0, BATTERY)).encode()
    parsed = parse_body(0x0900, body, liftdesk=False)
    assert isinstance(parsed, PassThrough) and parsed.liftdesk is None and parsed.kind == 0xF1


@pytest.mark.parametrize("current", [-3276.8, 3276.7, 0.0, -0.1])
def test_battery_current_limits_round_trip(current: float) -> None:
    battery = BatteryInfo(0, 6553.5, current, ChargeState.CHARGING)
    loc = Location(0, 0, 1.0, 1.0, 0, 0.0, 0, None, forklift=ForkliftStatus(battery=battery))
    decoded = decode_location(loc.encode()).forklift
    assert decoded is not None and decoded.battery == battery


BAD = [
    ("soc", ForkliftStatus(battery=BatteryInfo(101, 48.0, 0.0, ChargeState.IDLE)), "soc_pct"),
    ("current", ForkliftStatus(battery=BatteryInfo(50, 48.0, 3276.8, ChargeState.IDLE)), "current_a"),
    ("discharge", ForkliftStatus(battery=BatteryInfo(50, 48.0, -3276.9, ChargeState.IDLE)), "current_a"),
    ("temperature", ForkliftStatus(battery=BatteryInfo(50, 48.0, 0.0, ChargeState.IDLE, (128,))), "temperatures"),
    ("too many cells", ForkliftStatus(battery=BatteryInfo(50, 48.0, 0.0, ChargeState.IDLE, (), (3300,) * 200)), "255"),
    ("direction", ForkliftStatus(impact=Impact(1.0, 360)), "direction_deg"),
    ("load", ForkliftStatus(load_kg=70000), "load_kg"),
    ("flags", ForkliftStatus(battery=BatteryInfo(50, 48.0, 0.0, ChargeState.IDLE, bms_flags=0x10000)), "bms_flags"),
    ("empty code", ForkliftStatus(fault_codes=("",)), "fault_codes"),
    ("code with a space", ForkliftStatus(fault_codes=("E 12",)), "fault_codes"),
    ("not ASCII", ForkliftStatus(fault_codes=("故障",)), "fault_codes"),
    ("long code", ForkliftStatus(fault_codes=("E" * 33,)), "fault_codes"),
    ("many codes", ForkliftStatus(fault_codes=("E1",) * 65), "at most 64"),
]


@pytest.mark.parametrize(("name", "status", "needle"), BAD, ids=[b[0] for b in BAD])
def test_invalid_vendor_values_are_rejected(name: str, status: ForkliftStatus, needle: str) -> None:
    with pytest.raises(EncodeError, match=needle):
        Location(0, 0, 1.0, 1.0, 0, 0.0, 0, None, forklift=status).encode()


# the worked example in docs/protocol.md §4.1
DOC_FRAME = (
    "7e020040460100000000013800138000002a00000000000000030157faf806cc6289000c0055005a25060110300001040000303931010b"
    "e0020514e20101e3030304b0e40100e5010ae60d4c01e6fe9d02011f020cee0ce9b27e"
)


def test_documented_example_frame() -> None:
    message = decode_message(bytes.fromhex(DOC_FRAME))
    assert message.header.terminal_key == "13800138000" and message.header.serial == 42
    loc = message.body
    assert isinstance(loc, Location)
    assert (loc.latitude, loc.longitude, loc.speed_kmh, loc.direction) == (22.543096, 114.057865, 8.5, 90)
    assert loc.time == datetime(2025, 6, 1, 2, 30, tzinfo=UTC)
    assert (loc.mileage_km, loc.satellites) == (1234.5, 11)
    assert loc.forklift == ForkliftStatus(
        load_kg=1300,
        seat_belt=SeatBelt.FASTENED,
        forks=Forks(ForkState.RAISED, 1200),
        lock_level=LockLevel.UNLOCKED,
        speed_limit_kmh=10,
        battery=BatteryInfo(76, 48.6, -35.5, ChargeState.DISCHARGING, (31,), (3310, 3305)),
    )


# the second worked example in docs/protocol.md §4.1: BMS flags and a fault code
DOC_FRAME_BMS = (
    "7e020040360100000000013800138000002b00000000000000030157faf806cc6289000c0028005a250601103100"
    "e60f1201d8fe5c0201210207b007aa0009e7070105452d323137f47e"
)


def test_documented_bms_and_fault_code_example_frame() -> None:
    message = decode_message(bytes.fromhex(DOC_FRAME_BMS))
    loc = message.body
    assert isinstance(loc, Location) and message.header.serial == 43
    assert loc.time == datetime(2025, 6, 1, 2, 31, tzinfo=UTC) and loc.speed_kmh == 4.0
    battery = BatteryInfo(18, 47.2, -42.0, ChargeState.DISCHARGING, (33,), (1968, 1962), 0x0009)
    assert loc.forklift == ForkliftStatus(battery=battery, fault_codes=("E-217",))
    assert battery.liquid_low and BmsFlag(battery.bms_flags or 0) == BmsFlag.LIQUID_LOW | BmsFlag.OVER_TEMPERATURE
    assert encode_message(loc, terminal="13800138000", serial=43, version=Jt808Version.V2019) == [
        bytes.fromhex(DOC_FRAME_BMS)
    ]
