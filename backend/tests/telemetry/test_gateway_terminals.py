"""What the gateway lets in and what it keeps of a terminal: authentication codes, auto-registration, vehicles that go
away while their terminal is connected, the vendor extension per terminal, BMS alarms and fault codes, attributes,
deregistration, re-send requests for missing sub-packages, alarm confirmation, and the report items kept in extra.

Real sockets (``Jt808Client``), real databases, the real pipeline (helpers from ``test_gateway``). Every wait is for
an answer, a closed connection or a stored row, bounded so that a failure fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update
from test_gateway import (
    HOST,
    T0,
    WAIT,
    Stack,
    ack,
    add_vehicle,
    close_stack,
    loc,
    make_stack,
    naive,
    online,
    positions,
    terminal_row,
)

from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.system.models import Dept
from liftdesk.telemetry.codecs.jt808 import (
    AlarmConfirmation,
    AreaAlarmInfo,
    AreaType,
    BatchType,
    BatteryInfo,
    BmsFlag,
    ChargeState,
    ForkliftStatus,
    Forks,
    ForkState,
    GeneralReply,
    Jt808Version,
    LocationBatch,
    OverspeedInfo,
    Registration,
    RegistrationResult,
    ResendRequest,
    RouteTimeInfo,
    TerminalAttributes,
)
from liftdesk.telemetry.commands import ACKNOWLEDGED
from liftdesk.telemetry.gateway import location_to_fix
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.gateway.mapping import MAX_RAW_ITEM_BYTES
from liftdesk.telemetry.gateway.server import DAY_S, Gateway
from liftdesk.telemetry.models import Command, Event, Terminal
from liftdesk.telemetry.terminals import TerminalService
from tests.conftest import Api, Tenants, parts

V2013, V2019 = Jt808Version.V2013, Jt808Version.V2019
F = "/api/blade-fics-report/fics"
TENANT = "000000"


@pytest.fixture
async def stack(db: Database) -> AsyncIterator[Stack]:
    s = await make_stack(db, idle_timeout_s=60)
    yield s
    await close_stack(s)


def new_device() -> str:
    return f"{next_id() % 10**12:012d}"


async def refused(client: Jt808Client, code: str) -> None:
    """Authentication with ``code`` is answered 0x8001 result 1, then the gateway closes the connection."""
    assert await client.authenticate(code, WAIT) == 1
    await asyncio.wait_for(client.closed.wait(), WAIT)


async def events(db: Database, vehicle_id: int) -> list[Event]:
    async with db.sessionmaker() as s:
        rows = await s.execute(select(Event).where(Event.vehicle_id == vehicle_id).order_by(Event.begin_time))
        return list(rows.scalars().all())


async def until(predicate: Any, what: str) -> None:
    """Poll an async predicate (bounded): for effects that have no answer to wait on."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while not await predicate():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


# --------------------------------------------------------------------------- authentication codes


async def test_a_registered_terminal_passes_only_with_the_code_it_was_given(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    code = client.auth_code
    await client.close()
    async with stack.client(device) as thief:  # the device number alone is not enough
        await refused(thief, "a-code-of-its-own")
    async with stack.client(device) as client:
        assert code is not None and await client.authenticate(code) == 0
        assert await ack(client, loc(0)) == 0
    assert len(await positions(stack.db, vid)) == 1


async def test_a_migrated_terminal_passes_with_the_code_imported_with_its_vehicle_only(stack: Stack) -> None:
    """A terminal that never registered here (it knows the old platform's code) is let in with the code imported
    with its vehicle and no other; that code is its code from then on."""
    vid, device = await add_vehicle(stack.db, auth_code="old-platform-code")
    async with stack.client(device) as thief:
        await refused(thief, "another-code")
    async with stack.client(device) as client:
        assert await client.authenticate("old-platform-code") == 0
        assert await ack(client, loc(0)) == 0
    term = await terminal_row(stack.db, device)
    assert term is not None and term.auth_code == "old-platform-code" and term.registered_at is None
    assert term.vehicle_id == vid
    async with stack.client(device) as thief:
        await refused(thief, "another-code")
    async with stack.client(device) as client:
        assert await client.authenticate("old-platform-code") == 0
        assert await ack(client, loc(1)) == 0
    assert len(await positions(stack.db, vid)) == 2


async def test_strict_authentication_takes_only_codes_this_platform_issued(db: Database) -> None:
    _, remembered = await add_vehicle(db)
    async with db.sessionmaker() as s:  # a code remembered before strict authentication was turned on
        s.add(Terminal(device_number=remembered, tenant_id=TENANT, auth_code="old-code", protocol="jt808"))
        await s.commit()
    stack = await make_stack(db, terminals=TerminalService(db, strict_auth=True), idle_timeout_s=60)
    try:
        _, migrated = await add_vehicle(db, auth_code="old-platform-code")
        async with stack.client(migrated) as client:
            await refused(client, "old-platform-code")  # imported with its vehicle, not issued here
        async with stack.client(remembered) as client:
            await refused(client, "old-code")
        _, registered = await add_vehicle(db)
        client = await online(stack, registered)  # registering here is the way in
        await client.close()
    finally:
        await close_stack(stack)
    assert await terminal_row(db, migrated) is None


# --------------------------------------------------------------------------- auto-registration


@pytest.mark.parametrize(("plate", "colour"), [("沪A·D1234", 2), ("LSVAU2180N2183294", 0), ("", 0)])
async def test_auto_registration_gives_the_terminal_a_vehicle(db: Database, plate: str, colour: int) -> None:
    terminals = TerminalService(db, auto_register_tenants=frozenset({TENANT}))
    stack = await make_stack(db, terminals=terminals, idle_timeout_s=60)
    device = new_device()
    try:
        async with stack.client(device) as client:
            reply = await client.register(Registration(31, 100, "LFTDK", "LD-1", "T1", colour, plate))
            assert reply.result == RegistrationResult.SUCCESS and reply.auth_code
            assert await client.authenticate(reply.auth_code) == 0
            assert await ack(client, loc(0)) == 0  # its data has somewhere to go
    finally:
        await close_stack(stack)
    async with db.sessionmaker() as s:
        [car] = (await s.execute(select(Vehicle).where(Vehicle.device_number == device))).scalars().all()
        root = await s.get(Dept, car.mechanism_id)
    assert root is not None and root.tenant_id == TENANT and root.parent_id == 0  # the tenant's root organisation
    assert car.tenant_id == TENANT and car.create_dept == root.id
    assert car.car_no == (plate or device) and car.car_type == 3
    assert (car.license_plate, car.frame_number) == ((plate, None) if colour else (None, plate or None))
    term = await terminal_row(db, device)
    assert term is not None and term.vehicle_id == car.id and term.tenant_id == TENANT
    assert len(await positions(db, car.id)) == 1


async def test_without_auto_registration_an_unknown_terminal_gets_no_vehicle(stack: Stack) -> None:
    device = new_device()
    async with stack.client(device) as client:
        reply = await client.register(registration())
        assert reply.result == RegistrationResult.TERMINAL_UNKNOWN
    async with stack.db.sessionmaker() as s:
        found = await s.execute(select(Vehicle.id).where(Vehicle.device_number == device))
        assert found.first() is None


# --------------------------------------------------------------------------- vehicles that go away


@pytest.fixture
async def api_gateway(api: Api) -> AsyncIterator[Gateway]:
    """A gateway wired to the API app's services and bus, as ``Runtime.start`` wires it."""
    app_state = parts(api)
    gw = Gateway(
        api.db,
        app_state.pipeline,
        app_state.terminals,
        app_state.commands,
        host=HOST,
        port=0,
        attributes_max_age_s=None,
    )
    gw.follow(app_state.bus)
    await gw.start()
    try:
        yield gw
    finally:
        await gw.stop()
        await app_state.pipeline.stop()


async def test_a_vehicle_renumbered_or_deleted_through_the_api_disconnects_its_terminal(
    api: Api, api_gateway: Gateway
) -> None:
    """``VEHICLE_CHANGED`` closes the session at once; the terminal's next authentication is refused. The terminal row
    keeps the vehicle's SIM number (copied when the vehicle is saved)."""
    device, other, car_no = new_device(), new_device(), api.unique("GW-")
    car = await api.post(
        f"{F}/carInfo/insertCarInfo", json={"carNo": car_no, "deviceNumber": device, "simNumber": "1440012"}
    )
    assert car["code"] == 200, car
    car_id = car["data"]["id"]
    client = await Jt808Client(HOST, api_gateway.port, device).connect()
    try:
        assert (await client.register(registration())).result == 0 and client.auth_code
        assert await client.authenticate(client.auth_code) == 0
        assert await ack(client, loc(0)) == 0
        term = await terminal_row(api.db, device)
        assert term is not None and term.sim_number == "1440012"
        saved = await api.post(
            f"{F}/carInfo/updateCarInfoById",
            json={"id": car_id, "carNo": car_no, "deviceNumber": device, "simNumber": "1440099"},
        )
        assert saved["code"] == 200, saved
        term = await terminal_row(api.db, device)
        assert term is not None and term.sim_number == "1440099"
        assert await client.heartbeat(WAIT) == 0  # saving the vehicle without renumbering it changes nothing
        renumbered = await api.post(
            f"{F}/carInfo/updateCarInfoById",
            json={
                "id": car_id,
                "carNo": car_no,
                "deviceNumber": other,
                "simNumber": "1440099",
                "terminalAuthCode": "its-code",
            },
        )
        assert renumbered["code"] == 200, renumbered
        await asyncio.wait_for(client.closed.wait(), WAIT)
    finally:
        await client.close()
    async with Jt808Client(HOST, api_gateway.port, device) as again:
        await refused(again, client.auth_code or "")

    client = await Jt808Client(HOST, api_gateway.port, other).connect()
    try:
        assert await client.authenticate("its-code") == 0  # the vehicle's new number: a terminal that never registered
        removed = await api.post(f"{F}/carInfo/deleteCarInfoById", params={"ids": car_id})
        assert removed["code"] == 200, removed
        await asyncio.wait_for(client.closed.wait(), WAIT)
    finally:
        await client.close()
    async with Jt808Client(HOST, api_gateway.port, other) as again:
        await refused(again, "its-code")
    assert api_gateway.stats.unknown_device >= 2


async def test_data_of_a_terminal_whose_vehicle_is_gone_is_refused_not_acknowledged(stack: Stack) -> None:
    """The vehicle disappears without the gateway hearing of it (deleted by another process, no shared bus): the
    pipeline refuses the data (UnknownDevice), the terminal gets result 1 and the connection is closed."""
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    try:
        assert await ack(client, loc(0)) == 0
        async with stack.db.sessionmaker() as s:
            await s.execute(update(Vehicle).where(Vehicle.id == vid).values(is_deleted=1))
            await s.execute(update(Terminal).where(Terminal.device_number == device).values(vehicle_id=None))
            await s.commit()
        stack.pipeline.forget(device)
        assert await ack(client, loc(1)) == 1
        await asyncio.wait_for(client.closed.wait(), WAIT)
    finally:
        await client.close()
    assert [p.device_time for p in await positions(stack.db, vid)] == [naive(T0)]
    assert stack.gateway.stats.unknown_device >= 1
    async with stack.client(device) as again:
        assert client.auth_code is not None
        await refused(again, client.auth_code)


# --------------------------------------------------------------------------- vendor extension per terminal

#: Another maker's 4-byte item 0xE1, which our extension would read as an impact of 3.00 g at 90°.
FOREIGN_E1 = ((0xE1, bytes.fromhex("012c005a")),)


async def report_extra(stack: Stack, client: Jt808Client, vid: int, second: int) -> dict[str, Any]:
    assert await ack(client, loc(second, unknown_items=FOREIGN_E1)) == 0
    rows = await positions(stack.db, vid)
    [row] = [r for r in rows if r.device_time == naive(T0 + timedelta(seconds=second))]
    extra: dict[str, Any] = json.loads(row.extra or "{}")
    return extra


async def test_vendor_items_are_read_by_the_terminal_s_maker(stack: Stack) -> None:
    # registered with our maker id: the item is an impact
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    try:
        extra = await report_extra(stack, client, vid, 0)
        assert extra["impact_g"] == 3.0 and extra["impact_direction"] == 90 and "items" not in extra
    finally:
        await client.close()
    # another maker, and a terminal that never told us its maker: kept raw, never read as an impact
    vid, device = await add_vehicle(stack.db)
    client = await stack.client(device).connect()
    try:
        reply = await client.register(registration(maker="OTHER"))
        assert reply.auth_code and await client.authenticate(reply.auth_code) == 0
        extra = await report_extra(stack, client, vid, 0)
        assert extra["items"] == {"0xe1": "012c005a"} and "impact_g" not in extra
    finally:
        await client.close()
    vid, device = await add_vehicle(stack.db, auth_code="old-code")
    async with stack.client(device) as client:
        assert await client.authenticate("old-code") == 0
        extra = await report_extra(stack, client, vid, 0)
        assert extra["items"] == {"0xe1": "012c005a"} and "impact_g" not in extra
        # its 0x0107 answer names our maker: from then on its vendor items are ours
        await client.send(TerminalAttributes(0, "LFTDK", "LD808", "T1", "89860000000000000001", "H1", "F1", 3, 32))
        assert await client.heartbeat(WAIT) == 0  # messages are handled in order: the attributes were
        term = await terminal_row(stack.db, device)
        assert term is not None and term.maker == "LFTDK"
        extra = await report_extra(stack, client, vid, 1)
        assert extra["impact_g"] == 3.0 and "items" not in extra
    assert not [e for e in await events(stack.db, vid) if e.begin_time == naive(T0)]  # no collision from the raw item


async def test_every_terminal_speaks_the_extension_when_the_list_says_so(db: Database) -> None:
    stack = await make_stack(db, vendor_extension_makers="OTHER, *", idle_timeout_s=60)
    try:
        vid, device = await add_vehicle(db, auth_code="old-code")
        async with stack.client(device) as client:
            assert await client.authenticate("old-code") == 0
            extra = await report_extra(stack, client, vid, 0)
        assert extra["impact_g"] == 3.0
    finally:
        await close_stack(stack)


# --------------------------------------------------------------------------- BMS alarms and fault codes


async def test_bms_alarms_and_fault_codes_raise_alarms(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    flags = BmsFlag.LIQUID_LOW | BmsFlag.CELL_OVER_VOLTAGE
    battery = BatteryInfo(40, 47.9, -20.0, ChargeState.DISCHARGING, (30,), (2010, 1995), int(flags))
    client = await online(stack, device)
    try:
        status = ForkliftStatus(battery=battery, fault_codes=("E-217",))
        assert await ack(client, loc(0, forklift=status)) == 0
        healthy = ForkliftStatus(battery=BatteryInfo(40, 47.9, -20.0, ChargeState.DISCHARGING, bms_flags=0))
        assert await ack(client, loc(10, forklift=healthy)) == 0
    finally:
        await client.close()
    first, _ = await positions(stack.db, vid)
    extra = json.loads(first.extra or "{}")
    assert extra["faults"] == ["E-217", "BMS-CELL_OVER_VOLTAGE"] and extra["bms_flags"] == int(flags)
    found = await events(stack.db, vid)
    faults = sorted(json.loads(e.detail or "{}")["code"] for e in found if e.kind == "fault")
    assert faults == ["BMS-CELL_OVER_VOLTAGE", "E-217"]
    [liquid] = [e for e in found if e.kind == "battery_liquid_level"]
    assert liquid.begin_time == naive(T0) and liquid.end_time == naive(T0 + timedelta(seconds=10))


# --------------------------------------------------------------------------- the terminal record


async def test_attributes_are_asked_for_after_authentication_and_fill_the_terminal_row(db: Database) -> None:
    stack = await make_stack(db, attributes_max_age_s=DAY_S, idle_timeout_s=60)
    try:
        vid, device = await add_vehicle(db)
        client = await online(stack, device, V2019)  # authenticates with IMEI 866496077582164, software "1.0"
        term = await terminal_row(db, device)
        assert term is not None and (term.imei, term.firmware_version) == ("866496077582164", "1.0")
        query = await client.next_message(WAIT)
        assert query.header.msg_id == 0x8107
        async with db.sessionmaker() as s:
            [cmd] = (await s.execute(select(Command).where(Command.device_number == device))).scalars().all()
        assert (cmd.name, cmd.create_user, cmd.vehicle_id) == ("query_attributes", None, vid)
        await client.send(
            TerminalAttributes(0, "LFTDK", "LD808-REACH", device, "89860012345678901234", "HW-2", "FW-3.1", 3, 32)
        )
        view = await stack.commands.wait(cmd.id, WAIT)
        assert view is not None and view.status == ACKNOWLEDGED
        term = await terminal_row(db, device)
        assert term is not None
        assert (term.model, term.iccid, term.hardware_version, term.firmware_version) == (
            "LD808-REACH",
            "89860012345678901234",
            "HW-2",
            "FW-3.1",
        )
        await client.close()
        again = await stack.client(device, V2019).connect()  # within a day: not asked again
        assert client.auth_code is not None and await again.authenticate(client.auth_code) == 0
        await stack.gateway.sessions[device]._drain()  # its check has run
        async with db.sessionmaker() as s:
            assert len((await s.execute(select(Command.id).where(Command.device_number == device))).all()) == 1
        assert again.inbox.empty()
        await again.close()
    finally:
        await close_stack(stack)


# --------------------------------------------------------------------------- sub-packages, alarm confirmation


async def test_missing_sub_packages_are_asked_for_once_then_given_up(db: Database) -> None:
    stack = await make_stack(db, subpackage_timeout_s=0.3, touch_interval_s=0.05, idle_timeout_s=60)
    try:
        vid, device = await add_vehicle(db)
        client = await online(stack, device)
        client.max_body = 100
        batch = LocationBatch(BatchType.NORMAL, tuple(loc(s) for s in range(12)))
        first, frames = client.frames(batch)
        answers = [client.expect((first + i) & 0xFFFF, 0x0704) for i in range(len(frames))]
        for frame in frames[:1] + frames[2:]:  # the second package is lost on the way
            await client.write(frame)
        request = await client.next_message(WAIT)
        assert request.body == ResendRequest(first, ((first + 1) & 0xFFFF,))
        await client.write(frames[1])
        replies = await asyncio.wait_for(asyncio.gather(*answers), WAIT)
        assert [r.result for r in replies] == [0] * len(frames)
        assert len(await positions(db, vid)) == 12

        dropped = stack.gateway.stats.subpackages_dropped
        first, frames = client.frames(LocationBatch(BatchType.NORMAL, tuple(loc(s) for s in range(20, 32))))
        await client.write(frames[0])
        request = await client.next_message(WAIT)
        assert request.body == ResendRequest(first, tuple((first + i) & 0xFFFF for i in range(1, len(frames))))

        async def given_up() -> bool:
            return stack.gateway.stats.subpackages_dropped > dropped

        await until(given_up, "the incomplete message to be dropped")
        assert client.inbox.empty()  # asked once only
        assert len(await positions(db, vid)) == 12
        await client.close()
    finally:
        await close_stack(stack)


async def test_alarm_confirmation_is_a_command(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    client = await online(stack, device)
    try:
        cid = await stack.commands.create(
            TENANT, vid, device, "confirm_alarm", 0x8203, {"alarms": ["emergency", "illegal_move"]}, None
        )
        message = await client.next_message(WAIT)
        assert message.body == AlarmConfirmation(0, (1 << 0) | (1 << 28))
        await client.send(GeneralReply(message.header.serial, 0x8203, 0))
        view = await stack.commands.wait(cid, WAIT)
        assert view is not None and view.status == ACKNOWLEDGED
    finally:
        await client.close()


# --------------------------------------------------------------------------- nothing a report carries is dropped


async def test_every_item_of_a_report_is_kept(stack: Stack) -> None:
    vid, device = await add_vehicle(stack.db)
    unknown = (
        (0x05, bytes.fromhex("0102")),  # tyre pressure (2019)
        (0x64, bytes(range(47))),  # ADAS
        (0x14, bytes.fromhex("00000001")),
        (0x14, bytes.fromhex("00000002")),
        (0x01, b"\x01"),  # a standard item of the wrong length
    )
    report = loc(
        0,
        tachograph_speed_kmh=7.5,
        overspeed=OverspeedInfo(AreaType.CIRCLE, 42),
        area_alarm=AreaAlarmInfo(AreaType.POLYGON, 7, True),
        route_time=RouteTimeInfo(9, 120, True),
        analog=(1000, 2000),
        unknown_items=unknown,
        forklift=ForkliftStatus(forks=Forks(ForkState.LIFTING, 900)),
    )
    client = await online(stack, device)
    try:
        assert await ack(client, report) == 0
    finally:
        await client.close()
    [row] = await positions(stack.db, vid)
    extra = json.loads(row.extra or "{}")
    assert extra["recorder_speed"] == 7.5
    assert extra["overspeed"] == {"area_type": 1, "area_id": 42}
    assert extra["area_alarm"] == {"area_type": 3, "area_id": 7, "leaving": True}
    assert extra["route_time"] == {"segment_id": 9, "travel_time_s": 120, "too_long": True}
    assert extra["analog"] == [1000, 2000]
    assert extra["items"] == {
        "0x05": "0102",
        "0x64": bytes(range(47)).hex(),
        "0x14": "00000001",
        "0x14#2": "00000002",
        "0x01": "01",
    }
    assert extra["fork_state"] == "lifting" and extra["fork_height_mm"] == 900


def test_raw_items_are_bounded_and_fork_movement_is_lifting() -> None:
    many = tuple((0x70 + i, bytes([i]) * 200) for i in range(8))  # 1,600 bytes of unknown items
    fix = location_to_fix(loc(0, unknown_items=many, forklift=ForkliftStatus(forks=Forks(ForkState.RAISED, 1))), T0)
    kept = fix.extra["items"]
    assert sum(len(v) // 2 for v in kept.values()) <= MAX_RAW_ITEM_BYTES
    assert len(kept) + fix.extra["items_skipped"] == 8
    assert fix.lifting is False
    for state_, lifting in ((ForkState.LIFTING, True), (ForkState.LOWERING, True), (ForkState.LOWERED, False)):
        status = ForkliftStatus(forks=Forks(state_, 100))
        assert location_to_fix(loc(0, forklift=status), T0).lifting is lifting
    assert location_to_fix(loc(0), T0).lifting is None


# --------------------------------------------------------------------------- hijacking by device number


async def test_a_bound_terminal_cannot_be_taken_over_by_its_device_number(stack: Stack) -> None:
    """Security finding 4: a 0x0100 for a device that had registered and been online got a fresh code, replacing
    the real terminal's. Now it is refused (result 3) and raises an alarm; the real terminal goes on; after an
    administrator's release a replacement unit registers."""
    vid, device = await add_vehicle(stack.db)
    real = await online(stack, device)  # terminal id "T1"
    try:
        async with stack.client(device) as thief:
            reply = await thief.register(registration(terminal_id="EVIL"))
            assert reply.result == RegistrationResult.TERMINAL_REGISTERED and not reply.auth_code
        assert await ack(real, loc(0)) == 0, "the real terminal is still connected and acknowledged"
        hijacks = [e for e in await events(stack.db, vid) if e.kind == "terminal_hijack"]
        assert len(hijacks) == 1 and json.loads(hijacks[0].detail or "{}")["terminalId"] == "EVIL"
        async with stack.client(device) as same:  # the same unit registering again (a reset) is let in
            assert (await same.register(registration(terminal_id="T1"))).result == RegistrationResult.SUCCESS
        assert await stack.terminals.release(device)
        async with stack.client(device) as replacement:
            reply = await replacement.register(registration(terminal_id="NEW"))
            assert reply.result == RegistrationResult.SUCCESS and reply.auth_code
            assert await replacement.authenticate(reply.auth_code) == 0
        term = await terminal_row(stack.db, device)
        assert term is not None and term.terminal_id == "NEW"
    finally:
        await real.close()


async def test_release_is_tenant_scoped(api: Api, tenants: Tenants) -> None:
    device = new_device()
    car = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": f"REL-{device[-5:]}", "deviceNumber": device})
    path = "/api/liftdesk/terminal/release"
    theirs = await api.post(path, params={"carId": car["data"]["id"]}, tenant=tenants.b)
    assert theirs["code"] == 400 and theirs["msg"] == "数据不存在", "another tenant's vehicle is not found"
    anonymous = await api.client.post(path, params={"carId": car["data"]["id"]})
    assert anonymous.status_code == 401
    assert (await api.post(path, params={"carId": car["data"]["id"]}))["code"] == 200
