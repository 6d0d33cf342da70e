"""The face recognition log and the driver behaviour analysis over real pipeline data (both databases).

The world: organisations P and O of tenant 000000 and the other tenant B; T0 = 2026-05-07 09:00 local.

=====  ====  ==========================================================================================
car    org   what its driver camera sent
=====  ====  ==========================================================================================
a      P     T0 face matched (96 %, driver D's card), T0+60 no match (40 %), next day T0+1d no face; behaviour
             alarms: fatigue at T0, phone x2 at T0+10 and T0+1d (level 2), smoking at T0+2d
b      O     T0 face matched (90 %); a distraction alarm at T0
x      (B)   T0 face matched; a fatigue alarm at T0
=====  ====  ==========================================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from liftdesk.core.bus import LocalBus
from liftdesk.telemetry.messages import Behavior, FaceSeen, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants, own_organisation_user, seed_ids
from tests.reporting.test_alarms import _car, _dept
from tests.telemetry.driver_fixtures import add_driver

LOG = "/api/blade-fics/faceRecognitionLog/page"
B = "/api/blade-fics/fics/driverBehaviorAnalysis"
T0 = datetime(2026, 5, 7, 1, 0, 0)
DAY = timedelta(days=1)
RANGE = {"startTime": "2026-05-07", "endTime": "2026-05-09"}


@dataclass
class World:
    prefix: str
    parent: str
    other: str
    cars: dict[str, dict[str, Any]]
    driver: dict[str, Any]


_WORLDS: dict[str, World] = {}


def face(at: datetime, result: int, similarity: float, card: str | None = None) -> FaceSeen:
    return FaceSeen(at, result, similarity, card, 2, f"face/{int(at.timestamp())}.jpg")


async def world(api: Api, tenants: Tenants) -> World:
    if api.backend in _WORLDS:
        return _WORLDS[api.backend]
    root = (await seed_ids(api))["dept"]
    parent, other = await _dept(api, "VP ", root), await _dept(api, "VO ", root)
    prefix = api.unique("VIS")
    cars = {
        "a": await _car(api, f"{prefix}-A", parent),
        "b": await _car(api, f"{prefix}-B", other),
        "x": await _car(api, f"{prefix}-X", None, tenant=tenants.b),
    }
    driver = await add_driver(api.db, vehicles=(int(cars["a"]["id"]),), name=api.unique("人脸司机"))
    items: dict[str, tuple[FaceSeen | Behavior, ...]] = {
        "a": (
            face(T0, 0, 96.0, driver["serial"]),
            face(T0 + timedelta(seconds=60), 1, 40.0),
            face(T0 + DAY, 2, 0.0),
            Behavior(T0, "dms_fatigue"),
            Behavior(T0 + timedelta(seconds=10), "dms_phone"),
            Behavior(T0 + DAY, "dms_phone", 2),
            Behavior(T0 + 2 * DAY, "dms_smoking"),
        ),
        "b": (face(T0, 0, 90.0), Behavior(T0, "dms_distraction")),
        "x": (face(T0, 0, 99.0), Behavior(T0, "dms_fatigue")),
    }
    pipeline = Pipeline(api.db, LocalBus())
    for key, seen in items.items():
        await pipeline.process([Report(cars[key]["deviceNumber"], (), T0, vision=seen)])
    _WORLDS[api.backend] = World(prefix, parent, other, cars, driver)
    return _WORLDS[api.backend]


async def ok(api: Api, method: str, path: str, data: dict[str, Any], **kw: Any) -> Any:
    r = await (api.get(path, params=data, **kw) if method == "GET" else api.post(path, json=data, **kw))
    assert r["code"] == 200, (path, r)
    return r["data"]


async def test_the_face_log_lists_the_comparisons_with_its_filters(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    a, b = w.cars["a"], w.cars["b"]
    page = await ok(api, "GET", LOG, {"carNo": w.prefix, "size": 50})
    assert page["total"] == 4, "tenant B's comparison is not listed"
    first = page["records"][0]  # newest first
    assert (first["carNo"], first["resultName"], first["deviceTime"]) == (a["carNo"], "无人脸", "2026-05-08 09:00:00")
    matched = await ok(api, "GET", LOG, {"carId": a["id"], "result": 0})
    [row] = matched["records"]
    assert (row["driverId"], row["driverName"], row["similarity"]) == (str(w.driver["id"]), w.driver["name"], 96.0)
    assert (row["triggerName"], row["photo"], row["cardSerial"]) == ("刷卡", "face/1778115600.jpg", w.driver["serial"])
    by_driver = await ok(api, "GET", LOG, {"driverId": str(w.driver["id"])})
    assert [r["id"] for r in by_driver["records"]] == [row["id"]]
    day = await ok(api, "GET", LOG, {"carNo": w.prefix, "startTime": "2026-05-07", "endTime": "2026-05-07"})
    assert day["total"] == 3
    branch = await ok(api, "GET", LOG, {"mechanismId": w.other, "carNo": w.prefix})
    assert [r["carId"] for r in branch["records"]] == [b["id"]]
    en = await api.get(
        LOG, params={"startTime": "2026-05-09", "endTime": "2026-05-07"}, headers={"Accept-Language": "en"}
    )
    assert en["code"] == 400 and "startTime" in en["msg"] and "must not be after" in en["msg"], en
    bad = await api.get(LOG, params={"carId": "abc"})
    assert bad["code"] == 400 and "carId" in bad["msg"], bad
    other = await ok(api, "GET", LOG, {"carNo": w.prefix}, tenant=tenants.b)
    assert [r["carId"] for r in other["records"]] == [w.cars["x"]["id"]], "another tenant sees its own only"


async def test_the_analysis_counts_alarms_by_type_and_day(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    counts = await ok(api, "POST", f"{B}/getFaceAlarmTypeCount", {**RANGE, "carNo": w.prefix})
    by_type = {c["type"]: c["count"] for c in counts}
    assert by_type == {
        "fatigue": 1,
        "phone": 2,
        "smoking": 1,
        "distraction": 1,
        "no_face": 0,
        "camera_blocked": 0,
        "face_mismatch": 0,
    }
    assert {c["type"]: c["typeName"] for c in counts}["phone"] == "接打电话"
    one = await ok(api, "POST", f"{B}/getFaceAlarmTypeCount", {**RANGE, "carId": w.cars["b"]["id"]})
    assert sum(c["count"] for c in one) == 1
    trend = await ok(api, "POST", f"{B}/getFaceAlarmTypeCountTrend", {**RANGE, "mechanismId": w.parent})
    assert [(d["day"], d["total"]) for d in trend] == [("2026-05-07", 2), ("2026-05-08", 1), ("2026-05-09", 1)]
    assert {c["type"]: c["count"] for c in trend[1]["counts"]}["phone"] == 1
    b_side = await ok(api, "POST", f"{B}/getFaceAlarmTypeCount", {**RANGE}, tenant=tenants.b)
    assert {c["type"]: c["count"] for c in b_side}["fatigue"] == 1, "tenant B counts its own"
    assert {c["type"]: c["count"] for c in b_side}["phone"] == 0

    for path in ("getFaceAlarmTypeCount", "getFaceAlarmTypeCountTrend"):
        order = await api.post(f"{B}/{path}", json={"startTime": "2026-05-09", "endTime": "2026-05-07"})
        assert order["code"] == 400 and "startTime" in order["msg"], order
        long = await api.post(
            f"{B}/{path}", json={"startTime": "2026-03-01", "endTime": "2026-05-07"}, headers={"Accept-Language": "en"}
        )
        assert long["code"] == 400 and "startTime/endTime" in long["msg"] and "31 days" in long["msg"], long
        bad = await api.post(f"{B}/{path}", json={"startTime": "2026-13-01"})
        assert bad["code"] == 400 and "startTime" in bad["msg"], bad


async def test_a_user_of_one_organisation_sees_its_vehicles_only(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    menus = ("face_log", "driver_behavior")
    async with own_organisation_user(api, w.other, menus=menus) as who:
        seen = await ok(api, "GET", LOG, {"carNo": w.prefix}, **who)
        assert {r["carId"] for r in seen["records"]} == {w.cars["b"]["id"]}
        counts = await ok(api, "POST", f"{B}/getFaceAlarmTypeCount", {**RANGE, "carNo": w.prefix}, **who)
        assert sum(c["count"] for c in counts) == 1
    async with own_organisation_user(api, w.other, menus=()) as who:
        assert (await api.get(LOG, params={}, **who))["code"] == 403
        assert (await api.post(f"{B}/getFaceAlarmTypeCount", json={}, **who))["code"] == 403
