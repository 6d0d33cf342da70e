"""One suite over every registered resource: CRUD, paging, filters, sorting, 401, 403 and tenant isolation."""

from __future__ import annotations

from typing import Any

import pytest

from liftdesk.app import build_registry
from liftdesk.core.registry import REGISTRY
from liftdesk.core.resource import OPEN, READ_KINDS, Resource
from tests.conftest import Api, Tenants
from tests.resources.data import CASES, EXEMPTIONS

build_registry()
NAMES = sorted(CASES)


def op(res: Resource, *kinds: str) -> str | None:
    for path, kind in res.ops.items():
        if kind in kinds:
            return res.path(path)
    return None


async def read(api: Api, res: Resource, kinds: tuple[str, ...], **kw: Any) -> dict[str, Any]:
    """Call a read operation with its declared method (the spec serves some lists with POST)."""
    path = next(p for p, kind in res.ops.items() if kind in kinds)
    return await api.call(res.method(path), res.path(path), **kw)


def rows_of(data: Any) -> list[dict[str, Any]]:
    """Records of a page, or every node of a tree list, flattened."""
    items = data["records"] if isinstance(data, dict) else data
    out: list[dict[str, Any]] = []
    stack = list(items)
    while stack:
        row = stack.pop()
        out.append(row)
        stack.extend(row.get("children") or [])
    return out


async def create(api: Api, name: str, tenant: str = "000000") -> tuple[Resource, dict[str, Any], dict[str, Any]]:
    res = REGISTRY[name]
    payload = await CASES[name].create(api, tenant)
    r = await api.post(op(res, "submit", "create") or "", json=payload, tenant=tenant)
    assert r["code"] == 200 and r["success"] is True, r
    return res, payload, r["data"]


async def listed(api: Api, res: Resource, params: dict[str, Any], tenant: str = "000000") -> list[dict[str, Any]]:
    """The rows a filter selects: the whole first page of 1,000 for a paged read (other tests' rows of a table
    shared by the whole run, such as tenants, would push a row past a default page of 10)."""
    paged = any(kind == "page" for kind in res.ops.values())
    r = await read(api, res, ("page", "list"), params={"size": 1000, **params} if paged else params, tenant=tenant)
    assert r["code"] == 200, r
    return rows_of(r["data"])


def test_every_resource_has_test_data() -> None:
    # a subject without a model of its own has no generated operations: its calls are actions, each with its case in
    # the generic action suite (test_actions.py)
    registered = {res.name for res in REGISTRY if res.model is not None}
    missing = registered - set(CASES) - set(EXEMPTIONS)
    assert not missing, f"resources without generic test data: {sorted(missing)}"
    assert not set(CASES) - registered, "test data for resources that are not registered (or have no model)"
    assert all(reason.strip() for reason in EXEMPTIONS.values())


@pytest.mark.parametrize("name", NAMES)
async def test_create_read_update_delete(api: Api, name: str) -> None:
    res, payload, row = await create(api, name)
    for key, value in payload.items():
        if key in ("password", "clientSecret", "secretKey") or key not in row:
            continue
        assert row[key] == value or str(row[key]) == str(value), (key, row[key], value)
    assert row["id"].isdigit(), "ids are strings of digits"

    got = await api.get(op(res, "detail") or "", params={"id": row["id"]})
    assert got["code"] == 200 and got["data"]["id"] == row["id"]

    case = CASES[name]
    field, new_value = case.change
    upd = await api.post(op(res, "submit", "update") or "", json={"id": row["id"], field: new_value})
    assert upd["code"] == 200, upd
    after = (await api.get(op(res, "detail") or "", params={"id": row["id"]}))["data"]
    assert after[field] == new_value
    assert after[case.filter_field] == row[case.filter_field], "an update touches only what it was given"

    gone = await api.post(op(res, "remove") or "", params={"ids": row["id"]})
    assert gone["code"] == 200 and gone["data"] is True
    missing = await api.get(op(res, "detail") or "", params={"id": row["id"]})
    assert missing["code"] == 400 and missing["success"] is False
    assert row["id"] not in {r["id"] for r in await listed(api, res, {case.filter_field: row[case.filter_field]})}


@pytest.mark.parametrize("name", NAMES)
async def test_filters(api: Api, name: str) -> None:
    res, _, row = await create(api, name)
    _, _, other = await create(api, name)
    f = CASES[name].filter_field
    value = str(row[f])
    exact = {r["id"] for r in await listed(api, res, {f"{f}_equal": value})}
    assert row["id"] in exact and other["id"] not in exact
    like = {r["id"] for r in await listed(api, res, {f: value[1:-1]})}
    assert row["id"] in like
    not_equal = {r["id"] for r in await listed(api, res, {f"{f}_notequal": value})}
    assert row["id"] not in not_equal and other["id"] in not_equal
    right = {r["id"] for r in await listed(api, res, {f"{f}_likeright": value[:-1]})}
    assert row["id"] in right
    created = {
        r["id"] for r in await listed(api, res, {"createTime_dategt": "2000-01-01 00:00:00", f"{f}_equal": value})
    }
    later = {r["id"] for r in await listed(api, res, {"createTime_dategt": "2999-01-01 00:00:00", f"{f}_equal": value})}
    if "create_time" in res.columns:
        assert row["id"] in created and not later
    unknown = await read(api, res, ("page", "list"), params={"noSuchField_equal": "x"})
    assert unknown["code"] == 200, "unknown filter keys are ignored, as BladeX does"


@pytest.mark.parametrize("name", [n for n in NAMES if op(REGISTRY[n], "page")])
async def test_paging_and_sorting(api: Api, name: str) -> None:
    res = REGISTRY[name]
    for _ in range(3):
        await create(api, name)
    page1 = await read(api, res, ("page",), params={"current": 1, "size": 2, "descs": "id"})
    data = page1["data"]
    assert page1["code"] == 200 and len(data["records"]) == 2 and data["size"] == 2 and data["current"] == 1
    assert data["total"] >= 3 and data["pages"] == -(-data["total"] // 2)
    ids = [int(r["id"]) for r in data["records"]]
    assert ids == sorted(ids, reverse=True)
    page2 = (await read(api, res, ("page",), params={"current": 2, "size": 2, "descs": "id"}))["data"]
    assert not {r["id"] for r in page2["records"]} & {r["id"] for r in data["records"]}
    asc = (await read(api, res, ("page",), params={"size": 3, "ascs": "id"}))["data"]["records"]
    assert [int(r["id"]) for r in asc] == sorted(int(r["id"]) for r in asc)
    bad = await read(api, res, ("page",), params={"descs": "id;drop table x"})
    assert bad["_status"] == 400 and bad["code"] == 400 and "id;drop table x" in bad["msg"]


@pytest.mark.parametrize("name", NAMES)
async def test_unauthenticated_is_401(api: Api, name: str) -> None:
    res = REGISTRY[name]
    for path in res.ops:
        method = res.method(path)
        r = await api.client.request(method, res.path(path), params={"id": "1", "ids": "1"}, json={})
        assert r.status_code == 401 and r.json()["code"] == 401, (path, r.text)
        bad = await api.client.request(method, res.path(path), headers={"Blade-Auth": "bearer not-a-token"})
        assert bad.status_code == 401 and bad.json()["code"] == 401


@pytest.mark.parametrize("name", NAMES)
async def test_other_tenant_cannot_see_or_change(api: Api, tenants: Tenants, name: str) -> None:
    res, _, row = await create(api, name)
    case = CASES[name]
    b = {"tenant": tenants.b}
    field, new_value = case.change
    upd = await api.post(op(res, "submit", "update") or "", json={"id": row["id"], field: new_value}, **b)
    rem = await api.post(op(res, "remove") or "", params={"ids": row["id"]}, **b)
    assert upd["code"] in (400, 403) and rem["code"] in (400, 403), (upd, rem)
    if case.tenant_scoped:
        seen = await listed(api, res, {}, tenant=tenants.b)
        assert row["id"] not in {r["id"] for r in seen}
        det = await api.get(op(res, "detail") or "", params={"id": row["id"]}, **b)
        assert det["code"] == 400 and det["data"] is None
        # and tenant B's own rows stay invisible to tenant A's administrator listing tenant A
        _, _, mine = await create(api, name, tenant=tenants.b)
        assert mine["tenantId"] == tenants.b
        assert mine["id"] not in {r["id"] for r in await listed(api, res, {})}
    else:
        assert upd["code"] == 403 and rem["code"] == 403, "platform-wide rows are the administrator's alone"
    still = await api.get(op(res, "detail") or "", params={"id": row["id"]})
    assert still["code"] == 200 and still["data"][field] == row[field], "nothing changed"


@pytest.mark.parametrize("name", NAMES)
async def test_without_permission_is_403(api: Api, driver: str, name: str) -> None:
    res, _payload, row = await create(api, name)
    who = {"who": driver, "password": "driver-1"}
    new = await api.post(op(res, "submit", "create") or "", json=await CASES[name].create(api, "000000"), **who)
    upd = await api.post(
        op(res, "submit", "update") or "", json={"id": row["id"], CASES[name].change[0]: CASES[name].change[1]}, **who
    )
    rem = await api.post(op(res, "remove") or "", params={"ids": row["id"]}, **who)
    assert (new["_status"], upd["_status"], rem["_status"]) == (403, 403, 403), (new, upd, rem)
    assert new["code"] == 403 and new["success"] is False
    # reads need one of the resource's menus (a driver has none), unless every signed-in user reads it
    for path, kind in res.ops.items():
        if kind not in READ_KINDS:
            continue
        params = {"id": row["id"]} if kind == "detail" else {}
        answer = await api.call(res.method(path), res.path(path), params=params, **who)
        if res.view_menus == OPEN:
            assert answer["code"] == 200, (path, answer)
        else:
            assert answer["_status"] == 403 and answer["code"] == 403, (path, answer)
