"""Commands: payload builders (unit), and the lifecycle against a fake terminal over a real socket (real databases).

Retry timing uses a short platform reply timeout; nothing sleeps: the tests wait for frames the terminal receives
and for the command's final state (``CommandService.wait``), each bounded.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, time, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from test_gateway import Stack, add_vehicle, close_stack, make_stack, online, terminal_row

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database, utcnow
from liftdesk.system.models import LogUsual
from liftdesk.telemetry.codecs.jt808 import (
    AreaSetMode,
    DeleteCircleAreas,
    FunctionSwitch,
    GeneralReply,
    Jt808Version,
    Location,
    LocationQueryReply,
    Message,
    ParamItem,
    ParamQueryReply,
    ParamValueError,
    QueryAllParams,
    QueryParams,
    ReplyResult,
    SetCircleAreas,
    SetParams,
    SetPolygonArea,
    SetRectangleAreas,
    TerminalAttributes,
    TerminalCommand,
    TerminalControl,
    TextFlag,
    TextMessage,
    UpgradePackage,
    UpgradeResult,
    VehicleControl,
    VehicleControlReply,
    VehicleControlType,
    parse_body,
)
from liftdesk.telemetry.commands import (
    ACKNOWLEDGED,
    CANCELLED,
    FAILED,
    PENDING,
    SENT,
    TIMEOUT,
    CommandService,
    UnknownParameter,
    build_body,
    switch_bits,
    url_upgrade_payload,
    validate,
)
from liftdesk.telemetry.gateway.client import Jt808Client

V2013, V2019 = Jt808Version.V2013, Jt808Version.V2019
TENANT = "000000"
USER = 1123598821738675201
WAIT = 10.0
#: The gateway asks a terminal for its attributes after it authenticated; these tests count the commands a
#: terminal receives, so their gateways do not.
QUIET: Any = None


@pytest.fixture
async def stack(db: Database) -> AsyncIterator[Stack]:
    s = await make_stack(db, idle_timeout_s=60, attributes_max_age_s=QUIET)
    yield s
    await close_stack(s)


def roundtrip(msg_id: int, payload: dict[str, Any], version: Jt808Version = V2019) -> Any:
    """Build, encode for a terminal and parse back as the terminal would."""
    body = validate(msg_id, payload)
    return parse_body(msg_id, body.encode(version), version)


# --------------------------------------------------------------------------- builders


def test_set_params_are_typed_by_the_parameter_table() -> None:
    body = roundtrip(
        0x8103,
        {
            "params": {
                "heartbeat_interval": 30,
                "0x0029": "10",
                "main_server": "gw.example.com:7808",
                "LOCK_LEVEL": 1,
                "61442": 12,
                "0x0110": "0102030405060708",
            }
        },
    )
    assert isinstance(body, SetParams)
    assert body.as_dict() == {
        0x0001: 30,
        0x0029: 10,
        0x0013: "gw.example.com:7808",
        0xF001: 1,
        0xF002: 12,
        0x0110: bytes(range(1, 9)),
    }


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"lock_level": 3}, "lock_level"),
        ({"speed_limit": 31}, "speed_limit"),
        ({"heartbeat_interval": "often"}, "heartbeat_interval"),
        ({"heartbeat_interval": -1}, "heartbeat_interval"),
        ({"main_server": 5}, "main_server"),
        ({"can_id_sampling": "0102"}, "can_id_sampling"),
        ({"no_such_parameter": 1}, "no_such_parameter"),
        ({"0x9999": 1}, "0x9999"),
        ({"heartbeat_interval": True}, "heartbeat_interval"),
    ],
)
def test_invalid_parameter_values_name_the_parameter(params: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        build_body(0x8103, {"params": params})


def test_parameter_range_errors_come_from_the_codec_table() -> None:
    with pytest.raises(ParamValueError) as err:
        build_body(0x8103, {"params": {"collision_threshold": 201}})
    assert err.value.param_id == 0xF003 and "0..200" in str(err.value)


def test_queries() -> None:
    assert isinstance(build_body(0x8104, {}), QueryAllParams)
    assert isinstance(build_body(0x8106, {"ids": []}), QueryAllParams)
    body = roundtrip(0x8106, {"ids": ["heartbeat_interval", "0x0029", 0xF001]})
    assert isinstance(body, QueryParams) and body.param_ids == (0x0001, 0x0029, 0xF001)


def test_terminal_control_vehicle_control_and_text() -> None:
    control = roundtrip(0x8105, {"command": "reset"})
    assert isinstance(control, TerminalControl) and control.command == TerminalCommand.RESET
    connect = roundtrip(0x8105, {"command": 2, "params": ["0", "code", "cmnet", "", "", "gw.example.com", 7808]})
    assert isinstance(connect, TerminalControl) and connect.params[5:] == ("gw.example.com", "7808")
    lock = roundtrip(0x8500, {"lockLevel": 2})
    assert isinstance(lock, VehicleControl)
    assert lock.controls[0].control_type == VehicleControlType.LIFTDESK_LOCK_LEVEL and lock.controls[0].param == b"\x02"
    doors = roundtrip(0x8500, {"doors": "lock"}, V2013)
    assert isinstance(doors, VehicleControl) and doors.controls[0].param == b"\x01"
    text = roundtrip(0x8300, {"text": "请系好安全带", "tts": True})
    assert isinstance(text, TextMessage) and text.text == "请系好安全带"
    assert text.flags == TextFlag.DISPLAY | TextFlag.TTS


def test_upgrade_and_areas() -> None:
    package = bytes(range(256)) * 10
    upgrade = roundtrip(
        0x8108,
        {"type": "terminal", "maker": "LFTDK", "version": "2.0.1", "package": base64.b64encode(package).decode()},
    )
    assert isinstance(upgrade, UpgradePackage) and upgrade.package == package and upgrade.version == "2.0.1"

    circles = roundtrip(
        0x8600,
        {
            "mode": "append",
            "areas": [
                {
                    "id": 7,
                    "lat": 31.2,
                    "lon": 121.5,
                    "radius": 150,
                    "maxSpeed": 8,
                    "overspeedDuration": 5,
                    "name": "仓库",
                },
                {"id": 8, "lat": 31.3, "lon": 121.6, "radius": 50, "start": "08:00", "end": "18:00:00"},
            ],
        },
    )
    assert isinstance(circles, SetCircleAreas) and circles.mode == AreaSetMode.APPEND
    first, second = circles.areas
    assert (first.area_id, first.radius_m, first.rules.max_speed_kmh, first.rules.name) == (7, 150, 8, "仓库")
    assert (second.rules.start, second.rules.end) == (time(8, 0), time(18, 0))

    rect = roundtrip(
        0x8602,
        {"areas": [{"id": 1, "topLeft": [31.3, 121.4], "bottomRight": {"lat": 31.2, "lon": 121.5},
                    "start": "2026-05-01T00:00:00Z", "end": "2026-06-01T00:00:00+08:00"}]},
    )  # fmt: skip
    assert isinstance(rect, SetRectangleAreas)
    assert rect.areas[0].rules.start == datetime(2026, 5, 1, tzinfo=UTC)
    assert rect.areas[0].rules.end == datetime(2026, 5, 31, 16, tzinfo=UTC)

    poly = roundtrip(0x8604, {"area": {"id": 3, "vertices": [[31.0, 121.0], [31.1, 121.0], [31.1, 121.1]]}})
    assert isinstance(poly, SetPolygonArea) and len(poly.area.vertices) == 3
    delete = roundtrip(0x8601, {"ids": [7, 8]})
    assert isinstance(delete, DeleteCircleAreas) and delete.area_ids == (7, 8)
    assert roundtrip(0x8605, {}).area_ids == ()


@pytest.mark.parametrize(
    ("msg_id", "payload", "named"),
    [
        (0x9999, {}, "msg_id"),
        (0x8300, {"text": ""}, "text"),
        (0x8105, {"command": "explode"}, "command"),
        (0x8500, {"lockLevel": 5}, "lockLevel"),
        (0x8600, {"areas": [{"id": 1, "lat": 91, "lon": 0, "radius": 5}]}, "areas"),
        (0x8600, {"areas": [{"id": 1, "lat": 1, "lon": 0, "radius": 5, "start": "08:00"}]}, "start and end"),
        (0x8604, {"area": {"id": 1, "vertices": [[1, 1]]}}, "vertices"),
        (0x8108, {"version": "1", "package": "***"}, "package"),
        (0x8105, {"command": "upgrade", "params": ["fw.example.com/a.bin"]}, "url"),
        (0x8105, {"command": "upgrade", "params": ["javascript:alert(1)"]}, "url"),
        (0x8105, {"command": "upgrade", "params": ["http://fw.example.com:99999/a.bin"]}, "url"),
        (0x8105, {"command": "upgrade", "params": ["http://h/a", "", "", "", "", "70000"]}, "tcpPort"),
        (0x8105, {"command": "upgrade", "params": ["http://h/a", "", "", "", "", "", "", "MAKERX"]}, "maker"),
        (0x8105, {"command": "upgrade", "params": ["http://h/a"] + [""] * 11}, "1..11"),
    ],
)
def test_invalid_payloads(msg_id: int, payload: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        validate(msg_id, payload)


def test_upgrade_from_a_url_and_location_query() -> None:
    payload = url_upgrade_payload(
        "https://fw.example.com/ld808/2.0.bin", maker="LFTDK", firmware_version="2.0", connect_timeout_min=30
    )
    control = roundtrip(0x8105, payload, V2013)
    assert isinstance(control, TerminalControl) and control.command == TerminalCommand.UPGRADE
    assert control.params == ("https://fw.example.com/ld808/2.0.bin", "", "", "", "", "", "", "LFTDK", "", "2.0", "30")
    assert validate(0x8201, {}).encode(V2019) == b""


def test_function_switch_names() -> None:
    assert switch_bits({"fence": True, "DMS": False, "seat_belt_detection": 1}) == (
        FunctionSwitch.FENCE | FunctionSwitch.DMS | FunctionSwitch.SEAT_BELT_DETECTION,
        FunctionSwitch.FENCE | FunctionSwitch.SEAT_BELT_DETECTION,
    )
    with pytest.raises(ValueError, match="'horn' is not one of fence"):
        switch_bits({"horn": True})
    with pytest.raises(ValueError, match="switches"):
        switch_bits({})


# --------------------------------------------------------------------------- lifecycle


async def received(client: Jt808Client, msg_id: int) -> Message:
    message = await client.next_message(WAIT)
    assert message.header.msg_id == msg_id, f"expected 0x{msg_id:04x}, got 0x{message.header.msg_id:04x}"
    return message


async def test_parameter_query_answered_by_the_terminal(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device, V2019)
    try:
        cid = await stack.commands.create(
            TENANT, vid, device, "query_params", 0x8106, {"ids": ["heartbeat_interval", "lock_level"]}, USER
        )
        message = await received(client, 0x8106)
        assert isinstance(message.body, QueryParams) and message.body.param_ids == (0x0001, 0xF001)
        assert message.header.version is V2019 and message.header.terminal == client.terminal
        answer = ParamQueryReply(message.header.serial, (ParamItem(0x0001, 30), ParamItem(0xF001, 1)))
        await client.send(answer)
        view = await stack.commands.wait(cid, WAIT)
    finally:
        await client.close()
    assert view is not None and view.status == ACKNOWLEDGED
    assert view.result == {
        "params": [
            {"id": "0x0001", "name": "heartbeat_interval", "value": 30},
            {"id": "0xf001", "name": "lock_level", "value": 1},
        ]
    }
    assert (view.attempts, view.serial, view.create_user) == (1, message.header.serial, USER)
    assert view.sent_time is not None and view.done_time is not None


async def test_failure_reply_fails_the_command_with_the_reason(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    try:
        cid = await stack.commands.create(
            TENANT, vid, device, "set_params", 0x8103, {"params": {"report_interval_default": 10}}, USER
        )
        message = await received(client, 0x8103)
        assert isinstance(message.body, SetParams) and message.body.as_dict() == {0x0029: 10}
        await client.send(GeneralReply(message.header.serial, 0x8103, ReplyResult.UNSUPPORTED))
        view = await stack.commands.wait(cid, WAIT)
    finally:
        await client.close()
    assert view is not None and view.status == FAILED and view.error == "terminal does not support the command"


async def test_no_answer_is_retried_with_growing_timeouts_then_times_out(db: Database) -> None:
    stack = await make_stack(db, reply_timeout_s=0.05, attributes_max_age_s=QUIET)
    try:
        vid, device = await add_vehicle(db)
        client = await online(stack, device)
        assert stack.commands.reply_timeout(1) == pytest.approx(0.05)
        assert stack.commands.reply_timeout(3) == pytest.approx(0.3)
        cid = await stack.commands.create(TENANT, vid, device, "text", 0x8300, {"text": "hello"}, USER)
        copies = [await received(client, 0x8300) for _ in range(3)]
        view = await stack.commands.wait(cid, WAIT)
        assert view is not None and view.status == TIMEOUT and view.attempts == 3
        assert view.error == "no reply after 3 attempts"
        assert {m.header.serial for m in copies} == {view.serial}  # a retransmission keeps its serial
        assert client.inbox.empty()  # no fourth attempt
        await client.close()
    finally:
        await close_stack(stack)


async def test_command_created_offline_is_sent_when_the_terminal_connects(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    cid = await stack.commands.create(TENANT, vid, device, "lock", 0x8500, {"lockLevel": 1}, USER)
    view = await stack.commands.wait(cid, 0)
    assert view is not None and view.status == PENDING and view.attempts == 0
    client = await online(stack, device, V2019)
    try:
        message = await received(client, 0x8500)
        assert isinstance(message.body, VehicleControl) and message.body.controls[0].param == b"\x01"
        after = Location(0, 3 | 1 << 11, 31.2, 121.5, 0, 0.0, 0, datetime(2026, 3, 2, 1, 0, tzinfo=UTC))
        await client.send(VehicleControlReply(message.header.serial, after))
        view = await stack.commands.wait(cid, WAIT)
    finally:
        await client.close()
    assert view is not None and view.status == ACKNOWLEDGED and view.result["lat"] == 31.2


async def test_a_2019_only_command_fails_on_a_2013_terminal(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device, V2013)
    try:
        cid = await stack.commands.create(TENANT, vid, device, "lock", 0x8500, {"lockLevel": 2}, USER)
        view = await stack.commands.wait(cid, WAIT)
    finally:
        await client.close()
    assert view is not None and view.status == FAILED and (view.error or "").startswith("cannot be sent")


async def test_pending_commands_expire(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    soon = utcnow() - timedelta(seconds=1)
    expired = await stack.commands.create(TENANT, vid, device, "text", 0x8300, {"text": "old"}, USER, expire_time=soon)
    fresh = await stack.commands.create(TENANT, vid, device, "text", 0x8300, {"text": "new"}, USER)
    assert await stack.commands.expire_pending() >= 1
    view = await stack.commands.get(expired)
    assert view is not None and view.status == FAILED and view.error == "expired"
    client = await online(stack, device)
    try:
        message = await received(client, 0x8300)  # only the fresh one is sent
        assert isinstance(message.body, TextMessage) and message.body.text == "new"
        await client.send(GeneralReply(message.header.serial, 0x8300, 0))
        view = await stack.commands.wait(fresh, WAIT)
        assert view is not None and view.status == ACKNOWLEDGED
        assert client.inbox.empty()
    finally:
        await client.close()


async def test_a_command_in_flight_follows_the_terminal_to_its_new_connection(db: Database) -> None:
    stack = await make_stack(db, reply_timeout_s=0.5, attributes_max_age_s=QUIET)
    try:
        vid, device = await add_vehicle(db)
        first = await online(stack, device)
        cid = await stack.commands.create(TENANT, vid, device, "query", 0x8104, {}, USER)
        lost = await received(first, 0x8104)
        first.abort()  # the answer never comes on this connection
        session = stack.gateway.sessions.get(device)
        if session is not None:
            await asyncio.wait_for(session.finished.wait(), WAIT)
        second = await online(stack, device)
        message = await received(second, 0x8104)
        assert isinstance(message.body, QueryAllParams)
        await second.send(ParamQueryReply(message.header.serial, (ParamItem(0x0001, 60),)))
        view = await stack.commands.wait(cid, WAIT)
        assert view is not None and view.status == ACKNOWLEDGED and view.attempts == 2
        assert view.serial == message.header.serial != lost.header.serial
        await first.close()
        await second.close()
    finally:
        await close_stack(stack)


async def test_terminal_attributes_query(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    try:
        cid = await stack.commands.create(TENANT, vid, device, "query_attributes", 0x8107, {}, USER)
        await received(client, 0x8107)
        await client.send(TerminalAttributes(0x0041, "LFTDK", "LD-2", "T9", "89860000000000000001", "hw3", "fw7", 3, 1))
        view = await stack.commands.wait(cid, WAIT)
    finally:
        await client.close()
    assert view is not None and view.status == ACKNOWLEDGED
    assert view.result["attributes"]["firmwareVersion"] == "fw7"
    term = await terminal_row(stack.db, device)
    assert term is not None and (term.firmware_version, term.iccid) == ("fw7", "89860000000000000001")


async def test_upgrade_in_sub_packages_then_its_result(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    package = bytes(range(256)) * 12  # 3 KB: four sub-packages
    payload = {"type": 0, "maker": "LFTDK", "version": "2.1.0", "package": base64.b64encode(package).decode()}
    try:
        cid = await stack.commands.create(TENANT, vid, device, "upgrade", 0x8108, payload, USER)
        frames = [await received(client, 0x8108) for _ in range(4)]
        subs = [m.header.subpackage for m in frames]
        assert [(s.total, s.index) for s in subs if s] == [(4, 1), (4, 2), (4, 3), (4, 4)]
        for m in frames[:-1]:
            await client.send(GeneralReply(m.header.serial, 0x8108, 0))
        view = await stack.commands.get(cid)
        assert view is not None and view.status == SENT  # not before the last package is confirmed
        await client.send(GeneralReply(frames[-1].header.serial, 0x8108, 0))
        view = await stack.commands.wait(cid, WAIT)
        assert view is not None and view.status == ACKNOWLEDGED and view.result["received"] is True
        assert await client.request(UpgradeResult(0, 1), WAIT)  # the upgrade itself failed
        view = await stack.commands.get(cid)
        assert view is not None and view.status == FAILED and view.error == "upgrade failure"
    finally:
        await client.close()


async def test_create_is_validated_and_audited(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    with pytest.raises(ValueError, match="lock_level"):
        await stack.commands.create(TENANT, vid, device, "set", 0x8103, {"params": {"lock_level": 9}}, USER)
    cid = await stack.commands.create(TENANT, vid, device, "set", 0x8103, {"params": {"lock_level": 2}}, USER)
    async with stack.db.sessionmaker() as s:
        logs = (await s.execute(select(LogUsual).where(LogUsual.log_id == "command.create"))).scalars().all()
    mine = [json.loads(row.log_data or "{}") for row in logs if str(cid) in (row.log_data or "")]
    assert len(mine) == 1 and mine[0]["userId"] == str(USER) and mine[0]["payload"] == {"params": {"lock_level": 2}}
    assert [json.loads(row.log_data or "{}")["device"] for row in logs].count(device) == 1


async def test_recovery_requeues_commands_left_in_flight(db: Database) -> None:
    first = await make_stack(db, attributes_max_age_s=QUIET)
    try:
        vid, device = await add_vehicle(db)
        client = await online(first, device)
        cid = await first.commands.create(TENANT, vid, device, "text", 0x8300, {"text": "x"}, USER)
        await received(client, 0x8300)
        await client.close()
    finally:
        await close_stack(first)
    view = await first.commands.get(cid)
    assert view is not None and view.status == SENT
    restarted = CommandService(db, first.commands.bus)
    await restarted.start()  # the gateway process after a restart
    try:
        view = await restarted.get(cid)
        assert view is not None and view.status == PENDING and view.attempts == 1
    finally:
        await restarted.stop()


async def test_location_query_is_answered_by_the_position(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    try:
        cid = await stack.commands.create(TENANT, vid, device, "where", 0x8201, {}, USER)
        message = await received(client, 0x8201)
        here = Location(0, 3, 31.25, 121.45, 4, 2.0, 180, datetime(2026, 3, 2, 1, 0, tzinfo=UTC))
        await client.send(LocationQueryReply(message.header.serial, here))
        view = await stack.commands.wait(cid, WAIT)
    finally:
        await client.close()
    assert view is not None and view.status == ACKNOWLEDGED
    assert (view.result["lat"], view.result["lon"]) == (31.25, 121.45)


async def test_function_switches_change_only_the_named_bits_of_the_last_known_value(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    with pytest.raises(UnknownParameter, match="function_switches"):
        await stack.commands.create_switches(TENANT, vid, device, {"fence": True}, USER)
    client = await online(stack, device)
    try:
        query = await stack.commands.create(TENANT, vid, device, "q", 0x8106, {"ids": ["function_switches"]}, USER)
        message = await received(client, 0x8106)
        await client.send(ParamQueryReply(message.header.serial, (ParamItem(0xF008, 0b0011001),)))
        assert (await stack.commands.wait(query, WAIT)).status == ACKNOWLEDGED  # type: ignore[union-attr]
        assert await stack.commands.last_param_value(device, 0xF008) == 0b0011001

        first = await stack.commands.create_switches(TENANT, vid, device, {"fence": False, "dms": True}, USER)
        message = await received(client, 0x8103)
        assert isinstance(message.body, SetParams) and message.body.as_dict() == {0xF008: 0b1011000}
        # not answered yet: a second change starts from the value queued before it
        second = await stack.commands.create_switches(TENANT, vid, device, {"card": False}, USER)
        again = await received(client, 0x8103)
        assert isinstance(again.body, SetParams) and again.body.as_dict() == {0xF008: 0b1010000}
        await client.send(GeneralReply(message.header.serial, 0x8103, ReplyResult.FAILURE))
        await client.send(GeneralReply(again.header.serial, 0x8103, 0))
        assert (await stack.commands.wait(first, WAIT)).status == FAILED  # type: ignore[union-attr]
        assert (await stack.commands.wait(second, WAIT)).status == ACKNOWLEDGED  # type: ignore[union-attr]
        assert await stack.commands.last_param_value(device, 0xF008) == 0b1010000
        # a parameter query answered later is newer than every set before it
        query = await stack.commands.create(TENANT, vid, device, "q", 0x8104, {}, USER)
        message = await received(client, 0x8104)
        await client.send(ParamQueryReply(message.header.serial, (ParamItem(0xF008, 0b1),)))
        await stack.commands.wait(query, WAIT)
        assert await stack.commands.last_param_value(device, 0xF008) == 0b1
    finally:
        await client.close()


async def test_pending_commands_can_be_cancelled_all_or_none(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    kept = await stack.commands.create(TENANT, vid, device, "text", 0x8300, {"text": "kept"}, USER)
    dropped = await stack.commands.create(TENANT, vid, device, "text", 0x8300, {"text": "dropped"}, USER)
    assert not await stack.commands.cancel("other", [dropped], USER), "only the command's own tenant"
    assert await stack.commands.cancel(TENANT, [dropped], USER)
    view = await stack.commands.wait(dropped, 0)
    assert view is not None and (view.status, view.error) == (CANCELLED, "cancelled") and view.done
    client = await online(stack, device)
    try:
        message = await received(client, 0x8300)
        assert isinstance(message.body, TextMessage) and message.body.text == "kept"  # the cancelled one is not sent
        assert (await stack.commands.get(kept)).status == SENT  # type: ignore[union-attr]
        assert not await stack.commands.cancel(TENANT, [kept], USER), "a sent command is not cancelled"
        await client.send(GeneralReply(message.header.serial, 0x8300, 0))
        assert (await stack.commands.wait(kept, WAIT)).status == ACKNOWLEDGED  # type: ignore[union-attr]
    finally:
        await client.close()
    async with stack.db.sessionmaker() as s:
        logs = (await s.execute(select(LogUsual).where(LogUsual.log_id == "command.cancel"))).scalars().all()
    assert [json.loads(r.log_data or "{}")["commandIds"] for r in logs if str(dropped) in (r.log_data or "")] == [
        [str(dropped)]
    ]


async def test_a_command_whose_announcement_was_lost_is_sent_by_the_sweep(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    elsewhere = CommandService(stack.db, LocalBus())  # another process whose bus message never arrived
    try:
        for _ in range(500):  # the gateway attaches the terminal just after answering its authentication
            if stack.commands.attached(device):
                break
            await asyncio.sleep(0.01)
        assert await stack.commands.dispatch(device) == 0  # (after the dispatch that attaching started)
        cid = await elsewhere.create(TENANT, vid, device, "text", 0x8300, {"text": "late"}, USER)
        assert (await stack.commands.get(cid)).status == PENDING  # type: ignore[union-attr]
        assert await stack.commands.dispatch_attached() == 1
        message = await received(client, 0x8300)
        await client.send(GeneralReply(message.header.serial, 0x8300, 0))
        assert (await elsewhere.wait(cid, WAIT)).status == ACKNOWLEDGED  # type: ignore[union-attr]
    finally:
        await client.close()
