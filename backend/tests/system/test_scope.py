"""Data scope types 1–5 through the one choke point, and menu grants shaping routes and buttons."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, seed_ids


async def _menu_ids(api: Api, codes: set[str]) -> list[str]:
    rows = (await api.get("/api/blade-system/menu/list"))["data"]
    out, stack = [], list(rows)
    while stack:
        row = stack.pop()
        if row["code"] in codes:
            out.append(row["id"])
        stack.extend(row.get("children") or [])
    return out


@pytest.fixture(scope="session")
async def scoped(api: Api) -> dict[str, Any]:
    """A role granted the post screen, users in three organisations, and posts each of them created."""
    ids = await seed_ids(api)
    depts = (await api.get("/api/blade-system/dept/list"))["data"][0]
    east, south = depts["children"][0]["id"], depts["children"][1]["id"]
    role = (
        await api.post(
            "/api/blade-system/role/submit",
            json={"roleName": api.unique("scoped "), "roleAlias": api.unique("scoped"), "sort": 9},
        )
    )["data"]["id"]
    menus = await _menu_ids(api, {"system", "post", "post_add", "post_view", "post_edit", "post_delete"})
    assert len(menus) == 6
    g = await api.post("/api/blade-system/role/grant", json={"roleIds": [role], "menuIds": menus})
    assert g["code"] == 200
    users = {}
    for name, dept in (("root", ids["dept"]), ("east", east), ("south", south)):
        account = api.unique(name)
        r = await api.post(
            "/api/blade-user/submit",
            json={
                "account": account,
                "password": "scope-pass",
                "name": name,
                "realName": name,
                "roleId": role,
                "deptId": dept,
            },
        )
        assert r["code"] == 200, r
        users[name] = account
    posts: dict[str, str] = {}
    for name, account in users.items():
        r = await api.post(
            "/api/blade-system/post/submit",
            who=account,
            password="scope-pass",
            json={"postCode": api.unique("s")[:12], "postName": f"by {name}", "sort": 1},
        )
        assert r["code"] == 200, r
        posts[name] = r["data"]["id"]
        assert r["data"]["createDept"] in (ids["dept"], east, south)
    return {"role": role, "users": users, "posts": posts, "east": east, "south": south, "root": ids["dept"]}


async def _visible(api: Api, account: str, posts: dict[str, str]) -> set[str]:
    r = await api.get("/api/blade-system/post/list", who=account, password="scope-pass", params={"size": 200})
    assert r["code"] == 200, r
    seen = {row["id"] for row in r["data"]["records"]}
    return {name for name, pid in posts.items() if pid in seen}


@pytest.mark.parametrize(
    "scope_type,value,viewer,expected",
    [
        (1, None, "east", {"root", "east", "south"}),
        (2, None, "east", {"east"}),
        (3, None, "east", {"east"}),
        (4, None, "root", {"root", "east", "south"}),
        (4, None, "east", {"east"}),
        (5, "south", "east", {"south"}),
    ],
)
async def test_data_scope_types(
    api: Api, scoped: dict[str, Any], scope_type: int, value: str | None, viewer: str, expected: set[str]
) -> None:
    rule = await api.post(
        "/api/blade-system/data-scope/submit",
        json={
            "resourceCode": "post",
            "scopeName": f"type {scope_type}",
            "scopeType": scope_type,
            "scopeColumn": "create_dept",
            "scopeValue": scoped[value] if value else None,
        },
    )
    assert rule["code"] == 200, rule
    menus = await _menu_ids(api, {"system", "post", "post_add", "post_view", "post_edit", "post_delete"})
    grant = await api.post(
        "/api/blade-system/role/grant",
        json={"roleIds": [scoped["role"]], "menuIds": menus, "dataScopeIds": [rule["data"]["id"]]},
    )
    assert grant["code"] == 200
    try:
        assert await _visible(api, scoped["users"][viewer], scoped["posts"]) == expected
        # the rule guards detail and writes too, not only lists
        hidden = set(scoped["posts"]) - expected
        for name in hidden:
            d = await api.get(
                "/api/blade-system/post/detail",
                who=scoped["users"][viewer],
                password="scope-pass",
                params={"id": scoped["posts"][name]},
            )
            assert d["code"] == 400
    finally:
        await api.post("/api/blade-system/data-scope/remove", params={"ids": rule["data"]["id"]})
    keys = await api.get("/api/blade-system/menu/role-tree-keys", params={"roleIds": scoped["role"]})
    assert set(keys["data"]["menu"]) == set(menus)


async def test_without_a_rule_a_role_sees_everything_of_its_tenant(api: Api, scoped: dict[str, Any]) -> None:
    menus = await _menu_ids(api, {"system", "post", "post_add", "post_view", "post_edit", "post_delete"})
    await api.post("/api/blade-system/role/grant", json={"roleIds": [scoped["role"]], "menuIds": menus})
    assert await _visible(api, scoped["users"]["south"], scoped["posts"]) == {"root", "east", "south"}


async def test_grants_shape_routes_and_buttons(api: Api, scoped: dict[str, Any]) -> None:
    menus = await _menu_ids(api, {"system", "post", "post_view"})
    await api.post("/api/blade-system/role/grant", json={"roleIds": [scoped["role"]], "menuIds": menus})
    who = {"who": scoped["users"]["east"], "password": "scope-pass"}
    routes = (await api.get("/api/blade-system/menu/routes", **who))["data"]
    assert [r["code"] for r in routes] == ["system"]
    assert [c["code"] for c in routes[0]["children"]] == ["post"]
    buttons = (await api.get("/api/blade-system/menu/buttons", **who))["data"]
    flat = {b["code"] for m in buttons for b in m.get("children", [])}
    assert flat == {"post_view"}
    denied = await api.post("/api/blade-system/post/submit", json={"postCode": "zz", "postName": "z", "sort": 1}, **who)
    assert denied["_status"] == 403
    # a role cannot be granted menus its granter does not have
    wider = await api.post(
        "/api/blade-system/role/grant",
        json={"roleIds": [scoped["role"]], "menuIds": await _menu_ids(api, {"param"})},
        **who,
    )
    assert wider["code"] == 403


async def test_top_menu_narrows_routes(api: Api) -> None:
    top = await api.post("/api/blade-system/topmenu/submit", json={"code": api.unique("t"), "name": "Ops", "sort": 1})
    tid = top["data"]["id"]
    menus = await _menu_ids(api, {"param"})
    assert (await api.post("/api/blade-system/topmenu/grant", json={"topMenuIds": [tid], "menuIds": menus}))[
        "code"
    ] == 200
    keys = await api.get("/api/blade-system/menu/top-tree-keys", params={"topMenuIds": tid})
    assert keys["data"]["menu"] == menus
    routes = (await api.get("/api/blade-system/menu/routes", params={"topMenuId": tid}))["data"]
    assert [r["code"] for r in routes] == ["system"] and [c["code"] for c in routes[0]["children"]] == ["param"]
    tops = (await api.get("/api/blade-system/menu/top-menu"))["data"]
    assert tid in {t["id"] for t in tops}


async def test_trees_refuse_cycles_and_orphans(api: Api) -> None:
    a = (await api.post("/api/blade-system/dept/submit", json={"deptName": "A", "sort": 1}))["data"]
    b = (await api.post("/api/blade-system/dept/submit", json={"deptName": "B", "sort": 1, "parentId": a["id"]}))[
        "data"
    ]
    assert b["ancestors"] == f"0,{a['id']}"
    cycle = await api.post("/api/blade-system/dept/submit", json={"id": a["id"], "parentId": b["id"]})
    assert cycle["code"] == 400
    orphan = await api.post("/api/blade-system/dept/submit", json={"deptName": "C", "sort": 1, "parentId": "42"})
    assert orphan["code"] == 400
    busy = await api.post("/api/blade-system/dept/remove", params={"ids": a["id"]})
    assert busy["code"] == 400 and busy["msg"] == "请先删除子节点!"
    lazy = (await api.get("/api/blade-system/dept/lazy-tree", params={"parentId": a["id"]}))["data"]
    assert [n["id"] for n in lazy] == [b["id"]]


async def test_dictionaries(api: Api) -> None:
    car = (await api.get("/api/blade-system/dict/dictionary", params={"code": "car_type"}))["data"]
    assert [d["dictKey"] for d in car] == [str(i) for i in range(9)]
    roots = (await api.get("/api/blade-system/dict/parent-list", params={"size": 100}))["data"]["records"]
    root = next(r for r in roots if r["code"] == "car_status")
    kids = (await api.get("/api/blade-system/dict/child-list", params={"parentId": root["id"]}))["data"]
    assert [k["dictValue"] for k in kids] == ["正常", "停用", "维修中"]
    dup = await api.post(
        "/api/blade-system/dict/submit",
        json={"code": "car_status", "dictKey": "0", "dictValue": "again", "sort": 9, "parentId": root["id"]},
    )
    assert dup["code"] == 400 and "dictKey" in dup["msg"]
    biz = await api.post(
        "/api/blade-system/dict-biz/submit",
        json={"code": api.unique("biz"), "dictKey": "-1", "dictValue": "Biz", "sort": 1},
    )
    entry = await api.post(
        "/api/blade-system/dict-biz/submit",
        json={"code": "ignored", "dictKey": "1", "dictValue": "One", "sort": 1, "parentId": biz["data"]["id"]},
    )
    assert entry["data"]["code"] == biz["data"]["code"], "entries take their root's code"
    listed = (await api.get("/api/blade-system/dict-biz/dictionary", params={"code": biz["data"]["code"]}))["data"]
    assert [d["dictValue"] for d in listed] == ["One"]
