"""A vehicle's status and monitor charts from real pipeline data: the meter, its file, its run history, the
diagnosis, and the charts (mileage, work-time heat map, calendar, waterfall, temperatures, run condition)."""

from __future__ import annotations

from datetime import datetime, timedelta

from liftdesk.core.bus import LocalBus
from liftdesk.telemetry.messages import STATUS_FIX, Battery, Fix, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants

F = "/api/blade-fics-report/fics"
T0 = datetime(2026, 5, 7, 1, 0, 0)  # 09:00 in UTC+8
DAY = {"startTime": "2026-05-07", "endTime": "2026-05-07"}
PERIOD = {"beginTime": "2026-05-07 08:00:00", "endTime": "2026-05-07 12:00:00"}


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


def shift() -> list[Fix]:
    """A report every 10 s: 09:00-09:30 moving at 6 km/h (odometer +0.01 km, charge −0.02 % a report, battery
    probes [30 + i/100, 25]), 09:30-09:40 idle, 09:40-10:00 standing with 1,000 kg (half the rated load),
    10:00-10:10 lifting only (showing fault E101 from then on), 10:10 ACC off, 10:20 charged to 90 %, locked."""
    out: list[Fix] = []
    for i in range(180):
        out.append(
            Fix(
                time=at(10 * i),
                lat=31.2 + i * 1e-5,
                lon=121.5,
                speed_kmh=6.0,
                mileage_km=100 + i * 0.01,
                battery=Battery(soc_pct=80 - i * 0.02, voltage_v=51.0, temperatures_c=(30 + i / 100, 25.0)),
            )
        )
    pos = {"lat": 31.2 + 179e-5, "lon": 121.5, "mileage_km": 101.79}
    out += [Fix(time=at(1800 + 10 * i), **pos) for i in range(60)]
    out += [Fix(time=at(2400 + 10 * i), load_kg=1000.0, **pos) for i in range(120)]
    out += [Fix(time=at(3600 + 10 * i), lifting=True, fault_codes=("E101",), **pos) for i in range(60)]
    out.append(Fix(time=at(4200), status=STATUS_FIX, fault_codes=("E101",), **pos))
    out.append(
        Fix(
            time=at(4800),
            status=STATUS_FIX,
            fault_codes=("E101",),
            lock_level=1,
            fork_height_mm=120,
            seat_belt=False,
            battery=Battery(soc_pct=90.0, voltage_v=53.5, temperatures_c=(27.0, 26.0)),
            **pos,
        )
    )
    return out


async def _feed(api: Api) -> tuple[str, dict[str, object]]:
    device = f"1{api.counter:03d}{abs(hash(api.unique())) % 10**8:08d}"
    car = await api.post(
        f"{F}/carInfo/insertCarInfo",
        json={
            "carNo": api.unique("SC-"),
            "deviceNumber": device,
            "carType": 4,
            "ratedLoadKg": 2000,
            "speedLimitKmh": 10,
        },
    )
    assert car["code"] == 200, car
    fixes = shift()
    pipeline = Pipeline(api.db, LocalBus())
    for n in range(0, len(fixes), 100):
        await pipeline.process([Report(device=device, fixes=tuple(fixes[n : n + 100]), received_at=fixes[n].time)])
    return str(car["data"]["id"]), car["data"]


async def test_status_and_charts_of_a_shift(api: Api, tenants: Tenants) -> None:
    car_id, car = await _feed(api)
    one = {"carId": car_id}

    meter = (await api.get(f"{F}/carStatus/getRealTimeMeter", params=one))["data"]
    assert meter["power"] == "electric" and meter["state"] == "off" and meter["acc"] is False
    assert (meter["soc"], meter["batteryVoltageV"], meter["batteryTemperatureC"]) == (90.0, 53.5, 27.0)
    assert (meter["lockLevel"], meter["forkHeightMm"], meter["seatBelt"]) == (1, 120, False)
    assert meter["mileage"] == 101.79 and meter["ratedLoadKg"] == 2000 and meter["speedLimitKmh"] == 10
    assert meter["gpsTime"] == "2026-05-07 10:20:00"

    info = (await api.get(f"{F}/carStatus/getVehicleInfo", params=one))["data"]
    assert info["carNo"] == car["carNo"] and info["deviceNumber"] == car["deviceNumber"]
    assert info["power"] == "electric" and info["carType"] == 4 and info["ratedLoadKg"] == 2000

    # work = moving 1,800 s + loaded 1,200 s + lifting 600 s; idle 600 s; every sample held 10 s
    stage = (await api.get(f"{F}/carStatus/getStageCnt", params={**one, **DAY}))["data"]
    [day] = stage["days"]
    assert day == stage["totals"]
    assert (day["bootHours"], day["workHours"], day["moveHours"], day["loadHours"]) == (1.17, 1.0, 0.5, 0.33)
    assert (day["liftHours"], day["idleHours"], day["distanceKm"], day["alarms"]) == (0.17, 0.17, 1.79, 1)
    assert (day["energyUsed"], day["energyAdded"]) == (3.58, 13.58)

    diag = (await api.get(f"{F}/carStatus/getDiagnoseReport", params={**one, **DAY}))["data"]
    assert diag["activeFaults"] == ["E101"] and diag["healthy"] is False and diag["counts"] == {"fault": 1}
    [fault] = diag["events"]
    assert fault["code"] == "E101" and fault["beginTime"] == "2026-05-07 10:00:00"

    week = {**one, "startTime": "2026-05-01", "endTime": "2026-05-07"}
    mileage = (await api.get(f"{F}/monitor/getTotalMileage", params=week))["data"]
    assert mileage["odometerKm"] == 101.79 and mileage["totalKm"] == 1.79
    assert [d["distanceKm"] for d in mileage["days"]] == [0.0] * 6 + [1.79]

    # the heat map: 09:00-10:00 worked 3,000 s (0.83 h), 10:00-10:10 lifting 600 s; the cells add up to the day
    thermal = (await api.get(f"{F}/monitor/getWorkTimeThermal", params=week))["data"]
    assert thermal["days"][-1] == "2026-05-07" and len(thermal["days"]) == 7
    assert thermal["cells"] == [[6, 9, 0.83], [6, 10, 0.17]] and thermal["totalHours"] == 1.0

    cal = (await api.get(f"{F}/monitor/getWorkEfficiencyCalendar", params={**one, "month": "2026-05"}))["data"]
    assert len(cal["days"]) == 31 and cal["utilisation"] == 85.71
    assert cal["days"][6] == {"day": "2026-05-07", "bootHours": 1.17, "workHours": 1.0, "utilisation": 85.71}
    assert cal["days"][5]["bootHours"] == 0.0

    fall = (await api.get(f"{F}/monitor/getCarTeamWaterfall", params={**one, **DAY}))["data"]
    assert fall["total"] == {
        "bootHours": 1.17,
        "emptyMoveHours": 0.5,
        "loadedHours": 0.33,
        "liftOnlyHours": 0.17,
        "idleHours": 0.17,
    }

    temps = (await api.get(f"{F}/monitor/getTemperature", params={**one, **PERIOD}))["data"]
    # one bucket a minute: the first (09:00, probes of reports 0-5) and the charged report's (10:20)
    assert temps["points"][0] == {"time": "2026-05-07 09:00:00", "maxC": 30.05, "minC": 25.0}
    assert temps["points"][-1] == {"time": "2026-05-07 10:20:00", "maxC": 27.0, "minC": 26.0}
    assert len(temps["points"]) == 31
    # over 7 days, buckets of 15 minutes (at most 1,000): 09:00 (reports 0-89), 09:15, and 10:15 (the charged one)
    week_q = {**one, "beginTime": "2026-05-01 09:00:00", "endTime": "2026-05-08 09:00:00"}
    weekly = (await api.get(f"{F}/monitor/getTemperature", params=week_q))["data"]["points"]
    assert [(p["time"][11:], p["maxC"]) for p in weekly] == [
        ("09:00:00", 30.89),
        ("09:15:00", 31.79),
        ("10:15:00", 27.0),
    ]

    run = (await api.get(f"{F}/monitor/getRunCondition", params={**one, **PERIOD}))["data"]
    # standing empty: idle + lifting (1,200 s); standing at 50 % (25-50 %): 1,200 s; 6 km/h empty: 1,800 s
    assert run["cells"] == [[0, 0, 0.33], [0, 2, 0.33], [2, 0, 0.5]] and run["totalHours"] == 1.17
    assert run["speedBands"][2] == "5-10" and run["loadBands"][2] == "25-50%"

    # another tenant: "not found" for every call, whatever the id
    b = {"tenant": tenants.b}
    for path, q in (
        ("carStatus/getRealTimeMeter", one),
        ("carStatus/getVehicleInfo", one),
        ("carStatus/getStageCnt", {**one, **DAY}),
        ("carStatus/getDiagnoseReport", {**one, **DAY}),
        ("monitor/getTotalMileage", week),
        ("monitor/getWorkTimeThermal", week),
        ("monitor/getWorkEfficiencyCalendar", one),
        ("monitor/getCarTeamWaterfall", week),
        ("monitor/getTemperature", {**one, **PERIOD}),
        ("monitor/getRunCondition", {**one, **PERIOD}),
    ):
        other = await api.get(f"{F}/{path}", params=q, **b)
        assert other["code"] == 400 and car_id not in str(other.get("data")), (path, other)


async def test_ranges_are_refused(api: Api) -> None:
    car_id, _ = await _feed(api)
    one = {"carId": car_id}
    for path in ("carStatus/getStageCnt", "monitor/getWorkTimeThermal", "monitor/getTotalMileage"):
        eight = await api.get(f"{F}/{path}", params={**one, "startTime": "2026-05-01", "endTime": "2026-05-08"})
        assert eight["code"] == 400 and "startTime/endTime" in eight["msg"], (path, eight)
        after = await api.get(f"{F}/{path}", params={**one, "startTime": "2026-05-08", "endTime": "2026-05-07"})
        assert after["code"] == 400 and "startTime" in after["msg"], (path, after)
        bad = await api.get(f"{F}/{path}", params={**one, "startTime": "2026-5-x"})
        assert bad["code"] == 400 and "startTime" in bad["msg"], (path, bad)
    for path in ("monitor/getTemperature", "monitor/getRunCondition"):
        week = await api.get(f"{F}/{path}", params={**one, **PERIOD, "beginTime": "2026-04-30 08:00:00"})
        assert week["code"] == 400 and "beginTime/endTime" in week["msg"], (path, week)
        after = await api.get(f"{F}/{path}", params={**one, **PERIOD, "beginTime": "2026-05-07 13:00:00"})
        assert after["code"] == 400 and "beginTime" in after["msg"], (path, after)
    month = await api.get(f"{F}/monitor/getWorkEfficiencyCalendar", params={**one, "month": "2026-13"})
    assert month["code"] == 400 and "month" in month["msg"]
    # seven days are fine
    ok = await api.get(
        f"{F}/monitor/getWorkTimeThermal", params={**one, "startTime": "2026-05-01", "endTime": "2026-05-07"}
    )
    assert ok["code"] == 200


async def test_a_combustion_vehicle_shows_its_fuel(api: Api) -> None:
    """A diesel truck (car type 0) reports its fuel level (JT/T 808 item 0x02, ``extra.fuel_l``): the meter shows it,
    the run history counts the litres used (50 → 47: 3 L) and refuelled (47 → 60: 13 L)."""
    device = f"2{api.counter:03d}{abs(hash(api.unique())) % 10**8:08d}"
    car = await api.post(
        f"{F}/carInfo/insertCarInfo", json={"carNo": api.unique("DZ-"), "deviceNumber": device, "carType": 0}
    )
    assert car["code"] == 200, car
    levels = [50.0, 49.0, 48.0, 47.0, 60.0]
    fixes = tuple(
        Fix(time=at(60 * i), lat=31.2, lon=121.5, speed_kmh=5.0, extra={"fuel_l": level})
        for i, level in enumerate(levels)
    )
    await Pipeline(api.db, LocalBus()).process([Report(device=device, fixes=fixes, received_at=fixes[0].time)])
    one = {"carId": car["data"]["id"]}
    meter = (await api.get(f"{F}/carStatus/getRealTimeMeter", params=one))["data"]
    assert (meter["power"], meter["fuelL"], meter["soc"]) == ("combustion", 60.0, None)
    stage = (await api.get(f"{F}/carStatus/getStageCnt", params={**one, **DAY}))["data"]
    assert stage["power"] == "combustion"
    assert (stage["totals"]["energyUsed"], stage["totals"]["energyAdded"]) == (3.0, 13.0)
    info = (await api.get(f"{F}/carStatus/getVehicleInfo", params=one))["data"]
    assert info["power"] == "combustion" and info["carTypeName"]
