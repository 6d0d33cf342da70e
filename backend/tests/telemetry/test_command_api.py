"""From the settings API to a terminal over a real socket and back (a simulated forklift, or a scripted JT/T 808
terminal), and the command log users follow the commands with."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select
from test_gateway import terminal_number

from liftdesk.fleet.service import VEHICLE_CHANGED
from liftdesk.telemetry.codecs.jt808 import (
    FunctionSwitch,
    GeneralReply,
    Jt808Version,
    Location,
    Message,
    ParamId,
    TextMessage,
)
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.models import Terminal
from liftdesk.telemetry.simulator import SimulatedForklift, demo_specs
from liftdesk.telemetry.simulator.fleet import HARDWARE_VERSION, SOFTWARE_VERSION
from tests.conftest import Api, Parts, Tenants, own_organisation_user, parts

F = "/api/blade-fics-report/fics"
CMD = "/api/liftdesk/command"
WAIT = 10.0


def app_state(api: Api) -> Parts:
    return parts(api)


@pytest.fixture
async def forklift(api: Api) -> AsyncIterator[tuple[str, SimulatedForklift]]:
    state = app_state(api)
    spec = demo_specs(1, seed=7, first=900 + api.counter)[0]
    car = await api.post(
        f"{F}/carInfo/insertCarInfo",
        json={"carNo": api.unique("CMD-"), "deviceNumber": spec.device, "carType": int(spec.vehicle_type)},
    )
    assert car["code"] == 200, car
    await state.commands.start()
    gateway = Gateway(api.db, state.pipeline, state.terminals, state.commands, host="127.0.0.1", port=0)
    await gateway.start()
    sim = SimulatedForklift(spec, "127.0.0.1", gateway.port, speedup=20.0, report_interval_s=10.0)
    stop = asyncio.Event()
    task = asyncio.create_task(sim.run(stop))
    for _ in range(500):
        if sim.online:
            break
        await asyncio.sleep(0.02)
    assert sim.online, "the simulated terminal registered and authenticated"
    try:
        yield car["data"]["id"], sim
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await gateway.stop()
        await state.commands.stop()
        await state.pipeline.stop()


@pytest.fixture
async def gateway(api: Api) -> AsyncIterator[Gateway]:
    """A gateway on the app's command service for scripted terminals (no attribute query after authentication:
    these tests read the commands a terminal receives one by one)."""
    state = app_state(api)
    await state.commands.start()
    gw = Gateway(
        api.db, state.pipeline, state.terminals, state.commands, host="127.0.0.1", port=0, attributes_max_age_s=None
    )
    await gw.start()
    try:
        yield gw
    finally:
        await gw.stop()
        await state.commands.stop()
        await state.pipeline.stop()


async def connect(gw: Gateway, device: str, version: Jt808Version = Jt808Version.V2013) -> Jt808Client:
    client = await Jt808Client("127.0.0.1", gw.port, terminal_number(device, version), version).connect()
    reply = await client.register(registration())
    assert reply.auth_code, reply
    assert await client.authenticate(reply.auth_code) == 0
    return client


async def add_car(api: Api, device: str | None = None, **extra: Any) -> dict[str, Any]:
    device = device or f"{abs(hash(api.unique())) % 10**12:012d}"
    car = await api.post(
        f"{F}/carInfo/insertCarInfo", json={"carNo": api.unique("CL-"), "deviceNumber": device, **extra}
    )
    assert car["code"] == 200, car
    return dict(car["data"])


async def test_parameter_query_lock_and_limit(api: Api, tenants: Tenants, forklift: tuple[str, Any]) -> None:
    car_id, sim = forklift
    q = await api.get(f"{F}/carSet/sendGetDeviceConfig/{car_id}", params={"wait": 10})
    assert q["code"] == 200 and q["data"]["status"] == "acknowledged", q
    params = {p["name"]: p["value"] for p in q["data"]["result"]["params"]}
    assert params["heartbeat_interval"] == sim.params.values.get(0x0001) and "lock_level" in params
    assert q["data"]["commandId"] == q["data"]["id"] and q["data"]["createUserName"] == "管理员"

    lock = await api.post(f"{F}/carSet/lockCar", json={"carIds": [car_id], "lockLevel": 1, "wait": 10})
    assert lock["data"][0]["status"] == "acknowledged", lock
    assert sim.params.values.get(0xF001) == 1, "the terminal holds the new lock level"

    limit = await api.post(f"{F}/carSet/rateLimiting", json={"carId": car_id, "speedLimit": 8, "wait": 10})
    assert limit["data"][0]["status"] == "acknowledged" and sim.params.values.get(0xF002) == 8
    car = (await api.get(f"{F}/carInfo/getCarInfo", params={"carId": car_id}))["data"]
    assert car["speedLimitKmh"] == 8, "an acknowledged limit is kept on the vehicle"

    bad = await api.post(f"{F}/carSet/rateLimiting", json={"carIds": [car_id], "speedLimit": 45})
    assert bad["code"] == 400 and "speedLimit" in bad["msg"]
    wrong = await api.post(f"{F}/carSet/sendDeviceConfig", json={"carIds": [car_id], "params": {"lock_level": 9}})
    assert wrong["code"] == 400 and "lock_level" in wrong["msg"], "the parameter table validates before sending"
    other = await api.get(f"{F}/carSet/sendGetDeviceConfig/{car_id}", tenant=tenants.b)
    assert other["code"] == 400, "another tenant cannot command this vehicle"


async def test_thresholds_and_calibrations_reach_the_terminal_and_the_vehicle(
    api: Api, forklift: tuple[str, Any]
) -> None:
    car_id, sim = forklift
    state = app_state(api)
    changed: list[dict[str, Any]] = []

    async def on_changed(msg: dict[str, Any]) -> None:
        changed.append(msg)

    unsubscribe = state.bus.subscribe(VEHICLE_CHANGED, on_changed)
    try:
        body = {"carIds": [car_id], "wait": WAIT}
        crash = await api.post(
            f"{F}/carSet/crashThresholdValue", json={**body, "crashThresholdValue": 12.5, "crashLevel": 4}
        )
        assert [c["status"] for c in crash["data"]] == ["acknowledged"], crash
        assert (sim.params.values[ParamId.COLLISION_THRESHOLD], sim.params.values[ParamId.COLLISION_LEVEL]) == (125, 4)
        over = await api.post(f"{F}/carSet/overloadThresholdValue", json={**body, "overloadThresholdValue": 250})
        assert over["data"][0]["status"] == "acknowledged" and sim.params.values[ParamId.OVERLOAD_THRESHOLD] == 250
        speed = await api.post(f"{F}/carSet/speedCalibration", json={**body, "carSpeedCalibration": 1.05})
        assert speed["data"][0]["status"] == "acknowledged" and sim.params.values[ParamId.SPEED_CALIBRATION] == 1050
        weight = await api.post(f"{F}/carSet/weightCalibration", json={**body, "weightCalibration": 0.98})
        assert weight["data"][0]["status"] == "acknowledged" and sim.params.values[ParamId.WEIGHT_CALIBRATION] == 980
        assert weight["data"][0]["payload"] == {"params": {"weight_calibration": 980}}
    finally:
        unsubscribe()
    car = (await api.get(f"{F}/carInfo/getCarInfo", params={"carId": car_id}))["data"]
    assert (car["collisionThresholdG"], car["overloadThresholdKg"]) == (12.5, 2500)
    # the pipeline reloads the thresholds of the vehicles whose settings were acknowledged (calibrations: not kept)
    assert [m["vehicleId"] for m in changed] == [int(car_id), int(car_id)]

    for path, field, value in (
        ("crashThresholdValue", "crashThresholdValue", 25),
        ("crashThresholdValue", "crashLevel", 6),
        ("overloadThresholdValue", "overloadThresholdValue", 601),
        ("speedCalibration", "speedCalibration", 3),
        ("weightCalibration", "weighCalibration", 0.2),
    ):
        payload: dict[str, Any] = {"carIds": [car_id], field: value}
        if field == "crashLevel":
            payload["crashThresholdValue"] = 10
        bad = await api.post(f"{F}/carSet/{path}", json=payload, headers={"Accept-Language": "en"})
        assert bad["code"] == 400 and (field in bad["msg"] or field.replace("weigh", "weight") in bad["msg"]), bad
    missing = await api.post(f"{F}/carSet/speedCalibration", json={"carIds": [car_id]})
    assert missing["code"] == 400 and "speedCalibration" in missing["msg"]


async def test_funcset_changes_only_the_named_switches(api: Api, forklift: tuple[str, Any]) -> None:
    car_id, sim = forklift
    before = sim.params.values[ParamId.FUNCTION_SWITCHES]
    # nothing known yet: the terminal is asked for the switches first, then only DMS on and fence off are changed
    first = await api.post(f"{F}/carSet/funcset", json={"carId": car_id, "dmsFunction": 1, "fenceSetting": 0})
    assert [c["status"] for c in first["data"]] == ["acknowledged"], first
    expected = (before & ~FunctionSwitch.FENCE) | FunctionSwitch.DMS
    assert sim.params.values[ParamId.FUNCTION_SWITCHES] == expected
    assert first["data"][0]["payload"]["base"] == before
    # next time the last value set is the base: no second query
    second = await api.post(f"{F}/carSet/funcset", json={"carIds": [car_id], "seatBeltDetectionFunction": 0})
    assert second["data"][0]["status"] == "acknowledged"
    expected &= ~FunctionSwitch.SEAT_BELT_DETECTION
    assert sim.params.values[ParamId.FUNCTION_SWITCHES] == expected
    log = await api.get(f"{CMD}/list", params={"carId": car_id, "name": "queryFunctionSwitches"})
    assert log["data"]["total"] == 1
    # what the terminal reports is what the platform believes
    q = await api.get(f"{F}/carSet/sendGetDeviceConfig/{car_id}", params={"wait": WAIT})
    reported = {p["name"]: p["value"] for p in q["data"]["result"]["params"]}
    assert reported["function_switches"] == expected

    none = await api.post(f"{F}/carSet/funcset", json={"carIds": [car_id]})
    assert none["code"] == 400 and "fenceSetting" in none["msg"]
    bad = await api.post(f"{F}/carSet/funcset", json={"carIds": [car_id], "dmsFunction": 2})
    assert bad["code"] == 400 and "dmsFunction" in bad["msg"]


async def test_funcset_is_refused_while_the_switches_are_unknown(api: Api) -> None:
    car = await add_car(api)  # its terminal never connected
    r = await api.post(f"{F}/carSet/funcset", json={"carIds": [car["id"]], "fenceSetting": 1, "wait": 0})
    assert r["code"] == 400 and "functionSwitches" in r["msg"] and car["carNo"] in r["msg"]
    log = (await api.get(f"{CMD}/list", params={"carId": car["id"]}))["data"]["records"]
    assert [(c["name"], c["status"], c["msgId"]) for c in log] == [("queryFunctionSwitches", "pending", 0x8106)]
    # all seven named: no base is needed
    every = {k: 1 for k in ("fenceSetting", "authorizationStatus", "spotCheckSet", "slotCardSet")}
    every |= {"carNetworkingSet": 0, "seatBeltDetectionFunction": 1, "dmsFunction": 0}
    r = await api.post(f"{F}/carSet/funcset", json={"carIds": [car["id"]], **every, "wait": 0})
    assert r["code"] == 200 and r["data"][0]["payload"]["params"] == {"function_switches": 0b0101111}


async def test_versions_location_text_control_and_upgrade(api: Api, forklift: tuple[str, Any]) -> None:
    car_id, sim = forklift
    body = {"carIds": [car_id], "wait": WAIT}
    for path in ("hardwareVersionNumberQuery", "softwareVersionNumberQuery", "versionNumberQuery"):
        r = await api.post(f"{F}/parameterQuery/{path}", json=body)
        [answer] = r["data"]
        assert answer["status"] == "acknowledged" and answer["name"] == path, r
        assert answer["result"]["attributes"]["hardwareVersion"] == HARDWARE_VERSION
    async with api.db.sessionmaker() as s:
        term = (await s.execute(select(Terminal).where(Terminal.device_number == sim.spec.device))).scalar_one()
    assert (term.hardware_version, term.firmware_version) == (HARDWARE_VERSION, SOFTWARE_VERSION)

    text = await api.post(f"{CMD}/send", json={**body, "name": "text", "payload": {"text": "slow down"}})
    assert text["data"][0]["status"] == "acknowledged" and sim.texts[-1] == "slow down", text
    where = await api.post(f"{CMD}/send", json={**body, "name": "query_location"})
    assert where["data"][0]["status"] == "acknowledged", where
    assert abs(where["data"][0]["result"]["lat"] - sim.spec.base_lat) < 0.1
    confirm = {**body, "name": "confirm_alarm", "payload": {"alarms": ["emergency"]}}
    confirmed = await api.post(f"{CMD}/send", json=confirm)
    assert confirmed["data"][0]["status"] == "acknowledged" and confirmed["data"][0]["msgId"] == 0x8203, confirmed
    rect = {"mode": "append", "areas": [{"id": 5, "topLeft": [31.3, 121.4], "bottomRight": [31.2, 121.5]}]}
    area = await api.post(f"{CMD}/send", json={**body, "name": "set_rectangle_areas", "payload": rect})
    assert area["data"][0]["status"] == "acknowledged" and 5 in sim.areas[0x8602], area
    off = await api.post(f"{CMD}/send", json={**body, "name": "terminal_control", "payload": {"command": "power_off"}})
    assert off["data"][0]["status"] == "failed" and off["data"][0]["error"] == "terminal does not support the command"

    url = {**body, "url": "https://fw.example.com/ld808/2.0.bin", "version": "2.0", "maker": "LFTDK"}
    upgrade = await api.post(f"{F}/operation/versionUpdate", json=url)
    [sent] = upgrade["data"]
    assert sent["msgId"] == 0x8105 and sent["payload"]["params"][0] == url["url"] and sent["attempts"] == 1
    assert sent["status"] == "failed", "the simulated terminal does not upgrade from a URL, but it got the command"
    package = base64.b64encode(b"\x7e firmware \x7d").decode()
    upgrade = await api.post(f"{F}/operation/versionUpdate", json={**body, "package": package, "version": "2.0"})
    assert upgrade["data"][0]["msgId"] == 0x8108 and upgrade["data"][0]["attempts"] == 1, upgrade

    en = {"headers": {"Accept-Language": "en"}}
    for payload, named in (
        ({**url, "url": "file:///etc/passwd"}, "url"),
        ({**url, "url": None}, "url, package"),
        ({**url, "package": package}, "url, package"),
        ({**url, "maker": "TOOLONG"}, "maker"),
        ({**url, "version": ""}, "version"),
        ({**body, "package": "not base64!", "version": "2"}, "package"),
    ):
        bad = await api.post(f"{F}/operation/versionUpdate", json=payload, **en)
        assert bad["code"] == 400 and named in bad["msg"], (payload, bad)
    for name, payload, named in (
        ("set_params", {"params": {"lock_level": 1}}, "name"),
        ("text", {}, "text"),
        ("vehicle_control", {"lockLevel": 7}, "lockLevel"),
        ("terminal_control", {"command": "upgrade", "params": ["ftp//nowhere"]}, "url"),
        ("set_rectangle_areas", {"areas": [{"id": 1, "topLeft": [91, 0], "bottomRight": [0, 1]}]}, "topLeft"),
    ):
        bad = await api.post(f"{CMD}/send", json={**body, "name": name, "payload": payload}, **en)
        assert bad["code"] == 400 and named in bad["msg"], (name, bad)


async def test_command_log_scope_filters_and_cancel(api: Api, tenants: Tenants, driver: str, gateway: Gateway) -> None:
    car = await add_car(api)
    other = await add_car(api)
    sent = {"carIds": [car["id"]], "wait": 0}
    first = (await api.post(f"{CMD}/send", json={**sent, "name": "text", "payload": {"text": "first"}}))["data"][0]
    second = (await api.post(f"{CMD}/send", json={**sent, "name": "text", "payload": {"text": "second"}}))["data"][0]
    await api.post(f"{CMD}/send", json={"carIds": [other["id"]], "name": "query_location", "wait": 0})
    assert first["status"] == second["status"] == "pending", "the terminal is offline: queued"

    listed = (await api.get(f"{CMD}/list", params={"carId": car["id"]}))["data"]
    assert [r["id"] for r in listed["records"]] == [second["id"], first["id"]], "newest first"
    assert listed["records"][0]["carNo"] == car["carNo"] and listed["records"][0]["createUserName"] == "管理员"
    assert listed["records"][0]["payload"] == {"text": "second"}
    for params, expected in (
        ({"deviceNumber": car["deviceNumber"]}, {first["id"], second["id"]}),
        ({"vehicleId_equal": other["id"]}, set()),
        ({"status_equal": "pending", "name_equal": "text", "carId": car["id"]}, {first["id"], second["id"]}),
        ({"carId": car["id"], "createTime_dategt": "2999-01-01 00:00:00"}, set()),
        ({"carId": car["id"], "createTime_datelt": "2999-01-01 00:00:00"}, {first["id"], second["id"]}),
        ({"carNo": car["carNo"]}, {first["id"], second["id"]}),
        ({"carNo_like": car["carNo"][3:]}, {first["id"], second["id"]}),
        ({"carNo_like": other["carNo"]}, set()),
        ({"carNo": "%"}, set()),
    ):
        rows = (await api.get(f"{CMD}/list", params=params))["data"]["records"]
        assert {r["id"] for r in rows} & {first["id"], second["id"]} == expected, params
    bad = await api.get(f"{CMD}/list", params={"carId": "x1"})
    assert bad["code"] == 400 and "carId" in bad["msg"]
    page = (await api.get(f"{CMD}/list", params={"carId": car["id"], "size": 1, "current": 2}))["data"]
    assert (page["total"], page["pages"], [r["id"] for r in page["records"]]) == (2, 2, [first["id"]])
    oldest = (await api.get(f"{CMD}/list", params={"carId": car["id"], "ascs": "id"}))["data"]["records"]
    assert [r["id"] for r in oldest] == [first["id"], second["id"]]
    unsafe = await api.get(f"{CMD}/list", params={"descs": "id;drop table x"})
    assert unsafe["_status"] == 400 and "id;drop table x" in unsafe["msg"]

    # another tenant sees nothing of it and cannot cancel it; a user without vehicle_edit cannot cancel
    b = {"tenant": tenants.b}
    assert (await api.get(f"{CMD}/detail", params={"id": first["id"]}, **b))["code"] == 400
    assert first["id"] not in {r["id"] for r in (await api.get(f"{CMD}/list", **b))["data"]["records"]}
    assert (await api.post(f"{CMD}/cancel", params={"ids": first["id"]}, **b))["code"] == 400
    denied = await api.post(f"{CMD}/cancel", params={"ids": first["id"]}, who=driver, password="driver-1")
    assert denied["_status"] == 403
    no_token = await api.client.get(f"{CMD}/detail", params={"id": first["id"]})
    assert no_token.status_code == 401

    # cancel the first: all or nothing, and a cancelled command is never sent
    both = await api.post(f"{CMD}/cancel", params={"ids": f"{first['id']},{first['id']}"})
    assert both["code"] == 200 and [c["status"] for c in both["data"]] == ["cancelled"]
    again = await api.post(f"{CMD}/cancel", params={"ids": f"{second['id']},{first['id']}"})
    assert again["code"] == 400 and first["id"] in again["msg"]
    assert (await api.get(f"{CMD}/detail", params={"id": second["id"]}))["data"]["status"] == "pending"
    client = await connect(gateway, car["deviceNumber"])
    try:
        message: Message = await client.next_message(WAIT)
        assert isinstance(message.body, TextMessage) and message.body.text == "second"
        await client.send(GeneralReply(message.header.serial, 0x8300, 0))
        done = await app_state(api).commands.wait(int(second["id"]), WAIT)
        assert done.status == "acknowledged"
    finally:
        await client.close()
    gone = await api.post(f"{CMD}/cancel", params={"ids": second["id"]})
    assert gone["code"] == 400, "only pending commands can be cancelled"
    view = (await api.get(f"{CMD}/detail", params={"id": second["id"]}))["data"]
    assert (view["status"], view["attempts"], view["result"]) == ("acknowledged", 1, {"reply": 0})
    assert view["sentTime"] and view["doneTime"] and view["createTime"]


async def test_command_log_follows_the_vehicle_data_scope(api: Api) -> None:
    depts = (await api.get("/api/blade-system/dept/list"))["data"][0]
    east, south = depts["children"][0]["id"], depts["children"][1]["id"]
    mine = await add_car(api, mechanismId=east)
    theirs = await add_car(api, mechanismId=south)
    commands = {}
    for car in (mine, theirs):
        r = await api.post(f"{CMD}/send", json={"carIds": [car["id"]], "name": "query_location", "wait": 0})
        commands[car["id"]] = r["data"][0]["id"]
    async with own_organisation_user(api, east) as who:
        seen = {r["id"] for r in (await api.get(f"{CMD}/list", params={"size": 1000}, **who))["data"]["records"]}
        assert commands[mine["id"]] in seen and commands[theirs["id"]] not in seen
        assert (await api.get(f"{CMD}/detail", params={"id": commands[theirs["id"]]}, **who))["code"] == 400
        assert (await api.get(f"{CMD}/detail", params={"id": commands[mine["id"]]}, **who))["code"] == 200


async def test_a_vehicle_numbered_like_a_2019_header_finds_its_terminal(api: Api, gateway: Gateway) -> None:
    twelve = f"0{abs(hash(api.unique())) % 10**11:011d}"
    padded = twelve.lstrip("0").rjust(20, "0")  # what a 2019 header carries, as someone typed it in
    car = await add_car(api, padded)
    client = await connect(gateway, twelve, Jt808Version.V2013)  # the terminal speaks 2013: 12 digits
    try:
        fix = Location(0, 3, 31.2, 121.5, 10, 3.0, 90, datetime.now(UTC).replace(microsecond=0))
        assert int((await client.request(fix, WAIT)).result) == 0  # type: ignore[union-attr]
        r = await api.post(
            f"{CMD}/send", json={"carId": car["id"], "name": "text", "payload": {"text": "hi"}, "wait": 0}
        )
        message = await client.next_message(WAIT)
        assert isinstance(message.body, TextMessage) and message.body.text == "hi"
        await client.send(GeneralReply(message.header.serial, 0x8300, 0))
        done = await app_state(api).commands.wait(int(r["data"][0]["id"]), WAIT)
        assert done.status == "acknowledged"
    finally:
        await client.close()
    last = (await api.post(f"{F}/carInfo/getCarLastGPSInfo", json={"carIds": [car["id"]]}))["data"]
    assert last[0]["lat"] == 31.2, "the position reached the vehicle"
