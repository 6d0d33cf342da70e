"""Vehicles registered through the API, fed through the pipeline, read back through the live-state calls."""

from __future__ import annotations

from datetime import datetime, timedelta

from liftdesk.core.bus import LocalBus
from liftdesk.telemetry.messages import CanFrame, Fix, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants

F = "/api/blade-fics-report/fics"
T0 = datetime(2026, 5, 6, 2, 0, 0)  # 10:00 in UTC+8


async def test_live_state_and_track_of_a_registered_vehicle(api: Api, tenants: Tenants) -> None:
    device = f"0{api.counter:03d}{abs(hash(api.unique())) % 10**8:08d}"
    car = await api.post(
        f"{F}/carInfo/insertCarInfo",
        json={"carNo": api.unique("FL-"), "deviceNumber": device, "carType": 4, "speedLimitKmh": 10},
    )
    assert car["code"] == 200, car
    car_id = car["data"]["id"]
    assert car["data"]["carTypeName"] == "锂电电动叉车" and car["data"]["online"] is False

    pipeline = Pipeline(api.db, LocalBus())
    fixes = tuple(
        Fix(
            time=T0 + timedelta(seconds=10 * i),
            lat=31.2 + i * 1e-4,
            lon=121.5,
            speed_kmh=4.0 + i,
            direction=90,
            mileage_km=100 + i * 0.01,
        )
        for i in range(8)
    )
    can = (CanFrame(0x0CF00400, bytes.fromhex("F07D7D0000FFFFFF")),)
    await pipeline.process([Report(device=device, fixes=fixes, received_at=T0), Report(device, (), T0, can=can)])

    last = await api.post(f"{F}/carInfo/getCarLastGPSInfo", json={"carIds": [car_id]})
    [state] = last["data"]
    assert state["carId"] == car_id and state["online"] is True and state["gpsTime"] == "2026-05-06 10:01:10"
    assert abs(state["lat"] - 31.2007) < 1e-9 and state["speed"] == 11.0 and state["alarms"] == ["speeding"]

    rt = await api.get(f"{F}/positionTrailing/carRealTimeInfo", params={"carId": car_id})
    assert rt["data"]["state"] == "moving" and rt["data"]["mileage"] == 100.07
    assert rt["data"]["can"]["0CF00400"]["data"] == "F07D7D0000FFFFFF"

    tr = await api.get(
        f"{F}/positionTrailing/positionTrailing",
        params={"carId": car_id, "beginTime": "2026-05-06 10:00:00", "endTime": "2026-05-06 10:01:00"},
    )
    points = tr["data"]["points"]
    assert [p["gpsTime"] for p in points] == [f"2026-05-06 10:00:{s:02d}" for s in range(0, 60, 10)] + [
        "2026-05-06 10:01:00"
    ]
    assert points[3]["speed"] == 7.0 and tr["data"]["truncated"] is False

    cnt = (await api.get(f"{F}/carStatus/getCnt"))["data"]
    assert cnt["total"] >= 1 and cnt["online"] >= 1 and cnt["moving"] >= 1 and cnt["alarm"] >= 1

    detail = (await api.get(f"{F}/carInfo/getCarInfo", params={"carId": car_id}))["data"]
    assert detail["online"] is True and detail["powerOn"] is True and detail["gpsTime"] == "2026-05-06 10:01:10"

    # another tenant sees none of it
    b = {"tenant": tenants.b}
    assert (await api.post(f"{F}/carInfo/getCarLastGPSInfo", json={"carIds": [car_id]}, **b))["data"] == []
    assert (await api.get(f"{F}/positionTrailing/positionTrailing", params={"carId": car_id}, **b))["code"] == 400
    assert (await api.get(f"{F}/positionTrailing/carRealTimeInfo", params={"carId": car_id}, **b))["code"] == 400

    # a device number is unique across tenants
    dup = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": "dup", "deviceNumber": device}, **b)
    assert dup["code"] == 400 and "deviceNumber" in dup["msg"]


async def test_bad_input_is_named(api: Api) -> None:
    r = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": "x", "deviceNumber": "12ab"})
    assert r["code"] == 400 and "deviceNumber" in r["msg"]
    r = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": "x", "speedLimitKmh": 45})
    assert r["code"] == 400 and "speedLimitKmh" in r["msg"]
    r = await api.get(f"{F}/positionTrailing/positionTrailing", params={"carId": "abc"})
    assert r["code"] == 400 and "carId" in r["msg"]
    r = await api.post(f"{F}/carInfo/updateCarInfoById", json={"carNo": "no id"})
    assert r["code"] == 400 and "id" in r["msg"]


async def test_track_period_is_capped_at_seven_days(api: Api) -> None:
    car = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": api.unique("TR-")})
    car_id = car["data"]["id"]
    week = {"carId": car_id, "beginTime": "2026-05-01 00:00:00", "endTime": "2026-05-08 00:00:00"}
    ok = await api.get(f"{F}/positionTrailing/positionTrailing", params=week)
    assert ok["code"] == 200 and ok["data"]["count"] == 0
    longer = await api.get(
        f"{F}/positionTrailing/positionTrailing",
        params={**week, "endTime": "2026-05-08 00:00:01"},
        headers={"Accept-Language": "en"},
    )
    assert longer["_status"] == 400 and longer["msg"] == "beginTime/endTime: the period must not exceed 7 days"
    no_begin = await api.get(f"{F}/positionTrailing/positionTrailing", params={"carId": car_id})
    assert no_begin["code"] == 200, "the default period (the last day) is within the cap"


async def test_status_count_of_an_organisation_includes_those_under_it(api: Api) -> None:
    root = (await api.get("/api/blade-system/dept/list"))["data"][0]
    east, south = root["children"][0]["id"], root["children"][1]["id"]
    branch = await api.post(
        "/api/blade-system/dept/submit",
        json={"deptName": api.unique("Dock "), "parentId": east, "sort": 1, "deptCategory": 2},
    )
    assert branch["code"] == 200, branch
    dock = branch["data"]["id"]
    cars = {}
    for mechanism in (east, dock, south):
        r = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": api.unique("ORG-"), "mechanismId": mechanism})
        assert r["code"] == 200, r
        cars[mechanism] = r["data"]["id"]

    async def total(mechanism: str) -> int:
        r = await api.get(f"{F}/carStatus/getCnt", params={"mechanismId": mechanism})
        assert r["code"] == 200, r
        return int(r["data"]["total"])

    async def listed(mechanism: str) -> set[str]:
        r = await api.post(f"{F}/carInfo/getCarLastGPSInfo", json={"mechanismId": mechanism})
        return {row["carId"] for row in r["data"]}

    assert await total(dock) == 1 and await listed(dock) == {cars[dock]}
    under_east = await listed(east)
    assert {cars[east], cars[dock]} <= under_east and cars[south] not in under_east
    assert await total(east) == len(under_east)
    assert {cars[east], cars[dock], cars[south]} <= await listed(root["id"])
    for call in (
        api.get(f"{F}/carStatus/getCnt", params={"mechanismId": "east"}),
        api.post(f"{F}/carInfo/getCarLastGPSInfo", json={"mechanismId": "east"}),
    ):
        bad = await call
        assert bad["code"] == 400 and "mechanismId" in bad["msg"]


def test_get_car_info_documents_car_id() -> None:
    from liftdesk.app import create_app
    from liftdesk.core.config import Settings

    doc = create_app(Settings(env="test")).openapi()
    params = {p["name"] for p in doc["paths"][f"{F}/carInfo/getCarInfo"]["get"]["parameters"]}
    assert {"carId", "id"} <= params
