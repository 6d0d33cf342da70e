"""Generic action cases of drivers, their cards, accounts, faces, authorizations and applications (see actions.py
for the format). Drivers are placed in the organisation ``PLACE_IN`` names; the data-scope case's user gets the
drivers' rule (own organisation)."""

from __future__ import annotations

import io
import random
import struct
import zlib
from dataclasses import replace
from typing import Any

from openpyxl import Workbook

from tests.conftest import Api
from tests.resources.actions import PLACE_IN, ActionCase, Call, Prepare, key
from tests.resources.actions_fleet import vehicle
from tests.resources.data import CASES as RESOURCE_CASES

FICS = "/api/blade-fics-report/fics"
P = f"{FICS}/personnel"
DR = f"{FICS}/driver"
APPLY = f"{FICS}/driverApply"


def serial() -> str:
    return f"{random.randint(0, 10**10 - 1):010d}"


def main_card() -> dict[str, Any]:
    return {"cardKind": 1, "cardNumber": f"IC{serial()}", "serialNumber": serial(), "password": "1234"}


def png(width: int = 8, height: int = 8) -> bytes:
    """A real PNG image (red), written by hand: the server judges a face photo by its content."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xc8\x1e\x1e" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


async def driver(api: Api, tenant: str, **extra: Any) -> dict[str, Any]:
    """A new driver of ``tenant`` (as the API answers it), in the organisation ``PLACE_IN`` names if it does."""
    payload = {**(await RESOURCE_CASES["driver"].create(api, tenant)), **extra}
    if PLACE_IN.get() is not None:
        payload["mechanismId"] = PLACE_IN.get()
    r = await api.post(f"{P}/addDriverInfo", json=payload, tenant=tenant)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


def probe(d: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    return ("GET", f"{P}/detail", {"id": d["id"]})


async def bound(api: Api, tenant: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A new driver authorized for a new vehicle."""
    d, car = await driver(api, tenant), await vehicle(api, tenant)
    r = await api.post(
        f"{P}/addDriverAuthorizationCar", json={"driverId": d["id"], "carIds": [car["id"]]}, tenant=tenant
    )
    assert r["code"] == 200 and r["data"] == 1, r
    return d, car


async def _with_card(api: Api, tenant: str) -> tuple[dict[str, Any], str]:
    d = await driver(api, tenant, mainCard=main_card())
    return d, d["mainCard"]["id"]


# --------------------------------------------------------------------------- details and reads


async def _detail(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    return Call(ident=d["id"], marker=d["id"], probe=probe(d))


async def _by_name(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    return Call(params={"name": d["name"]}, marker=d["id"], probe=probe(d))


async def _dictionary(api: Api, tenant: str) -> Call:
    return Call()


async def _cards_body(api: Api, tenant: str) -> Call:
    d, card = await _with_card(api, tenant)
    return Call(json={"driverId": d["id"]}, marker=card, probe=probe(d))


async def _cards_path(api: Api, tenant: str) -> Call:
    d, card = await _with_card(api, tenant)
    return Call(ident=d["id"], marker=card, probe=probe(d))


# --------------------------------------------------------------------------- cards


async def _add_card(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    return Call(json={"driverId": d["id"], **main_card()}, probe=probe(d))


async def _unbind_cards(api: Api, tenant: str) -> Call:
    d, card = await _with_card(api, tenant)
    return Call(json={"ids": [card]}, probe=probe(d))


async def _unbind_card(api: Api, tenant: str) -> Call:
    d, card = await _with_card(api, tenant)
    return Call(ident=card, probe=probe(d))


async def _bind_card(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    r = await api.post(f"{DR}/addIdicCard", json=main_card(), tenant=tenant)
    assert r["code"] == 200 and r["data"]["driverId"] is None, r
    return Call(json={"driverId": d["id"], "cardId": r["data"]["id"]}, probe=probe(d))


async def _delete_cards(api: Api, tenant: str) -> Call:
    d, card = await _with_card(api, tenant)
    return Call(json={"ids": [card]}, probe=probe(d))


# --------------------------------------------------------------------------- licence, account, face


async def _save_license(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    body = {"driverId": d["id"], "licenseNumber": "L-2", "licenseValidUntil": "2030-01-31 00:00:00"}
    return Call(json=body, probe=probe(d))


async def _save_account(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    return Call(json={"driverId": d["id"], "appAccount": api.unique("app"), "appPassword": "secret-1"}, probe=probe(d))


async def _revert(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant, appAccount=api.unique("app"), appPassword="secret-1")
    return Call(ident=d["id"], probe=probe(d))


async def _upload_face(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    return Call(params={"driverId": d["id"]}, files={"file": ("face.png", png(), "image/png")}, probe=probe(d))


async def _delete_face(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    r = await api.post(
        f"{DR}/updateDriverFacePhoto",
        params={"driverId": d["id"]},
        files={"file": ("face.png", png(), "image/png")},
        tenant=tenant,
    )
    assert r["code"] == 200 and r["data"]["facePhoto"], r
    return Call(ident=d["id"], probe=probe(d))


# --------------------------------------------------------------------------- selections, import and export


async def _blacklist(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    return Call(json={"ids": [d["id"]], "blacklisted": 1, "reason": "generic"}, probe=probe(d))


async def _leave(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    return Call(params={"ids": d["id"]}, probe=probe(d))


def xlsx(*rows: list[object]) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


async def _export(api: Api, tenant: str) -> Call:
    d = await driver(api, tenant)
    return Call(params={"phone_equal": d["phone"]}, marker=d["phone"], probe=probe(d))


async def _import(api: Api, tenant: str) -> Call:
    """Covering an existing driver of the tenant (by phone): another tenant's import must not touch it."""
    d = await driver(api, tenant)
    data = xlsx(["手机号", "姓名"], [d["phone"], "改名"])
    return Call(params={"isCovered": 1}, files={"file": ("d.xlsx", data, "application/octet-stream")}, probe=probe(d))


async def _progress(api: Api, tenant: str) -> Call:
    base = random.randint(10**8, 10**9 - 1000)
    data = xlsx(["姓名", "手机号"], *([f"导入{i}", f"15{base + i:09d}"] for i in range(201)))
    r = await api.post(f"{P}/importDriver", files={"file": ("d.xlsx", data, "application/octet-stream")}, tenant=tenant)
    assert r["code"] == 200 and r["data"]["jobId"], r
    return Call(params={"jobId": r["data"]["jobId"]}, marker=r["data"]["jobId"])


# --------------------------------------------------------------------------- authorizations


async def _auth_cars(api: Api, tenant: str) -> Call:
    d, car = await bound(api, tenant)
    return Call(params={"driverId": d["id"]}, marker=car["id"], probe=probe(d))


async def _not_auth_cars(api: Api, tenant: str) -> Call:
    d, car = await driver(api, tenant), await vehicle(api, tenant)
    return Call(params={"driverId": d["id"], "carNo": car["carNo"]}, marker=car["id"], probe=probe(d))


async def _authorize(api: Api, tenant: str) -> Call:
    d, car = await driver(api, tenant), await vehicle(api, tenant)
    return Call(json={"driverId": d["id"], "carIds": [car["id"]]}, probe=probe(d))


async def _deauthorize(api: Api, tenant: str) -> Call:
    d, car = await bound(api, tenant)
    return Call(json={"driverId": d["id"], "carIds": [car["id"]]}, probe=probe(d))


async def _auth_drivers(api: Api, tenant: str) -> Call:
    d, car = await bound(api, tenant)
    return Call(params={"carId": car["id"]}, marker=d["id"], probe=probe(d))


async def _not_auth_drivers(api: Api, tenant: str) -> Call:
    d, car = await driver(api, tenant), await vehicle(api, tenant)
    return Call(params={"carId": car["id"], "name": d["name"]}, marker=d["id"], probe=probe(d))


async def _car_authorize(api: Api, tenant: str) -> Call:
    d, car = await driver(api, tenant), await vehicle(api, tenant)
    return Call(json={"carId": car["id"], "driverIds": [d["id"]]}, probe=probe(d))


async def _car_deauthorize(api: Api, tenant: str) -> Call:
    d, car = await bound(api, tenant)
    return Call(json={"carId": car["id"], "driverIds": [d["id"]]}, probe=probe(d))


async def _batch(api: Api, tenant: str) -> Call:
    d, car = await driver(api, tenant), await vehicle(api, tenant)
    return Call(json={"carIds": [car["id"]], "driverIds": [d["id"]]}, probe=probe(d))


async def _cars_of_drivers(api: Api, tenant: str) -> Call:
    d, car = await bound(api, tenant)
    return Call(json={"driverIds": [d["id"]]}, marker=car["id"], probe=probe(d))


async def _car_authorization(api: Api, tenant: str) -> Call:
    d, car = await bound(api, tenant)
    return Call(params={"driverId": d["id"], "carNo": car["carNo"]}, marker=car["id"], probe=probe(d))


async def _authorizations(api: Api, tenant: str) -> Call:
    d, car = await bound(api, tenant)
    return Call(params={"driverId": d["id"]}, marker=car["id"], probe=probe(d))


# --------------------------------------------------------------------------- applications


async def _audit(api: Api, tenant: str) -> Call:
    payload = await RESOURCE_CASES["driver_apply"].create(api, tenant)
    if PLACE_IN.get() is not None:
        payload["mechanismId"] = PLACE_IN.get()
    r = await api.post(f"{APPLY}/submit", json=payload, tenant=tenant)
    assert r["code"] == 200, r
    ident = r["data"]["id"]
    return Call(
        json={"ids": [ident], "applyStatus": 2, "auditNote": "generic"},
        probe=("GET", f"{APPLY}/detail", {"id": ident}),
    )


_DRIVER: dict[str, Prepare] = {
    key("GET", f"{P}/getDriverInfoDetail/{{id}}"): _detail,
    key("GET", f"{DR}/getDriverInfoDetail/{{id}}"): _detail,
    key("GET", f"{DR}/getDriverDetail/{{id}}"): _detail,
    key("GET", f"{DR}/getDriverLicense/{{id}}"): _detail,
    key("GET", f"{DR}/getDriverAppAccount/{{id}}"): _detail,
    key("GET", f"{DR}/getDriverFacePhoto/{{id}}"): _detail,
    key("GET", f"{DR}/queryDriverListByName"): _by_name,
    key("POST", f"{P}/getDriverIdicCard"): _cards_body,
    key("GET", f"{DR}/getDriverIdicCard/{{id}}"): _cards_path,
    key("POST", f"{P}/addIdicCard"): _add_card,
    key("POST", f"{DR}/addIdicCard"): _add_card,
    key("POST", f"{P}/driverUnbindIdicCard"): _unbind_cards,
    key("POST", f"{DR}/idicCardUnbindDriver/{{id}}"): _unbind_card,
    key("POST", f"{DR}/idicCardBindDriver"): _bind_card,
    key("POST", f"{DR}/deleteIdic"): _delete_cards,
    key("POST", f"{DR}/addDriverLicense"): _save_license,
    key("POST", f"{DR}/addDriverAccount"): _save_account,
    key("GET", f"{P}/revertPassword/{{id}}"): _revert,
    key("POST", f"{DR}/updateDriverFacePhoto"): _upload_face,
    key("DELETE", f"{DR}/deleteFacePhoto/{{id}}"): _delete_face,
    key("POST", "/api/liftdesk/driver/blacklist"): _blacklist,
    key("POST", "/api/liftdesk/driver/unbindOrganisation"): _leave,
    key("GET", f"{P}/exportDriver"): _export,
    key("POST", f"{P}/importDriver"): _import,
    key("GET", f"{P}/queryAuthCar"): _auth_cars,
    key("GET", f"{P}/queryNotAuthCar"): _not_auth_cars,
    key("POST", f"{P}/addDriverAuthorizationCar"): _authorize,
    key("POST", f"{P}/cancelDriverAuthorizationCar"): _deauthorize,
    key("GET", f"{DR}/queryAuthCar"): _auth_cars,
    key("GET", f"{DR}/queryNotAuthCar"): _not_auth_cars,
    key("POST", f"{DR}/addDriverAuthorizationCar"): _authorize,
    key("POST", f"{DR}/cancelDriverAuthorizationCar"): _deauthorize,
    key("POST", f"{P}/checkAuthorizationCarIdByDriverIds"): _cars_of_drivers,
    key("GET", f"{DR}/queryCarAuthorization"): _car_authorization,
    key("GET", f"{DR}/driverAuthorizationPageList"): _authorizations,
    key("GET", f"{FICS}/carInfo/getAuthDriver"): _auth_drivers,
    key("GET", f"{FICS}/carSet/selectDriverListV1"): _not_auth_drivers,
    key("POST", f"{FICS}/carSet/carAuthorizationDriver"): _car_authorize,
    key("POST", f"{FICS}/carSet/cancelCarAuthorizationDriver"): _car_deauthorize,
    key("POST", f"{FICS}/carSet/batchAuthorization"): _batch,
}
DRIVER_BUTTONS = ("driver_add", "driver_edit", "driver_delete", "driver_auth", "driver_blacklist", "driver_unbind")
_SCOPED = ActionCase(
    _detail,
    data_scope=True,
    scope_resource="driver",
    scope_menus=("driver", "vehicle"),
    scope_buttons=DRIVER_BUTTONS,
)

CASES: dict[str, ActionCase] = {
    **{name: replace(_SCOPED, prepare=prepare) for name, prepare in _DRIVER.items()},
    key("GET", f"{P}/getJobTypeList"): ActionCase(_dictionary),
    key("GET", f"{P}/getIcLevelEnumList"): ActionCase(_dictionary),
    key("GET", f"{P}/getVerifyTypeList"): ActionCase(_dictionary),
    key("GET", f"{P}/exportDriverTemplate"): ActionCase(_dictionary),
    key("GET", f"{P}/importDriverProgress"): ActionCase(_progress),
    key("POST", f"{APPLY}/auditBatch"): ActionCase(
        _audit,
        data_scope=True,
        scope_resource="driver_apply",
        scope_menus=("driver_apply",),
        scope_buttons=("driver_apply_audit",),
    ),
}

EXEMPTIONS: dict[str, str] = {}
