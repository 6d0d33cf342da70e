"""Generic action cases of the fleet context (see actions.py for the format)."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api
from tests.resources.actions import ActionCase, Call, key
from tests.resources.data import CASES as RESOURCE_CASES

FICS = "/api/blade-fics-report/fics"


async def vehicle(api: Api, tenant: str) -> dict[str, Any]:
    """A new vehicle with a terminal in ``tenant`` (its row as the API answers it)."""
    payload = await RESOURCE_CASES["vehicle"].create(api, tenant)
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


CASES: dict[str, ActionCase] = {
    key("POST", f"{FICS}/carInfo/getCarLastGPSInfo"): ActionCase(_last_gps),
    key("GET", f"{FICS}/carStatus/getCnt"): ActionCase(_count),
    key("GET", f"{FICS}/positionTrailing/carRealTimeInfo"): ActionCase(_real_time),
    key("GET", f"{FICS}/positionTrailing/positionTrailing"): ActionCase(_real_time),
}

EXEMPTIONS: dict[str, str] = {}
