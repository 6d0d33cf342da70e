"""Generic action cases of the reporting context (see actions.py for the format).

The reports are read through the vehicles' scope with a menu of their own (``report_efficiency``, which the suite's
own-organisation user is granted): a vehicle of another organisation is not in the rows. The fleet's daily series
names no vehicle, so its data-scope case is ``tests/reporting/test_efficiency.py``'s.
"""

from __future__ import annotations

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


CASES: dict[str, ActionCase] = {
    key("POST", f"{REPORT}/getCarWorkEfficiencyList"): ActionCase(_efficiency, data_scope=True),
    key("POST", f"{REPORT}/getCarFleetWorkTimeCount"): ActionCase(_fleet_days),
    key("GET", f"{REPORT}/exportCarWorkEfficiencyList"): ActionCase(_export),
}

EXEMPTIONS: dict[str, str] = {}
