"""The fleet home page's calls (``carHome``) over a fleet built through the app's own paths: vehicles through
``insertCarInfo``, their positions through the HTTP ingest (the pipeline: states, events, daily aggregates), their
terminals through the terminal service (``ensure``, ``set_online``), as the gateway and the MQTT adapter do.

The world (per database): organisations P (under the root), C (under P) and O (under the root) of tenant 000000,
and the other tenant B.

=====  ====  ====  ========  ===========================================================================
car    org   type  terminal  what it did
=====  ====  ====  ========  ===========================================================================
p1     P     3     mqtt      two days ago and yesterday at noon (ACC on, 10 s); today at T speeding (open)
p2     P     5     none      no terminal
c1     C     4     mqtt      today: an impact of 3 g at T+20 s, a low battery (40 V, 10 %) at T+30 s (open)
c2     C     4     jt808     three days ago at noon (ACC on, 10 s); its terminal went away three days ago
c3     C     4     (none)    never heard from
o1     O     3     (none)    connected ten days ago and went away then
x1     (B)   3     (none)    today: an impact at T
=====  ====  ====  ========  ===========================================================================

Every figure below follows from that table; the hours and days of the trend from the fixes' own times.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from liftdesk.app import create_app
from liftdesk.core.config import Settings
from liftdesk.core.db import utcnow
from liftdesk.core.schemas import tenant_zone
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import Known, TerminalService
from tests.conftest import Api, Tenants, own_organisation_user, seed_ids

HOME = "/api/blade-fics-report/fics/carHome"
OVERVIEW = f"{HOME}/getCarHomeOnlineStatic"
OPEN_SUM = f"{HOME}/getCarHomeOpenSum"
TREND = f"{HOME}/getFleetEquipmentOonLineTrends"
OFFLINE = f"{HOME}/getOfflineAnalysisFleetEquipment"
OFF_LIST = f"{HOME}/getTerminalOffListInfo"
TERMINALS = f"{HOME}/getTerminalSelectInfo"
DICTS = f"{HOME}/getCarDictionariesList"
BY_TYPE = f"{HOME}/getCarVehicleAssetClassification"
BY_ORG = f"{HOME}/getCarHomeCodeOnLineList"
ALARMS = f"{HOME}/getCarHomeWarringStatic"
BATTERY = f"{HOME}/getCarHomeBatteryWarringStatic"
RECENT = f"{HOME}/getCarHomeCarWarringStaticList"
GETS = (OVERVIEW, OPEN_SUM, TERMINALS, BY_TYPE, BY_ORG, ALARMS, BATTERY, RECENT)
POSTS = (TREND, OFFLINE, OFF_LIST)


@pytest.fixture(scope="module")
async def served(api: Api, database: tuple[str, str], tmp_root: Path) -> AsyncIterator[tuple[FastAPI, Api]]:
    """An app with its pipeline (the HTTP ingest needs one) and a client on it that signs in like ``api``."""
    settings = Settings(database_url=database[1], env="test", web_dir=tmp_root / "no-web", var_dir=tmp_root / "var")
    app = create_app(settings, db=api.db)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        yield app, Api(client=client, db=api.db, backend=api.backend, tokens=api.tokens)
    await app.state.services.get(Pipeline).stop()


@dataclass
class World:
    parent: str
    child: str
    other: str
    prefix: str
    cars: dict[str, dict[str, Any]]
    day: date  # the local day of T (today, unless the test began in the first minutes of a day)
    fixes: dict[str, list[datetime]]  # the fixes' times (UTC) of each car


_WORLDS: dict[str, World] = {}


def local(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC).astimezone(tenant_zone()).replace(tzinfo=None)


def noon(day: date) -> datetime:
    """Local noon of ``day``, in UTC."""
    offset = tenant_zone().utcoffset(None) or timedelta()
    return datetime.combine(day, time(12)) - offset


def ms(moment: datetime) -> int:
    return int(moment.replace(tzinfo=UTC).timestamp() * 1000)


async def _dept(api: Api, name: str, parent: str) -> str:
    r = await api.post(
        "/api/blade-system/dept/submit",
        json={"deptName": api.unique(name), "parentId": parent, "deptCategory": 2, "sort": 1},
    )
    assert r["code"] == 200, r
    ident: str = r["data"]["id"]
    return ident


async def _car(
    api: Api, number: str, org: str | None, car_type: int, *, device: bool = True, tenant: str = "000000"
) -> Any:
    payload: dict[str, Any] = {"carNo": number, "carType": car_type}
    if device:
        payload["deviceNumber"] = str(10**11 + uuid.uuid4().int % 10**11)
    if org is not None:
        payload["mechanismId"] = org
    r = await api.post("/api/blade-fics-report/fics/carInfo/insertCarInfo", json=payload, tenant=tenant)
    assert r["code"] == 200, r
    return r["data"]


async def _ingest(api: Api, car: dict[str, Any], fixes: list[dict[str, Any]], tenant: str = "000000") -> None:
    body = {"device": car["deviceNumber"], "fixes": [{"lat": 31.2, "lon": 121.5, **f} for f in fixes]}
    r = await api.post("/api/liftdesk/ingest", json=body, tenant=tenant)
    assert r["code"] == 200, r


def _known(car: dict[str, Any]) -> Known:
    return Known(car["deviceNumber"], car["tenantId"], int(car["id"]))


async def world(served: tuple[FastAPI, Api], tenants: Tenants) -> World:
    app, api = served
    if api.backend in _WORLDS:
        return _WORLDS[api.backend]
    root = (await seed_ids(api))["dept"]
    parent = await _dept(api, "HP ", root)
    child = await _dept(api, "HC ", parent)
    other = await _dept(api, "HO ", root)
    prefix = api.unique("HOME")
    cars = {
        "p1": await _car(api, f"{prefix}-P1", parent, 3),
        "p2": await _car(api, f"{prefix}-P2", parent, 5, device=False),
        "c1": await _car(api, f"{prefix}-C1", child, 4),
        "c2": await _car(api, f"{prefix}-C2", child, 4),
        "c3": await _car(api, f"{prefix}-C3", child, 4),
        "o1": await _car(api, f"{prefix}-O1", other, 3),
        "x1": await _car(api, f"{prefix}-X1", None, 3, tenant=tenants.b),
    }
    now = utcnow()
    t = now - timedelta(seconds=150)
    if local(t).date() != local(t + timedelta(seconds=40)).date():
        t -= timedelta(seconds=60)  # all of today's fixes on one local day
    day = local(t).date()
    s10 = timedelta(seconds=10)
    terminals: TerminalService = app.state.services.get(TerminalService)
    for name in ("p1", "c1"):
        await terminals.ensure(_known(cars[name]), "mqtt")
    await terminals.ensure(_known(cars["c2"]), "jt808")
    before, yesterday = noon(day - timedelta(days=2)), noon(day - timedelta(days=1))
    fixes = {
        "p1": [before, before + s10, yesterday, yesterday + s10, t, t + s10],
        "c1": [t + 2 * s10, t + 3 * s10],
        "c2": [noon(day - timedelta(days=3)), noon(day - timedelta(days=3)) + s10],
        "x1": [t, t + s10],
    }
    await _ingest(
        api,
        cars["p1"],
        [{"time": ms(m)} for m in fixes["p1"][:4]] + [{"time": ms(m), "speed": 20.0} for m in fixes["p1"][4:]],
    )
    await _ingest(
        api,
        cars["c1"],
        [
            {"time": ms(fixes["c1"][0]), "impactG": 3.0},
            {"time": ms(fixes["c1"][1]), "battery": {"socPct": 10, "voltageV": 40}},
        ],
    )
    await _ingest(api, cars["c2"], [{"time": ms(m)} for m in fixes["c2"]])
    x1: list[dict[str, Any]] = [{"time": ms(fixes["x1"][0]), "impactG": 3.0}, {"time": ms(fixes["x1"][1])}]
    await _ingest(api, cars["x1"], x1, tenants.b)
    await terminals.set_online(cars["c2"]["deviceNumber"], False, when=now - timedelta(days=3))
    await terminals.set_online(cars["o1"]["deviceNumber"], True, when=now - timedelta(days=10))
    await terminals.set_online(cars["o1"]["deviceNumber"], False, when=now - timedelta(days=10))
    _WORLDS[api.backend] = World(parent, child, other, prefix, cars, day, fixes)
    return _WORLDS[api.backend]


async def ok(api: Api, method: str, path: str, args: dict[str, Any], **kw: Any) -> Any:
    if method == "GET":
        r = await api.get(path, params=args, **kw)
    else:
        r = await api.post(path, json=args, **kw)
    assert r["_status"] == 200 and r["code"] == 200, r
    return r["data"]


async def test_overview_counts_the_fleet_now(served: tuple[FastAPI, Api], tenants: Tenants) -> None:
    w = await world(served, tenants)
    _, api = served
    assert await ok(api, "GET", OVERVIEW, {"deptId": w.parent}) == {
        "total": 5,  # p1 p2 c1 c2 c3
        "online": 2,  # p1 c1
        "offline": 3,
        "poweredOn": 2,
        "idle": 1,  # c1 stands
        "moving": 1,  # p1 at 20 km/h
        "loaded": 0,
        "inAlarm": 2,  # p1 speeding, c1 low battery
        "withTerminal": 4,  # not p2
        "terminalOffline": 2,  # c2 c3
        "onlineRate": 40.0,
        "poweredOnRate": 40.0,
    }
    child = await ok(api, "GET", OVERVIEW, {"deptId": w.child})
    assert (child["total"], child["online"], child["terminalOffline"], child["inAlarm"]) == (3, 1, 2, 1)
    other = await ok(api, "GET", OVERVIEW, {"deptId": w.other})
    assert (other["total"], other["online"], other["terminalOffline"]) == (1, 0, 1)


async def test_online_trend_by_hour_and_by_day(served: tuple[FastAPI, Api], tenants: Tenants) -> None:
    w = await world(served, tenants)
    _, api = served
    d = w.day.isoformat()
    hourly = await ok(api, "POST", TREND, {"deptId": w.parent, "startTime": d, "endTime": d})
    assert hourly["unit"] == "hour" and hourly["total"] == 5
    expected: dict[str, set[str]] = {}
    for name in ("p1", "c1"):
        for moment in w.fixes[name]:
            if local(moment).date() == w.day:
                expected.setdefault(f"{d} {local(moment).hour:02d}:00", set()).add(name)
    points = {p["time"]: p for p in hourly["points"]}
    assert hourly["points"][0]["time"] == f"{d} 00:00" and set(expected) <= set(points)
    assert {k: p["online"] for k, p in points.items() if p["online"]} == {k: len(v) for k, v in expected.items()}
    assert all(p["poweredOn"] is None for p in hourly["points"])
    if w.day == local(utcnow()).date():  # today: up to the current hour
        assert len(hourly["points"]) == local(utcnow()).hour + 1
    # no range: today's hours
    default = await ok(api, "POST", TREND, {"deptId": w.parent})
    assert default["unit"] == "hour" and len(default["points"]) == local(utcnow()).hour + 1
    # a range of days: vehicles that sent a position, and vehicles with ACC on, each day
    first = (w.day - timedelta(days=3)).isoformat()
    daily = await ok(api, "POST", TREND, {"deptId": w.parent, "startTime": first, "endTime": d})
    assert daily["unit"] == "day"
    assert [(p["time"], p["online"], p["poweredOn"]) for p in daily["points"]] == [
        (first, 1, 1),  # c2
        ((w.day - timedelta(days=2)).isoformat(), 1, 1),  # p1
        ((w.day - timedelta(days=1)).isoformat(), 1, 1),  # p1
        (d, 2, 2),  # p1 c1
    ]
    child = await ok(api, "POST", TREND, {"deptId": w.child, "startTime": first, "endTime": d})
    assert [p["online"] for p in child["points"]] == [1, 0, 0, 1]


async def test_use_of_the_day(served: tuple[FastAPI, Api], tenants: Tenants) -> None:
    w = await world(served, tenants)
    _, api = served
    d = w.day.isoformat()
    today = await ok(api, "GET", OPEN_SUM, {"deptId": w.parent, "startTime": d, "endTime": d})
    assert today["startTime"] == today["endTime"] == d
    assert (today["poweredOnVehicles"], today["workingVehicles"]) == (2, 1)  # c1 stood: no work
    assert today["bootHours"] == 0.01  # 20 s
    assert today["utilisation"] == 50.0  # p1's 10 s moving of 20 s
    first = (w.day - timedelta(days=3)).isoformat()
    span = await ok(api, "GET", OPEN_SUM, {"deptId": w.parent, "startTime": first, "endTime": d})
    # a fix holds its state until the next one, at most 120 s (gap cap): p1 10 + 120 + 10 + 120 + 10, c1 10, c2 10
    assert span["poweredOnVehicles"] == 3 and span["bootHours"] == round(290 / 3600, 2)


async def test_offline_analysis_and_list(served: tuple[FastAPI, Api], tenants: Tenants) -> None:
    w = await world(served, tenants)
    _, api = served
    assert await ok(api, "POST", OFFLINE, {"deptId": w.parent}) == {
        "withTerminal": 4,
        "noTerminal": 1,
        "online": 2,
        "offline": 2,
        "neverSeen": 1,  # c3
        "underOneDay": 0,
        "oneToSevenDays": 1,  # c2: three days
        "sevenDaysOrMore": 0,
        "anomalyDays": 7,
    }
    other = await ok(api, "POST", OFFLINE, {"deptId": w.other})
    assert (other["offline"], other["sevenDaysOrMore"]) == (1, 1)  # o1: ten days
    page = await ok(api, "POST", OFF_LIST, {"deptId": w.parent, "current": 1, "size": 10})
    assert (page["total"], page["pages"], page["size"], page["current"]) == (2, 1, 10, 1)
    c2, c3 = page["records"]  # silent longest first, never heard from last
    assert c2["carId"] == w.cars["c2"]["id"] and c2["deviceNumber"] == w.cars["c2"]["deviceNumber"]
    assert c2["deptId"] == w.child and c2["deptName"].startswith("HC ") and c2["carTypeName"] == "锂电电动叉车"
    assert c2["lastSeen"] is not None and 2.9 <= c2["silentDays"] <= 3.1
    assert c3["carId"] == w.cars["c3"]["id"] and c3["lastSeen"] is None and c3["silentDays"] is None
    second = await ok(api, "POST", OFF_LIST, {"deptId": w.parent, "current": 2, "size": 1})
    assert [r["carId"] for r in second["records"]] == [w.cars["c3"]["id"]] and second["pages"] == 2
    named = await ok(api, "POST", OFF_LIST, {"carNo": f"{w.prefix}-O"})
    assert [r["carId"] for r in named["records"]] == [w.cars["o1"]["id"]]


async def test_terminals_by_protocol(served: tuple[FastAPI, Api], tenants: Tenants) -> None:
    w = await world(served, tenants)
    _, api = served
    assert await ok(api, "GET", TERMINALS, {"deptId": w.parent}) == {
        "total": 4,
        "online": 2,
        "offline": 2,
        "neverConnected": 1,
        "byProtocol": [
            {"protocol": "mqtt", "total": 2, "online": 2},
            {"protocol": "jt808", "total": 1, "online": 0},
            {"protocol": "none", "total": 1, "online": 0},
        ],
    }


async def test_vehicles_by_type_and_by_organisation(served: tuple[FastAPI, Api], tenants: Tenants) -> None:
    w = await world(served, tenants)
    _, api = served
    names = {d["dictKey"]: d["dictValue"] for d in await ok(api, "GET", DICTS, {})}
    assert names["3"] == "铅酸电动叉车" and len(names) == 9
    types = await ok(api, "GET", BY_TYPE, {"deptId": w.parent})
    assert types == [
        {"carType": 4, "carTypeName": names["4"], "total": 3, "online": 1, "poweredOn": 1},
        {"carType": 3, "carTypeName": names["3"], "total": 1, "online": 1, "poweredOn": 1},
        {"carType": 5, "carTypeName": names["5"], "total": 1, "online": 0, "poweredOn": 0},
    ]
    orgs = await ok(api, "GET", BY_ORG, {"deptId": w.parent})
    assert [(o["deptId"], o["total"], o["online"], o["poweredOn"], o["onlineRate"]) for o in orgs] == [
        (w.child, 3, 1, 1, 33.33),
        (w.parent, 2, 1, 1, 50.0),
    ]
    assert orgs[0]["deptName"].startswith("HC ")


async def test_alarms_battery_and_the_latest(served: tuple[FastAPI, Api], tenants: Tenants) -> None:
    w = await world(served, tenants)
    _, api = served
    d = {"deptId": w.parent, "startTime": w.day.isoformat(), "endTime": w.day.isoformat()}
    alarms = await ok(api, "GET", ALARMS, d)
    assert {k: v for k, v in alarms.items() if k not in ("startTime", "endTime")} == {
        "total": 3,
        "collision": 1,
        "speeding": 1,
        "overload": 0,
        "fence": 0,
        "fault": 0,
        "battery": 1,
        "other": 0,
        "vehiclesWithAlarms": 2,
        "inAlarmNow": 2,
    }
    battery = await ok(api, "GET", BATTERY, d)
    assert battery["total"] == 1 and battery["openNow"] == 1
    assert {k["kind"]: k["count"] for k in battery["byKind"]} == {
        "battery_low_voltage": 1,
        "battery_high_voltage": 0,
        "battery_over_current": 0,
        "battery_over_temperature": 0,
        "battery_liquid_level": 0,
    }
    assert (battery["withSoc"], battery["lowSoc"], battery["lowSocThreshold"]) == (1, 1, 20.0)
    latest = await ok(api, "GET", RECENT, d)
    assert [(a["carId"], a["kind"]) for a in latest] == [
        (w.cars["c1"]["id"], "battery_low_voltage"),
        (w.cars["c1"]["id"], "collision"),
        (w.cars["p1"]["id"], "speeding"),
    ]
    battery_alarm, impact, speeding = latest
    assert battery_alarm["endTime"] is None and speeding["endTime"] is None  # in progress
    assert impact["endTime"] == impact["beginTime"] and impact["level"] == 3 and impact["value"] == 3.0
    assert impact["carNo"] == f"{w.prefix}-C1" and impact["deptName"].startswith("HC ")
    assert [a["kind"] for a in await ok(api, "GET", RECENT, {**d, "size": 1})] == ["battery_low_voltage"]
    earlier = (w.day - timedelta(days=1)).isoformat()
    none = await ok(api, "GET", ALARMS, {**d, "startTime": earlier, "endTime": earlier})
    assert none["total"] == 0 and none["inAlarmNow"] == 2


async def test_another_tenant_sees_nothing_of_ours(served: tuple[FastAPI, Api], tenants: Tenants) -> None:
    w = await world(served, tenants)
    _, api = served
    theirs = {"tenant": tenants.b}
    d = w.day.isoformat()
    named = await ok(api, "GET", OVERVIEW, {"deptId": w.parent}, **theirs)
    assert named["total"] == 0 and named["online"] == 0
    assert (await ok(api, "POST", OFFLINE, {"deptId": w.parent}, **theirs))["withTerminal"] == 0
    assert (await ok(api, "POST", OFF_LIST, {"carNo": w.prefix}, **theirs))["total"] == 0
    assert await ok(api, "GET", BY_TYPE, {"deptId": w.parent}, **theirs) == []
    latest = await ok(api, "GET", RECENT, {"startTime": d, "endTime": d, "size": 50}, **theirs)
    ours = {c["id"] for n, c in w.cars.items() if n != "x1"}
    assert w.cars["x1"]["id"] in {a["carId"] for a in latest} and not ours & {a["carId"] for a in latest}
    alarms = await ok(api, "GET", ALARMS, {"deptId": w.parent, "startTime": d, "endTime": d}, **theirs)
    assert alarms["total"] == 0 and alarms["inAlarmNow"] == 0
    # and ours leaves theirs out
    mine = await ok(api, "GET", RECENT, {"startTime": d, "endTime": d, "size": 50})
    assert w.cars["x1"]["id"] not in {a["carId"] for a in mine}


async def test_own_organisation_sees_only_its_vehicles_without_any_menu(
    served: tuple[FastAPI, Api], tenants: Tenants
) -> None:
    """The home page is no menu: a user granted no menu at all reads it, through their data scope (organisation C
    only, whatever ``deptId`` they name)."""
    w = await world(served, tenants)
    _, api = served
    async with own_organisation_user(api, w.child, menus=()) as who:
        mine = await ok(api, "GET", OVERVIEW, {}, **who)
        assert (mine["total"], mine["online"], mine["terminalOffline"]) == (3, 1, 2)
        wider = await ok(api, "GET", OVERVIEW, {"deptId": w.parent}, **who)
        assert wider["total"] == 3
        page = await ok(api, "POST", OFF_LIST, {"carNo": w.prefix}, **who)
        assert {r["carId"] for r in page["records"]} == {w.cars["c2"]["id"], w.cars["c3"]["id"]}
        d = {"startTime": w.day.isoformat(), "endTime": w.day.isoformat()}
        latest = await ok(api, "GET", RECENT, d, **who)
        assert {a["carId"] for a in latest} == {w.cars["c1"]["id"]}
        alarms = await ok(api, "GET", ALARMS, d, **who)
        assert (alarms["total"], alarms["speeding"]) == (2, 0)


async def test_a_token_is_needed(served: tuple[FastAPI, Api]) -> None:
    _, api = served
    for path in GETS:
        r = await api.client.get(path)
        assert r.status_code == 401 and r.json()["code"] == 401, path
    for path in POSTS:
        r = await api.client.post(path, json={})
        assert r.status_code == 401 and r.json()["code"] == 401, path


@pytest.mark.parametrize(
    ("args", "field", "zh", "en"),
    [
        ({"startTime": "2026-11-08", "endTime": "2026-11-02"}, "startTime", "不能晚于结束日期", "must not be after"),
        ({"startTime": "2026-10-01", "endTime": "2026-11-01"}, "startTime/endTime", "不能超过 31 天", "exceed 31 days"),
        ({"startTime": "2026-13-01"}, "startTime", "格式不正确", "is not valid"),
    ],
)
async def test_bad_ranges_are_400_naming_the_field(
    served: tuple[FastAPI, Api], args: dict[str, Any], field: str, zh: str, en: str
) -> None:
    _, api = served
    for method, path in (("POST", TREND), ("GET", OPEN_SUM), ("GET", ALARMS), ("GET", BATTERY), ("GET", RECENT)):
        for lang, text in (("zh-CN", zh), ("en", en)):
            kw: dict[str, Any] = {"headers": {"Accept-Language": lang}}
            r = await (api.post(path, json=args, **kw) if method == "POST" else api.get(path, params=args, **kw))
            assert r["_status"] == 400 and r["code"] == 400, (path, r)
            assert r["msg"].startswith(field) and text in r["msg"], (path, r)
    thirty_one = await api.post(TREND, json={"startTime": "2026-10-02", "endTime": "2026-11-01"})
    assert thirty_one["code"] == 200 and len(thirty_one["data"]["points"]) == 31
