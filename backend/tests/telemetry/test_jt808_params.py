"""The terminal parameter table: types, ranges, vendor ids, lenient decoding."""

from __future__ import annotations

import pytest

from liftdesk.telemetry.codecs.jt808 import (
    PARAM_SPECS,
    EncodeError,
    FunctionSwitch,
    ParamId,
    ParamType,
    ParamValue,
    ParamValueError,
    decode_param,
    encode_param,
)

ENCODED = [
    (ParamId.HEARTBEAT_INTERVAL, 30, "0000001e"),
    (ParamId.MAIN_SERVER, "gw.liftdesk.example:7008", "67772e6c6966746465736b2e6578616d706c653a37303038"),
    (ParamId.TCP_PORT, 7008, "00001b60"),
    (ParamId.REPORT_INTERVAL_DEFAULT, 10, "0000000a"),
    (ParamId.MAX_SPEED, 25, "00000019"),
    (ParamId.OVERSPEED_DURATION, 5, "00000005"),
    (ParamId.ODOMETER, 123456, "0001e240"),
    (ParamId.FENCE_RADIUS, 300, "012c"),
    (ParamId.PLATE_COLOR, 1, "01"),
    (ParamId.PLATE, "京A12345", "bea9413132333435"),
    (ParamId.COLLISION_ALARM, 10 << 8 | 25, "0a19"),
    (ParamId.CAN_ID_SAMPLING, bytes(range(8)), "0001020304050607"),
    # Liftdesk vendor ids
    (ParamId.LOCK_LEVEL, 2, "02"),
    (ParamId.SPEED_LIMIT, 30, "1e"),
    (ParamId.COLLISION_THRESHOLD, 200, "00c8"),
    (ParamId.COLLISION_LEVEL, 5, "05"),
    (ParamId.OVERLOAD_THRESHOLD, 600, "0258"),
    (ParamId.SPEED_CALIBRATION, 1000, "03e8"),
    (ParamId.WEIGHT_CALIBRATION, 985, "03d9"),
    (ParamId.FUNCTION_SWITCHES, FunctionSwitch.FENCE | FunctionSwitch.SEAT_BELT_DETECTION, "00000021"),
    (ParamId.LOCAL_STORAGE_INTERVAL, 30, "0000001e"),
    (ParamId.LOGIN_LOCKOUT, 15, "000f"),
]


@pytest.mark.parametrize(("pid", "value", "hex_"), ENCODED, ids=[p[0].name for p in ENCODED])
def test_encode(pid: ParamId, value: ParamValue, hex_: str) -> None:
    assert encode_param(pid, value).hex() == hex_


@pytest.mark.parametrize(("pid", "value", "hex_"), ENCODED, ids=[p[0].name for p in ENCODED])
def test_decode(pid: ParamId, value: ParamValue, hex_: str) -> None:
    assert decode_param(pid, bytes.fromhex(hex_)) == value


OUT_OF_RANGE = [
    (ParamId.SPEED_LIMIT, 31, "speed_limit"),
    (ParamId.LOCK_LEVEL, 3, "lock_level"),
    (ParamId.COLLISION_THRESHOLD, 201, "collision_threshold"),
    (ParamId.COLLISION_LEVEL, 0, "collision_level"),
    (ParamId.COLLISION_LEVEL, 6, "collision_level"),
    (ParamId.OVERLOAD_THRESHOLD, 601, "overload_threshold"),
    (ParamId.SPEED_CALIBRATION, 499, "speed_calibration"),
    (ParamId.FUNCTION_SWITCHES, 0x80, "function_switches"),
    (ParamId.LOCAL_STORAGE_INTERVAL, 0, "local_storage_interval"),
    (ParamId.LOGIN_LOCKOUT, 1441, "login_lockout"),
    (ParamId.REPORT_STRATEGY, 3, "report_strategy"),
    (ParamId.TCP_PORT, 65536, "tcp_port"),
    (ParamId.HEARTBEAT_INTERVAL, -1, "heartbeat_interval"),
    (ParamId.HEARTBEAT_INTERVAL, 1 << 32, "heartbeat_interval"),
    (ParamId.FENCE_RADIUS, 1 << 16, "fence_radius"),
    (ParamId.CORNER_ANGLE, 180, "corner_angle"),
]


@pytest.mark.parametrize(("pid", "value", "name"), OUT_OF_RANGE, ids=[f"{p[0].name}={p[1]}" for p in OUT_OF_RANGE])
def test_out_of_range_names_the_parameter(pid: ParamId, value: int, name: str) -> None:
    with pytest.raises(ParamValueError, match=rf"0x{pid:04x} \({name}\)") as info:
        encode_param(pid, value)
    assert info.value.param_id == pid and info.value.name == name
    assert isinstance(info.value, ValueError)  # callers may treat it as a plain bad value


WRONG_TYPE: list[tuple[ParamId, object]] = [
    (ParamId.HEARTBEAT_INTERVAL, "30"),
    (ParamId.HEARTBEAT_INTERVAL, True),
    (ParamId.MAIN_SERVER, 1),
    (ParamId.CAN_ID_SAMPLING, b"short"),
    (ParamId.CAN_ID_SAMPLING, "text"),
    (ParamId.PLATE, "\U0001f69a"),  # not GBK
    (ParamId.MAIN_SERVER, "x" * 256),
]


@pytest.mark.parametrize(("pid", "value"), WRONG_TYPE)
def test_wrong_type_is_rejected(pid: ParamId, value: object) -> None:
    with pytest.raises(ParamValueError, match=pid.name.lower()):
        encode_param(pid, value)  # type: ignore[arg-type]


def test_unknown_ids_need_explicit_width() -> None:
    assert encode_param(0x0F00, b"\x01\x02") == b"\x01\x02"
    assert encode_param(0x0F00, "ab") == b"ab"
    with pytest.raises(ParamValueError, match="0x0f00"):
        encode_param(0x0F00, 5)
    with pytest.raises(EncodeError):
        encode_param(1 << 32, b"")
    assert decode_param(0x0F00, b"\x01") == b"\x01"


def test_decode_is_lenient_about_length() -> None:
    # a terminal answering a DWORD parameter with 2 bytes: keep the bytes, do not guess
    assert decode_param(ParamId.HEARTBEAT_INTERVAL, b"\x00\x1e") == b"\x00\x1e"
    assert decode_param(ParamId.MAIN_SERVER, b"host\x00\x00") == "host"


def test_table_is_consistent() -> None:
    for pid in ParamId:
        spec = PARAM_SPECS[pid]
        assert spec.id == pid and spec.name == pid.name.lower()
        assert spec.vendor == (pid >= 0xF000)
        if spec.type in (ParamType.BYTE, ParamType.WORD, ParamType.DWORD):
            high = spec.maximum if spec.maximum is not None else (1 << (8 * spec.type.value)) - 1
            assert high < 1 << (8 * spec.type.value)
            assert decode_param(pid, encode_param(pid, high)) == high
    assert set(PARAM_SPECS) == {int(p) for p in ParamId}
    vendor = {p for p in ParamId if p >= 0xF000}
    assert vendor == set(range(0xF001, 0xF00B))


def test_function_switch_bits() -> None:
    value = decode_param(ParamId.FUNCTION_SWITCHES, bytes.fromhex("00000045"))
    assert isinstance(value, int)
    assert FunctionSwitch(value) == FunctionSwitch.FENCE | FunctionSwitch.SPOT_CHECK | FunctionSwitch.DMS
