"""Generic action cases of the drivers on the vehicle (see actions.py for the format): the driver behaviour
analysis.
Its real counts, another tenant's alarms and the data scope are in tests/reporting/test_driver_behavior.py."""

from __future__ import annotations

from tests.conftest import Api
from tests.resources.actions import ActionCase, Call, key
from tests.resources.actions_fleet import vehicle, vehicle_probe

BEHAVIOR = "/api/blade-fics/fics/driverBehaviorAnalysis"


async def _analysis(api: Api, tenant: str) -> Call:
    """Counts filtered on a new vehicle of the tenant: another tenant's vehicle filters nothing of the caller's."""
    car = await vehicle(api, tenant)
    return Call(json={"carId": car["id"]}, probe=vehicle_probe(car))


CASES: dict[str, ActionCase] = {
    key("POST", f"{BEHAVIOR}/getFaceAlarmTypeCount"): ActionCase(_analysis),
    key("POST", f"{BEHAVIOR}/getFaceAlarmTypeCountTrend"): ActionCase(_analysis),
}

EXEMPTIONS: dict[str, str] = {}
