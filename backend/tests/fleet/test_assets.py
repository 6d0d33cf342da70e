"""Vehicle assets (carAssets/list and delete) and the dictionaries of the register's coded fields."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from liftdesk.core.db import utcnow
from tests.conftest import Api, Tenants, own_organisation_user, seed_ids

F = "/api/blade-fics-report/fics"
A = f"{F}/carAssets"


def day(days: int) -> str:
    return (utcnow() + timedelta(days=days)).strftime("%Y-%m-%d %H:%M:%S")


async def _car(api: Api, number: str, **more: Any) -> dict[str, Any]:
    r = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": number, **more})
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


async def test_assets_show_their_warranty_and_age(api: Api, tenants: Tenants) -> None:
    prefix = api.unique("AS-")
    cars = {
        "valid": await _car(api, f"{prefix}-1", warrantyExpiry=day(400), factoryDate=day(-730), brand="Linde"),
        "expiring": await _car(api, f"{prefix}-2", warrantyExpiry=day(10)),
        "expired": await _car(api, f"{prefix}-3", warrantyExpiry=day(-3), frameNumber=f"{prefix}VIN"),
        "none": await _car(api, f"{prefix}-4"),
    }
    page = (await api.get(f"{A}/list", params={"carNo": prefix, "size": 10}))["data"]
    rows = {r["carNo"]: r for r in page["records"]}
    assert page["total"] == 4
    for state, car in cars.items():
        assert rows[car["carNo"]]["warrantyState"] == state, (state, rows[car["carNo"]])
    valid = rows[cars["valid"]["carNo"]]
    assert valid["brand"] == "Linde" and 1.9 < valid["ageYears"] < 2.1 and 398 <= valid["warrantyDaysLeft"] <= 400
    assert rows[cars["expired"]["carNo"]]["warrantyDaysLeft"] < 0 and rows[cars["none"]["carNo"]]["ageYears"] is None
    for state, car in cars.items():
        found = (await api.get(f"{A}/list", params={"carNo": prefix, "warranty": state}))["data"]["records"]
        assert [r["carNo"] for r in found] == [car["carNo"]], state
    by_frame = (await api.get(f"{A}/list", params={"frameNumber": f"{prefix}VI"}))["data"]["records"]
    assert [r["carNo"] for r in by_frame] == [cars["expired"]["carNo"]]
    bad = await api.get(f"{A}/list", params={"warranty": "forever"}, headers={"Accept-Language": "en"})
    assert bad["code"] == 400 and "warranty" in bad["msg"]
    # another tenant sees none of them
    theirs = await api.get(f"{A}/list", params={"carNo": prefix}, tenant=tenants.b)
    assert theirs["code"] == 200 and theirs["data"]["records"] == []


async def test_deleting_an_asset_removes_its_vehicle(api: Api, tenants: Tenants) -> None:
    car = await _car(api, api.unique("AD-"), deviceNumber=f"4{api.counter:03d}{abs(hash(api.unique())) % 10**8:08d}")
    stolen = await api.post(f"{A}/delete", params={"carId": car["id"]}, tenant=tenants.b)
    assert stolen["success"] is False
    assert (await api.get(f"{F}/carInfo/getCarInfo", params={"carId": car["id"]}))["code"] == 200
    r = await api.post(f"{A}/delete", params={"carId": car["id"]})
    assert r["code"] == 200 and r["data"] is True, r
    gone = await api.get(f"{F}/carInfo/getCarInfo", params={"carId": car["id"]})
    assert gone["success"] is False
    # its device number is free again
    again = await _car(api, api.unique("AD-"), deviceNumber=car["deviceNumber"])
    assert again["deviceNumber"] == car["deviceNumber"]
    missing = await api.post(f"{A}/delete", params={"carId": car["id"]})
    assert missing["success"] is False


async def test_a_user_deletes_only_assets_of_their_organisation(api: Api) -> None:
    root = (await seed_ids(api))["dept"]
    r = await api.post(
        "/api/blade-system/dept/submit",
        json={"deptName": api.unique("ADP "), "parentId": root, "deptCategory": 2, "sort": 1},
    )
    dept = r["data"]["id"]
    theirs = await _car(api, api.unique("AO-"), mechanismId=dept)
    other = await _car(api, api.unique("AO-"))
    async with own_organisation_user(api, dept, buttons=("vehicle_delete",)) as who:
        refused = await api.post(f"{A}/delete", params={"carId": other["id"]}, **who)
        assert refused["success"] is False
        done = await api.post(f"{A}/delete", params={"carId": theirs["id"]}, **who)
        assert done["code"] == 200, done
    assert (await api.get(f"{F}/carInfo/getCarInfo", params={"carId": other["id"]}))["code"] == 200


async def test_the_dictionaries_of_the_register(api: Api) -> None:
    r = await api.get(f"{F}/carInfo/getCarDictionariesList")
    assert r["code"] == 200, r
    types = (await api.get("/api/blade-system/dict/dictionary", params={"code": "car_type"}))["data"]
    assert [d["dictKey"] for d in r["data"]["carType"]] == [str(i) for i in range(9)]
    assert {d["dictKey"]: d["dictValue"] for d in r["data"]["carType"]} == {d["dictKey"]: d["dictValue"] for d in types}
    assert [d["dictValue"] for d in r["data"]["carStatus"]] == ["正常", "停用", "维修中"]
