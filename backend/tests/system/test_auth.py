"""Sign-in, refresh, logout, lockout, captcha, expired tenants, and the shapes the Saber client reads."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from liftdesk.app import create_app
from liftdesk.core.kv import KeyValue
from liftdesk.system import models as m
from liftdesk.system.api.passwords import accounts_in_tenants
from tests.conftest import BASIC, Api, Tenants, md5, password_chosen, seed_ids


async def test_password_grant_answers_the_fields_saber_stores(api: Api) -> None:
    r = await api.login("admin", "admin")
    assert r.status_code == 200
    body = r.json()
    for key in (
        "access_token",
        "refresh_token",
        "token_type",
        "expires_in",
        "tenant_id",
        "user_id",
        "user_name",
        "nick_name",
        "real_name",
        "role_name",
        "dept_id",
        "role_id",
        "post_id",
        "account",
        "avatar",
    ):
        assert key in body, key
    assert body["token_type"] == "bearer" and body["expires_in"] == 3600
    assert body["tenant_id"] == "000000" and body["role_name"] == "administrator" and body["account"] == "admin"
    info = await api.client.get(
        "/api/blade-auth/oauth/user-info", headers={"Blade-Auth": f"bearer {body['access_token']}"}
    )
    assert info.json()["data"]["account"] == "admin"


async def test_wrong_password_and_unknown_tenant_and_client(api: Api) -> None:
    bad = await api.login("admin", "nope")
    assert bad.status_code == 400 and bad.json()["error_description"] == "用户名或密码错误"
    en = await api.client.post(
        "/api/blade-auth/oauth/token",
        headers={"Authorization": BASIC, "Accept-Language": "en"},
        params={"username": "admin", "password": md5("nope"), "grant_type": "password"},
    )
    assert en.json()["error_description"] == "Wrong account or password"
    tenant = await api.login("admin", "admin", tenant="999999")
    assert tenant.json()["error_description"] == "用户名或密码错误", "an unknown tenant is a wrong password"
    no_client = await api.client.post(
        "/api/blade-auth/oauth/token", params={"username": "admin", "password": md5("admin"), "grant_type": "password"}
    )
    assert no_client.status_code == 401
    social = await api.client.post(
        "/api/blade-auth/oauth/token",
        headers={"Authorization": BASIC},
        params={"grant_type": "social", "source": "github", "code": "x"},
    )
    assert social.status_code == 400 and social.json()["error_description"] == "第三方登录尚未配置"
    # the admin account is not locked by one bad password (the lockout test uses its own account)
    await api.post("/api/blade-user/unlock", params={"userIds": "1123598821738675201"})


async def _new_user(
    api: Api, password: str = "secret-1", tenant: str = "000000", account: str | None = None, **extra: str
) -> tuple[str, str]:
    """A user of ``tenant`` (the seed's role and organisation): its account (a new one unless given) and id."""
    ids = await seed_ids(api, tenant)
    account = account or api.unique("acc")
    r = await api.post(
        "/api/blade-user/submit",
        json={
            "account": account,
            "password": password,
            "name": "N",
            "realName": "N",
            "roleId": ids["role"],
            "deptId": ids["dept"],
            **extra,
        },
        tenant=tenant,
    )
    assert r["code"] == 200, r
    return account, r["data"]["id"]


async def test_lock_threshold_is_a_parameter(api: Api) -> None:
    rows = (await api.get("/api/blade-system/param/list", params={"paramKey_equal": "account.failCount"}))["data"]
    param = rows["records"][0]
    await api.post("/api/blade-system/param/submit", json={"id": param["id"], "paramValue": "2"})
    try:
        account, _ = await _new_user(api)
        for _ in range(2):
            await api.login(account, "wrong-password")
        assert (await api.login(account, "secret-1")).json()["error_description"] == "登录错误次数过多,请稍后再试"
    finally:
        await api.post("/api/blade-system/param/submit", json={"id": param["id"], "paramValue": "5"})


async def test_refresh_rotates_and_logout_revokes_across_restarts(api: Api) -> None:
    account, _ = await _new_user(api)
    first = (await api.login(account, "secret-1")).json()
    refreshed = await api.client.post(
        "/api/blade-auth/oauth/token",
        headers={"Authorization": BASIC},
        params={
            "grant_type": "refresh_token",
            "refresh_token": first["refresh_token"],
            "tenantId": "000000",
            "scope": "all",
        },
    )
    assert refreshed.status_code == 200, refreshed.text
    again = await api.client.post(
        "/api/blade-auth/oauth/token",
        headers={"Authorization": BASIC},
        params={"grant_type": "refresh_token", "refresh_token": first["refresh_token"]},
    )
    assert again.status_code == 401, "a refresh token is spent once used"
    token = refreshed.json()["access_token"]
    auth = {"Blade-Auth": f"bearer {token}"}
    assert (await api.client.get("/api/blade-system/menu/routes", headers=auth)).json()["code"] == 200
    out = await api.client.get("/api/blade-auth/oauth/logout", headers=auth)
    assert out.json() == {"success": "true", "msg": "success"}
    after = await api.client.get("/api/blade-system/menu/routes", headers=auth)
    assert after.status_code == 401 and after.json()["msg"] == "令牌已失效"
    # another process on the same database (a restart, or a second API process) refuses it too
    import httpx

    other = create_app(api.client._transport.app.state.settings, db=api.db)  # type: ignore[attr-defined]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=other), base_url="http://x") as c2:
        assert (await c2.get("/api/blade-system/menu/routes", headers=auth)).status_code == 401
    spent = await api.client.post(
        "/api/blade-auth/oauth/token",
        headers={"Authorization": BASIC},
        params={"grant_type": "refresh_token", "refresh_token": refreshed.json()["refresh_token"]},
    )
    assert spent.status_code == 401, "logout revokes the refresh token as well"


async def test_captcha_grant(api: Api) -> None:
    cap = (await api.client.get("/api/blade-auth/oauth/captcha")).json()
    assert cap["image"].startswith("data:image/png;base64,") and len(cap["key"]) == 32
    async with api.db.sessionmaker() as s:
        code = (await s.execute(select(KeyValue.value).where(KeyValue.key == f"captcha:{cap['key']}"))).scalar_one()
    assert len(code) == 5
    params = {"tenantId": "000000", "username": "admin", "password": md5("admin"), "grant_type": "captcha"}
    wrong = await api.client.post(
        "/api/blade-auth/oauth/token",
        params=params,
        headers={"Authorization": BASIC, "Captcha-Key": cap["key"], "Captcha-Code": "zzzzz"},
    )
    assert wrong.json()["error_description"] == "验证码不正确"
    cap2 = (await api.client.get("/api/blade-auth/oauth/captcha")).json()
    async with api.db.sessionmaker() as s:
        code2 = (await s.execute(select(KeyValue.value).where(KeyValue.key == f"captcha:{cap2['key']}"))).scalar_one()
    right = await api.client.post(
        "/api/blade-auth/oauth/token",
        params=params,
        headers={"Authorization": BASIC, "Captcha-Key": cap2["key"], "Captcha-Code": code2.lower()},
    )
    assert right.status_code == 200, right.text


async def test_expired_tenant_cannot_sign_in(api: Api, tenants: Tenants) -> None:
    made = await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("Expiring ")})
    tid, row_id = made["data"]["tenantId"], made["data"]["id"]
    await password_chosen(api, tid)
    assert (await api.login("admin", "admin", tenant=tid)).status_code == 200, "a new tenant's admin signs in"
    r = await api.post(
        "/api/blade-system/tenant/setting",
        params={"ids": row_id, "accountNumber": 5, "expireTime": "2020-01-01 00:00:00"},
    )
    assert r["code"] == 200
    expired = await api.login("admin", "admin", tenant=tid)
    assert expired.json()["error_description"] == "租户授权已过期,请联系管理员"


async def test_tenant_list_by_account_and_public_info(api: Api, tenants: Tenants) -> None:
    anonymous = await api.client.post("/api/blade-user/getTenantListByAccount", params={"account": "admin"})
    assert anonymous.json()["code"] == 401, "it lists tenants only to a signed-in account"
    path = "/api/blade-user/getTenantListByAccount"
    # An account of its own in tenants a and b (the same password), so that the answer does not depend on how many
    # other tenants this database holds: every tenant has an ``admin``, and the call looks at 20 tenants at most.
    account, _ = await _new_user(api, password="both-1", tenant=tenants.a)
    await _new_user(api, password="both-1", tenant=tenants.b, account=account)
    right = await api.post(path, params={"password": md5("both-1")}, who=account, password="both-1")
    assert [x["tenantId"] for x in right["data"]] == sorted([tenants.a, tenants.b]), "the account opens in both"
    wrong = await api.post(path, params={"password": md5("not-it")}, who=account, password="both-1")
    assert [x["tenantId"] for x in wrong["data"]] == [tenants.a], "the own tenant, and others only where it opens"
    # as tenant b's user: its own tenant is in the answer whatever the limit leaves out
    async with api.db.sessionmaker() as s:
        looked_at = await accounts_in_tenants(s, "admin", first=tenants.b, limit=1)
    assert [tenant for tenant, _, _ in looked_at] == [tenants.b]
    info = (await api.client.get("/api/blade-system/tenant/info")).json()["data"]
    assert info["tenantId"] == "000000" and info["captchaMode"] is False


async def test_new_tenant_is_provisioned_and_isolated(api: Api, tenants: Tenants) -> None:
    b = {"tenant": tenants.b}
    routes = (await api.get("/api/blade-system/menu/routes", **b))["data"]
    paths = {c["path"] for top in routes for c in top.get("children", [])}
    assert "/system/user" in paths and "/system/param" not in paths, "tenant admins get the default menus only"
    users = (await api.get("/api/blade-user/page", **b))["data"]["records"]
    assert "admin" in {u["account"] for u in users} and {u["tenantId"] for u in users} == {tenants.b}
    buttons = (await api.get("/api/blade-system/menu/buttons", **b))["data"]
    codes = {btn["code"] for menu in buttons for btn in menu.get("children", [])}
    assert "user_add" in codes and "param_add" not in codes


@pytest.mark.parametrize("lang,expected", [("zh-CN", "paramKey 不能为空"), ("en-US", "paramKey is required")])
async def test_validation_names_the_field_in_the_users_language(api: Api, lang: str, expected: str) -> None:
    r = await api.post(
        "/api/blade-system/param/submit", json={"paramName": "n", "paramValue": "v"}, headers={"Accept-Language": lang}
    )
    assert r["_status"] == 400 and r["code"] == 400 and r["msg"] == expected
    long = await api.post(
        "/api/blade-system/param/submit", json={"paramName": "n" * 300, "paramKey": "k", "paramValue": "v"}
    )
    assert long["code"] == 400 and "paramName" in long["msg"]
    typed = await api.post("/api/blade-system/post/submit", json={"postCode": "c", "postName": "n", "sort": "abc"})
    assert typed["code"] == 400 and "sort" in typed["msg"]
    unknown = await api.client.get("/api/nowhere")
    assert unknown.status_code == 404 and unknown.json()["code"] == 404


async def test_passwords_are_stored_as_argon2id(api: Api) -> None:
    _account, user_id = await _new_user(api, password="plain-pass")
    async with api.db.sessionmaker() as s:
        stored = (await s.execute(select(m.User.password).where(m.User.id == int(user_id)))).scalar_one()
    assert stored.startswith("$argon2id$") and md5("plain-pass") not in stored
    detail = await api.get("/api/blade-user/detail", params={"id": user_id})
    assert "password" not in detail["data"]
