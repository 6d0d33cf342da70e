"""Findings 2, 3, 7, 8 and 11 of the security probe: passwords, lockout, refresh tokens, revocation, token claims."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import jwt
from sqlalchemy import select, update

from liftdesk.core.config import get_settings
from liftdesk.core.kv import KeyValue
from liftdesk.core.security import hash_password
from liftdesk.system import models as m
from tests.conftest import BASIC, Api, md5, seed_ids

TOKEN = "/api/blade-auth/oauth/token"
ADMIN = 1123598821738675201


async def new_user(api: Api, password: str = "Secret-pw1") -> tuple[str, str]:
    ids = await seed_ids(api)
    account = api.unique("sec")
    r = await api.post(
        "/api/blade-user/submit",
        json={
            "account": account,
            "password": password,
            "name": "N",
            "realName": "N",
            "roleId": ids["role"],
            "deptId": ids["dept"],
        },
    )
    assert r["code"] == 200, r
    return account, r["data"]["id"]


@asynccontextmanager
async def client_from(api: Api, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the same app seen from another address."""
    app: Any = api.client._transport.app  # type: ignore[attr-defined]
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


async def login(client: httpx.AsyncClient, account: str, password: str, **headers: str) -> httpx.Response:
    params = {"tenantId": "000000", "username": account, "password": md5(password), "grant_type": "password"}
    return await client.post(TOKEN, params=params, headers={"Authorization": BASIC, **headers})


async def captcha_headers(api: Api) -> dict[str, str]:
    key = (await api.client.get("/api/blade-auth/oauth/captcha")).json()["key"]
    async with api.db.sessionmaker() as s:
        code = (await s.get(KeyValue, f"captcha:{key}")).value  # type: ignore[union-attr]
    return {"Captcha-Key": key, "Captcha-Code": code}


async def test_parallel_guesses_cannot_pass_the_lock(api: Api) -> None:
    """60 parallel wrong passwords: at most the limit are checked, and the right password is refused afterwards."""
    account, user_id = await new_user(api)
    async with client_from(api, "10.9.8.7") as attacker:
        answers = await asyncio.gather(*(login(attacker, account, f"guess-{i}") for i in range(60)))
        descriptions = [a.json()["error_description"] for a in answers]
        assert all(a.status_code == 400 for a in answers)
        checked = [d for d in descriptions if d == "用户名或密码错误"]
        assert 1 <= len(checked) <= 5, descriptions
        right = await login(attacker, account, "Secret-pw1", **(await captcha_headers(api)))
        assert right.status_code == 400 and right.json()["error_description"] == "登录错误次数过多,请稍后再试"
    async with api.db.sessionmaker() as s:
        rows = (await s.execute(select(KeyValue).where(KeyValue.key.like(f"login-fail:000000:{account}:%")))).scalars()
        counts = {r.key.rsplit(":", 1)[1]: int(r.value) for r in rows}
    assert counts["*"] <= 5, f"failures of the account counted atomically: {counts}"
    await api.post("/api/blade-user/unlock", params={"userIds": user_id})


async def test_an_outsider_cannot_lock_the_owner_out(api: Api) -> None:
    """Failures from one address lock that address; the owner elsewhere needs a captcha after three failures of
    the account, and then signs in."""
    account, user_id = await new_user(api)
    async with client_from(api, "10.1.1.1") as attacker, client_from(api, "10.2.2.2") as owner:
        for i in range(3):
            r = await login(attacker, account, f"wrong-{i}")
            assert r.json()["error_description"] == "用户名或密码错误"
        needs = await login(attacker, account, "wrong-again")
        assert needs.json()["error"] == "captcha_required", needs.text
        for _ in range(3):
            await login(attacker, account, "wrong-again", **(await captcha_headers(api)))
        assert (await login(attacker, account, "Secret-pw1", **(await captcha_headers(api)))).json()[
            "error_description"
        ] == "登录错误次数过多,请稍后再试"
        assert (await login(owner, account, "Secret-pw1")).json()["error"] == "captcha_required"
        wrong_code = await login(owner, account, "Secret-pw1", **{"Captcha-Key": "x", "Captcha-Code": "y"})
        assert wrong_code.status_code == 400 and wrong_code.json()["error_description"] == "验证码不正确"
        opened = await login(owner, account, "Secret-pw1", **(await captcha_headers(api)))
        assert opened.status_code == 200, opened.text
    # success cleared the account's failures: no captcha any more, and an administrator's unlock clears the rest
    assert (await api.post("/api/blade-user/unlock", params={"userIds": user_id}))["code"] == 200
    async with client_from(api, "10.1.1.1") as attacker:
        assert (await login(attacker, account, "Secret-pw1")).status_code == 200


async def test_a_refresh_token_is_used_once_under_concurrency(api: Api) -> None:
    account, _ = await new_user(api)
    first = (await api.login(account, "Secret-pw1")).json()
    params = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "tenantId": "000000"}
    answers = await asyncio.gather(
        *(api.client.post(TOKEN, params=params, headers={"Authorization": BASIC}) for _ in range(20))
    )
    assert sorted(a.status_code for a in answers) == [200] + [401] * 19, [a.text for a in answers]


def forge(**claims: Any) -> str:
    body = {"user_id": "1123598821738675201", "tenant_id": "000000", "jti": "x", "token_type": "access", **claims}
    body = {k: v for k, v in body.items() if v is not None}
    return jwt.encode(body, get_settings().secret_key, algorithm="HS256")


async def test_tokens_need_an_expiry_and_a_numeric_user(api: Api) -> None:
    path = "/api/blade-auth/oauth/user-info"
    for token in (
        forge(),
        forge(exp=int(time.time()) + 600, user_id="abc"),
        forge(exp=int(time.time()) + 600, user_id="1" * 40),
    ):
        r = await api.client.get(path, headers={"Blade-Auth": f"bearer {token}"})
        assert r.status_code == 401, r.text


async def test_the_seeded_administrator_must_choose_a_password(api: Api) -> None:
    """A fresh installation: admin / admin signs in, but nothing except the change is served until it is done."""
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(m.User).where(m.User.account == "admin", m.User.tenant_id == "000000").values(password_must_change=1)
        )
        await s.commit()
    r = await api.login("admin", "admin")
    assert r.status_code == 200 and r.json()["must_change_password"] is True
    token = r.json()["access_token"]
    h = {"Blade-Auth": f"bearer {token}", "Authorization": BASIC}
    refused = await api.client.get("/api/blade-system/tenant/list", headers=h)
    assert refused.json()["code"] == 403 and refused.json()["msg"] == "请先修改初始密码"
    assert (await api.client.get("/api/blade-auth/oauth/user-info", headers=h)).json()["code"] == 200
    weak = {"oldPassword": md5("admin"), "newPassword": md5("admin"), "newPassword1": md5("admin")}
    assert (await api.client.post("/api/blade-user/update-password", params=weak, headers=h)).json()["code"] == 400
    new = {"oldPassword": md5("admin"), "newPassword": md5("New-admin1"), "newPassword1": md5("New-admin1")}
    changed = await api.client.post("/api/blade-user/update-password", params=new, headers=h)
    assert changed.json()["code"] == 200, changed.text
    assert (await api.client.get("/api/blade-auth/oauth/user-info", headers=h)).status_code == 401, "old token dead"
    again = await api.login("admin", "New-admin1")
    assert again.status_code == 200 and again.json()["must_change_password"] is False
    h2 = {"Blade-Auth": f"bearer {again.json()['access_token']}", "Authorization": BASIC}
    assert (await api.client.get("/api/blade-system/tenant/list", headers=h2)).json()["code"] == 200
    async with api.db.sessionmaker() as s:  # back to admin / admin for the rest of the suite
        await s.execute(update(m.User).where(m.User.id == ADMIN).values(password=hash_password(md5("admin"))))
        await s.commit()
    api.tokens.clear()


async def test_a_new_tenants_administrator_must_choose_a_password(api: Api) -> None:
    made = await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("Fresh ")})
    tid = made["data"]["tenantId"]
    r = await api.login("admin", made["data"]["adminPassword"], tenant=tid)
    assert r.status_code == 200 and r.json()["must_change_password"] is True
    h = {"Blade-Auth": f"bearer {r.json()['access_token']}", "Authorization": BASIC}
    assert (await api.client.get("/api/blade-user/page", headers=h)).json()["code"] == 403


async def test_reset_and_replace_revoke_and_force_a_change(api: Api) -> None:
    account, user_id = await new_user(api)
    own = (await api.login(account, "Secret-pw1")).json()["access_token"]
    h = {"Blade-Auth": f"bearer {own}", "Authorization": BASIC}
    assert (await api.client.get("/api/blade-auth/oauth/user-info", headers=h)).json()["code"] == 200
    reset = await api.post("/api/blade-user/reset-password", params={"userIds": user_id})
    plain = reset["data"]["passwords"][account]
    assert 8 <= len(plain) <= 15
    assert (await api.client.get("/api/blade-auth/oauth/user-info", headers=h)).status_code == 401
    fresh = (await api.login(account, plain)).json()
    assert fresh["must_change_password"] is True
    weak = await api.post("/api/blade-user/replacePassword", json={"userIds": user_id, "password": "short"})
    assert weak["code"] == 400 and "password" in weak["msg"]
    done = await api.post("/api/blade-user/replacePassword", json={"userIds": user_id, "password": "Other-pw2!"})
    assert done["code"] == 200
    assert (await api.login(account, "Other-pw2!")).status_code == 200
    rnd = (await api.post("/api/blade-user/randomPassword"))["data"]["password"]
    assert 8 <= len(rnd) <= 15 and any(c.isupper() for c in rnd) and any(c.isdigit() for c in rnd)


async def test_other_tenants_cannot_reset_my_users(api: Api, tenants: Any) -> None:
    _, user_id = await new_user(api)
    r = await api.post("/api/blade-user/reset-password", params={"userIds": user_id}, tenant=tenants.b)
    assert r["code"] in (400, 404) and "passwords" not in str(r.get("data")), r


async def test_a_removed_users_token_dies_at_once(api: Api) -> None:
    account, user_id = await new_user(api)
    own = (await api.login(account, "Secret-pw1")).json()["access_token"]
    h = {"Blade-Auth": f"bearer {own}", "Authorization": BASIC}
    assert (await api.client.get("/api/blade-auth/oauth/user-info", headers=h)).json()["code"] == 200
    assert (await api.post("/api/blade-user/remove", params={"ids": user_id}))["code"] == 200
    assert (await api.client.get("/api/blade-auth/oauth/user-info", headers=h)).status_code == 401
