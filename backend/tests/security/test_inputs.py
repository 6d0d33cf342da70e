"""Findings 6 and 10 of the security probe: inputs a user can type answer 400 naming the problem, never 500, and a
refused update leaves the row as it was."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import BASIC, Api, Tenants

F = "/api/blade-fics-report/fics"
SYS = "/api/blade-system"
HUGE = "9" * 30


async def test_updates_are_validated_and_refused_whole(api: Api) -> None:
    car = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": api.unique("VAL-"), "ratedLoadKg": 2500})
    assert car["code"] == 200, car
    car_id = car["data"]["id"]
    for field, value in (("carType", 99), ("ratedLoadKg", -5), ("speedLimitKmh", 999), ("carNo", "x" * 300)):
        r = await api.post(f"{F}/carInfo/updateCarInfoById", json={"id": car_id, field: value, "brand": "changed"})
        assert r["_status"] < 500 and r["code"] == 400 and field in r["msg"], (field, r)
    empty = await api.post(f"{F}/carInfo/updateCarInfoById", json={"id": car_id, "carNo": None})
    assert empty["code"] == 400 and "carNo" in empty["msg"], empty
    row = (await api.get(f"{F}/carInfo/getCarInfo", params={"carId": car_id}))["data"]
    assert row["ratedLoadKg"] == 2500 and row["carType"] == 3 and row["brand"] is None, "nothing was written"
    listed = await api.get(f"{F}/carInfo/page")
    assert listed["code"] == 200
    role = (await api.get(f"{SYS}/role/list"))["data"][0]
    assert (await api.post(f"{SYS}/role/submit", json={"id": role["id"], "roleName": ""}))["code"] == 400
    param = (await api.get(f"{SYS}/param/list"))["data"]["records"][0]
    assert (await api.post(f"{SYS}/param/submit", json={"id": param["id"], "paramKey": ""}))["code"] == 400
    assert (await api.get(f"{SYS}/role/list"))["code"] == 200 and (await api.get(f"{SYS}/param/list"))["code"] == 200


CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", f"{SYS}/param/detail", {"params": {"id": HUGE}}),
    ("POST", f"{SYS}/param/remove", {"params": {"ids": HUGE}}),
    ("GET", f"{SYS}/param/list", {"params": {"current": HUGE}}),
    ("GET", f"{SYS}/param/list", {"params": {"size": HUGE}}),
    ("GET", f"{SYS}/param/list", {"params": {"id_equal": HUGE}}),
    ("GET", f"{SYS}/param/list", {"params": {"paramKey": "a\x00b"}}),
    ("GET", f"{SYS}/param/list", {"params": {"createTime_dategt": "garbage"}}),
    ("GET", f"{SYS}/param/list", {"params": {"createTime_dategt": "0001-01-01 00:00:00"}}),
    ("GET", f"{SYS}/param/list", {"params": {"createTime_datelt": "9999-12-31 23:59:59"}}),
    ("GET", f"{SYS}/dept/lazy-tree", {"params": {"parentId": "²"}}),
    ("GET", f"{SYS}/dept/lazy-tree", {"params": {"parentId": HUGE}}),
    ("POST", f"{SYS}/param/submit", {"json": {"paramName": "n\x00", "paramKey": "k", "paramValue": "v"}}),
    ("POST", "/api/blade-auth/oauth/logout", {"json": [{"type": "x" * 20, "message": "m"}]}),
    (
        "POST",
        f"{F}/carInfo/getCarLastGPSInfo",
        {"content": b"{not json", "headers": {"Content-Type": "application/json"}},
    ),
    (
        "POST",
        f"{F}/carInfo/getCarLastGPSInfo",
        {"content": b"[" * 10000 + b"]" * 10000, "headers": {"Content-Type": "application/json"}},
    ),
    ("POST", f"{F}/carInfo/getCarLastGPSInfo", {"json": {"carIds": [HUGE]}}),
]


@pytest.mark.parametrize(("method", "path", "kw"), CASES, ids=[f"{m} {p} {sorted(k)}" for m, p, k in CASES])
async def test_typed_inputs_answer_400(api: Api, method: str, path: str, kw: dict[str, Any]) -> None:
    r = await api.call(method, path, **kw)
    assert r["_status"] < 500 and r["code"] == 400, r


PUBLIC: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", f"{SYS}/tenant/info", {"params": {"domain": "\x00"}}),
    (
        "POST",
        "/api/blade-auth/oauth/token",
        {"params": {"username": "ad\x00min", "password": "x", "tenantId": "000000"}},
    ),
    ("POST", "/api/blade-auth/oauth/token", {"params": {"username": "admin", "password": "x", "tenantId": "0\x00"}}),
    ("POST", "/api/blade-user/register-guest", {"json": {"tenantId": "\x00", "account": "a", "password": "p"}}),
]


@pytest.mark.parametrize(("method", "path", "kw"), PUBLIC, ids=[f"{m} {p}" for m, p, _ in PUBLIC])
async def test_public_calls_refuse_nul_bytes(api: Api, method: str, path: str, kw: dict[str, Any]) -> None:
    r = await api.client.request(method, path, headers={"Authorization": BASIC}, **kw)
    assert r.status_code < 500 and r.status_code in (200, 400), r.text
    body = r.json()
    assert body.get("code", 400) == 400 or "error" in body, body


async def test_tenants_cannot_be_confused_with_each_other(api: Api, tenants: Tenants) -> None:
    """A tenant id with a NUL or a huge number in the switch parameter is refused, not a 500."""
    r = await api.get(f"{SYS}/param/list", params={"tenantId": "\x00"})
    assert r["_status"] < 500
