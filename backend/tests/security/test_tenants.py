"""Issue 28, point 3: a new tenant cannot be taken by whoever signs in first.

A new tenant's ``admin`` had the shared parameter ``tenant.default.password`` (admin): anyone who guessed a tenant id
signed in as its administrator and chose the password. Now each gets a random password, shown once in the creation's
answer, and the sign-in answer does not tell an unknown tenant id from a wrong password.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import select, text, update

from liftdesk.core.db import utcnow
from liftdesk.migrate import upgrade
from liftdesk.system import models as m
from tests.conftest import BACKENDS, BASIC, Api, _create_pg_database, _drop_pg_database, md5

SYS = "/api/blade-system"
TOKEN = "/api/blade-auth/oauth/token"


async def new_tenant(api: Api) -> dict[str, Any]:
    made = await api.post(f"{SYS}/tenant/submit", json={"tenantName": api.unique("Fresh ")})
    assert made["code"] == 200, made
    data: dict[str, Any] = made["data"]
    return data


async def test_a_new_tenants_administrator_has_a_random_password_shown_once(api: Api) -> None:
    first, second = await new_tenant(api), await new_tenant(api)
    password = first["adminPassword"]
    assert 8 <= len(password) <= 15 and password != second["adminPassword"]
    assert (await api.login("admin", "admin", tenant=first["tenantId"])).status_code == 400, "no shared default"
    signed = await api.login("admin", password, tenant=first["tenantId"])
    assert signed.status_code == 200 and signed.json()["must_change_password"] is True, signed.text
    detail = await api.get(f"{SYS}/tenant/detail", params={"id": first["id"]})
    listed = await api.get(f"{SYS}/tenant/list", params={"tenantId": first["tenantId"]})
    assert detail["data"]["adminPassword"] is None, "shown once: the creation's answer only"
    assert all(row["adminPassword"] is None for row in listed["data"]["records"]), listed
    params = await api.get(f"{SYS}/param/list", params={"size": 1000})
    assert "tenant.default.password" not in {p["paramKey"] for p in params["data"]["records"]}


async def _sign_in(api: Api, tenant: str, account: str, password: str) -> tuple[int, dict[str, Any]]:
    params = {"tenantId": tenant, "username": account, "password": md5(password), "grant_type": "password"}
    r = await api.client.post(TOKEN, params=params, headers={"Authorization": BASIC, "Tenant-Id": tenant})
    return r.status_code, r.json()


async def test_an_unknown_tenant_is_answered_as_a_wrong_password(api: Api) -> None:
    """The same status and body (error, description, code, message) for a tenant id nobody has, a live tenant
    with a wrong password, and an expired tenant with a wrong password; three failures later, the same captcha
    demand for each. That a licence has expired is told to whoever knows the password."""
    live, expired = await new_tenant(api), await new_tenant(api)
    async with api.db.sessionmaker() as s:
        await s.execute(update(m.Tenant).where(m.Tenant.tenant_id == expired["tenantId"]).values(expire_time=utcnow()))
        await s.commit()
    taken = {t["tenantId"] for t in (await api.get(f"{SYS}/tenant/list", params={"size": 1000}))["data"]["records"]}
    right = await _sign_in(api, expired["tenantId"], "admin", expired["adminPassword"])
    assert right[0] == 400 and right[1]["error_description"] == "租户授权已过期,请联系管理员", "told who knows"
    unknown = next(t for t in (f"{secrets.randbelow(900_000) + 100_000}" for _ in range(100)) if t not in taken)
    for attempt in range(4):
        answers = [
            await _sign_in(api, tenant, "admin", f"wrong-{attempt}")
            for tenant in (unknown, live["tenantId"], expired["tenantId"])
        ]
        assert answers[0] == answers[1] == answers[2], answers
        assert answers[0][0] == 400
        expected = "captcha_required" if attempt == 3 else "invalid_grant"
        assert answers[0][1]["error"] == expected, answers[0]


async def test_the_migration_removes_the_shared_password(tmp_path: Any) -> None:
    """An existing database keeps no ``tenant.default.password`` row past migration 0029 (SQLite, PostgreSQL)."""
    for backend in BACKENDS:
        name = ""
        if backend == "sqlite":
            url = f"sqlite+aiosqlite:///{tmp_path / 'before.db'}"
        else:
            url, name = await _create_pg_database()
        try:
            await upgrade(url, "0028")
            from sqlalchemy.ext.asyncio import create_async_engine

            engine = create_async_engine(url)
            async with engine.begin() as conn:
                await conn.execute(
                    text(
                        "INSERT INTO blade_param (id, param_name, param_key, param_value, is_deleted, status, "
                        "create_time, update_time) VALUES "
                        "(1, 'default', 'tenant.default.password', 'admin', 0, 1, CURRENT_TIMESTAMP, "
                        "CURRENT_TIMESTAMP), "
                        "(2, 'other', 'account.failCount', '5', 0, 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                    )
                )
            await upgrade(url)
            async with engine.connect() as conn:
                keys = (await conn.execute(select(m.Param.param_key))).scalars().all()
            await engine.dispose()
            assert keys == ["account.failCount"], (backend, keys)
        finally:
            if name:
                await _drop_pg_database(name)
