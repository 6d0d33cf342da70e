"""The vehicle calls over real pipeline data: the lists by family (stacker, fuel cell, ECU, battery status, the home
page's), one vehicle's monitor card, the positions at a moment, the stored positions of a terminal (paged and by
cursor), several tracks side by side and a trip's summary (a form); and that no list makes a statement per row.

The world (per database), tenant 000000 unless said:

======  ====  =====  =========================================================================================
car     org   type   what its terminal sent (T0 = 2026-05-07 09:00 local)
======  ====  =====  =========================================================================================
e       P     4      T0..T0+30 min moving north at 6 km/h (a report every 10 s, battery 80 % falling, cells
                     3300-3340 mV), 10 min standing; today: 2 min moving and an impact of 3 g (limit 1.5)
s       O     8      today: one report standing, battery 40 % (battery type 氢燃料电池: a fuel-cell stacker)
d       P     0      today: one report with 30 L of fuel and fault E12, a CAN frame (the engine's file filled)
x       (B)   8      today: one report (another tenant's stacker)
======  ====  =====  =========================================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import event

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import utcnow
from liftdesk.telemetry.messages import STATUS_ACC, STATUS_FIX, Battery, CanFrame, Fix, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants, seed_ids

F = "/api/blade-fics-report/fics"
CAR = f"{F}/carInfo"
T0 = datetime(2026, 5, 7, 1, 0, 0)  # 09:00 in UTC+8
ON = STATUS_ACC | STATUS_FIX


def local(t: datetime) -> str:
    return (t + timedelta(hours=8)).strftime("%Y-%m-%d %H:%M:%S")


@dataclass
class World:
    prefix: str
    parent: str
    other: str
    cars: dict[str, dict[str, Any]]
    now: datetime


_WORLDS: dict[str, World] = {}


async def _dept(api: Api, name: str, parent: str) -> str:
    r = await api.post(
        "/api/blade-system/dept/submit",
        json={"deptName": api.unique(name), "parentId": parent, "deptCategory": 2, "sort": 1},
    )
    assert r["code"] == 200, r
    return str(r["data"]["id"])


async def _car(api: Api, number: str, org: str | None, car_type: int, tenant: str = "000000", **more: Any) -> Any:
    payload: dict[str, Any] = {
        "carNo": number,
        "carType": car_type,
        "deviceNumber": f"3{api.counter:03d}{abs(hash(api.unique())) % 10**8:08d}",
        "collisionThresholdG": 1.5,
        "speedLimitKmh": 10,
        **more,
    }
    if org is not None:
        payload["mechanismId"] = org
    r = await api.post(f"{CAR}/insertCarInfo", json=payload, tenant=tenant)
    assert r["code"] == 200, r
    return r["data"]


def morning() -> list[Fix]:
    out = [
        Fix(
            time=T0 + timedelta(seconds=10 * i),
            lat=31.2 + i * 1e-5,
            lon=121.5,
            speed_kmh=6.0,
            status=ON,
            battery=Battery(soc_pct=80 - i * 0.02, voltage_v=51.0, cell_voltages_mv=(3300, 3340, 3320)),
        )
        for i in range(180)
    ]
    end = {"lat": 31.2 + 179e-5, "lon": 121.5, "status": ON}
    return out + [Fix(time=T0 + timedelta(seconds=1800 + 10 * i), **end) for i in range(60)]


async def world(api: Api, tenants: Tenants) -> World:
    if api.backend in _WORLDS:
        return _WORLDS[api.backend]
    root = (await seed_ids(api))["dept"]
    parent, other = await _dept(api, "VP ", root), await _dept(api, "VO ", root)
    prefix = api.unique("VC")
    cars = {
        "e": await _car(api, f"{prefix}-E", parent, 4, batteryType="锂电池", batteryNumber="B-1"),
        "s": await _car(api, f"{prefix}-S", other, 8, batteryType="氢燃料电池"),
        "d": await _car(api, f"{prefix}-D", parent, 0, engineNumber="EN-9", engineBrand="Yuchai", emissionType="国四"),
        "x": await _car(api, f"{prefix}-X", None, 8, tenant=tenants.b),
    }
    now = utcnow().replace(microsecond=0)
    recent = [
        Fix(time=now - timedelta(seconds=120 - 10 * i), lat=31.3, lon=121.6 + i * 1e-5, speed_kmh=6.0, status=ON)
        for i in range(12)
    ] + [Fix(time=now - timedelta(seconds=5), lat=31.3, lon=121.6012, status=ON, impact_g=3.0, impact_direction=90)]
    pipeline = Pipeline(api.db, LocalBus())
    fixes = morning()
    for n in range(0, len(fixes), 100):
        chunk = tuple(fixes[n : n + 100])
        await pipeline.process([Report(device=cars["e"]["deviceNumber"], fixes=chunk, received_at=chunk[0].time)])
    await pipeline.process([Report(device=cars["e"]["deviceNumber"], fixes=tuple(recent), received_at=now)])
    standing = Fix(time=now - timedelta(seconds=30), lat=31.4, lon=121.7, status=ON, battery=Battery(40.0, 48.0))
    await pipeline.process([Report(device=cars["s"]["deviceNumber"], fixes=(standing,), received_at=now)])
    fuel = Fix(
        time=now - timedelta(seconds=20), lat=31.5, lon=121.8, status=ON, fault_codes=("E12",), extra={"fuel_l": 30.0}
    )
    can = (CanFrame(0x0CF00400, bytes.fromhex("F07D7D0000FFFFFF")),)
    await pipeline.process(
        [
            Report(device=cars["d"]["deviceNumber"], fixes=(fuel,), received_at=now),
            Report(cars["d"]["deviceNumber"], (), now, can=can),
        ]
    )
    await pipeline.process([Report(device=cars["x"]["deviceNumber"], fixes=(standing,), received_at=now)])
    _WORLDS[api.backend] = World(prefix, parent, other, cars, now)
    return _WORLDS[api.backend]


async def ok(api: Api, method: str, path: str, data: dict[str, Any] | None = None, **kw: Any) -> Any:
    r = await (api.get(path, params=data, **kw) if method == "GET" else api.post(path, json=data, **kw))
    assert r["code"] == 200, (path, r)
    return r["data"]


async def numbers(api: Api, op: str, body: dict[str, Any], **kw: Any) -> list[str]:
    page = await ok(api, "POST", f"{CAR}/{op}", {"size": 100, **body}, **kw)
    return sorted(str(r["carNo"]) for r in page["records"])


async def test_lists_by_family(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    no = {k: c["carNo"] for k, c in w.cars.items()}
    mine = {"carNo": w.prefix}
    assert await numbers(api, "getCarStackerList", mine) == [no["s"]]
    assert await numbers(api, "getCarFuelCellList", mine) == [no["s"]]
    assert await numbers(api, "getCarEcuList", mine) == [no["d"]]
    assert await numbers(api, "getCarBatteryStatusList", mine) == sorted([no["e"], no["s"]])
    assert await numbers(api, "getCarStackerList", {**mine, "mechanismId": w.parent}) == []
    # another tenant's stacker is its own, and ours are not in its list
    assert await numbers(api, "getCarStackerList", mine, tenant=tenants.b) == [no["x"]]

    battery = await ok(api, "POST", f"{CAR}/getCarBatteryStatusList", {**mine, "size": 10})
    rows = {r["carNo"]: r for r in battery["records"]}
    e, s = rows[no["e"]], rows[no["s"]]
    # the battery shown is the latest report's: e's (today's) carried none, s's 40 % at 48 V
    assert s["soc"] == 40.0 and s["voltageV"] == 48.0 and s["batteryType"] == "氢燃料电池" and s["batteryTime"]
    assert e["batteryNumber"] == "B-1" and e["voltageV"] is None
    assert await numbers(api, "getCarBatteryStatusList", {**mine, "socBelow": 50}) == [no["s"]]

    ecu = (await ok(api, "POST", f"{CAR}/getCarEcuList", {**mine}))["records"]
    [d] = ecu
    assert d["engineNumber"] == "EN-9" and d["engineBrand"] == "Yuchai" and d["emissionType"] == "国四"
    assert d["fuelL"] == 30.0 and d["faults"] == ["E12"] and d["canIds"] == 1 and d["canTime"]
    assert await numbers(api, "getCarEcuList", {**mine, "faulty": True}) == [no["d"]]
    assert await numbers(api, "getCarEcuList", {**mine, "faulty": False}) == []

    bad = await api.post(f"{CAR}/getCarBatteryStatusList", json={"socBelow": 101})
    assert bad["code"] == 400 and "socBelow" in bad["msg"]


async def test_battery_of_the_latest_report(api: Api, tenants: Tenants) -> None:
    """A vehicle whose latest report carries its battery shows that battery (cells: lowest, highest, spread)."""
    w = await world(api, tenants)
    car = await _car(api, api.unique("VB"), w.parent, 3)
    at = w.now - timedelta(seconds=3)
    fix = Fix(time=at, lat=31.2, lon=121.5, status=ON, battery=Battery(55.0, 50.5, 12.0, cell_voltages_mv=(3290, 3350)))
    await Pipeline(api.db, LocalBus()).process([Report(device=car["deviceNumber"], fixes=(fix,), received_at=at)])
    [row] = (await ok(api, "POST", f"{CAR}/getCarBatteryStatusList", {"carNo": car["carNo"]}))["records"]
    assert (row["soc"], row["voltageV"], row["currentA"]) == (55.0, 50.5, 12.0)
    assert (row["cellMinMv"], row["cellMaxMv"], row["cellSpreadMv"]) == (3290, 3350, 60)
    assert row["batteryTime"] == local(at)


async def test_home_list_and_monitor_card_show_today(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    e = w.cars["e"]
    [row] = (await ok(api, "POST", f"{CAR}/getHomeCarList", {"carNo": e["carNo"]}))["records"]
    assert row["online"] is True and row["todayBootHours"] > 0 and row["todayDistanceKm"] > 0
    assert row["todayAlarms"] == 1 and row["alarms"] == []  # a collision is instant: none in progress
    card = await ok(api, "GET", f"{CAR}/getCarMonitorInfo", {"carId": e["id"]})
    assert card["carNo"] == e["carNo"] and card["mechanismName"] and card["carTypeName"] == "锂电电动叉车"
    for field in ("BootHours", "WorkHours", "DistanceKm", "Alarms"):
        assert card[f"today{field}"] == row[f"today{field}"], field
    assert card["latestAlarmKind"] == "collision" and card["latestAlarmTime"] == local(w.now - timedelta(seconds=5))
    stolen = await api.get(f"{CAR}/getCarMonitorInfo", params={"carId": e["id"]}, tenant=tenants.b)
    assert stolen["success"] is False


async def test_positions_at_a_moment(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    e = w.cars["e"]
    at = T0 + timedelta(seconds=305)  # between the reports at +300 and +310: the one at +300 counts
    rows = await ok(api, "GET", f"{F}/positionTrailing/carPosition", {"mechanismId": w.parent, "time": local(at)})
    mine = [r for r in rows if r["carNo"].startswith(w.prefix)]
    assert [r["carNo"] for r in mine] == [e["carNo"]]  # d did not report then
    assert mine[0]["gpsTime"] == local(T0 + timedelta(seconds=300)) and abs(mine[0]["lat"] - 31.2003) < 1e-9
    # a moment long after the morning, within 1 minute: nobody
    later = {"carId": e["id"], "time": local(T0 + timedelta(hours=3)), "withinMinutes": 1}
    assert await ok(api, "GET", f"{F}/positionTrailing/carPosition", later) == []
    # without a moment: the latest of each
    now = await ok(api, "GET", f"{F}/positionTrailing/carPosition", {"mechanismId": w.parent})
    latest = {r["carNo"]: r for r in now if r["carNo"].startswith(w.prefix)}
    assert set(latest) == {e["carNo"], w.cars["d"]["carNo"]} and latest[e["carNo"]]["lat"] == 31.3
    theirs = await ok(api, "GET", f"{F}/positionTrailing/carPosition", {"carId": e["id"]}, tenant=tenants.b)
    assert theirs == []


async def test_positions_of_a_terminal_paged_and_by_cursor(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    device = w.cars["e"]["deviceNumber"]
    span = {"deviceNumber": device, "beginTime": local(T0), "endTime": local(T0 + timedelta(hours=1))}
    first = await ok(api, "POST", f"{CAR}/getCarGPSListByCode", {**span, "current": 1, "size": 100})
    assert first["total"] == 240 and first["pages"] == 3 and len(first["records"]) == 100
    last = await ok(api, "POST", f"{CAR}/getCarGPSListByCode", {**span, "current": 3, "size": 100})
    assert len(last["records"]) == 40 and last["records"][-1]["gpsTime"] == local(T0 + timedelta(seconds=2390))
    read: list[str] = []
    after = None
    while True:
        got = await ok(api, "POST", f"{CAR}/getCarGPSListByCodeNew", {**span, "size": 70, "after": after})
        read += [r["gpsTime"] for r in got["records"]]
        after = got["nextTime"]
        if after is None:
            break
    assert len(read) == 240 and read == sorted(read) and len(set(read)) == 240
    missing = await api.post(f"{CAR}/getCarGPSListByCode", json={**span, "deviceNumber": "999999999999"})
    assert missing["code"] == 400 and missing["success"] is False
    theirs = await api.post(f"{CAR}/getCarGPSListByCode", json=span, tenant=tenants.b)
    assert theirs["success"] is False
    week = {**span, "endTime": local(T0 + timedelta(days=8))}
    refused = await api.post(f"{CAR}/getCarGPSListByCodeNew", json=week, headers={"Accept-Language": "en"})
    assert refused["code"] == 400 and "beginTime/endTime" in refused["msg"], refused


async def test_tracks_side_by_side_and_a_trip(api: Api, tenants: Tenants) -> None:
    w = await world(api, tenants)
    e, d = w.cars["e"], w.cars["d"]
    span = {"beginTime": local(T0 - timedelta(hours=1)), "endTime": local(T0 + timedelta(hours=2))}
    got = await ok(
        api, "POST", f"{CAR}/getCarPositionTracking", {"carIds": [e["id"], d["id"]], "maxPoints": 10, **span}
    )
    assert [t["carNo"] for t in got] == [e["carNo"], d["carNo"]]
    assert got[0]["total"] == 240 and got[0]["count"] <= 5 and got[1]["total"] == 0
    assert got[0]["points"][0]["gpsTime"] == local(T0) and got[0]["distanceKm"] > 0.19
    theirs = await api.post(f"{CAR}/getCarPositionTracking", json={"carIds": [w.cars["x"]["id"]], **span})
    assert theirs["success"] is False

    form = {"carId": e["id"], **span}
    r = await api.post(f"{CAR}/getCarPositionTrackingInfo", data=form)
    assert r["code"] == 200, r
    trip = r["data"]
    assert trip["positions"] == 240 and trip["first"]["time"] == local(T0) and trip["last"]["lat"] == 31.2 + 179e-5
    assert trip["movingS"] == 1800 and trip["maxSpeed"] == 6.0 and 0.19 < trip["distanceKm"] < 0.21
    assert trip["averageSpeed"] == round(trip["distanceKm"] / 0.5, 2)
    assert trip["stops"] == 1 and trip["stoppedS"] >= 590 and trip["alarms"] == 0
    # JSON is not the form: the vehicle is missing
    json_sent = await api.post(f"{CAR}/getCarPositionTrackingInfo", json=form, headers={"Accept-Language": "en"})
    assert json_sent["code"] == 400 and "carId" in json_sent["msg"], json_sent
    bad = await api.post(f"{CAR}/getCarPositionTrackingInfo", data={**form, "stopMinutes": "0"})
    assert bad["code"] == 400 and "stopMinutes" in bad["msg"]
    stolen = await api.post(f"{CAR}/getCarPositionTrackingInfo", data=form, tenant=tenants.b)
    assert stolen["success"] is False


LISTS = [
    ("POST", f"{CAR}/getCarStateInfoList"),
    ("POST", f"{CAR}/getCarStackerList"),
    ("POST", f"{CAR}/getCarFuelCellList"),
    ("POST", f"{CAR}/getCarBatteryStatusList"),
    ("POST", f"{CAR}/getCarEcuList"),
    ("POST", f"{CAR}/getHomeCarList"),
    ("POST", f"{CAR}/getCarStatisticsList"),
    ("GET", f"{F}/carAssets/list"),
]


async def test_no_statement_per_row(api: Api, tenants: Tenants) -> None:
    """Each list costs the same statements for a page of 1 as for a page of 6 (six stackers with fuel cells and
    positions: every list has rows to fill)."""
    w = await world(api, tenants)
    prefix = api.unique("VN")
    pipeline = Pipeline(api.db, LocalBus())
    for i in range(6):
        car = await _car(api, f"{prefix}{i}", w.parent, i % 3 * 4, batteryType="fuel cell")
        fix = Fix(time=w.now - timedelta(seconds=40 + i), lat=31.2, lon=121.5, status=ON, battery=Battery(50.0, 48.0))
        await pipeline.process([Report(device=car["deviceNumber"], fixes=(fix,), received_at=w.now)])
    counted: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "blade_log_" not in statement:  # the request log is written in the background, after an answer
            counted.append(statement)

    engine = api.db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        for method, path in LISTS:
            per_size = {}
            for size in (1, 6):
                args = {"carNo": prefix, "current": 1, "size": size}
                await api.headers()  # the token, before counting
                counted.clear()
                r = await (api.get(path, params=args) if method == "GET" else api.post(path, json=args))
                assert r["code"] == 200 and len(r["data"]["records"]) == min(size, r["data"]["total"]), (path, r)
                per_size[size] = len(counted)
            assert per_size[1] == per_size[6], (path, per_size)
    finally:
        event.remove(engine, "before_cursor_execute", count)
