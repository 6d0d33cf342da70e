"""The vehicle lists with their live state (all, electric, combustion) and the look-up by frame number."""

from __future__ import annotations

from datetime import datetime, timedelta

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import utcnow
from liftdesk.telemetry.messages import Fix, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants

F = "/api/blade-fics-report/fics/carInfo"


async def _car(api: Api, prefix: str, car_type: int, device: str | None = None) -> dict[str, object]:
    body: dict[str, object] = {"carNo": api.unique(prefix), "carType": car_type, "frameNumber": api.unique("VIN")}
    if device:
        body["deviceNumber"] = device
    r = await api.post(f"{F}/insertCarInfo", json=body)
    assert r["code"] == 200, r
    return dict(r["data"])


async def test_lists_follow_the_live_state_and_the_power(api: Api, tenants: Tenants) -> None:
    stem = api.unique("SL-")
    device = f"2{api.counter:03d}{abs(hash(stem)) % 10**8:08d}"
    electric = await _car(api, f"{stem}-E", 4, device)
    diesel = await _car(api, f"{stem}-D", 0)
    now: datetime = utcnow().replace(microsecond=0)
    fix = Fix(time=now - timedelta(seconds=5), lat=31.2, lon=121.5, speed_kmh=6.0)
    await Pipeline(api.db, LocalBus()).process([Report(device=device, fixes=(fix,), received_at=now)])

    async def numbers(op: str, **body: object) -> list[str]:
        r = await api.post(f"{F}/{op}", json={"carNo": stem, "size": 100, **body})
        assert r["code"] == 200, r
        return sorted(str(x["carNo"]) for x in r["data"]["records"])

    both = sorted([str(electric["carNo"]), str(diesel["carNo"])])
    assert await numbers("getCarStateInfoList") == both
    assert await numbers("getCarElectricVehicleInfoList") == [electric["carNo"]]
    assert await numbers("getCarDieselVehicleInfoList") == [diesel["carNo"]]
    assert await numbers("getCarStateInfoList", state="moving") == [electric["carNo"]]
    assert await numbers("getCarStateInfoList", state="offline") == [diesel["carNo"]]
    assert await numbers("getCarStateInfoList", state="idle") == []
    assert await numbers("getCarStateInfoList", carType=0) == [diesel["carNo"]]

    page = (await api.post(f"{F}/getCarStateInfoList", json={"carNo": stem, "state": "moving"}))["data"]
    [row] = page["records"]
    assert page["total"] == 1 and row["online"] is True and row["speed"] == 6.0 and row["carTypeName"]
    shown = (await api.get(f"{F}/getCarInfo", params={"carId": electric["id"]}))["data"]
    assert row["mechanismName"] == shown["mechanismName"] != "" and row["carTypeName"] == shown["carTypeName"]

    bad = await api.post(f"{F}/getCarStateInfoList", json={"state": "flying"})
    assert bad["code"] == 400 and "state" in bad["msg"]

    found = await api.get(f"{F}/getCarInfoByFrameNumber", params={"frameNumber": diesel["frameNumber"]})
    assert found["code"] == 200 and found["data"]["id"] == diesel["id"], found
    missing = await api.get(f"{F}/getCarInfoByFrameNumber", params={"frameNumber": "NO-SUCH-VIN"})
    assert missing["code"] == 400 and missing["success"] is False

    # another tenant finds none of them, by list or by frame number
    b = {"tenant": tenants.b}
    other = await api.post(f"{F}/getCarStateInfoList", json={"carNo": stem}, **b)
    assert other["code"] == 200 and other["data"]["records"] == []
    stolen = await api.get(f"{F}/getCarInfoByFrameNumber", params={"frameNumber": diesel["frameNumber"]}, **b)
    assert stolen["success"] is False
