"""Generic action cases of the fleet context (see actions.py for the format)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from tests.conftest import Api
from tests.resources.actions import PLACE_IN, ActionCase, Call, Prepare, key
from tests.resources.data import CASES as RESOURCE_CASES

FICS = "/api/blade-fics-report/fics"
FENCES = f"{FICS}/carInfo"
CMD = "/api/liftdesk/command"


async def vehicle(api: Api, tenant: str) -> dict[str, Any]:
    """A new vehicle with a terminal in ``tenant`` (its row as the API answers it), in the organisation
    ``PLACE_IN`` names if it does."""
    payload = await RESOURCE_CASES["vehicle"].create(api, tenant)
    if PLACE_IN.get() is not None:
        payload["mechanismId"] = PLACE_IN.get()
    r = await api.post(f"{FICS}/carInfo/insertCarInfo", json=payload, tenant=tenant)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


def vehicle_probe(car: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    return ("GET", f"{FICS}/carInfo/getCarInfo", {"carId": car["id"]})


async def _last_gps(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(json={"carIds": [car["id"]]}, marker=car["id"], probe=vehicle_probe(car))


async def _count(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"mechanismId": car["mechanismId"]} if car.get("mechanismId") else {}, probe=vehicle_probe(car))


async def _real_time(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"carId": car["id"]}, marker=car["id"], probe=vehicle_probe(car))


async def _state_list(api: Api, tenant: str) -> Call:
    """A list of vehicles with their live state, searched by the new vehicle's number (electric by default)."""
    car = await vehicle(api, tenant)
    return Call(json={"carNo": car["carNo"], "size": 50}, marker=car["id"], probe=vehicle_probe(car))


async def _diesel_list(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    r = await api.post(f"{FICS}/carInfo/updateCarInfoById", json={"id": car["id"], "carType": 0}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(json={"carNo": car["carNo"], "size": 50}, marker=car["id"], probe=vehicle_probe(car))


async def _by_frame(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    frame = f"VIN{car['id']}"
    r = await api.post(f"{FICS}/carInfo/updateCarInfoById", json={"id": car["id"], "frameNumber": frame}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(params={"frameNumber": frame}, marker=car["id"], probe=vehicle_probe(car))


async def _of_vehicle(api: Api, tenant: str) -> Call:
    """A call about one vehicle whose answer does not name it (its alarm counts, its alarms)."""
    car = await vehicle(api, tenant)
    return Call(params={"carId": car["id"]}, probe=vehicle_probe(car))


async def _car_tree(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"carNo": car["carNo"]}, marker=car["id"], probe=vehicle_probe(car))


# --------------------------------------------------------------------------- commands (fleet/commands_api.py)
# The vehicles' terminals are not connected: a command is queued (pending) and, with wait 0, answered at once.


def _command(body: dict[str, Any]) -> Prepare:
    """A sending call of ``body`` (plus the vehicle and ``wait: 0``) for a new vehicle of the tenant."""

    async def prepare(api: Api, tenant: str) -> Call:
        car = await vehicle(api, tenant)
        return Call(json={"carIds": [car["id"]], "wait": 0, **body}, marker=car["id"], probe=vehicle_probe(car))

    return prepare


async def _query_config(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"wait": 0}, ident=car["id"], marker=car["id"], probe=vehicle_probe(car))


async def _release(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"carId": car["id"]}, marker=car["id"], probe=vehicle_probe(car))


async def sent_command(api: Api, tenant: str) -> str:
    """The id of a command queued (pending) for a new vehicle of the tenant."""
    car = await vehicle(api, tenant)
    r = await api.post(f"{CMD}/send", json={"carIds": [car["id"]], "name": "query_location", "wait": 0}, tenant=tenant)
    assert r["code"] == 200 and r["data"][0]["status"] == "pending", r
    ident: str = r["data"][0]["id"]
    return ident


async def _command_detail(api: Api, tenant: str) -> Call:
    ident = await sent_command(api, tenant)
    return Call(params={"id": ident}, marker=ident, probe=("GET", f"{CMD}/detail", {"id": ident}))


async def _cancel(api: Api, tenant: str) -> Call:
    ident = await sent_command(api, tenant)
    return Call(params={"ids": ident}, marker=ident, probe=("GET", f"{CMD}/detail", {"id": ident}))


SWITCHES = {
    "fenceSetting": 1,
    "authorizationStatus": 0,
    "spotCheckSet": 0,
    "slotCardSet": 0,
    "carNetworkingSet": 1,
    "seatBeltDetectionFunction": 0,
    "dmsFunction": 0,
}  # every switch: nothing to ask the terminal first

COMMAND_CASES: dict[str, ActionCase] = {
    key("GET", f"{FICS}/carSet/sendGetDeviceConfig/{{id}}"): ActionCase(_query_config),
    key("POST", f"{FICS}/carSet/sendDeviceConfig"): ActionCase(_command({"params": {"heartbeat_interval": 30}})),
    key("POST", f"{FICS}/carSet/lockCar"): ActionCase(_command({"lockLevel": 0})),
    key("POST", f"{FICS}/carSet/rateLimiting"): ActionCase(_command({"speedLimit": 10})),
    key("POST", f"{FICS}/carSet/crashThresholdValue"): ActionCase(_command({"crashThresholdValue": 2.5})),
    key("POST", f"{FICS}/carSet/overloadThresholdValue"): ActionCase(_command({"overloadThresholdValue": 250})),
    key("POST", f"{FICS}/carSet/speedCalibration"): ActionCase(_command({"speedCalibration": 1.05})),
    key("POST", f"{FICS}/carSet/weightCalibration"): ActionCase(_command({"weightCalibration": 0.98})),
    key("POST", f"{FICS}/carSet/funcset"): ActionCase(_command(SWITCHES)),
    key("POST", f"{FICS}/parameterQuery/hardwareVersionNumberQuery"): ActionCase(_command({})),
    key("POST", f"{FICS}/parameterQuery/softwareVersionNumberQuery"): ActionCase(_command({})),
    key("POST", f"{FICS}/parameterQuery/versionNumberQuery"): ActionCase(_command({})),
    key("POST", f"{FICS}/operation/versionUpdate"): ActionCase(
        _command({"url": "https://fw.example.com/ld808/2.0.bin", "version": "2.0", "maker": "LFTDK"})
    ),
    key("POST", f"{CMD}/send"): ActionCase(_command({"name": "query_location"})),
    key("GET", f"{CMD}/detail"): ActionCase(_command_detail),
    key("POST", f"{CMD}/cancel"): ActionCase(_cancel),
    key("POST", "/api/liftdesk/terminal/release"): ActionCase(_release),
}


# --------------------------------------------------------------------------- fences (fleet/fences_api.py)


async def bound_fence(api: Api, tenant: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A new vehicle of the tenant and a new fence bound to it."""
    car = await vehicle(api, tenant)
    payload = {**(await RESOURCE_CASES["fence"].create(api, tenant)), "carIds": [car["id"]]}
    r = await api.post(f"{FENCES}/v2/addCarElectronicsSet", json=payload, tenant=tenant)
    assert r["code"] == 200, r
    return car, r["data"]


def fence_probe(fence: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    return ("GET", f"{FENCES}/V2/getCarElectronicsInfo", {"id": fence["id"]})


async def _authorization(api: Api, tenant: str) -> Call:
    car, fence = await bound_fence(api, tenant)
    return Call(params={"id": fence["id"]}, marker=car["id"], probe=fence_probe(fence))


async def _fences_of_car(api: Api, tenant: str) -> Call:
    car, fence = await bound_fence(api, tenant)
    return Call(params={"carId": car["id"]}, marker=fence["id"], probe=fence_probe(fence))


async def _unbind(api: Api, tenant: str) -> Call:
    car, fence = await bound_fence(api, tenant)
    return Call(params={"carId": car["id"], "fenceId": fence["id"]}, probe=fence_probe(fence))


async def _fence_settings(api: Api, tenant: str) -> Call:
    car, fence = await bound_fence(api, tenant)
    body = {"carNo_likeright": car["carNo"], "current": 1, "size": 10}
    return Call(json=body, marker=car["id"], probe=fence_probe(fence))


async def _fence_of(api: Api, tenant: str) -> dict[str, Any]:
    r = await api.post(
        f"{FENCES}/v2/addCarElectronicsSet", json=await RESOURCE_CASES["fence"].create(api, tenant), tenant=tenant
    )
    assert r["code"] == 200, r
    fence: dict[str, Any] = r["data"]
    return fence


async def _bound_cars(api: Api, tenant: str) -> Call:
    car, fence = await bound_fence(api, tenant)
    return Call(params={"fenceId": fence["id"]}, marker=car["id"], probe=fence_probe(fence))


async def _unbound_cars(api: Api, tenant: str) -> Call:
    car, fence = await vehicle(api, tenant), await _fence_of(api, tenant)
    return Call(params={"fenceId": fence["id"], "carNo": car["carNo"]}, marker=car["id"], probe=fence_probe(fence))


async def _bind_cars(api: Api, tenant: str) -> Call:
    car, fence = await vehicle(api, tenant), await _fence_of(api, tenant)
    return Call(json={"fenceId": fence["id"], "carIds": [car["id"]]}, probe=fence_probe(fence))


async def _unbind_cars(api: Api, tenant: str) -> Call:
    car, fence = await bound_fence(api, tenant)
    return Call(json={"fenceId": fence["id"], "carIds": [car["id"]]}, probe=fence_probe(fence))


FENCE_CASES: dict[str, ActionCase] = {
    key("GET", "/api/liftdesk/fence/boundCars"): ActionCase(_bound_cars),
    key("GET", "/api/liftdesk/fence/unboundCars"): ActionCase(_unbound_cars),
    key("POST", "/api/liftdesk/fence/bindCars"): ActionCase(_bind_cars),
    key("POST", "/api/liftdesk/fence/unbindCars"): ActionCase(_unbind_cars),
    key("GET", f"{FENCES}/V2/getCarElectronicsAuthorization"): ActionCase(_authorization),
    key("GET", f"{FENCES}/getCarElectronicsSet"): ActionCase(_fences_of_car),
    key("GET", f"{FENCES}/delCarOfElectronicsSet"): ActionCase(_unbind),
    key("POST", f"{FENCES}/getCarFenceSettingList"): ActionCase(_fence_settings),
}


# --------------------------------------------------------------------------- HTTP ingest (telemetry/ingest_api.py)


async def _ingest(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    fix = {"time": datetime.now(UTC).replace(microsecond=0).isoformat(), "lat": 31.2, "lon": 121.5}
    return Call(json={"device": car["deviceNumber"], "fixes": [fix]}, marker=car["id"], probe=vehicle_probe(car))


VEHICLE_CASES: dict[str, ActionCase] = {
    key("POST", f"{FICS}/carInfo/getCarLastGPSInfo"): ActionCase(_last_gps),
    key("GET", f"{FICS}/carStatus/getCnt"): ActionCase(_count),
    key("GET", f"{FICS}/positionTrailing/carRealTimeInfo"): ActionCase(_real_time),
    key("GET", f"{FICS}/positionTrailing/positionTrailing"): ActionCase(_real_time),
    key("POST", f"{FICS}/carInfo/getCarStateInfoList"): ActionCase(_state_list),
    key("POST", f"{FICS}/carInfo/getCarElectricVehicleInfoList"): ActionCase(_state_list),
    key("POST", f"{FICS}/carInfo/getCarDieselVehicleInfoList"): ActionCase(_diesel_list),
    key("GET", f"{FICS}/carInfo/getCarInfoByFrameNumber"): ActionCase(_by_frame),
    key("GET", f"{FICS}/positionTrailing/phaseData"): ActionCase(_real_time),
    key("GET", f"{FICS}/positionTrailing/alarmStatics"): ActionCase(_of_vehicle),
    key("GET", f"{FICS}/positionTrailing/alarmDetail"): ActionCase(_of_vehicle),
    key("GET", f"{FICS}/positionTrailing/mechanismCarTree"): ActionCase(_car_tree),
    key("GET", f"{FICS}/carStatus/getVehicleInfo"): ActionCase(_real_time),
    key("GET", f"{FICS}/carStatus/getStageCnt"): ActionCase(_real_time),
    key("GET", f"{FICS}/carStatus/getDiagnoseReport"): ActionCase(_real_time),
    key("GET", f"{FICS}/carStatus/getRealTimeMeter"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getTotalMileage"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getWorkTimeThermal"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getTemperature"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getRunCondition"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getWorkEfficiencyCalendar"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getCarTeamWaterfall"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getThrottleOpening"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getFuelInjectionQuantity"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getEcuPostProcessing"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getDifferentialPressure"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getStrengthenRoadSpectrum"): ActionCase(_real_time),
    key("GET", f"{FICS}/monitor/getFilteredFlowResistance"): ActionCase(_real_time),
    **COMMAND_CASES,
    **FENCE_CASES,
    key("POST", "/api/liftdesk/ingest"): ActionCase(_ingest),
}
# Every fleet case hangs on vehicles, which a data scope by organisation narrows.
CASES = {name: replace(case, data_scope=True) for name, case in VEHICLE_CASES.items()}

EXEMPTIONS: dict[str, str] = {}


# --------------------------------------------------------------------------- the vehicle calls of issue 13
# (telemetry/api/lists.py, equipment.py, positions.py; fleet/api/assets.py, vehicles.py): real rows, another tenant
# and statement counts in tests/telemetry/test_vehicle_calls.py and tests/fleet/test_assets.py.


def _changed(**fields: Any) -> Prepare:
    """A list of vehicles searched by the number of a new vehicle changed to ``fields`` (its type, its battery)."""

    async def prepare(api: Api, tenant: str) -> Call:
        car = await vehicle(api, tenant)
        r = await api.post(f"{FICS}/carInfo/updateCarInfoById", json={"id": car["id"], **fields}, tenant=tenant)
        assert r["code"] == 200, r
        return Call(json={"carNo": car["carNo"], "size": 50}, marker=car["id"], probe=vehicle_probe(car))

    return prepare


async def _positioned(api: Api, tenant: str) -> Call:
    """A vehicle with one position (through the HTTP ingest), asked where it is."""
    car = await vehicle(api, tenant)
    fix = {"time": datetime.now(UTC).replace(microsecond=0).isoformat(), "lat": 31.2, "lon": 121.5}
    r = await api.post("/api/liftdesk/ingest", json={"device": car["deviceNumber"], "fixes": [fix]}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(params={"carId": car["id"]}, marker=car["id"], probe=vehicle_probe(car))


async def _by_device(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(json={"deviceNumber": car["deviceNumber"]}, probe=vehicle_probe(car))


async def _tracks(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(json={"carIds": [car["id"]]}, marker=car["id"], probe=vehicle_probe(car))


async def _trip(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(form={"carId": car["id"]}, marker=car["id"], probe=vehicle_probe(car))


async def _assets(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"carNo": car["carNo"]}, marker=car["id"], probe=vehicle_probe(car))


async def _dictionaries(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(probe=vehicle_probe(car))


async def _address(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"location": "121.4737,31.2304"}, probe=vehicle_probe(car))


VEHICLE_CALL_CASES: dict[str, ActionCase] = {
    key("POST", f"{FICS}/carInfo/getCarStackerList"): ActionCase(_changed(carType=8)),
    key("POST", f"{FICS}/carInfo/getCarFuelCellList"): ActionCase(_changed(batteryType="氢燃料电池")),
    key("POST", f"{FICS}/carInfo/getCarBatteryStatusList"): ActionCase(_state_list),
    key("POST", f"{FICS}/carInfo/getCarEcuList"): ActionCase(_diesel_list),
    key("POST", f"{FICS}/carInfo/getHomeCarList"): ActionCase(_state_list),
    key("GET", f"{FICS}/carInfo/getCarMonitorInfo"): ActionCase(_real_time),
    key("GET", f"{FICS}/positionTrailing/carPosition"): ActionCase(_positioned),
    key("POST", f"{FICS}/carInfo/getCarGPSListByCode"): ActionCase(_by_device),
    key("POST", f"{FICS}/carInfo/getCarGPSListByCodeNew"): ActionCase(_by_device),
    key("POST", f"{FICS}/carInfo/getCarPositionTracking"): ActionCase(_tracks),
    key("POST", f"{FICS}/carInfo/getCarPositionTrackingInfo"): ActionCase(_trip),
    key("GET", f"{FICS}/carAssets/list"): ActionCase(_assets),
    key("POST", f"{FICS}/carAssets/delete"): ActionCase(_release),
    key("GET", f"{FICS}/carInfo/getCarDictionariesList"): ActionCase(_dictionaries),
    # a position names no row of a tenant: served alike to every tenant
    key("GET", f"{FICS}/common/getAddress"): ActionCase(_address),
}
CASES.update({name: replace(case, data_scope=True) for name, case in VEHICLE_CALL_CASES.items()})


async def _live_ticket(api: Api, tenant: str) -> Call:
    """A ticket to the live feed names no row: each tenant's administrator gets one for their own token (the feed
    it opens is scoped: tests/telemetry/test_live.py)."""
    car = await vehicle(api, tenant)
    return Call(probe=vehicle_probe(car))


CASES[key("POST", "/api/liftdesk/live/ticket")] = ActionCase(_live_ticket)
