"""Generic action cases of the reporting context (see actions.py for the format).

The reports are read through the vehicles' scope with a menu of their own (``report_efficiency``, which the suite's
own-organisation user is granted): a vehicle of another organisation is not in the rows. The fleet's daily series
names no vehicle, so its data-scope case is ``tests/reporting/test_efficiency.py``'s.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tests.conftest import Api
from tests.resources.actions import ActionCase, Call, key
from tests.resources.actions_fleet import FICS, vehicle, vehicle_probe

REPORT = f"{FICS}/intelligentReport"


async def _efficiency(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(json={"carNo": car["carNo"], "current": 1, "size": 10}, marker=car["id"], probe=vehicle_probe(car))


async def _fleet_days(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(json={"carNo": car["carNo"]}, probe=vehicle_probe(car))


async def _export(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"carNo": car["carNo"]}, marker=car["carNo"], probe=vehicle_probe(car))


HOME = f"{FICS}/carHome"


async def _home(api: Api, tenant: str) -> Call:
    """A home page aggregate of the new vehicle's organisation: it names no vehicle (no marker)."""
    car = await vehicle(api, tenant)
    return Call(params={"deptId": car["mechanismId"]} if car.get("mechanismId") else {}, probe=vehicle_probe(car))


async def _home_body(api: Api, tenant: str) -> Call:
    call = await _home(api, tenant)
    return Call(json=call.params, probe=call.probe)


async def _offline_list(api: Api, tenant: str) -> Call:
    """The new vehicle names a terminal that never connected: it is on the list of terminals offline."""
    car = await vehicle(api, tenant)
    return Call(json={"carNo": car["carNo"]}, marker=car["id"], probe=vehicle_probe(car))


async def _car_types(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(probe=vehicle_probe(car))


ALARM = f"{FICS}/carInfo"
ALARM_EXPORT = "/api/liftdesk/alarm"
ABNORMAL = f"{FICS}/abnormal"
FAULT = f"{FICS}/faultCode"


async def _alarm_list(api: Api, tenant: str) -> Call:
    """An alarm list (or the faults) filtered on the new vehicle: a vehicle of another tenant filters nothing of
    the caller's (the real rows, the data scope and another tenant with alarms: tests/reporting/test_alarms.py)."""
    car = await vehicle(api, tenant)
    return Call(json={"carId": car["id"], "current": 1, "size": 10}, probe=vehicle_probe(car))


async def _alarm_query(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"carNo": car["carNo"]}, probe=vehicle_probe(car))


async def _abnormal_info(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"carId": car["id"]}, marker=car["carNo"], probe=vehicle_probe(car))


async def alarm_of(api: Api, tenant: str) -> tuple[dict[str, Any], str]:
    """A new vehicle and one collision of it (through the HTTP ingest; it has ended: an instant alarm): the vehicle
    and the alarm's id."""
    car = await vehicle(api, tenant)
    fix = {"time": datetime.now(UTC).replace(microsecond=0).isoformat(), "lat": 31.2, "lon": 121.5, "impactG": 4.0}
    r = await api.post("/api/liftdesk/ingest", json={"device": car["deviceNumber"], "fixes": [fix]}, tenant=tenant)
    assert r["code"] == 200, r
    r = await api.post(
        f"{ALARM}/getCarAlarmInfoList", json={"carId": car["id"], "current": 1, "size": 10}, tenant=tenant
    )
    [alarm] = r["data"]["records"]
    return car, str(alarm["id"])


def _steps_probe(alarm: str) -> tuple[str, str, dict[str, Any]]:
    return ("GET", f"{ALARM_EXPORT}/history", {"id": alarm})


async def _alarm_ids(api: Api, tenant: str) -> Call:
    _, alarm = await alarm_of(api, tenant)
    return Call(json={"ids": alarm}, marker=alarm, probe=_steps_probe(alarm))


async def _alarm_handle(api: Api, tenant: str) -> Call:
    _, alarm = await alarm_of(api, tenant)
    return Call(json={"id": alarm, "note": "forks checked"}, marker=alarm, probe=_steps_probe(alarm))


async def _alarm_steps(api: Api, tenant: str) -> Call:
    _, alarm = await alarm_of(api, tenant)
    return Call(params={"id": alarm}, probe=_steps_probe(alarm))


CASES: dict[str, ActionCase] = {
    # working alarms (the whole path, the data scope and the refusals: tests/reporting/test_alarm_work.py)
    key("POST", f"{ALARM_EXPORT}/ack"): ActionCase(_alarm_ids),
    key("POST", f"{ALARM_EXPORT}/handle"): ActionCase(_alarm_handle),
    key("POST", f"{ALARM_EXPORT}/close"): ActionCase(_alarm_ids),
    key("GET", f"{ALARM_EXPORT}/history"): ActionCase(_alarm_steps),
    key("GET", f"{ALARM_EXPORT}/assignees"): ActionCase(_alarm_steps),
    key("POST", f"{REPORT}/getCarWorkEfficiencyList"): ActionCase(_efficiency, data_scope=True),
    key("POST", f"{REPORT}/getCarFleetWorkTimeCount"): ActionCase(_fleet_days),
    key("GET", f"{REPORT}/exportCarWorkEfficiencyList"): ActionCase(_export),
    # the fleet home page (its own data-scope and tenant cases with real numbers: tests/reporting/test_home.py)
    key("POST", f"{HOME}/getTerminalOffListInfo"): ActionCase(_offline_list, data_scope=True),
    key("POST", f"{HOME}/getFleetEquipmentOonLineTrends"): ActionCase(_home_body),
    key("POST", f"{HOME}/getOfflineAnalysisFleetEquipment"): ActionCase(_home_body),
    key("GET", f"{HOME}/getCarDictionariesList"): ActionCase(_car_types),
    **{
        key("GET", f"{HOME}/{name}"): ActionCase(_home)
        for name in (
            "getTerminalSelectInfo",
            "getCarVehicleAssetClassification",
            "getCarHomeOnlineStatic",
            "getCarHomeCodeOnLineList",
            "getCarHomeOpenSum",
            "getCarHomeWarringStatic",
            "getCarHomeBatteryWarringStatic",
            "getCarHomeCarWarringStaticList",
        )
    },
    # the alarm center (real rows, another tenant and the data scope: tests/reporting/test_alarms.py)
    **{
        key("POST", f"{ALARM}/{name}"): ActionCase(_alarm_list)
        for name in (
            "getCarAlarmInfoList",
            "getCarCollisionList",
            "getCarSpeedingList",
            "getCarOverloadList",
            "getCarWarningList",
            "getCarFaultList",
        )
    },
    **{
        key("GET", f"{ALARM_EXPORT}/{name}/export"): ActionCase(_alarm_query)
        for name in ("all", "collision", "speeding", "overload", "warning", "fault")
    },
    key("GET", f"{ABNORMAL}/getCarAbnormalTree"): ActionCase(_alarm_query),
    key("GET", f"{ABNORMAL}/getCarAbnormalPage"): ActionCase(_alarm_query),
    key("GET", f"{ABNORMAL}/getCarAbnormalInfo"): ActionCase(_abnormal_info),
    key("GET", f"{ABNORMAL}/getIsFirstOpenCarAbnormalInfo"): ActionCase(_alarm_query),
    **{
        key("GET", f"{FAULT}/{name}"): ActionCase(_alarm_query)
        for name in ("tree", "faultCarPage", "faultTypePage", "export")
    },
}

# the vehicles' statistics and efficiency under carInfo (real rows and another tenant:
# tests/reporting/test_vehicle_statistics.py)


async def _car_efficiency(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"carId": car["id"]}, marker=car["id"], probe=vehicle_probe(car))


CASES.update(
    {
        key("POST", f"{ALARM}/getCarStatisticsList"): ActionCase(_efficiency, data_scope=True),
        key("GET", f"{ALARM}/getCarEfficiencyInfo"): ActionCase(_car_efficiency, data_scope=True),
        key("POST", f"{ALARM}/getCarEfficiencyReportStatistics"): ActionCase(_fleet_days),
    }
)

EXEMPTIONS: dict[str, str] = {}
