"""The alarm center over real pipeline data: the alarm lists, their exports, the abnormal vehicles and the fault codes.

The world (per database): organisations P and O of tenant 000000, and the other tenant B.

=====  ====  ==========================================================================================
car    org   what its terminal sent (T0 = 2026-05-07 09:00 local; limits 10 km/h, 2000 kg, 1.5 g)
=====  ====  ==========================================================================================
a      P     T0..T0+40 s speeding (14, 14, 14, 14, 16 km/h; 5 at T0+50), an impact of 3.2 g at 90° at T0+120,
             2500 then 2800 kg at T0+180/190 (1000 at T0+200), fault codes BMS-CELL_OVER_VOLTAGE and E12 at
             T0+240 (again at T0+250), a battery at 40 V at T0+260 (low voltage, still open)
b      O     an impact of 2.0 g at T0+30 (level 1)
c      P     nothing: registered 8 days ago with a terminal that never reported (abnormal: never reported)
x      (B)   an impact of 3 g at T0
=====  ====  ==========================================================================================
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from openpyxl import load_workbook
from sqlalchemy import update

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import utcnow
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.messages import STATUS_ACC, STATUS_FIX, Battery, Fix, Report
from liftdesk.telemetry.models import VehicleState
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants, own_organisation_user, seed_ids

F = "/api/blade-fics-report/fics"
CAR = f"{F}/carInfo"
ABN = f"{F}/abnormal"
FAULT = f"{F}/faultCode"
EXPORT = "/api/liftdesk/alarm"
T0 = datetime(2026, 5, 7, 1, 0, 0)  # 09:00 in UTC+8
DAY = {"startTime": "2026-05-07", "endTime": "2026-05-07"}
ON = STATUS_ACC | STATUS_FIX


def local(t: datetime) -> str:
    return (t + timedelta(hours=8)).strftime("%Y-%m-%d %H:%M:%S")


def at(seconds: int, **kw: Any) -> Fix:
    return Fix(time=T0 + timedelta(seconds=seconds), lat=31.2, lon=121.5, status=ON, **kw)


@dataclass
class World:
    prefix: str
    parent: str
    other: str
    cars: dict[str, dict[str, Any]]


_WORLDS: dict[str, World] = {}


async def _dept(api: Api, name: str, parent: str) -> str:
    r = await api.post(
        "/api/blade-system/dept/submit",
        json={"deptName": api.unique(name), "parentId": parent, "deptCategory": 2, "sort": 1},
    )
    assert r["code"] == 200, r
    ident: str = r["data"]["id"]
    return ident


async def _car(api: Api, number: str, org: str | None, tenant: str = "000000") -> dict[str, Any]:
    payload: dict[str, Any] = {
        "carNo": number,
        "deviceNumber": f"1{api.counter:03d}{abs(hash(api.unique())) % 10**8:08d}",
        "speedLimitKmh": 10,
        "overloadThresholdKg": 2000,
        "collisionThresholdG": 1.5,
    }
    if org is not None:
        payload["mechanismId"] = org
    r = await api.post(f"{CAR}/insertCarInfo", json=payload, tenant=tenant)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


async def world(api: Api, tenants: Tenants) -> World:
    if api.backend in _WORLDS:
        return _WORLDS[api.backend]
    root = (await seed_ids(api))["dept"]
    parent = await _dept(api, "AP ", root)
    other = await _dept(api, "AO ", root)
    prefix = api.unique("ALM")
    cars = {
        "a": await _car(api, f"{prefix}-A", parent),
        "b": await _car(api, f"{prefix}-B", other),
        "c": await _car(api, f"{prefix}-C", parent),
        "x": await _car(api, f"{prefix}-X", None, tenant=tenants.b),
    }
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(Vehicle).where(Vehicle.id == int(cars["c"]["id"])).values(create_time=utcnow() - timedelta(days=8))
        )
        await s.commit()
    a = [
        *(at(10 * i, speed_kmh=14.0) for i in range(4)),
        at(40, speed_kmh=16.0),
        at(50, speed_kmh=5.0),
        at(120, impact_g=3.2, impact_direction=90),
        at(180, load_kg=2500.0),
        at(190, load_kg=2800.0),
        at(200, load_kg=1000.0),
        at(240, fault_codes=("BMS-CELL_OVER_VOLTAGE", "E12")),
        at(250, fault_codes=("BMS-CELL_OVER_VOLTAGE", "E12")),
        at(260, fault_codes=("BMS-CELL_OVER_VOLTAGE", "E12"), battery=Battery(soc_pct=30.0, voltage_v=40.0)),
    ]
    pipeline = Pipeline(api.db, LocalBus())
    reports = [
        Report(device=cars["a"]["deviceNumber"], fixes=tuple(a), received_at=a[0].time),
        Report(device=cars["b"]["deviceNumber"], fixes=(at(30, impact_g=2.0, impact_direction=180),), received_at=T0),
        Report(device=cars["x"]["deviceNumber"], fixes=(at(0, impact_g=3.0),), received_at=T0),
    ]
    for report in reports:
        await pipeline.process([report])
    _WORLDS[api.backend] = World(prefix, parent, other, cars)
    return _WORLDS[api.backend]


async def ok(api: Api, method: str, path: str, data: dict[str, Any], **kw: Any) -> Any:
    if method == "GET":
        r = await api.get(path, params=data, **kw)
    else:
        r = await api.post(path, json=data, **kw)
    assert r["code"] == 200, (path, r)
    return r["data"]


async def test_alarm_lists_show_what_the_pipeline_raised(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    a, b = w.cars["a"], w.cars["b"]
    mine = {**DAY, "carNo": w.prefix}

    speeding = await ok(api, "POST", f"{CAR}/getCarSpeedingList", mine)
    [s] = speeding["records"]
    assert (s["carId"], s["kind"], s["limitValue"], s["value"], s["maxValue"]) == (a["id"], "speeding", 10, 14, 16)
    assert (s["beginTime"], s["endTime"], s["durationS"], s["open"]) == (
        local(T0),
        local(T0 + timedelta(seconds=50)),
        50,
        False,
    )
    assert speeding["totals"] == {"vehicles": 1, "alarms": 1, "durationS": 50}

    collisions = await ok(api, "POST", f"{CAR}/getCarCollisionList", mine)
    assert [(r["carNo"], r["level"], r["value"], r["limitValue"], r["direction"]) for r in collisions["records"]] == [
        (a["carNo"], 3, 3.2, 1.5, 90),
        (b["carNo"], 1, 2.0, 1.5, 180),
    ]
    graded = await ok(api, "POST", f"{CAR}/getCarCollisionList", {**mine, "level": 1})
    assert [r["carId"] for r in graded["records"]] == [b["id"]]

    [over] = (await ok(api, "POST", f"{CAR}/getCarOverloadList", mine))["records"]
    assert (over["limitValue"], over["value"], over["maxValue"], over["durationS"]) == (2000, 2500, 2800, 20)

    [warning] = (await ok(api, "POST", f"{CAR}/getCarWarningList", mine))["records"]
    assert (warning["kind"], warning["kindName"], warning["open"], warning["endTime"]) == (
        "battery_low_voltage",
        "电池低压",
        True,
        None,
    )
    assert (warning["value"], warning["limitValue"]) == (40, 44)
    assert warning["durationS"] >= int((utcnow() - (T0 + timedelta(seconds=260))).total_seconds()) - 5

    faults = (await ok(api, "POST", f"{CAR}/getCarFaultList", mine))["records"]
    assert sorted(r["code"] for r in faults) == ["BMS-CELL_OVER_VOLTAGE", "E12"]
    coded = await ok(api, "POST", f"{CAR}/getCarFaultList", {**mine, "code": "e1"})
    assert [r["code"] for r in coded["records"]] == ["E12"]

    every = await ok(api, "POST", f"{CAR}/getCarAlarmInfoList", {**mine, "carId": a["id"], "size": 3})
    assert every["total"] == 6 and every["pages"] == 2 and len(every["records"]) == 3
    assert [r["kind"] for r in every["records"]] == ["battery_low_voltage", "fault", "fault"]  # newest first
    assert every["totals"]["vehicles"] == 1
    one = await ok(api, "POST", f"{CAR}/getCarAlarmInfoList", {**mine, "kind": "collision"})
    assert {r["carId"] for r in one["records"]} == {a["id"], b["id"]}

    branch = await ok(api, "POST", f"{CAR}/getCarAlarmInfoList", {**mine, "mechanismId": w.other})
    assert {r["carId"] for r in branch["records"]} == {b["id"]}
    # another day holds none of them
    assert (
        await ok(
            api, "POST", f"{CAR}/getCarAlarmInfoList", {**mine, "startTime": "2026-05-08", "endTime": "2026-05-08"}
        )
    )["total"] == 0


async def test_export_rows_match_the_list(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    r = await api.client.get(
        f"{EXPORT}/speeding/export", params={**DAY, "carNo": w.prefix}, headers=await api.headers()
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    rows = list(load_workbook(io.BytesIO(r.content), read_only=True).active.iter_rows(values_only=True))
    assert rows[0][:4] == ("所属机构", "车辆编号", "终端设备号", "开始时间")
    assert rows[1][1:] == (
        w.cars["a"]["carNo"],
        w.cars["a"]["deviceNumber"],
        local(T0),
        local(T0 + timedelta(seconds=50)),
        10,
        14,
        16,
        50,
    )
    assert rows[2][0] == "合计" and rows[2][8] == 50 and len(rows) == 3
    # the period in the file's name (one day here: that day), so that two weeks' exports do not read alike
    assert r.headers["content-disposition"].endswith("alarms-speeding_2026-05-07.xlsx"), r.headers
    week = await api.client.get(
        f"{EXPORT}/fault/export",
        params={"startTime": "2026-05-01", "endTime": "2026-05-07"},
        headers=await api.headers(),
    )
    assert week.headers["content-disposition"].endswith("_2026-05-01_2026-05-07.xlsx"), week.headers


async def test_range_refusals_name_the_field(api: Api, tenants: Tenants) -> None:
    await world(api, tenants)
    for lang, order, week in (("zh-CN", "不能晚于", "7 天"), ("en", "must not be after", "7 days")):
        h = {"headers": {"Accept-Language": lang}}
        r = await api.post(f"{CAR}/getCarSpeedingList", json={"startTime": "2026-05-08", "endTime": "2026-05-07"}, **h)
        assert r["code"] == 400 and "startTime" in r["msg"] and order in r["msg"], r
        r = await api.post(f"{CAR}/getCarWarningList", json={"startTime": "2026-05-01", "endTime": "2026-05-08"}, **h)
        assert r["code"] == 400 and "startTime/endTime" in r["msg"] and week in r["msg"], r
        r = await api.get(f"{FAULT}/faultCarPage", params={"startTime": "2026-05-01", "endTime": "2026-05-08"}, **h)
        assert r["code"] == 400 and "startTime/endTime" in r["msg"], r
    seven = await api.post(f"{CAR}/getCarAlarmInfoList", json={"startTime": "2026-05-01", "endTime": "2026-05-07"})
    assert seven["code"] == 200


async def test_another_tenant_and_the_data_scope(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    b = {"tenant": tenants.b}
    theirs = await ok(api, "POST", f"{CAR}/getCarCollisionList", {**DAY, "carNo": w.prefix}, **b)
    assert [r["carId"] for r in theirs["records"]] == [w.cars["x"]["id"]]
    ours = await ok(api, "POST", f"{CAR}/getCarAlarmInfoList", {**DAY, "carNo": w.prefix})
    assert w.cars["x"]["id"] not in {r["carId"] for r in ours["records"]}
    assert (await ok(api, "GET", f"{FAULT}/faultCarPage", {**DAY, "carNo": w.prefix}, **b))["total"] == 0
    assert w.prefix not in str(await ok(api, "GET", f"{ABN}/getCarAbnormalPage", {"size": 200}, **b))
    foreign = await api.get(f"{ABN}/getCarAbnormalInfo", params={"carId": w.cars["a"]["id"]}, **b)
    assert foreign["code"] == 400, foreign

    menus = ("alarm_record", "alarm_abnormal", "alarm_fault")
    async with own_organisation_user(api, w.other, menus=menus) as who:
        seen = await ok(api, "POST", f"{CAR}/getCarAlarmInfoList", {**DAY, "carNo": w.prefix}, **who)
        assert {r["carId"] for r in seen["records"]} == {w.cars["b"]["id"]}
        wider = await ok(api, "POST", f"{CAR}/getCarAlarmInfoList", {**DAY, "mechanismId": w.parent}, **who)
        assert wider["total"] == 0
        assert w.prefix not in str(await ok(api, "GET", f"{ABN}/getCarAbnormalPage", {"size": 200}, **who))
        refused = await api.client.get(f"{EXPORT}/all/export", params=DAY, headers=await api.headers(**who))
        assert refused.json()["code"] == 403  # reading, not the export button
    async with own_organisation_user(api, w.other, menus=()) as who:
        r = await api.post(f"{CAR}/getCarAlarmInfoList", json=DAY, **who)
        assert r["code"] == 403, r
        r = await api.get(f"{FAULT}/tree", params=DAY, **who)
        assert r["code"] == 403, r


async def test_abnormal_vehicles(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    a, c = w.cars["a"], w.cars["c"]
    first = await ok(api, "GET", f"{ABN}/getIsFirstOpenCarAbnormalInfo", {})
    page = await ok(api, "GET", f"{ABN}/getCarAbnormalPage", {"carNo": w.prefix})
    assert {r["carId"]: r["reasons"] for r in page["records"]} == {
        a["id"]: ["battery", "fault"],
        c["id"]: ["never_reported"],
    }
    assert first["count"] >= 2
    battery = await ok(api, "GET", f"{ABN}/getCarAbnormalPage", {"carNo": w.prefix, "reason": "battery"})
    assert [r["carId"] for r in battery["records"]] == [a["id"]]

    info = await ok(api, "GET", f"{ABN}/getCarAbnormalInfo", {"carId": a["id"]})
    assert info["faultCodes"] == ["BMS-CELL_OVER_VOLTAGE", "E12"]
    # the two fault codes are episodes still open (each until a report's list leaves it out), and the low voltage
    assert sorted((o["kind"], o["value"], o["limitValue"]) for o in info["openAlarms"]) == [
        ("battery_low_voltage", 40, 44),
        ("fault", 0, None),
        ("fault", 0, None),
    ]
    assert [(k["reason"], k["since"]) for k in info["conditions"]] == [
        ("battery", local(T0 + timedelta(seconds=260))),
        ("fault", local(T0 + timedelta(seconds=260))),
    ]
    normal = await ok(api, "GET", f"{ABN}/getCarAbnormalInfo", {"carId": w.cars["b"]["id"]})
    assert normal["reasons"] == [] and normal["openAlarms"] == []

    # b's terminal silent for days (its offline alarm open, as telemetry.jobs.mark_offline writes it) and its clock
    # wrong: both conditions, from the state alone
    b_id, begin = int(w.cars["b"]["id"]), T0 + timedelta(days=7)
    offline = json.dumps({"offline": {"id": "1", "begin": begin.isoformat(), "value": 7, "max": 7}})
    state = (VehicleState.vehicle_id == b_id) & (VehicleState.tenant_id == "000000")
    async with api.db.sessionmaker() as s:
        await s.execute(update(VehicleState).where(state).values(open_events=offline, clock_fault_time=T0))
        await s.commit()
    try:
        odd = await ok(api, "GET", f"{ABN}/getCarAbnormalInfo", {"carId": b_id})
        assert [(k["reason"], k["reasonName"]) for k in odd["conditions"]] == [
            ("offline", "长时间离线"),
            ("clock_fault", "终端时钟异常"),
        ]
        assert odd["conditions"][0]["since"] == local(begin)
        clock = await ok(api, "GET", f"{ABN}/getCarAbnormalPage", {"carNo": w.prefix, "reason": "clock_fault"})
        assert [r["carId"] for r in clock["records"]] == [w.cars["b"]["id"]]
    finally:
        async with api.db.sessionmaker() as s:
            await s.execute(update(VehicleState).where(state).values(open_events="{}", clock_fault_time=None))
            await s.commit()

    tree = await ok(api, "GET", f"{ABN}/getCarAbnormalTree", {})
    found = {}

    def walk(nodes: list[dict[str, Any]]) -> None:
        for n in nodes:
            found[n["id"]] = n["count"]
            walk(n["children"])

    walk(tree)
    assert found[w.parent] == 2 and w.other not in found

    # the full list opened: seen; the flag is down until the list changes
    await ok(api, "GET", f"{ABN}/getCarAbnormalPage", {})
    assert (await ok(api, "GET", f"{ABN}/getIsFirstOpenCarAbnormalInfo", {}))["first"] is False
    async with api.db.sessionmaker() as s:
        await s.execute(update(Vehicle).where(Vehicle.id == int(c["id"])).values(create_time=utcnow()))
        await s.commit()
    assert (await ok(api, "GET", f"{ABN}/getIsFirstOpenCarAbnormalInfo", {}))["first"] is True
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(Vehicle).where(Vehicle.id == int(c["id"])).values(create_time=utcnow() - timedelta(days=8))
        )
        await s.commit()


async def test_fault_codes_by_vehicle_and_by_type(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    a = w.cars["a"]
    q = {**DAY, "carNo": w.prefix}
    cars = await ok(api, "GET", f"{FAULT}/faultCarPage", q)
    assert cars["total"] == 1
    [row] = cars["records"]
    assert (row["carId"], row["count"], row["codes"], row["active"]) == (
        a["id"],
        2,
        "BMS-CELL_OVER_VOLTAGE, E12",
        "BMS-CELL_OVER_VOLTAGE, E12",
    )
    assert row["lastTime"] == local(T0 + timedelta(seconds=240))
    types = await ok(api, "GET", f"{FAULT}/faultTypePage", q)
    assert [(t["code"], t["faultType"], t["count"], t["cars"], t["activeCars"]) for t in types["records"]] == [
        ("BMS-CELL_OVER_VOLTAGE", "BMS", 1, 1, 1),
        ("E12", "other", 1, 1, 1),
    ]
    bms = await ok(api, "GET", f"{FAULT}/faultTypePage", {**q, "faultType": "BMS"})
    assert [t["code"] for t in bms["records"]] == ["BMS-CELL_OVER_VOLTAGE"]
    tree = await ok(api, "GET", f"{FAULT}/tree", q)
    assert [(n["key"], n["count"], [c["title"] for c in n["children"]]) for n in tree] == [
        ("BMS", 1, ["BMS-CELL_OVER_VOLTAGE"]),
        ("other", 1, ["E12"]),
    ]
    r = await api.client.get(f"{FAULT}/export", params={**q, "by": "type"}, headers=await api.headers())
    rows = list(load_workbook(io.BytesIO(r.content), read_only=True).active.iter_rows(values_only=True))
    assert rows[0][0] == "故障类型" and [x[1] for x in rows[1:]] == ["BMS-CELL_OVER_VOLTAGE", "E12"]
    r = await api.client.get(f"{FAULT}/export", params=q, headers=await api.headers())
    rows = list(load_workbook(io.BytesIO(r.content), read_only=True).active.iter_rows(values_only=True))
    assert [x[1] for x in rows[1:]] == [a["carNo"]]
