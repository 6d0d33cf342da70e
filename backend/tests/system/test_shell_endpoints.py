"""The shell's helper calls and the remaining system endpoints, as the web client uses them."""

from __future__ import annotations

import time

from sqlalchemy import select

from liftdesk.system import models as m
from tests.conftest import Api, password_chosen

SYS = "/api/blade-system"


async def test_register_guest_waits_for_an_administrator(api: Api) -> None:
    account = api.unique("guest")
    closed = await api.client.post("/api/blade-user/register-guest", json={"tenantId": "000000", "account": account})
    assert closed.json()["code"] == 403, "self-registration is off until an administrator turns it on"
    rows = (await api.get(f"{SYS}/param/list", params={"paramKey_equal": "account.registerUser"}))["data"]["records"]
    await api.post(f"{SYS}/param/submit", json={"id": rows[0]["id"], "paramValue": "true"})
    try:
        await _register(api, account)
    finally:
        await api.post(f"{SYS}/param/submit", json={"id": rows[0]["id"], "paramValue": "false"})


async def _register(api: Api, account: str) -> None:
    body = {"tenantId": "000000", "name": "Guest", "account": account, "password": "Guest-pass1", "password2": "x"}
    mismatch = (await api.client.post("/api/blade-user/register-guest", json=body)).json()
    assert mismatch["code"] == 400 and mismatch["msg"] == "password2: 两次输入的密码不一致"
    missing = (await api.client.post("/api/blade-user/register-guest", json={**body, "tenantId": ""})).json()
    assert missing["code"] == 400 and "tenantId" in missing["msg"]
    ok = (await api.client.post("/api/blade-user/register-guest", json={**body, "password2": "Guest-pass1"})).json()
    assert ok["code"] == 200 and ok["msg"] == "注册申请已提交,请耐心等待管理员通过!"
    pending = await api.login(account, "Guest-pass1")
    assert pending.status_code == 400, "a pending account cannot sign in before it is approved"
    assert pending.json()["error"] == "user_pending" and pending.json()["error_description"] == ok["msg"]
    again = (await api.client.post("/api/blade-user/register-guest", json={**body, "password2": "Guest-pass1"})).json()
    assert again == ok, "a taken account gets the same answer as a free one: no account oracle"
    async with api.db.sessionmaker() as s:
        rows = (await s.execute(select(m.User).where(m.User.account == account))).scalars().all()
    assert len(rows) == 1


async def test_error_log_upload_clock_health_and_cache(api: Api) -> None:
    entries = [{"type": "error", "message": "boom", "stack": "at x", "url": "/wel/index", "time": "now"}]
    up = await api.post("/api/blade-auth/oauth/logout", json=entries)
    assert up["code"] == 200 and up["data"] == 1
    async with api.db.sessionmaker() as s:
        logs = (await s.execute(select(m.LogUsual).where(m.LogUsual.log_id == "front-end"))).scalars().all()
    assert any('"message": "boom"' in (row.log_data or "") and row.create_by == "admin" for row in logs)
    clock = (await api.get("/api/blade-fics-report/fics/common/getIpOffset"))["data"]
    assert abs(clock["timestamp"] / 1000 - time.time()) < 60 and clock["offset"] == 480 and clock["zone"] == "UTC+08:00"
    assert (await api.client.get("/api/health")).json()["data"] == "up"
    assert (await api.get("/api/blade-auth/oauth/clear-cache"))["success"] == "true"
    assert (await api.client.get("/api/blade-auth/oauth/clear-cache")).status_code == 401


async def test_menu_helpers(api: Api) -> None:
    tree = (await api.get(f"{SYS}/menu/menu-list"))["data"]
    codes: list[str] = []
    stack = list(tree)
    while stack:
        node = stack.pop()
        codes.append(node["code"])
        assert node["category"] == 1, "menu-list holds menus, never buttons"
        stack.extend(node.get("children") or [])
    assert {"system", "param", "role"} <= set(codes)
    system = next(n for n in tree if n["code"] == "system")
    lazy = (await api.get(f"{SYS}/menu/lazy-menu-list", params={"parentId": system["id"]}))["data"]
    assert "param" in {n["code"] for n in lazy} and all(n["parentId"] == system["id"] for n in lazy)
    param = next(n for n in lazy if n["code"] == "param")
    visit = await api.post(f"{SYS}/menu/visit", json={"menuId": param["id"]})
    assert visit["code"] == 200
    async with api.db.sessionmaker() as s:
        seen = (await s.execute(select(m.MenuVisit).where(m.MenuVisit.menu_id == int(param["id"])))).scalars().all()
    assert seen and seen[-1].create_user == 1123598821738675201
    roles = (await api.get(f"{SYS}/role/select-tree"))["data"]
    assert "超级管理员" in {n["title"] for n in roles}
    dicts = (await api.get(f"{SYS}/dict/tree"))["data"]
    car = next(n for n in dicts if n["title"] == "车辆类型")
    assert len(car["children"]) == 9


async def test_tenant_datasource_binding(api: Api) -> None:
    ds = await api.post(
        "/api/blade-develop/datasource/submit",
        json={
            "name": api.unique("ds "),
            "driverClass": "org.postgresql.Driver",
            "url": "jdbc:postgresql://127.0.0.1/x",
        },
    )
    tenant = await api.post(f"{SYS}/tenant/submit", json={"tenantName": api.unique("DS tenant ")})
    tid = tenant["data"]["tenantId"]
    await password_chosen(api, tid)
    bound = await api.post(f"{SYS}/tenant/datasource", params={"tenantId": tid, "datasourceId": ds["data"]["id"]})
    assert bound["code"] == 200
    detail = (await api.get(f"{SYS}/tenant/detail", params={"id": tenant["data"]["id"]}))["data"]
    assert detail["tenantId"] == tid
    async with api.db.sessionmaker() as s:
        row = (await s.execute(select(m.Tenant).where(m.Tenant.tenant_id == tid))).scalar_one()
    assert str(row.datasource_id) == ds["data"]["id"]
    unknown = await api.post(f"{SYS}/tenant/datasource", params={"tenantId": tid, "datasourceId": "1"})
    assert unknown["code"] == 400
    as_tenant_admin = await api.post(
        f"{SYS}/tenant/datasource", params={"tenantId": tid, "datasourceId": "1"}, tenant=tid
    )
    assert as_tenant_admin["code"] == 403, "binding data sources is the platform administrator's"
