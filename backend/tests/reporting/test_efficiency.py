"""The vehicle efficiency report, its export and the fleet's daily hours, over known daily aggregates.

Vehicles of two organisations (one under the other), a third organisation and another tenant get daily rows in the
week of Monday 2026-11-02 to Sunday 2026-11-08 (and one row outside it); every figure below is worked out by hand
from those rows.
"""

from __future__ import annotations

import io
import uuid
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from openpyxl import load_workbook

from liftdesk.core.transfer import XLSX
from liftdesk.telemetry.models import DailyStat
from tests.conftest import Api, Tenants, own_organisation_user, seed_ids

REPORT = "/api/blade-fics-report/fics/intelligentReport"
LIST = f"{REPORT}/getCarWorkEfficiencyList"
DAYS = f"{REPORT}/getCarFleetWorkTimeCount"
EXPORT = f"{REPORT}/exportCarWorkEfficiencyList"
WEEK = {"startTime": "2026-11-02", "endTime": "2026-11-08"}
H = 3600.0


@dataclass
class World:
    parent: str  # organisation P (under the root)
    child: str  # organisation C, under P
    other: str  # organisation O, under the root
    prefix: str  # every vehicle number of the world starts with it
    cars: dict[str, dict[str, Any]]  # p1, c1 (tenant 000000), o1 (organisation O), x1 (the other tenant)


_WORLDS: dict[str, World] = {}


async def _dept(api: Api, name: str, parent: str, tenant: str = "000000") -> str:
    r = await api.post(
        "/api/blade-system/dept/submit",
        json={"deptName": api.unique(name), "parentId": parent, "deptCategory": 2, "sort": 1},
        tenant=tenant,
    )
    assert r["code"] == 200, r
    ident: str = r["data"]["id"]
    return ident


async def _car(api: Api, number: str, org: str | None, car_type: int, tenant: str = "000000") -> dict[str, Any]:
    device = str(10**11 + uuid.uuid4().int % 10**11)
    payload: dict[str, Any] = {"carNo": number, "carType": car_type, "deviceNumber": device}
    if org is not None:
        payload["mechanismId"] = org
    r = await api.post("/api/blade-fics-report/fics/carInfo/insertCarInfo", json=payload, tenant=tenant)
    assert r["code"] == 200, r
    car: dict[str, Any] = r["data"]
    return car


def _stat(car: dict[str, Any], day: str, boot: float, move: float, load: float, move_load: float, work: float) -> Any:
    return DailyStat(
        tenant_id=car["tenantId"],
        vehicle_id=int(car["id"]),
        day=date.fromisoformat(day),
        mechanism_id=int(car["mechanismId"]) if car.get("mechanismId") else None,
        boot_s=boot * H,
        move_s=move * H,
        load_s=load * H,
        move_load_s=move_load * H,
        work_s=work * H,
    )


async def world(api: Api, tenants: Tenants) -> World:
    """The vehicles and their daily rows, made once per database."""
    if api.backend in _WORLDS:
        return _WORLDS[api.backend]
    root = (await seed_ids(api))["dept"]
    parent = await _dept(api, "P ", root)
    child = await _dept(api, "C ", parent)
    other = await _dept(api, "O ", root)
    prefix = api.unique("EFF")
    cars = {
        "p1": await _car(api, f"{prefix}-P1", parent, 3),
        "c1": await _car(api, f"{prefix}-C1", child, 4),
        "c2": await _car(api, f"{prefix}-C2", child, 4),  # no data: a row of zeros
        "o1": await _car(api, f"{prefix}-O1", other, 3),
        "x1": await _car(api, f"{prefix}-X1", None, 3, tenant=tenants.b),
    }
    async with api.db.sessionmaker() as s:
        s.add_all(
            [
                # p1: Monday and Saturday, and a day after the week
                _stat(cars["p1"], "2026-11-02", boot=2, move=1, load=0.5, move_load=0.25, work=1.5),
                _stat(cars["p1"], "2026-11-07", boot=1, move=0.5, load=0, move_load=0, work=0.5),
                _stat(cars["p1"], "2026-11-09", boot=100, move=100, load=100, move_load=100, work=100),
                # c1: Tuesday; work over boot (idle is never below 0) on Wednesday
                _stat(cars["c1"], "2026-11-03", boot=3, move=1.5, load=1, move_load=0.5, work=2),
                _stat(cars["c1"], "2026-11-04", boot=1, move=0, load=0, move_load=0, work=1.5),
                # o1: Monday
                _stat(cars["o1"], "2026-11-02", boot=10, move=4, load=2, move_load=1, work=6),
                # the other tenant: Monday
                _stat(cars["x1"], "2026-11-02", boot=50, move=50, load=50, move_load=50, work=50),
            ]
        )
        await s.commit()
    _WORLDS[api.backend] = World(parent, child, other, prefix, cars)
    return _WORLDS[api.backend]


async def report(api: Api, body: dict[str, Any], **kw: Any) -> dict[str, Any]:
    r = await api.post(LIST, json=body, **kw)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


def by_no(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["carNo"].rsplit("-", 1)[1]: r for r in records}


async def test_sums_efficiency_and_totals_of_an_organisation_branch(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    data = await report(api, {**WEEK, "mechanismId": w.parent, "size": 50})
    rows = by_no(data["records"])
    # P and the organisation under it; not O, not the other tenant
    assert set(rows) == {"P1", "C1", "C2"} and data["total"] == 3
    p1, c1, c2 = rows["P1"], rows["C1"], rows["C2"]
    assert p1["carId"] == w.cars["p1"]["id"] and p1["mechanismId"] == w.parent
    assert p1["mechanismName"].startswith("P ") and p1["equipmentNo"] == w.cars["p1"]["deviceNumber"]
    assert p1["carType"] == 3 and p1["carTypeName"] == "铅酸电动叉车"
    assert (p1["cumulativeBootTime"], p1["mobileTime"], p1["loadTime"], p1["movingLoadTime"]) == (3.0, 1.5, 0.5, 0.25)
    assert p1["freeTime"] == 1.0  # (2 - 1.5) + (1 - 0.5)
    assert p1["mobileEfficiency"] == 50.0  # 1.5 / 3
    assert (c1["cumulativeBootTime"], c1["mobileTime"], c1["loadTime"], c1["movingLoadTime"]) == (4.0, 1.5, 1.0, 0.5)
    assert c1["freeTime"] == 1.0  # 3 - 2, and Wednesday's work over boot counts 0, not -0.5
    assert c1["mobileEfficiency"] == 37.5
    assert c2["cumulativeBootTime"] == 0 and c2["mobileEfficiency"] == 0 and c2["freeTime"] == 0
    assert data["totals"] == {
        "vehicles": 3,
        "cumulativeBootTime": 7.0,
        "loadTime": 1.5,
        "mobileTime": 3.0,
        "freeTime": 2.0,
        "movingLoadTime": 0.75,
        "mobileEfficiency": round(300 / 7, 2),
    }


async def test_child_organisation_and_filters(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    child = await report(api, {**WEEK, "mechanismId": w.child})
    assert set(by_no(child["records"])) == {"C1", "C2"}
    assert child["totals"]["cumulativeBootTime"] == 4.0
    by_type = await report(api, {**WEEK, "carNo": w.prefix, "carType": 3})
    assert set(by_no(by_type["records"])) == {"P1", "O1"}  # not the other tenant's X1
    assert by_type["totals"]["cumulativeBootTime"] == 13.0
    by_number = await report(api, {**WEEK, "carNo": f"{w.prefix}-O"})
    assert set(by_no(by_number["records"])) == {"O1"}
    assert by_number["records"][0]["mobileEfficiency"] == 40.0


async def test_the_range_counts_its_days_only(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    monday = await report(api, {"startTime": "2026-11-02", "endTime": "2026-11-02", "carNo": w.prefix})
    rows = by_no(monday["records"])
    assert rows["P1"]["cumulativeBootTime"] == 2.0 and rows["C1"]["cumulativeBootTime"] == 0
    assert monday["totals"]["cumulativeBootTime"] == 12.0  # P1 2 + O1 10
    # a time after the day is accepted and dropped: the days count
    timed = await report(api, {"startTime": "2026-11-02 08:00:00", "endTime": "2026-11-02 09:00:00", "carNo": w.prefix})
    assert timed["totals"] == monday["totals"]


async def test_festival_false_leaves_weekends_out(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    every = await report(api, {**WEEK, "mechanismId": w.parent, "festival": True})
    weekdays = await report(api, {**WEEK, "mechanismId": w.parent, "festival": False})
    assert by_no(every["records"])["P1"]["cumulativeBootTime"] == 3.0
    assert by_no(weekdays["records"])["P1"]["cumulativeBootTime"] == 2.0  # Saturday's hour left out
    assert weekdays["totals"]["cumulativeBootTime"] == 6.0
    days = await api.post(DAYS, json={**WEEK, "mechanismId": w.parent, "festival": False})
    assert [d["searchTime"] for d in days["data"]] == [f"2026-11-0{i}" for i in range(2, 7)]


async def test_paging_keeps_the_totals_of_every_row(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    first = await report(api, {**WEEK, "carNo": w.prefix, "current": 1, "size": 2})
    second = await report(api, {**WEEK, "carNo": w.prefix, "current": 2, "size": 2})
    assert (first["total"], first["pages"], first["size"], first["current"]) == (4, 2, 2, 1)
    assert [r["carNo"] for r in first["records"] + second["records"]] == [
        f"{w.prefix}-{n}" for n in ("C1", "C2", "O1", "P1")
    ]
    assert first["totals"] == second["totals"] and first["totals"]["vehicles"] == 4
    assert first["totals"]["cumulativeBootTime"] == 17.0


async def test_fleet_days(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    r = await api.post(DAYS, json={**WEEK, "carNo": w.prefix})
    assert r["code"] == 200, r
    days = {d["searchTime"]: d for d in r["data"]}
    assert list(days) == [f"2026-11-0{i}" for i in range(2, 9)]  # every day of the range, in order
    assert days["2026-11-02"] == {
        "searchTime": "2026-11-02",
        "bootTime": 12.0,
        "workTime": 7.5,
        "mobileTime": 5.0,
        "freeTime": 4.5,
        "workingVehicles": 2,
    }
    assert days["2026-11-04"]["freeTime"] == 0 and days["2026-11-04"]["workingVehicles"] == 1
    assert days["2026-11-05"]["bootTime"] == 0 and days["2026-11-05"]["workingVehicles"] == 0
    child = await api.post(DAYS, json={**WEEK, "mechanismId": w.child})
    assert sum(d["bootTime"] for d in child["data"]) == 4.0


async def test_another_tenant_sees_only_its_own(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    theirs = await report(api, {**WEEK, "carNo": w.prefix}, tenant=tenants.b)
    assert set(by_no(theirs["records"])) == {"X1"}
    assert theirs["totals"]["cumulativeBootTime"] == 50.0
    # naming an organisation of tenant 000000 selects nothing of theirs, and nothing of 000000
    named = await report(api, {**WEEK, "mechanismId": w.parent}, tenant=tenants.b)
    assert named["records"] == [] and named["totals"]["vehicles"] == 0


async def test_own_organisation_sees_only_its_vehicles(api: Api, tenants: Tenants) -> None:
    """A role with the report's menu and the data scope "own organisation" on vehicles (organisation C)."""
    w = await world(api, tenants)
    # a vehicle's create_dept, which the rule reads, is its organisation (fleet.service.VehicleHooks)
    async with own_organisation_user(api, w.child, menus=("report_efficiency",)) as who:
        mine = await report(api, {**WEEK, "carNo": w.prefix}, **who)
        assert set(by_no(mine["records"])) == {"C1", "C2"} and mine["totals"]["cumulativeBootTime"] == 4.0
        days = await api.post(DAYS, json={**WEEK, "carNo": w.prefix}, **who)
        assert sum(d["bootTime"] for d in days["data"]) == 4.0
        # the export needs its own button
        refused = await api.get(EXPORT, params={**WEEK, "carNo": w.prefix}, **who)
        assert refused["_status"] == 403 and refused["code"] == 403


@pytest.mark.parametrize(
    ("body", "field", "zh", "en"),
    [
        ({"startTime": "2026-11-08", "endTime": "2026-11-02"}, "startTime", "不能晚于结束日期", "must not be after"),
        ({"startTime": "2026-10-01", "endTime": "2026-11-01"}, "startTime/endTime", "不能超过 31 天", "exceed 31 days"),
        ({"startTime": "2026-13-01"}, "startTime", "格式不正确", "is not valid"),
    ],
)
async def test_range_errors_name_the_field(api: Api, body: dict[str, Any], field: str, zh: str, en: str) -> None:
    for path in (LIST, DAYS):
        chinese = await api.post(path, json=body)
        assert chinese["_status"] == 400 and chinese["code"] == 400, chinese
        assert chinese["msg"].startswith(field) and zh in chinese["msg"], chinese
        english = await api.post(path, json=body, headers={"Accept-Language": "en"})
        assert english["code"] == 400 and english["msg"].startswith(field) and en in english["msg"], english
    exported = await api.get(EXPORT, params=body, headers={"Accept-Language": "en"})
    assert exported["code"] == 400 and exported["msg"].startswith(field), exported


async def test_thirty_one_days_are_accepted(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    month = await report(api, {"startTime": "2026-10-09", "endTime": "2026-11-08", "carNo": w.prefix})
    assert month["totals"]["cumulativeBootTime"] == 17.0


async def test_the_export_holds_the_rows_and_the_totals(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    headers = await api.headers()
    r = await api.client.get(EXPORT, params={**WEEK, "mechanismId": w.parent, "festival": "false"}, headers=headers)
    assert r.status_code == 200 and r.headers["content-type"].startswith(XLSX), r.text
    sheet = load_workbook(io.BytesIO(r.content), read_only=True).worksheets[0]
    table = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert table[0][:2] == ["所属机构", "车辆编号"] and table[0][-1] == "行驶效率(%)"
    body = {row[1]: row for row in table[1:-1]}
    assert set(body) == {f"{w.prefix}-P1", f"{w.prefix}-C1", f"{w.prefix}-C2"}
    p1 = body[f"{w.prefix}-P1"]
    assert p1[2] == w.cars["p1"]["deviceNumber"] is not None and p1[4:] == [2.0, 0.5, 1.0, 0.5, 0.25, 50.0]
    assert table[-1][0] == "合计" and table[-1][4:] == [6.0, 1.5, 2.5, 1.5, 0.75, 41.67]
    english = await api.client.get(
        EXPORT, params={**WEEK, "mechanismId": w.parent}, headers={**headers, "Accept-Language": "en"}
    )
    sheet = load_workbook(io.BytesIO(english.content), read_only=True).worksheets[0]
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert rows[0][1] == "Vehicle number" and rows[-1][0] == "Total" and len(rows) == 5
