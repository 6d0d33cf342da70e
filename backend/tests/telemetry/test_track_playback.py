"""Track playback from real pipeline data: simplification for the view, stops, phases, alarms, the vehicle tree."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from liftdesk.core.bus import LocalBus
from liftdesk.telemetry.messages import STATUS_ACC, STATUS_FIX, Fix, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants

F = "/api/blade-fics-report/fics"
T0 = datetime(2026, 5, 7, 1, 0, 0)  # 09:00 in UTC+8
DAY = {"beginTime": "2026-05-07 08:00:00", "endTime": "2026-05-07 12:00:00"}


def local(t: datetime) -> str:
    return (t + timedelta(hours=8)).strftime("%Y-%m-%d %H:%M:%S")


def shift() -> list[Fix]:
    """09:00-09:30 driving a wiggly line (a report every 5 s, at 14 km/h: over the 10 km/h limit), 09:30-09:40
    standing with ACC on (idle), 09:40-09:50 ACC off, a silence of 10 minutes, then 10:00-10:05 carrying 800 kg."""
    out: list[Fix] = []
    for i in range(360):
        t = T0 + timedelta(seconds=5 * i)
        out.append(
            Fix(
                time=t,
                lat=31.2 + i * 2e-5,
                lon=121.5 + 1e-5 * math.sin(i / 3),
                speed_kmh=14.0,
                direction=0,
                mileage_km=50 + i * 0.02,
            )
        )
    stand = out[-1]
    for i in range(1, 121):
        t = T0 + timedelta(minutes=30, seconds=5 * i)
        acc = STATUS_ACC if t < T0 + timedelta(minutes=40) else 0
        out.append(Fix(time=t, lat=stand.lat, lon=stand.lon, speed_kmh=0.0, status=acc | STATUS_FIX, mileage_km=57.18))
    for i in range(60):
        t = T0 + timedelta(minutes=60, seconds=5 * i)
        out.append(
            Fix(
                time=t,
                lat=stand.lat,
                lon=stand.lon + i * 1e-5,
                speed_kmh=3.0,
                load_kg=800.0,
                mileage_km=57.2 + i * 0.004,
            )
        )
    return out


async def test_playback_of_a_shift(api: Api, tenants: Tenants) -> None:
    device = f"1{api.counter:03d}{abs(hash(api.unique())) % 10**8:08d}"
    car = await api.post(
        f"{F}/carInfo/insertCarInfo",
        json={"carNo": api.unique("PB-"), "deviceNumber": device, "speedLimitKmh": 10, "ratedLoadKg": 2000},
    )
    assert car["code"] == 200, car
    car_id = car["data"]["id"]
    fixes = shift()
    pipeline = Pipeline(api.db, LocalBus())
    for n in range(0, len(fixes), 100):
        await pipeline.process([Report(device=device, fixes=tuple(fixes[n : n + 100]), received_at=fixes[n].time)])

    q = {"carId": car_id, **DAY}
    full = (await api.get(f"{F}/positionTrailing/positionTrailing", params=q))["data"]
    assert full["total"] == len(fixes) and full["count"] == len(fixes) and full["simplified"] is False
    assert full["distanceKm"] == round(57.2 + 59 * 0.004 - 50, 3)
    # one stop of 3 minutes or more: from the first sample standing (09:30:05) to the first moving again (10:00)
    [stop] = full["stops"]
    assert stop["beginTime"] == local(T0 + timedelta(minutes=30, seconds=5))
    assert stop["endTime"] == local(T0 + timedelta(minutes=60)) and stop["durationS"] == 1795

    # the view at zoom 12 needs far fewer points, never more than asked, and keeps the ends and the stop
    coarse = (await api.get(f"{F}/positionTrailing/positionTrailing", params={**q, "zoom": 12}))["data"]
    assert coarse["simplified"] is True and 3 <= coarse["count"] < 60, coarse["count"]
    times = [p["gpsTime"] for p in coarse["points"]]
    assert times[0] == local(T0) and times[-1] == local(fixes[-1].time) and stop["beginTime"] in times
    assert times == sorted(times)
    capped = (await api.get(f"{F}/positionTrailing/positionTrailing", params={**q, "maxPoints": 50}))["data"]
    assert capped["count"] <= 50 and capped["total"] == len(fixes)
    too_many = await api.get(f"{F}/positionTrailing/positionTrailing", params={**q, "maxPoints": 5000})
    assert too_many["code"] == 400 and "maxPoints" in too_many["msg"]

    # the phases: moving, idle, off, the silence (none), loaded; the seconds add up to the period
    ph = (await api.get(f"{F}/positionTrailing/phaseData", params=q))["data"]
    states = [s["state"] for s in ph["spans"]]
    assert states == ["none", "moving", "idle", "off", "none", "loaded", "none"], states
    assert sum(ph["totals"].values()) == 4 * 3600
    # a sample holds until the next one (the last moving one, 09:29:55, until 09:30:05), at most 120 s (the last
    # one of ACC off, 09:40:00, until 09:42:00; the last loaded one, 10:04:55, until 10:06:55)
    t = ph["totals"]
    assert (t["moving"], t["idle"], t["off"], t["loaded"]) == (1805, 595, 120, 415), t

    # speeding raised by the pipeline, counted and listed where it happened
    counts = (await api.get(f"{F}/positionTrailing/alarmStatics", params=q))["data"]
    assert {"kind": "speeding", "count": 1} in counts
    alarms = (await api.get(f"{F}/positionTrailing/alarmDetail", params={**q, "kind": "speeding"}))["data"]
    assert len(alarms) == 1 and alarms[0]["limitValue"] == 10 and abs(alarms[0]["lat"] - 31.2) < 1e-3
    assert (await api.get(f"{F}/positionTrailing/alarmDetail", params={**q, "kind": "collision"}))["data"] == []

    # the tree finds the vehicle by its number; another tenant finds nothing of it anywhere
    tree = (await api.get(f"{F}/positionTrailing/mechanismCarTree", params={"carNo": car["data"]["carNo"]}))["data"]
    assert str(car_id) in str(tree)
    b = {"tenant": tenants.b}
    assert car["data"]["carNo"] not in str(await api.get(f"{F}/positionTrailing/mechanismCarTree", **b))
    for path in ("phaseData", "alarmStatics", "alarmDetail"):
        other = await api.get(f"{F}/positionTrailing/{path}", params=q, **b)
        assert other["code"] == 400, (path, other)

    # a start after its end, and more than 7 days, are refused naming the fields
    wrong = await api.get(f"{F}/positionTrailing/phaseData", params={**q, "beginTime": DAY["endTime"]})
    assert wrong["code"] == 400 and "beginTime" in wrong["msg"]
    week = await api.get(f"{F}/positionTrailing/alarmStatics", params={**q, "beginTime": "2026-04-01 00:00:00"})
    assert week["code"] == 400 and "beginTime/endTime" in week["msg"]
