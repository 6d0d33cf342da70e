"""Organisations beyond CRUD (system/api/depts.py): page-list, orgPage, user-dept-tree, resetInviteCode, orgSort and
deptTransfer, with their refusals, on both databases."""

from __future__ import annotations

import re
from typing import Any

from tests.conftest import Api, Tenants, own_organisation_user, seed_ids

DEPT = "/api/blade-system/dept"


async def _dept(api: Api, parent: str = "0", tenant: str = "000000", **extra: Any) -> dict[str, Any]:
    body = {"deptName": api.unique("Org "), "sort": 5, "deptCategory": 2, "parentId": parent, **extra}
    r = await api.post(f"{DEPT}/submit", json=body, tenant=tenant)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


async def _detail(api: Api, ident: str, tenant: str = "000000") -> dict[str, Any]:
    r = await api.get(f"{DEPT}/detail", params={"id": ident}, tenant=tenant)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


async def _user(api: Api, dept: str, real_name: str) -> dict[str, Any]:
    ids = await seed_ids(api)
    r = await api.post(
        "/api/blade-user/submit",
        json={
            "account": api.unique("u"),
            "password": "user-pass1",
            "name": real_name,
            "realName": real_name,
            "roleId": ids["role"],
            "deptId": dept,
        },
    )
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


async def test_page_list_is_flat_and_filtered(api: Api) -> None:
    root = await _dept(api)
    kid = await _dept(api, root["id"], deptCategory=3)
    r = await api.get(f"{DEPT}/page-list", params={"deptName": root["deptName"], "size": 5})
    assert r["code"] == 200, r
    page = r["data"]
    assert page["total"] == 1 and page["size"] == 5 and page["current"] == 1
    assert [x["id"] for x in page["records"]] == [root["id"]] and "children" not in page["records"][0]
    both = await api.get(f"{DEPT}/page-list", params={"parentId_equal": root["id"]})
    assert [x["id"] for x in both["data"]["records"]] == [kid["id"]]
    cat = await api.get(f"{DEPT}/page-list", params={"deptCategory": "3", "deptName": kid["deptName"]})
    assert [x["id"] for x in cat["data"]["records"]] == [kid["id"]]
    none = await api.get(f"{DEPT}/page-list", params={"deptCategory": "1", "deptName": kid["deptName"]})
    assert none["data"]["total"] == 0
    bad = await api.get(f"{DEPT}/page-list", params={"ascs": "nope"})
    assert bad["code"] == 400


async def test_org_page_counts_users(api: Api) -> None:
    org = await _dept(api)
    empty = await _dept(api, org["id"])
    await _user(api, org["id"], "Ann")
    await _user(api, org["id"], "Bob")
    r = await api.get(f"{DEPT}/orgPage", params={"deptName": org["deptName"]})
    assert r["code"] == 200, r
    (row,) = r["data"]["records"]
    assert row["id"] == org["id"] and row["userCount"] == 2
    r = await api.get(f"{DEPT}/orgPage", params={"deptName": empty["deptName"]})
    assert r["data"]["records"][0]["userCount"] == 0


async def test_user_dept_tree_has_users_as_leaves(api: Api, driver: str) -> None:
    org = await _dept(api)
    kid = await _dept(api, org["id"])
    ann = await _user(api, kid["id"], "Ann")
    r = await api.get(f"{DEPT}/user-dept-tree")
    assert r["code"] == 200, r

    def find(nodes: list[dict[str, Any]], ident: str) -> dict[str, Any] | None:
        for n in nodes:
            if n["id"] == ident and n["nodeType"] == "dept":
                return n
            hit = find(n["children"], ident)
            if hit is not None:
                return hit
        return None

    node = find(r["data"], org["id"])
    assert node is not None and node["hasChildren"]
    (child,) = node["children"]
    assert child["id"] == kid["id"] and child["nodeType"] == "dept"
    (leaf,) = child["children"]
    assert leaf == {
        "id": ann["id"],
        "parentId": kid["id"],
        "title": "Ann",
        "key": f"{kid['id']}-{ann['id']}",
        "value": ann["id"],
        "nodeType": "user",
        "hasChildren": False,
        "children": [],
    }
    # a user who may not read users gets the organisations without them
    theirs = await api.get(f"{DEPT}/user-dept-tree", who=driver, password="driver-1")
    assert theirs["code"] == 200, theirs
    assert ann["id"] not in str(theirs["data"])


async def test_other_tenant_sees_none_of_it(api: Api, tenants: Tenants) -> None:
    org = await _dept(api)
    await _user(api, org["id"], "Zed")
    for path in ("page-list", "orgPage"):
        r = await api.get(f"{DEPT}/{path}", params={"size": 1000}, tenant=tenants.b)
        assert r["code"] == 200 and org["id"] not in str(r["data"]), r
    r = await api.get(f"{DEPT}/user-dept-tree", tenant=tenants.b)
    assert org["id"] not in str(r["data"]) and "Zed" not in str(r["data"])
    for method, path, kw in (
        ("POST", "resetInviteCode", {"params": {"ids": org["id"]}}),
        ("POST", "orgSort", {"json": {"ids": [org["id"]]}}),
        ("POST", "deptTransfer", {"json": {"deptId": org["id"], "parentId": "0"}}),
    ):
        r = await api.call(method, f"{DEPT}/{path}", tenant=tenants.b, **kw)
        assert r["code"] == 400, r
    # nor can a tenant move its own organisation under another tenant's
    mine = await _dept(api, tenant=tenants.b)
    r = await api.post(f"{DEPT}/deptTransfer", json={"deptId": mine["id"], "parentId": org["id"]}, tenant=tenants.b)
    assert r["code"] == 400 and "parentId" in r["msg"], r
    assert (await _detail(api, org["id"]))["inviteCode"] == org["inviteCode"]


async def test_reset_invite_code(api: Api) -> None:
    a, b = await _dept(api), await _dept(api)
    # a new organisation's code comes from the same generator as a reset one (no look-alikes, unique in the tenant)
    for row in (a, b):
        assert re.fullmatch(r"[A-HJ-NP-Z2-9]{8}", (await _detail(api, row["id"]))["inviteCode"]), row
    r = await api.post(f"{DEPT}/resetInviteCode", params={"ids": f"{a['id']},{b['id']}"})
    assert r["code"] == 200, r
    codes = {x["id"]: x["inviteCode"] for x in r["data"]}
    assert set(codes) == {a["id"], b["id"]} and len(set(codes.values())) == 2
    for row in (a, b):
        code = codes[row["id"]]
        assert re.fullmatch(r"[A-HJ-NP-Z2-9]{8}", code) and code != row["inviteCode"]
        assert (await _detail(api, row["id"]))["inviteCode"] == code
    again = await api.post(f"{DEPT}/resetInviteCode", params={"ids": a["id"]})
    assert again["data"][0]["inviteCode"] != codes[a["id"]]
    # all or none: an unknown id changes nothing
    before = (await _detail(api, b["id"]))["inviteCode"]
    bad = await api.post(f"{DEPT}/resetInviteCode", params={"ids": f"{b['id']},1"})
    assert bad["code"] == 400
    assert (await _detail(api, b["id"]))["inviteCode"] == before
    assert (await api.post(f"{DEPT}/resetInviteCode"))["code"] == 400


async def test_org_sort(api: Api) -> None:
    parent = await _dept(api)
    kids = [await _dept(api, parent["id"], sort=s) for s in (1, 2, 3)]
    a, b, c = (k["id"] for k in kids)
    r = await api.post(f"{DEPT}/orgSort", json={"ids": [c, a]})
    assert r["code"] == 200, r
    rows = (await api.get(f"{DEPT}/page-list", params={"parentId_equal": parent["id"]}))["data"]["records"]
    assert [(x["id"], x["sort"]) for x in rows] == [(c, 1), (a, 2), (b, 3)]
    # ids of different parents are refused, and nothing moves
    other = await _dept(api)
    bad = await api.post(f"{DEPT}/orgSort", json={"ids": [b, other["id"]]})
    assert bad["code"] == 400 and other["deptName"] in bad["msg"], bad
    rows = (await api.get(f"{DEPT}/page-list", params={"parentId_equal": parent["id"]}))["data"]["records"]
    assert [x["id"] for x in rows] == [c, a, b]
    assert (await api.post(f"{DEPT}/orgSort", json={"ids": []}))["code"] == 400


async def test_dept_transfer_moves_the_branch(api: Api) -> None:
    left, right = await _dept(api), await _dept(api)
    branch = await _dept(api, left["id"])
    leaf = await _dept(api, branch["id"])
    r = await api.post(f"{DEPT}/deptTransfer", json={"deptId": branch["id"], "parentId": right["id"]})
    assert r["code"] == 200, r
    assert r["data"]["parentId"] == right["id"]
    assert r["data"]["ancestors"] == f"{right['ancestors']},{right['id']}"
    moved_leaf = await _detail(api, leaf["id"])
    assert moved_leaf["ancestors"] == f"{right['ancestors']},{right['id']},{branch['id']}"
    # to the top level, and back
    top = await api.post(f"{DEPT}/deptTransfer", json={"deptId": branch["id"], "parentId": "0"})
    assert top["code"] == 200 and top["data"]["ancestors"] == "0"
    assert (await _detail(api, leaf["id"]))["ancestors"] == f"0,{branch['id']}"


async def test_dept_transfer_refusals(api: Api) -> None:
    root = await _dept(api)
    kid = await _dept(api, root["id"])
    grandkid = await _dept(api, kid["id"])
    for target in (root["id"], kid["id"], grandkid["id"]):
        r = await api.post(f"{DEPT}/deptTransfer", json={"deptId": root["id"], "parentId": target})
        assert r["code"] == 400 and "parentId" in r["msg"], r
    unknown = await api.post(f"{DEPT}/deptTransfer", json={"deptId": root["id"], "parentId": "1"})
    assert unknown["code"] == 400 and "parentId" in unknown["msg"]
    missing = await api.post(f"{DEPT}/deptTransfer", json={"deptId": root["id"]})
    assert missing["code"] == 400
    assert (await _detail(api, grandkid["id"]))["ancestors"] == f"{kid['ancestors']},{kid['id']}"


async def test_moved_branch_follows_data_scope(api: Api) -> None:
    """A user who sees their own organisation and below (type 4 on the organisations' ids) sees a branch moved under
    their organisation, and no longer sees one moved away."""
    home, away = await _dept(api), await _dept(api)
    branch = await _dept(api, away["id"])
    leaf = await _dept(api, branch["id"])
    async with own_organisation_user(api, home["id"], resource="dept", menus=("dept",)) as who:
        await _widen_rule(api)

        async def seen() -> set[str]:
            r = await api.get(f"{DEPT}/page-list", params={"size": 1000}, **who)
            assert r["code"] == 200, r
            return {x["id"] for x in r["data"]["records"]}

        assert home["id"] in await seen() and not await seen() & {branch["id"], leaf["id"]}
        r = await api.post(f"{DEPT}/deptTransfer", json={"deptId": branch["id"], "parentId": home["id"]})
        assert r["code"] == 200, r
        assert {home["id"], branch["id"], leaf["id"]} <= await seen()
        r = await api.post(f"{DEPT}/deptTransfer", json={"deptId": branch["id"], "parentId": away["id"]})
        assert r["code"] == 200, r
        assert not await seen() & {branch["id"], leaf["id"]}


async def _widen_rule(api: Api) -> None:
    """The own-organisation rule ``own_organisation_user`` just made on the organisations (it removes it when it
    ends), made type 4 on their ids: own organisation and below."""
    rules = (await api.get("/api/blade-system/data-scope/list", params={"resourceCode": "dept", "size": 1000}))["data"]
    records = rules["records"] if isinstance(rules, dict) else rules
    rule = max((x for x in records if x["resourceCode"] == "dept"), key=lambda x: int(x["id"]))
    r = await api.post(
        "/api/blade-system/data-scope/submit", json={"id": rule["id"], "scopeType": 4, "scopeColumn": "id"}
    )
    assert r["code"] == 200, r
