"""Self-registration and its approval (system/api/registrations.py): the dialog's checks naming their fields, a
pending account refused at sign-in with the registration's message, approval with roles and organisations in
用户管理 (then sign-in works), refusal, and the attacks: anonymous and ungranted callers, another tenant, parallel
registrations of one account, a flood from one address."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import select

from liftdesk.core.kv import KV
from liftdesk.system import models as m
from liftdesk.system.api.registrations import PER_ADDRESS
from tests.conftest import Api, password_chosen, seed_ids

REGISTER = "/api/blade-user/register-guest"
USER = "/api/blade-user"
PASSWORD = "Guest-pass1"


@asynccontextmanager
async def registration_open(api: Api) -> AsyncIterator[None]:
    rows = (await api.get("/api/blade-system/param/list", params={"paramKey_equal": "account.registerUser"}))["data"]
    ident = rows["records"][0]["id"]
    await api.post("/api/blade-system/param/submit", json={"id": ident, "paramValue": "true"})
    try:
        yield
    finally:
        await api.post("/api/blade-system/param/submit", json={"id": ident, "paramValue": "false"})
        async with api.db.sessionmaker() as s:  # this suite's registrations do not count against later ones
            await KV(s).delete_prefix("register-from:")
            await s.commit()


async def _register(api: Api, account: str, /, tenant: str = "000000", lang: str = "zh-CN", **over: str) -> Any:
    body = {"tenantId": tenant, "name": "新人", "account": account, "password": PASSWORD, "password2": PASSWORD}
    r = await api.client.post(REGISTER, json={**body, **over}, headers={"Accept-Language": lang})
    return r.json()


async def _user(api: Api, account: str, tenant: str = "000000") -> list[m.User]:
    async with api.db.sessionmaker() as s:
        stmt = select(m.User).where(m.User.account == account, m.User.tenant_id == tenant, m.User.is_deleted == 0)
        return list((await s.execute(stmt)).scalars().all())


async def test_the_dialog_checks_name_their_fields_in_both_languages(api: Api) -> None:
    async with registration_open(api):
        account = api.unique("g")
        cases = [
            ({"tenantId": ""}, "tenantId 不能为空"),
            ({"account": " "}, "account 不能为空"),
            ({"password": ""}, "password 不能为空"),
            ({"password2": ""}, "password2 不能为空"),
            ({"password2": "Other-pass1"}, "password2: 两次输入的密码不一致"),
            ({"account": "x"}, "account 长度不能少于 2"),
            ({"name": "a very long name"}, "name: 姓名长度在 2 到 5 个字符"),
            (
                {"password": "short", "password2": "short"},
                "password 须为8-15位,且包含数字、大写字母、小写字母和特殊字符",
            ),
            ({"tenantId": "999999"}, "tenantId: 租户ID未找到"),
        ]
        for over, msg in cases:
            answer = await _register(api, account, **over)
            assert answer["code"] == 400 and answer["msg"] == msg, (over, answer)
        english = await _register(api, account, lang="en", password2="Other-pass1")
        assert english["msg"] == "password2: the two passwords do not match"
        assert await _user(api, account) == [], "nothing is written by a refused registration"


async def test_a_registration_waits_for_approval_then_signs_in(api: Api) -> None:
    ids = await seed_ids(api)
    async with registration_open(api):
        account = api.unique("g")
        ok = await _register(api, account)
        assert ok["code"] == 200 and ok["msg"] == "注册申请已提交,请耐心等待管理员通过!"
        refused = await api.login(account, PASSWORD)
        assert refused.status_code == 400 and refused.json()["error"] == "user_pending"
        assert refused.json()["error_description"] == ok["msg"], "the spec's alert, at sign-in too"
        wrong = await api.login(account, "Wrong-pass1")
        assert wrong.json()["error"] != "user_pending", "the pending state is told only with the right password"
        [user] = await _user(api, account)
        assert user.status == 0 and user.role_id == "" and user.real_name == "新人"
        # 用户管理 lists it with its state
        page = (await api.get(f"{USER}/page", params={"account": account}))["data"]["records"]
        assert [r["status"] for r in page] == [0]
        params = {"userIds": str(user.id), "roleIds": ids["driver"], "deptIds": ids["child_dept"]}
        passed = await api.post(f"{USER}/audit-pass", params=params)
        assert passed["code"] == 200, passed
        again = await api.post(f"{USER}/audit-pass", params=params)
        assert again["code"] == 400 and account in again["msg"], "an approved user is not pending any more"
        signed = await api.login(account, PASSWORD)
        assert signed.status_code == 200, signed.text
        assert signed.json()["dept_id"] == ids["child_dept"]
        [user] = await _user(api, account)
        assert user.status == 1 and user.role_id == ids["driver"]


async def test_refusal_removes_the_registration(api: Api) -> None:
    async with registration_open(api):
        account = api.unique("g")
        assert (await _register(api, account))["code"] == 200
        [user] = await _user(api, account)
        refused = await api.post(f"{USER}/audit-refuse", params={"userIds": str(user.id)})
        assert refused["code"] == 200, refused
        assert await _user(api, account) == []
        assert (await api.login(account, PASSWORD)).json()["error"] == "invalid_grant"
        # an ordinary user is not a registration: refusing it is refused, it stays
        admin_id = (await api.get(f"{USER}/page", params={"account": "admin"}))["data"]["records"][0]["id"]
        wrong = await api.post(f"{USER}/audit-refuse", params={"userIds": admin_id})
        assert wrong["code"] == 400 and "admin" in wrong["msg"]


async def test_approval_is_refused_to_others(api: Api, driver: str) -> None:
    ids = await seed_ids(api)
    other = await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("Reg tenant ")})
    tenant = other["data"]["tenantId"]
    await password_chosen(api, tenant)
    theirs = await seed_ids(api, tenant)
    async with registration_open(api):
        account = api.unique("g")
        assert (await _register(api, account))["code"] == 200
        [user] = await _user(api, account)
        params = {"userIds": str(user.id), "roleIds": ids["driver"], "deptIds": ids["child_dept"]}
        anonymous = await api.client.post(f"{USER}/audit-pass", params=params)
        assert anonymous.status_code == 401
        ungranted = await api.post(f"{USER}/audit-pass", params=params, who=driver, password="driver-1")
        assert ungranted["_status"] == 403
        # another tenant's administrator sees no such user, and cannot hand out its own roles to it
        foreign = {"userIds": str(user.id), "roleIds": theirs["role"], "deptIds": theirs["dept"]}
        assert (await api.post(f"{USER}/audit-pass", params=foreign, tenant=tenant))["code"] == 400
        assert (await api.post(f"{USER}/audit-refuse", params={"userIds": str(user.id)}, tenant=tenant))["code"] == 400
        # nor may this tenant's administrator give it another tenant's role or organisation
        mixed = {"userIds": str(user.id), "roleIds": theirs["role"], "deptIds": ids["child_dept"]}
        assert (await api.post(f"{USER}/audit-pass", params=mixed))["code"] == 400
        mixed = {"userIds": str(user.id), "roleIds": ids["driver"], "deptIds": theirs["dept"]}
        assert (await api.post(f"{USER}/audit-pass", params=mixed))["code"] == 400
        [pending] = await _user(api, account)
        assert pending.status == 0, "every refused approval left it pending"


async def test_parallel_registrations_of_one_account_make_one_row(api: Api) -> None:
    async with registration_open(api):
        account = api.unique("g")
        answers = await asyncio.gather(*(_register(api, account) for _ in range(8)))
        assert {a["code"] for a in answers} == {200}
        assert len(await _user(api, account)) == 1


async def test_a_flood_from_one_address_is_stopped(api: Api) -> None:
    async with registration_open(api):
        answers = [await _register(api, api.unique("f")) for _ in range(PER_ADDRESS + 3)]
        codes = [a["code"] for a in answers]
        assert codes[:PER_ADDRESS] == [200] * PER_ADDRESS and codes[PER_ADDRESS:] == [400] * 3
        assert answers[-1]["msg"] == "注册过于频繁,请稍后再试"


async def test_approval_keeps_to_the_quota(api: Api) -> None:
    tenant = (await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("Quota ")}))["data"]
    await password_chosen(api, tenant["tenantId"])
    ids = await seed_ids(api, tenant["tenantId"])
    # one more account than the administrator: the quota is 2
    await api.post("/api/blade-system/tenant/setting", params={"ids": tenant["id"], "accountNumber": 2})
    async with registration_open(api):
        first, second = api.unique("q"), api.unique("q")
        for account in (first, second):
            assert (await _register(api, account, tenant=tenant["tenantId"]))["code"] == 200
        users = {a: (await _user(api, a, tenant["tenantId"]))[0].id for a in (first, second)}
        approve = {"roleIds": ids["role"], "deptIds": ids["dept"]}
        tid = tenant["tenantId"]
        both_ids = f"{users[first]},{users[second]}"
        both = await api.post(f"{USER}/audit-pass", params={"userIds": both_ids, **approve}, tenant=tid)
        assert both["code"] == 400 and both["msg"] == "租户账号数量已达上限", "two more than the quota: none approved"
        one = await api.post(f"{USER}/audit-pass", params={"userIds": users[first], **approve}, tenant=tid)
        assert one["code"] == 200, one
        assert (await _user(api, second, tenant["tenantId"]))[0].status == 0
