"""Regions (blade_region): the seeded national list, the lazy tree by parent code, detail by code, the rules of
submit and remove, and who may change them (the platform administrator only)."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import select

from liftdesk.system.models import Menu, Region, RoleMenu
from liftdesk.system.seed import ADMINISTRATOR_ROLE
from tests.conftest import Api, Tenants

REGION = "/api/blade-system/region"
#: The 34 provincial-level units of GB/T 2260 (23 provinces incl. Taiwan, 5 autonomous regions, 4 municipalities,
#: 2 special administrative regions).
PROVINCES = {
    "110000", "120000", "130000", "140000", "150000", "210000", "220000", "230000", "310000", "320000", "330000",
    "340000", "350000", "360000", "370000", "410000", "420000", "430000", "440000", "450000", "460000", "500000",
    "510000", "520000", "530000", "540000", "610000", "620000", "630000", "640000", "650000", "710000", "810000",
    "820000",
}  # fmt: skip


async def _lazy(api: Api, parent: str | None = None, **kw: Any) -> list[dict[str, Any]]:
    params = {} if parent is None else {"parentCode": parent}
    r = await api.get(f"{REGION}/lazy-tree", params=params, **kw)
    assert r["code"] == 200, r
    nodes: list[dict[str, Any]] = r["data"]
    return nodes


async def _free_town(api: Api, district: str = "440305") -> str:
    for _ in range(50):
        code = f"{district}{random.randint(100, 999)}"
        if (await api.get(f"{REGION}/detail", params={"code": code}))["code"] != 200:
            return code
    raise AssertionError("no free town code")


async def test_seed_holds_provinces_and_cities(api: Api) -> None:
    provinces = await _lazy(api)
    assert {n["id"] for n in provinces} == PROVINCES
    assert all(n["hasChildren"] for n in provinces if n["id"] not in {"710000", "810000", "820000"})
    by_code = {n["id"]: n["title"] for n in provinces}
    assert by_code["110000"] == "北京市" and by_code["310000"] == "上海市" and by_code["440000"] == "广东省"
    async with api.db.sessionmaker() as s:
        rows = (await s.execute(select(Region.region_level, Region.code))).all()
    levels = {level: sum(1 for lv, _ in rows if lv == level) for level in (1, 2, 3)}
    assert levels[1] == 34 and levels[2] >= 330 and levels[3] >= 2800, levels
    shenzhen = (await api.get(f"{REGION}/detail", params={"code": "440300"}))["data"]
    assert shenzhen["name"] == "深圳市" and shenzhen["parentCode"] == "440000" and shenzhen["regionLevel"] == 2
    assert shenzhen["provinceName"] == "广东省" and shenzhen["cityCode"] == "440300"
    assert shenzhen["ancestors"] == "00,440000" and shenzhen["id"] == "440300"


async def test_lazy_tree_by_parent_code(api: Api) -> None:
    cities = await _lazy(api, "440000")
    assert "440300" in {n["id"] for n in cities} and all(n["parentId"] == "440000" for n in cities)
    assert next(n for n in cities if n["id"] == "440300")["hasChildren"] is True
    districts = await _lazy(api, "440300")
    assert {"440303", "440304", "440305"} <= {n["id"] for n in districts}
    # a municipality's districts sit directly under it
    beijing = {n["id"]: n["title"] for n in await _lazy(api, "110000")}
    assert beijing["110101"] == "东城区"
    assert {n["id"] for n in await _lazy(api, "00")} == {n["id"] for n in await _lazy(api, "")} == PROVINCES
    by_parent_id = await api.get(f"{REGION}/lazy-tree", params={"parentId": "440000"})
    assert {n["id"] for n in by_parent_id["data"]} == {n["id"] for n in cities}
    bad = await api.get(f"{REGION}/lazy-tree", params={"parentCode": "guangdong"})
    assert bad["code"] == 400


async def test_list_filters(api: Api) -> None:
    r = await api.get(f"{REGION}/list", params={"name": "深圳", "size": 50})
    assert r["code"] == 200 and "440300" in {row["code"] for row in r["data"]["records"]}
    provinces = await api.get(f"{REGION}/list", params={"regionLevel": 1, "size": 100})
    assert provinces["data"]["total"] == 34
    assert {row["code"] for row in provinces["data"]["records"]} == PROVINCES


async def test_detail_by_code_or_id(api: Api) -> None:
    by_code = await api.get(f"{REGION}/detail", params={"code": "310000"})
    by_id = await api.get(f"{REGION}/detail", params={"id": "310000"})
    assert by_code["data"]["name"] == by_id["data"]["name"] == "上海市"
    assert (await api.get(f"{REGION}/detail", params={"code": "999999"}))["code"] == 400


async def test_submit_edit_remove(api: Api) -> None:
    town = await _free_town(api)
    r = await api.post(f"{REGION}/submit", json={"code": town, "parentCode": "440305", "name": "测试街道"})
    assert r["code"] == 200, r
    row = r["data"]
    assert row["id"] == town and row["regionLevel"] == 4 and row["ancestors"] == "00,440000,440300,440305"
    assert (row["provinceName"], row["cityName"], row["districtName"], row["townName"]) == (
        "广东省",
        "深圳市",
        "南山区",
        "测试街道",
    )
    district = await _lazy(api, "440300")
    assert next(n for n in district if n["id"] == "440305")["hasChildren"] is True
    village = await api.post(
        f"{REGION}/submit", json={"code": f"{town}001", "parentCode": town, "name": "测试村", "regionLevel": 5}
    )
    assert village["code"] == 200 and village["data"]["villageName"] == "测试村", village
    # renaming the town renames it in the path of the village
    renamed = await api.post(f"{REGION}/submit", json={"id": town, "name": "新街道"})
    assert renamed["code"] == 200 and renamed["data"]["townName"] == "新街道"
    below = (await api.get(f"{REGION}/detail", params={"code": f"{town}001"}))["data"]
    assert below["townName"] == "新街道"
    # the code and the parent never change
    moved = await api.post(f"{REGION}/submit", json={"id": town, "parentCode": "440304"})
    recoded = await api.post(f"{REGION}/submit", json={"id": town, "code": "440305998"})
    assert moved["code"] == 400 and recoded["code"] == 400
    # a region with children is not removed; its children first
    refused = await api.post(f"{REGION}/remove", params={"id": town})
    assert refused["code"] == 400 and "子节点" in refused["msg"]
    assert (await api.post(f"{REGION}/remove", params={"ids": f"{town}001"}))["data"] is True
    assert (await api.post(f"{REGION}/remove", params={"id": town}))["data"] is True
    assert (await api.get(f"{REGION}/detail", params={"code": town}))["code"] == 400
    assert (await api.post(f"{REGION}/remove", params={"id": "440300"}))["code"] == 400


async def test_submit_rules(api: Api) -> None:
    town = await _free_town(api)

    async def refused(body: dict[str, Any]) -> str:
        r = await api.post(f"{REGION}/submit", json=body)
        assert r["code"] == 400 and r["success"] is False, (body, r)
        return str(r["msg"])

    await refused({"code": "44a305123", "parentCode": "440305", "name": "x"})  # digits only
    await refused({"code": "4403051", "parentCode": "440305", "name": "x"})  # 6, 9 or 12 digits
    await refused({"code": town, "parentCode": "440305", "name": ""})  # name 1-64
    await refused({"code": town, "parentCode": "440305", "name": "x" * 65})
    await refused({"code": town, "parentCode": "440305999", "name": "x"})  # the parent exists
    await refused({"code": "441305123", "parentCode": "440305", "name": "x"})  # under its parent's code
    await refused({"code": town, "parentCode": "440305", "name": "x", "regionLevel": 3})  # level by length
    await refused({"code": "440399", "parentCode": "00", "name": "x"})  # a district is not a province
    await refused({"code": "440300", "parentCode": "440000", "name": "重复"})  # the code is taken
    msg = await refused({"code": "450305123", "parentCode": "440305", "name": "x"})
    assert "450305123" in msg


async def test_only_the_platform_administrator_changes_regions(api: Api, tenants: Tenants) -> None:
    b = {"tenant": tenants.b}  # tenant B's own administrator (role admin)
    assert {n["id"] for n in await _lazy(api, **b)} == PROVINCES, "tenant administrators read the regions"
    town = await _free_town(api)
    new = await api.post(f"{REGION}/submit", json={"code": town, "parentCode": "440305", "name": "x"}, **b)
    edit = await api.post(f"{REGION}/submit", json={"id": "440300", "remark": "x"}, **b)
    rem = await api.post(f"{REGION}/remove", params={"id": "440305"}, **b)
    assert (new["code"], edit["code"], rem["code"]) == (403, 403, 403)
    # the seed tenant's administrator role holds the menu and its view button only
    async with api.db.sessionmaker() as s:
        granted = (
            (
                await s.execute(
                    select(Menu.code)
                    .join(RoleMenu, RoleMenu.menu_id == Menu.id)
                    .where(RoleMenu.role_id == ADMINISTRATOR_ROLE + 1, Menu.code.like("region%"))
                )
            )
            .scalars()
            .all()
        )
    assert set(granted) == {"region", "region_view"}


async def test_anonymous_is_401(api: Api) -> None:
    for method, path in (("GET", "lazy-tree"), ("GET", "list"), ("GET", "detail"), ("POST", "submit")):
        r = await api.client.request(method, f"{REGION}/{path}", params={"code": "110000"})
        assert r.status_code == 401 and r.json()["code"] == 401
