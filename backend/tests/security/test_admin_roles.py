"""Issue 28, point 6: tenant administrators are made by a property of their role, never by its alias text, and a
tenant always keeps one.

Before, a role whose alias was ``admin`` made its holders the tenant's administrators: renaming roles moved the
administration (to a role of one's choosing, away from the real one). Now the role carries ``is_admin`` (set when the
tenant is made, by migration for existing ones, never by ``role/submit``), and removing, disabling or ungranting the
last administrator is refused.
"""

from __future__ import annotations

from typing import Any

import jwt

from tests.conftest import Api, password_chosen

SYS = "/api/blade-system"


def level(token: str) -> str:
    return str(jwt.decode(token, options={"verify_signature": False}).get("admin_level", ""))


async def _fresh(api: Api) -> tuple[str, dict[str, Any]]:
    made = await api.post(f"{SYS}/tenant/submit", json={"tenantName": api.unique("Roles ")})
    tid = made["data"]["tenantId"]
    await password_chosen(api, tid)
    roles = (await api.get(f"{SYS}/role/list", tenant=tid))["data"]
    return tid, {r["roleAlias"]: r for r in roles}


async def _user(api: Api, tid: str, role: str) -> dict[str, Any]:
    dept = (await api.get(f"{SYS}/dept/list", tenant=tid))["data"][0]["id"]
    body = {"account": api.unique("r"), "password": "Roles-pw#1", "name": "R", "realName": "Rr", "roleId": role}
    made = await api.post("/api/blade-user/submit", json={**body, "deptId": dept}, tenant=tid)
    assert made["code"] == 200, made
    return {**made["data"], "password": "Roles-pw#1"}


async def test_an_alias_makes_nobody_an_administrator(api: Api) -> None:
    tid, roles = await _fresh(api)
    admin_role = roles["admin"]
    renamed = await api.post(
        f"{SYS}/role/submit",
        json={"id": admin_role["id"], "roleName": admin_role["roleName"], "roleAlias": "chief", "sort": 1},
        tenant=tid,
    )
    assert renamed["code"] == 200, renamed
    fake = await api.post(f"{SYS}/role/submit", json={"roleName": "Fake", "roleAlias": "admin", "sort": 5}, tenant=tid)
    assert fake["code"] == 200, fake
    holder = await _user(api, tid, fake["data"]["id"])
    signed = await api.login(holder["account"], holder["password"], tenant=tid)
    assert signed.status_code == 200 and level(signed.json()["access_token"]) == "", "the alias grants nothing"
    admin = await api.login("admin", "admin", tenant=tid)
    assert level(admin.json()["access_token"]) == "tenant", "the renamed administrator role still administers"


async def test_the_last_administrator_stays(api: Api) -> None:
    tid, roles = await _fresh(api)
    plain = await api.post(
        f"{SYS}/role/submit", json={"roleName": "Plain", "roleAlias": "plain", "sort": 5}, tenant=tid
    )
    users = (await api.get("/api/blade-user/page", params={"account": "admin"}, tenant=tid))["data"]["records"]
    admin_id = next(u["id"] for u in users if u["account"] == "admin")
    en = {"Accept-Language": "en"}
    last = "A tenant keeps at least one enabled administrator: this would remove the last one"
    ungrant = await api.post(
        "/api/blade-user/grant",
        params={"userIds": admin_id, "roleIds": plain["data"]["id"]},
        tenant=tid,
        headers=en,
    )
    assert ungrant["code"] == 400 and ungrant["msg"] == last, ungrant
    removed = await api.post(f"{SYS}/role/remove", params={"ids": roles["admin"]["id"]}, tenant=tid, headers=en)
    assert removed["code"] == 400 and removed["msg"] == last, removed
    other = await _user(api, tid, roles["admin"]["id"])  # a second administrator: now the first may go
    ungrant = await api.post(
        "/api/blade-user/grant", params={"userIds": admin_id, "roleIds": plain["data"]["id"]}, tenant=tid
    )
    assert ungrant["code"] == 200, ungrant
    removed = await api.post("/api/blade-user/remove", params={"ids": other["id"]}, tenant=tid, headers=en)
    assert removed["code"] == 400 and removed["msg"] == last, removed
