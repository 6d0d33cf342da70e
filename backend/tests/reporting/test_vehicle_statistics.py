"""The vehicles' statistics and efficiency from the daily aggregates the pipeline wrote for simulated days.

Three lithium forklifts (type 4) of one new organisation P and a diesel one, on 2026-05-07 from 09:00 local, a report
every 10 s: ``a`` moves 60 minutes, ``b`` 10 minutes, ``c`` never reports (registered only); ``d`` (diesel) moves 20
minutes and hits something (3 g over its 1.5 g limit). Another tenant's forklift moves 60 minutes too. The figures
below are checked against the vehicle's own run history (``carStatus/getStageCnt``, the same aggregates read one
vehicle at a time) and against the workload rule: type 4's mean work is (60 + 10 + 0) / 3 minutes, so ``a`` works
more than twice it (overloaded), ``b`` at most half (unsaturated), ``c`` not at all (unused).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from liftdesk.core.bus import LocalBus
from liftdesk.telemetry.messages import STATUS_ACC, STATUS_FIX, Fix, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants, seed_ids

F = "/api/blade-fics-report/fics"
CAR = f"{F}/carInfo"
T0 = datetime(2026, 5, 7, 1, 0, 0)
DAY = {"startTime": "2026-05-07", "endTime": "2026-05-07"}
ON = STATUS_ACC | STATUS_FIX
_WORLDS: dict[str, tuple[str, str, dict[str, Any]]] = {}


def moving(minutes: int, **kw: Any) -> list[Fix]:
    out = [
        Fix(time=T0 + timedelta(seconds=10 * i), lat=31.2 + i * 1e-4, lon=121.5, speed_kmh=8.0, status=ON)
        for i in range(minutes * 6)
    ]
    # ACC off at the end: the last sample does not hold past it
    out.append(Fix(time=T0 + timedelta(seconds=60 * minutes), lat=out[-1].lat, lon=121.5, status=STATUS_FIX, **kw))
    return out


async def world(api: Api, tenants: Tenants) -> tuple[str, str, dict[str, Any]]:
    if api.backend in _WORLDS:
        return _WORLDS[api.backend]
    root = (await seed_ids(api))["dept"]
    r = await api.post(
        "/api/blade-system/dept/submit",
        json={"deptName": api.unique("SP "), "parentId": root, "deptCategory": 2, "sort": 1},
    )
    dept = str(r["data"]["id"])
    prefix = api.unique("ST")
    cars: dict[str, Any] = {}
    for key, car_type, tenant in (
        ("a", 4, "000000"),
        ("b", 4, "000000"),
        ("c", 4, "000000"),
        ("d", 0, "000000"),
        ("x", 4, tenants.b),
    ):
        body: dict[str, Any] = {
            "carNo": f"{prefix}-{key}",
            "carType": car_type,
            "deviceNumber": f"5{api.counter:03d}{abs(hash(api.unique())) % 10**8:08d}",
            "collisionThresholdG": 1.5,
        }
        if tenant == "000000":
            body["mechanismId"] = dept
        made = await api.post(f"{CAR}/insertCarInfo", json=body, tenant=tenant)
        assert made["code"] == 200, made
        cars[key] = made["data"]
    pipeline = Pipeline(api.db, LocalBus())
    impact = Fix(time=T0 + timedelta(seconds=600), lat=31.3, lon=121.5, status=ON, impact_g=3.0)
    for key, fixes in (("a", moving(60)), ("b", moving(10)), ("d", [*moving(20)[:60], impact]), ("x", moving(60))):
        for n in range(0, len(fixes), 120):
            chunk = tuple(fixes[n : n + 120])
            await pipeline.process([Report(device=cars[key]["deviceNumber"], fixes=chunk, received_at=chunk[0].time)])
    _WORLDS[api.backend] = (prefix, dept, cars)
    return _WORLDS[api.backend]


async def ok(api: Api, method: str, path: str, data: dict[str, Any], **kw: Any) -> Any:
    r = await (api.get(path, params=data, **kw) if method == "GET" else api.post(path, json=data, **kw))
    assert r["code"] == 200, (path, r)
    return r["data"]


async def test_statistics_list_matches_each_vehicles_history(api: Api, tenants: Tenants) -> None:
    prefix, _dept, cars = await world(api, tenants)
    page = await ok(api, "POST", f"{CAR}/getCarStatisticsList", {**DAY, "carNo": prefix, "size": 10})
    rows = {r["carNo"]: r for r in page["records"]}
    assert page["total"] == 4 and set(rows) == {f"{prefix}-{k}" for k in "abcd"}
    for key in "abcd":
        row = rows[f"{prefix}-{key}"]
        history = await ok(api, "GET", f"{F}/carStatus/getStageCnt", {"carId": cars[key]["id"], **DAY})
        day = history["days"][0]
        for mine, theirs in (("bootHours", "bootHours"), ("workHours", "workHours"), ("moveHours", "moveHours")):
            assert row[mine] == day[theirs], (key, mine)
        assert row["distanceKm"] == day["distanceKm"] and row["alarms"] == day["alarms"]
        assert row["daysUsed"] == (0 if key == "c" else 1)
    a, c, d = rows[f"{prefix}-a"], rows[f"{prefix}-c"], rows[f"{prefix}-d"]
    assert 0.99 <= a["bootHours"] <= 1.0 and a["workEfficiency"] == 100.0 and a["distanceKm"] > 3.9
    assert c["bootHours"] == 0.0 and c["workEfficiency"] == 0.0
    assert d["collisions"] == 1 and d["alarms"] == 1 and d["carTypeName"] == "柴油内燃叉车" and d["mechanismName"]
    totals = page["totals"]
    assert totals["vehicles"] == 4 and totals["collisions"] == 1
    assert abs(totals["bootHours"] - sum(r["bootHours"] for r in rows.values())) < 0.03
    one = await ok(api, "POST", f"{CAR}/getCarStatisticsList", {**DAY, "carNo": prefix, "carType": 0})
    assert [r["carNo"] for r in one["records"]] == [d["carNo"]]
    # another tenant's vehicle is not in ours, and the other tenant sees none of ours
    theirs = await ok(api, "POST", f"{CAR}/getCarStatisticsList", {**DAY, "carNo": prefix}, tenant=tenants.b)
    assert [r["carNo"] for r in theirs["records"]] == [f"{prefix}-x"]
    long = await api.post(f"{CAR}/getCarStatisticsList", json={"startTime": "2026-01-01", "endTime": "2026-03-01"})
    assert long["code"] == 400 and "startTime" in long["msg"]


async def test_one_vehicles_efficiency_against_its_peers(api: Api, tenants: Tenants) -> None:
    _prefix, dept, cars = await world(api, tenants)
    week = {"startTime": "2026-05-04", "endTime": "2026-05-10", "mechanismId": dept}
    a = await ok(api, "GET", f"{CAR}/getCarEfficiencyInfo", {"carId": cars["a"]["id"], **week})
    assert [d["day"] for d in a["days"]] == [f"2026-05-{n:02d}" for n in range(4, 11)]
    thursday = a["days"][3]
    assert thursday["day"] == "2026-05-07" and thursday["workEfficiency"] == 100.0 and thursday["bootHours"] > 0.99
    assert a["totals"]["workHours"] == thursday["workHours"] and a["carTypeName"] == "锂电电动叉车"
    # its peers: the lithium forklifts of the organisation (a, b, c); their mean is (60 + 10 + 0) / 3 minutes
    assert a["peers"] == 3 and abs(a["peerWorkHours"] - (a["totals"]["workHours"] + 10 / 60) / 3) < 0.02
    assert 2.4 < a["workloadRatio"] < 2.7 and a["workloadBand"] == "overloaded"
    b = await ok(api, "GET", f"{CAR}/getCarEfficiencyInfo", {"carId": cars["b"]["id"], **week})
    assert 0.4 < b["workloadRatio"] < 0.5 and b["workloadBand"] == "unsaturated"
    # without an organisation: every lithium forklift of the tenant (other tests' too) is a peer
    wide = await ok(
        api,
        "GET",
        f"{CAR}/getCarEfficiencyInfo",
        {"carId": cars["a"]["id"], "startTime": "2026-05-07", "endTime": "2026-05-07"},
    )
    assert wide["peers"] >= 3
    c = await ok(api, "GET", f"{CAR}/getCarEfficiencyInfo", {"carId": cars["c"]["id"], **week})
    assert c["workloadBand"] == "unused" and c["totals"]["bootHours"] == 0
    stolen = await api.get(f"{CAR}/getCarEfficiencyInfo", params={"carId": cars["a"]["id"]}, tenant=tenants.b)
    assert stolen["success"] is False
    backwards = {"carId": cars["a"]["id"], "startTime": week["endTime"], "endTime": week["startTime"]}
    backwards = await api.get(f"{CAR}/getCarEfficiencyInfo", params=backwards)
    assert backwards["code"] == 400 and "startTime" in backwards["msg"]


async def test_fleet_efficiency_by_type_with_workload_bands(api: Api, tenants: Tenants) -> None:
    prefix, dept, _cars = await world(api, tenants)
    stats = await ok(api, "POST", f"{CAR}/getCarEfficiencyReportStatistics", {**DAY, "mechanismId": dept})
    assert stats["vehicles"] == 4 and stats["workingVehicles"] == 3
    by_type = {t["carType"]: t for t in stats["byType"]}
    lithium, diesel = by_type[4], by_type[0]
    assert (lithium["vehicles"], lithium["overloaded"], lithium["normal"], lithium["unsaturated"]) == (3, 1, 0, 1)
    assert lithium["unused"] == 1 and lithium["workingVehicles"] == 2
    assert abs(lithium["averageWorkHours"] - lithium["workHours"] / 3) < 0.01
    assert (diesel["vehicles"], diesel["normal"], diesel["carTypeName"]) == (1, 1, "柴油内燃叉车")
    assert abs(stats["workHours"] - lithium["workHours"] - diesel["workHours"]) < 0.02
    # a row of the efficiency report is the same vehicle's figure
    report = await ok(
        api, "POST", f"{F}/intelligentReport/getCarWorkEfficiencyList", {**DAY, "mechanismId": dept, "size": 10}
    )
    assert abs(sum(r["cumulativeBootTime"] for r in report["records"]) - stats["bootHours"]) < 0.03
    theirs = await ok(
        api, "POST", f"{CAR}/getCarEfficiencyReportStatistics", {**DAY, "carNo": prefix}, tenant=tenants.b
    )
    assert theirs["vehicles"] == 1 and theirs["byType"][0]["carType"] == 4
