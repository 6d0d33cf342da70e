"""Electronic fences through the API on both databases: create, validate, list, bind, unbind, delete, tenants, and
the area commands queued for the bound vehicles' terminals."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Fence, FenceCar
from liftdesk.system.models import LogUsual
from liftdesk.telemetry.messages import Fix, Report
from liftdesk.telemetry.models import Command, Event
from tests.conftest import Api, Tenants, parts

F = "/api/blade-fics-report/fics/carInfo"
LIST, ADD, UPDATE, REMOVE = (
    f"{F}/v2/getElectronicFence",
    f"{F}/v2/addCarElectronicsSet",
    f"{F}/v2/updateCarElectronicsSet",
    f"{F}/v2/deleteElectronicsByIds",
)
DETAIL, AUTH = f"{F}/V2/getCarElectronicsInfo", f"{F}/V2/getCarElectronicsAuthorization"
OF_CAR, UNBIND, SETTINGS = f"{F}/getCarElectronicsSet", f"{F}/delCarOfElectronicsSet", f"{F}/getCarFenceSettingList"
SQUARE = [[121.49, 31.19], [121.51, 31.19], [121.51, 31.21], [121.49, 31.21]]
ENTRY, EXIT = 0b001100, 0b110000  # attribute bits 2/3 and 4/5


async def car(api: Api, tenant: str = "000000", prefix: str = "FEN-") -> dict[str, Any]:
    r = await api.post(
        "/api/blade-fics-report/fics/carInfo/insertCarInfo",
        json={"carNo": api.unique(prefix), "deviceNumber": f"{next_id() % 10**12:012d}", "carType": 4},
        tenant=tenant,
    )
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


def circle(api: Api, **kw: Any) -> dict[str, Any]:
    body = {"name": api.unique("Circle "), "fenceType": 1, "alarmMode": 3, "centerLon": 121.5, "centerLat": 31.2}
    return {**body, "radius": 150, **kw}


def polygon(api: Api, **kw: Any) -> dict[str, Any]:
    return {"name": api.unique("Poly "), "fenceType": 2, "alarmMode": 1, "points": SQUARE, **kw}


async def create(api: Api, body: dict[str, Any], tenant: str = "000000") -> dict[str, Any]:
    r = await api.post(ADD, json=body, tenant=tenant)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


async def commands(api: Api, *car_ids: str) -> list[Command]:
    async with api.db.sessionmaker() as s:
        stmt = (
            select(Command)
            .where(Command.vehicle_id.in_([int(c) for c in car_ids]))
            .order_by(Command.create_time, Command.id)
        )
        return list((await s.execute(stmt)).scalars().all())


def sent(cmds: list[Command]) -> list[tuple[str, int, Any]]:
    """(vehicle id, message id, area ids) of each command."""
    out = []
    for c in cmds:
        payload = json.loads(c.payload)
        if "areas" in payload:
            ids: Any = [a["id"] for a in payload["areas"]]
        elif "area" in payload:
            ids = [payload["area"]["id"]]
        else:
            ids = payload["ids"]
        out.append((str(c.vehicle_id), c.msg_id, ids))
    return out


async def fence_rows(api: Api, name: str) -> int:
    async with api.db.sessionmaker() as s:
        return int((await s.execute(select(func.count()).where(Fence.name == name))).scalar_one())


async def test_create_circle_and_polygon_bind_vehicles_and_queue_areas(api: Api) -> None:
    a, b, c = await car(api), await car(api), await car(api)
    body = circle(api, alarmMode=5, speedLimit=8, carIds=[a["id"], b["id"]], remark="dock")
    made = await create(api, body)
    assert made["id"].isdigit() and made["name"] == body["name"] and made["fenceType"] == 1
    assert (made["alarmMode"], made["enableStatus"], made["speedLimit"]) == (5, 1, 8)
    assert (made["centerLon"], made["centerLat"], made["radius"], made["points"]) == (121.5, 31.2, 150, None)
    assert sorted(made["carIds"]) == sorted([a["id"], b["id"]]) and made["carCount"] == 2
    assert made["mechanismId"] == a["mechanismId"] and made["mechanismName"] == a["mechanismName"] != ""
    assert made["remark"] == "dock" and made["createTime"] and made["updateTime"]
    area = made["areaId"]
    assert isinstance(area, int) and 0 < area <= 0xFFFFFFFF

    [cmd] = await commands(api, a["id"])
    payload = json.loads(cmd.payload)
    assert (cmd.msg_id, cmd.name, cmd.status, cmd.device_number) == (
        0x8600,
        "set_circle_areas",
        "pending",
        a["deviceNumber"],
    )
    assert payload["mode"] == "append" and cmd.create_user is not None
    [spec] = payload["areas"]
    assert spec == {
        "id": area,
        "attributes": ENTRY | EXIT,
        "maxSpeed": 8,
        "name": body["name"],
        "lat": 31.2,
        "lon": 121.5,
        "radius": 150,
    }
    assert sent(await commands(api, b["id"])) == [(b["id"], 0x8600, [area])]
    assert await commands(api, c["id"]) == [], "an unbound vehicle hears nothing"
    async with api.db.sessionmaker() as s:
        audit = (
            (
                await s.execute(
                    select(LogUsual).where(
                        LogUsual.log_id == "command.create", LogUsual.log_data.contains(a["deviceNumber"])
                    )
                )
            )
            .scalars()
            .all()
        )
    assert audit and json.loads(audit[0].log_data or "{}")["userId"], "audited with the caller"

    ring = [*SQUARE, SQUARE[0]]  # a closed GeoJSON ring: the repeated vertex is dropped
    poly = await create(api, polygon(api, points=ring, carIds=[b["id"]]))
    assert poly["points"] == SQUARE and poly["radius"] is None and poly["centerLon"] is None
    assert poly["areaId"] > area, "area ids follow a per-tenant sequence"
    last = (await commands(api, b["id"]))[-1]
    spec = json.loads(last.payload)["area"]
    assert last.msg_id == 0x8604 and spec["id"] == poly["areaId"] and spec["attributes"] == ENTRY
    assert spec["vertices"] == [[lat, lon] for lon, lat in SQUARE], "terminals take [lat, lon]"

    got = await api.get(DETAIL, params={"id": made["id"]})
    assert got["code"] == 200 and sorted(got["data"]["carIds"]) == sorted([a["id"], b["id"]])
    assert got["data"]["carCount"] == 2


BAD: list[tuple[dict[str, Any], str]] = [
    ({"name": ""}, "name"),
    ({"name": "x" * 33}, "name"),
    ({"fenceType": 3}, "fenceType"),
    ({"alarmMode": 0}, "alarmMode"),
    ({"alarmMode": 6}, "alarmMode"),
    ({"centerLat": None}, "centerLat"),
    ({"centerLon": 190}, "centerLon"),
    ({"radius": 5}, "radius"),
    ({"radius": 200_000}, "radius"),
    ({"radius": None}, "radius"),
    ({"speedLimit": 31}, "speedLimit"),
    ({"alarmMode": 4}, "speedLimit"),
    ({"enableStatus": 2}, "enableStatus"),
    ({"fenceType": 2, "points": SQUARE[:2]}, "points"),
    ({"fenceType": 2, "points": [[121.0 + i / 100, 31.0 + (i % 2) / 100] for i in range(65)]}, "points"),
    ({"fenceType": 2, "points": [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]}, "points"),
    ({"fenceType": 2, "points": [[121.0, 31.0], [181.0, 31.0], [121.0, 32.0]]}, "points[1]"),
    ({"fenceType": 2, "points": [[121.0, 31.0], [121.5], [121.0, 32.0]]}, "points"),
    ({"fenceType": 2}, "points"),
    ({"fenceType": 2, "points": [[-0.01, 51.5], [0.01, 51.5], [0.01, 51.51]]}, "points"),  # no terminal holds it
    ({"carIds": ["123"]}, "carIds"),
    ({"mechanismId": "42"}, "mechanismId"),
]


@pytest.mark.parametrize("change,field", BAD, ids=[f"{f}-{i}" for i, (_, f) in enumerate(BAD)])
async def test_bad_input_is_400_naming_the_field_and_writes_nothing(
    api: Api, change: dict[str, Any], field: str
) -> None:
    a = await car(api)
    before = len(await commands(api, a["id"]))
    body = {**circle(api, carIds=[a["id"]]), **change}
    name = body["name"] if body["name"] else api.unique("Empty ")
    r = await api.post(ADD, json=body)
    assert (r["_status"], r["code"], r["success"]) == (400, 400, False), r
    assert field in r["msg"], r["msg"]
    assert await fence_rows(api, name) == 0 and len(await commands(api, a["id"])) == before


async def test_messages_follow_the_language_and_updates_are_checked_too(api: Api) -> None:
    r = await api.post(ADD, json=circle(api, radius=3), headers={"Accept-Language": "en"})
    assert r["code"] == 400 and r["msg"] == "radius is out of range"
    zh = await api.post(ADD, json=polygon(api, points=[[0, 0], [1, 1], [1, 0], [0, 1]]))
    assert zh["msg"] == "points 的边不能相交"
    a, b = await car(api), await car(api)
    made = await create(api, circle(api, carIds=[a["id"]]))
    before = len(await commands(api, a["id"], b["id"]))
    bad = await api.post(UPDATE, json={"id": made["id"], "radius": 1, "carIds": [a["id"], b["id"]]})
    assert bad["code"] == 400 and "radius" in bad["msg"]
    vertices = await api.post(UPDATE, json={"id": made["id"], "fenceType": 2})
    assert vertices["code"] == 400 and "points" in vertices["msg"], "a circle turned polygon needs its vertices"
    after = (await api.get(DETAIL, params={"id": made["id"]}))["data"]
    assert (after["radius"], after["fenceType"], after["carIds"]) == (150, 1, [a["id"]]), "nothing half-written"
    assert len(await commands(api, a["id"], b["id"])) == before


async def test_post_list_takes_filters_from_the_body_or_the_query(api: Api) -> None:
    tag = api.unique("Yard")
    one = await create(api, circle(api, name=f"{tag} one", alarmMode=1))
    two = await create(api, circle(api, name=f"{tag} two", alarmMode=2, enableStatus=0))
    three = await create(api, polygon(api, name=f"{tag} three", alarmMode=2))

    async def ids(**kw: Any) -> list[str]:
        r = await api.post(LIST, **kw)
        assert r["code"] == 200, r
        return [row["id"] for row in r["data"]["records"]]

    assert set(await ids(json={"name_like": tag})) == {one["id"], two["id"], three["id"]}
    assert set(await ids(params={"name_like": tag, "alarmMode": 2})) == {two["id"], three["id"]}
    assert await ids(json={"name_like": tag, "alarmMode": 2, "enableStatus": 0}) == [two["id"]]
    assert await ids(params={"alarmMode": 1}, json={"name_like": tag, "alarmMode": 2, "fenceType": 2}) == [
        three["id"]
    ], "the body's keys win over the query's"
    page = await api.post(LIST, json={"name_like": tag, "current": 2, "size": 2, "ascs": "name"})
    data = page["data"]
    assert (data["total"], data["size"], data["current"], data["pages"]) == (3, 2, 2, 2)
    assert [r["id"] for r in data["records"]] == [two["id"]], "one, three | two by name"
    assert page["data"]["records"][0]["carIds"] == [] and page["data"]["records"][0]["carCount"] == 0
    bad = await api.post(LIST, json={"current": "x"})
    assert bad["code"] == 400 and "current" in bad["msg"]
    not_object = await api.post(LIST, json=[1, 2])
    assert not_object["code"] == 400
    get = await api.get(LIST)
    assert get["_status"] in (404, 405) and get["code"] != 200, "the list is served by POST only"


async def test_authorization_bindings_unbinding_and_settings(api: Api) -> None:
    prefix = api.unique("SET")
    a, b, c = await car(api, prefix=prefix), await car(api, prefix=prefix), await car(api, prefix=prefix)
    dock = await create(api, circle(api, name=api.unique("Dock "), carIds=[a["id"], b["id"]]))
    hall = await create(api, polygon(api, name=api.unique("Hall "), carIds=[a["id"]]))

    auth = await api.get(AUTH, params={"id": dock["id"]})
    rows = {r["carId"]: r for r in auth["data"]}
    assert rows[a["id"]]["bound"] and rows[b["id"]]["bound"] and not rows[c["id"]]["bound"]
    assert rows[a["id"]]["carNo"] == a["carNo"] and rows[a["id"]]["deviceNumber"] == a["deviceNumber"]
    assert rows[a["id"]]["mechanismId"] == a["mechanismId"]
    fresh = await api.get(AUTH)
    assert fresh["code"] == 200 and not any(r["bound"] for r in fresh["data"])
    assert {a["id"], b["id"], c["id"]} <= {r["carId"] for r in fresh["data"]}
    missing = await api.get(AUTH, params={"id": "12345"})
    assert missing["code"] == 400

    of_a = await api.get(OF_CAR, params={"carId": a["id"]})
    assert sorted(f["id"] for f in of_a["data"]) == sorted([dock["id"], hall["id"]])
    assert (await api.get(OF_CAR, params={"carId": c["id"]}))["data"] == []
    assert (await api.get(OF_CAR, params={"carId": "777"}))["code"] == 400

    settings = await api.post(SETTINGS, json={"carNo_likeright": prefix, "current": 1, "size": 10})
    assert settings["code"] == 200 and settings["data"]["total"] == 3
    by_car = {r["carId"]: r for r in settings["data"]["records"]}
    assert by_car[a["id"]]["fenceCount"] == 2 and sorted(by_car[a["id"]]["fenceNames"]) == sorted(
        [dock["name"], hall["name"]]
    )
    assert (by_car[b["id"]]["fenceCount"], by_car[b["id"]]["fenceNames"]) == (1, [dock["name"]])
    assert (by_car[c["id"]]["fenceCount"], by_car[c["id"]]["fenceNames"]) == (0, [])
    assert by_car[a["id"]]["carNo"] == a["carNo"] and by_car[a["id"]]["deviceNumber"] == a["deviceNumber"]
    query = await api.post(SETTINGS, params={"carNo_likeright": prefix, "size": 2})
    assert query["data"]["total"] == 3 and len(query["data"]["records"]) == 2

    before = len(await commands(api, a["id"]))
    done = await api.get(UNBIND, params={"carId": a["id"], "fenceId": hall["id"]})
    assert done["code"] == 200 and done["data"] is True
    new = sent((await commands(api, a["id"]))[before:])
    assert new == [(a["id"], 0x8605, [hall["areaId"]])], "the terminal drops the polygon"
    assert [f["id"] for f in (await api.get(OF_CAR, params={"carId": a["id"]}))["data"]] == [dock["id"]]
    again = await api.get(UNBIND, params={"carId": a["id"], "fenceId": hall["id"]})
    assert again["code"] == 400
    assert (await api.get(DETAIL, params={"id": hall["id"]}))["data"]["carIds"] == []


async def test_update_and_delete_tell_the_terminals(api: Api) -> None:
    a, b, c = await car(api), await car(api), await car(api)
    made = await create(api, circle(api, carIds=[a["id"], b["id"]]))
    area = made["areaId"]
    mark = {x["id"]: len(await commands(api, x["id"])) for x in (a, b, c)}

    async def since() -> list[tuple[str, int, Any]]:
        out = []
        for x in (a, b, c):
            cmds = await commands(api, x["id"])
            out += sent(cmds[mark[x["id"]] :])
            mark[x["id"]] = len(cmds)
        return sorted(out)

    r = await api.post(UPDATE, json={"id": made["id"], "carIds": [b["id"], c["id"]]})
    assert r["code"] == 200 and sorted(r["data"]["carIds"]) == sorted([b["id"], c["id"]])
    assert await since() == sorted([(a["id"], 0x8601, [area]), (b["id"], 0x8600, [area]), (c["id"], 0x8600, [area])])

    off = await api.post(UPDATE, json={"id": made["id"], "enableStatus": 0})
    assert off["code"] == 200 and off["data"]["enableStatus"] == 0
    assert await since() == sorted([(b["id"], 0x8601, [area]), (c["id"], 0x8601, [area])])

    poly = await api.post(UPDATE, json={"id": made["id"], "enableStatus": 1, "fenceType": 2, "points": SQUARE})
    assert poly["code"] == 200 and poly["data"]["radius"] is None and poly["data"]["areaId"] == area
    assert await since() == sorted([(b["id"], 0x8604, [area]), (c["id"], 0x8604, [area])])

    back = await api.post(
        UPDATE, json={"id": made["id"], "fenceType": 1, "centerLon": 121.4, "centerLat": 31.1, "radius": 90}
    )
    assert back["code"] == 200 and back["data"]["points"] is None
    expected = [(x["id"], m, [area]) for x in (b, c) for m in (0x8605, 0x8600)]
    assert await since() == sorted(expected), "the polygon goes, the circle comes"

    gone = await api.post(REMOVE, params={"ids": made["id"]})
    assert gone["code"] == 200 and gone["data"] is True
    assert await since() == sorted([(b["id"], 0x8601, [area]), (c["id"], 0x8601, [area])])
    assert (await api.get(OF_CAR, params={"carId": b["id"]}))["data"] == []
    async with api.db.sessionmaker() as s:
        links = (await s.execute(select(func.count()).where(FenceCar.fence_id == int(made["id"])))).scalar_one()
    assert links == 0


async def test_other_tenants_cannot_see_or_bind(api: Api, tenants: Tenants) -> None:
    mine = await car(api)
    made = await create(api, circle(api, carIds=[mine["id"]]))
    b = {"tenant": tenants.b}
    theirs = await car(api, tenants.b)
    assert (await api.get(DETAIL, params={"id": made["id"]}, **b))["code"] == 400
    listed = await api.post(LIST, json={"size": 1000}, **b)
    assert made["id"] not in {r["id"] for r in listed["data"]["records"]}
    steal = await api.post(ADD, json=circle(api, carIds=[mine["id"]]), **b)
    assert steal["code"] == 400 and "carIds" in steal["msg"]
    bind = await api.post(UPDATE, json={"id": made["id"], "carIds": [theirs["id"]]}, **b)
    assert bind["code"] == 400
    cross = await api.post(UPDATE, json={"id": made["id"], "carIds": [mine["id"], theirs["id"]]})
    assert cross["code"] == 400 and "carIds" in cross["msg"], "tenant A cannot bind tenant B's vehicle either"
    auth = await api.get(AUTH, **b)
    assert mine["id"] not in {r["carId"] for r in auth["data"]} and theirs["id"] in {r["carId"] for r in auth["data"]}
    assert (await api.get(AUTH, params={"id": made["id"]}, **b))["code"] == 400
    assert (await api.get(OF_CAR, params={"carId": mine["id"]}, **b))["code"] == 400
    unbind = await api.get(UNBIND, params={"carId": mine["id"], "fenceId": made["id"]}, **b)
    assert unbind["code"] == 400
    settings = await api.post(SETTINGS, json={"size": 1000}, **b)
    assert mine["id"] not in {r["carId"] for r in settings["data"]["records"]}
    assert (await api.get(DETAIL, params={"id": made["id"]}))["data"]["carIds"] == [mine["id"]], "still bound"
    own = await create(api, circle(api, carIds=[theirs["id"]]), tenant=tenants.b)
    assert own["tenantId"] == tenants.b and own["carIds"] == [theirs["id"]]
    # The platform administrator names a tenant in the body (``body_params``): its vehicles, and only them.
    named = await api.post(SETTINGS, json={"size": 1000, "tenantId": tenants.b})
    ids = {r["carId"] for r in named["data"]["records"]}
    assert theirs["id"] in ids and mine["id"] not in ids
    assert next(r for r in named["data"]["records"] if r["carId"] == theirs["id"])["fenceCount"] == 1
    # A tenant naming another tenant in the body stays in its own.
    forged = await api.post(SETTINGS, json={"size": 1000, "tenantId": "000000"}, **b)
    assert forged["code"] == 200 and mine["id"] not in {r["carId"] for r in forged["data"]["records"]}


async def test_unbinding_needs_the_edit_permission(api: Api, driver: str) -> None:
    a = await car(api)
    made = await create(api, circle(api, carIds=[a["id"]]))
    who = {"who": driver, "password": "driver-1"}
    denied = await api.get(UNBIND, params={"carId": a["id"], "fenceId": made["id"]}, **who)
    assert (denied["_status"], denied["code"]) == (403, 403)
    assert (await api.get(DETAIL, params={"id": made["id"]}))["data"]["carIds"] == [a["id"]]


async def test_fence_changes_reach_the_pipeline(api: Api) -> None:
    state = parts(api)
    a = await car(api)
    device, t0 = a["deviceNumber"], datetime(2026, 7, 1, 2, 0, 0)

    async def fix_at(sec: int) -> None:
        fix = Fix(time=t0 + timedelta(seconds=sec), lat=31.2, lon=121.5)
        await state.pipeline.process([Report(device=device, fixes=(fix,), received_at=t0)])

    async def fence_events() -> list[Event]:
        async with api.db.sessionmaker() as s:
            stmt = select(Event).where(Event.vehicle_id == int(a["id"]), Event.kind.like("fence%"))
            return list((await s.execute(stmt)).scalars().all())

    await fix_at(0)  # the pipeline caches the vehicle's context: no fences yet
    made = await create(api, circle(api, alarmMode=1, carIds=[a["id"]]))
    await fix_at(10)
    [ev] = await fence_events()
    assert ev.kind == "fence_in" and ev.begin_time == t0 + timedelta(seconds=10) and ev.end_time is None
    await api.get(UNBIND, params={"carId": a["id"], "fenceId": made["id"]})
    await fix_at(20)
    [ev] = await fence_events()
    assert ev.end_time == t0 + timedelta(seconds=20), "unbound: the open alarm closes with the next fix"


async def test_a_removed_vehicle_leaves_its_fences(api: Api) -> None:
    a, b = await car(api), await car(api)
    made = await create(api, circle(api, carIds=[a["id"], b["id"]]))
    before = len(await commands(api, a["id"]))
    gone = await api.post(f"{F}/deleteCarInfoById", params={"ids": a["id"]})
    assert gone["code"] == 200, gone
    assert sent((await commands(api, a["id"]))[before:]) == [(a["id"], 0x8601, [made["areaId"]])]
    assert (await api.get(DETAIL, params={"id": made["id"]}))["data"]["carIds"] == [b["id"]]
    async with api.db.sessionmaker() as s:
        links = (await s.execute(select(func.count()).where(FenceCar.vehicle_id == int(a["id"])))).scalar_one()
    assert links == 0
