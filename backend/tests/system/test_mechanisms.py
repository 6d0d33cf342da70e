"""``common/getMechanismParamList`` (system/api/shell.py): the organisations the caller may see, flat in the tree's
order, with the name filter; and the attacks: a user who sees one branch, another tenant, anonymous callers, a
filter that is too long or tries LIKE wildcards."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api, Tenants, own_organisation_user
from tests.system.test_depts import _dept, _widen_rule

MECHANISMS = "/api/blade-fics-report/fics/common/getMechanismParamList"


async def _tree(api: Api) -> tuple[str, dict[str, dict[str, Any]]]:
    """A root with two children (B before A by name, A before B by sort) and a leaf under B; their names share a
    token no other organisation has."""
    token = api.unique("mech")
    root = await _dept(api, deptName=f"{token} Root", sort=1)
    b = await _dept(api, root["id"], deptName=f"{token} B", sort=2, deptCategory=3)
    a = await _dept(api, root["id"], deptName=f"{token} A", sort=1)
    leaf = await _dept(api, b["id"], deptName=f"{token} Leaf", sort=1)
    return token, {"root": root, "a": a, "b": b, "leaf": leaf}


async def _listed(api: Api, name: str | None = None, **who: str) -> list[dict[str, Any]]:
    r = await api.get(MECHANISMS, params={} if name is None else {"mechanismName": name}, **who)
    assert r["code"] == 200, r
    rows: list[dict[str, Any]] = r["data"]
    return rows


async def test_the_tree_flat_in_order_with_paths_and_the_filter(api: Api) -> None:
    token, d = await _tree(api)
    rows = await _listed(api, token.upper())
    assert [x["id"] for x in rows] == [d[k]["id"] for k in ("root", "a", "b", "leaf")], "parent first, then sort"
    leaf = rows[3]
    assert leaf == {
        "id": d["leaf"]["id"],
        "mechanismId": d["leaf"]["id"],
        "mechanismName": f"{token} Leaf",
        "parentId": d["b"]["id"],
        "deptCategory": 2,
        "ancestors": f"0,{d['root']['id']},{d['b']['id']}",
        "pathName": f"{token} Root / {token} B / {token} Leaf",
    }
    assert rows[2]["deptCategory"] == 3 and rows[0]["pathName"] == f"{token} Root"
    everything = [x["id"] for x in await _listed(api)]
    ours = [i for i in everything if i in {v["id"] for v in d.values()}]
    assert ours == [d[k]["id"] for k in ("root", "a", "b", "leaf")], "without a filter: every one, same order"
    assert [x["id"] for x in await _listed(api, f"{token} le")] == [d["leaf"]["id"]], "contains, any case"
    for wildcard in (f"{token}%", f"{token} _", "%"):
        assert not {x["id"] for x in await _listed(api, wildcard)} & set(ours), f"{wildcard!r} is no pattern"
    assert len(await _listed(api, "x" * 45)) == 0
    too_long = await api.get(MECHANISMS, params={"mechanismName": "x" * 46})
    assert too_long["code"] == 400 and "mechanismName" in too_long["msg"], too_long
    english = await api.get(MECHANISMS, params={"mechanismName": "x" * 46}, headers={"Accept-Language": "en"})
    assert english["code"] == 400 and "mechanismName" in english["msg"] and english["msg"] != too_long["msg"]


async def test_a_user_who_sees_one_branch_gets_that_branch(api: Api) -> None:
    """A user of B whose organisations rule is own organisation and below, granted no menu at all: B and its leaf,
    B as the top of the list and of every path (no name of an organisation they do not see)."""
    token, d = await _tree(api)
    async with own_organisation_user(api, d["b"]["id"], resource="dept", menus=()) as who:
        await _widen_rule(api)
        rows = await _listed(api, token, **who)
        assert [x["id"] for x in rows] == [d["b"]["id"], d["leaf"]["id"]]
        assert [x["pathName"] for x in rows] == [f"{token} B", f"{token} B / {token} Leaf"]
        assert "Root" not in str(rows)
        assert await _listed(api, f"{token} Root", **who) == []
        everything = {x["id"] for x in await _listed(api, **who)}
        assert d["root"]["id"] not in everything and d["a"]["id"] not in everything


async def test_another_tenant_never_sees_them(api: Api, tenants: Tenants) -> None:
    token, d = await _tree(api)
    assert await _listed(api, token, tenant=tenants.b) == []
    theirs = await _listed(api, tenant=tenants.b)
    assert theirs, "the other tenant's own organisations are listed"
    assert not {x["id"] for x in theirs} & {v["id"] for v in d.values()}
    assert token not in str(theirs)


async def test_anonymous_callers_are_refused(api: Api) -> None:
    assert (await api.client.get(MECHANISMS)).status_code == 401
    forged = await api.client.get(MECHANISMS, headers={"Blade-Auth": "bearer forged"})
    assert forged.status_code == 401 and forged.json()["code"] == 401
