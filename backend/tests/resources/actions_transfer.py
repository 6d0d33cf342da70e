"""Generic action cases of the import and export kinds (see actions.py for the format)."""

from __future__ import annotations

import io

from openpyxl import Workbook

from tests.conftest import Api
from tests.resources.actions import ActionCase, Call, key
from tests.resources.actions_fleet import FICS, vehicle, vehicle_probe

CAR = f"{FICS}/carInfo"


def _xlsx(*rows: list[object]) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


async def _export(api: Api, tenant: str) -> Call:
    car = await vehicle(api, tenant)
    return Call(params={"carNo_equal": car["carNo"]}, marker=car["carNo"], probe=vehicle_probe(car))


async def _template(api: Api, tenant: str) -> Call:
    return Call()


async def _import(api: Api, tenant: str) -> Call:
    """Covering an existing vehicle of the tenant: another tenant's import of the same number must not touch it."""
    car = await vehicle(api, tenant)
    data = _xlsx(["车辆编号", "品牌"], [car["carNo"], "Changed"])
    return Call(
        params={"isCovered": 1},
        files={"file": ("cars.xlsx", data, "application/octet-stream")},
        probe=vehicle_probe(car),
    )


async def _progress(api: Api, tenant: str) -> Call:
    number = api.unique("PRG-")
    data = _xlsx(["车辆编号"], *([f"{number}-{i}"] for i in range(201)))
    r = await api.post(
        f"{CAR}/importCar", files={"file": ("cars.xlsx", data, "application/octet-stream")}, tenant=tenant
    )
    assert r["code"] == 200 and r["data"]["jobId"], r
    return Call(params={"jobId": r["data"]["jobId"]}, marker=r["data"]["jobId"])


CASES: dict[str, ActionCase] = {
    key("GET", f"{CAR}/exportCar"): ActionCase(_export, data_scope=True),
    key("GET", f"{CAR}/exportCarTemplate"): ActionCase(_template),
    key("POST", f"{CAR}/importCar"): ActionCase(_import, data_scope=True),
    key("GET", f"{CAR}/getCarByImport"): ActionCase(_progress),
}

EXEMPTIONS: dict[str, str] = {}
