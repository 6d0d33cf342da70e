"""Users beyond CRUD (system/api/users.py): import and export, one's own profile, platforms, granting roles."""

from __future__ import annotations

import asyncio
import io
from typing import Any

from openpyxl import Workbook, load_workbook
from sqlalchemy import select, update

from liftdesk.core.security import ADMINISTRATOR_ROLE_ID
from liftdesk.core.transfer import INLINE_ROWS
from liftdesk.system.models import User
from tests.conftest import Api, Tenants, seed_ids

USER = "/api/blade-user"
HEADER = ["账号", "昵称", "姓名", "手机号码", "电子邮箱", "性别", "所属角色", "所属机构", "所属岗位"]


def xlsx(rows: list[list[Any]]) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def table(data: bytes) -> list[list[Any]]:
    sheet = load_workbook(io.BytesIO(data), read_only=True).worksheets[0]
    return [list(r) for r in sheet.iter_rows(values_only=True)]


async def upload(api: Api, data: bytes, covered: int = 0, **kw: Any) -> dict[str, Any]:
    files = {"file": ("users.xlsx", data, "application/octet-stream")}
    return await api.post(f"{USER}/import-user", params={"isCovered": covered}, files=files, **kw)


async def names(api: Api, tenant: str = "000000") -> dict[str, str]:
    """Names of a tenant's seed role (non-administrator), root organisation and first post."""
    ids = await seed_ids(api, tenant)
    role = (await api.get("/api/blade-system/role/detail", params={"id": ids["role"]}, tenant=tenant))["data"]
    dept = (await api.get("/api/blade-system/dept/detail", params={"id": ids["dept"]}, tenant=tenant))["data"]
    post = (await api.get("/api/blade-system/post/detail", params={"id": ids["post"]}, tenant=tenant))["data"]
    return {"role": role["roleName"], "alias": role["roleAlias"], "dept": dept["deptName"], "post": post["postName"]}


async def stored(api: Api, account: str, tenant: str = "000000") -> User:
    async with api.db.sessionmaker() as s:
        row = (await s.execute(select(User).where(User.account == account, User.tenant_id == tenant))).scalar_one()
    return row


async def test_template_columns(api: Api) -> None:
    headers = await api.headers()
    r = await api.client.get(f"{USER}/export-template", headers=headers)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/vnd.openxml")
    assert table(r.content) == [HEADER]
    english = await api.client.get(f"{USER}/export-template", headers={**headers, "Accept-Language": "en"})
    assert table(english.content)[0][:3] == ["Account", "Nickname", "Real name"]


async def test_import_reports_the_bad_row_and_keeps_the_good_ones(api: Api) -> None:
    n = await names(api)
    good, alias, bad = api.unique("imp"), api.unique("imp"), api.unique("imp")
    rows = [
        HEADER,
        [good, "Good", "张三", "13800138000", "good@example.com", "男", n["role"], n["dept"], n["post"]],
        [bad, "Bad", "李四", None, None, None, "no such role", n["dept"], None],
        [alias, "Alias", "王五", None, None, 2, n["alias"], n["dept"], None],
    ]
    report = (await upload(api, xlsx(rows)))["data"]
    assert report["total"] == 3 and report["created"] == 2 and report["failed"] == 1 and report["finished"], report
    [error] = report["errors"]
    assert error["row"] == 3 and "所属角色" in error["message"] and "no such role" in error["message"], error
    assert "password" not in str(report).lower(), "no password in the report"
    [row] = (await api.get(f"{USER}/page", params={"account": good}))["data"]["records"]
    assert row["realName"] == "张三" and row["sex"] == 1 and row["roleName"] == n["role"]
    assert row["deptName"] == n["dept"] and row["postName"] == n["post"]
    user = await stored(api, good)
    assert user.password_must_change == 1, "a new account chooses its own password at first sign-in"
    assert (await api.login(good, good)).status_code != 200
    assert (await stored(api, alias)).role_id == row["roleId"], "a role by its alias"
    assert not (await api.get(f"{USER}/page", params={"account": bad}))["data"]["records"]

    # English headers, and a missing organisation on a new account is named
    english = (
        await upload(
            api,
            xlsx([["Account", "Real name", "Roles"], [api.unique("imp"), "赵六", n["role"]]]),
            headers={"Accept-Language": "en"},
        )
    )["data"]
    assert english["failed"] == 1 and "Organisations" in english["errors"][0]["message"], english


async def test_a_large_import_runs_in_the_background_through_the_same_rules(api: Api) -> None:
    """More than INLINE_ROWS rows: the generic importer's background job, with the user rules (names to ids, the
    bad row's reason, a new account's password to choose) and the progress call."""
    n = await names(api)
    prefix = api.unique("big")[:10]
    rows: list[list[Any]] = [HEADER]
    for i in range(INLINE_ROWS + 5):
        role = "no such role" if i == 7 else n["role"]
        rows.append([f"{prefix}{i:03d}", "Big", "周九", None, None, None, role, n["dept"], None])
    answer = (await upload(api, xlsx(rows)))["data"]
    assert answer["total"] == INLINE_ROWS + 5 and not answer["finished"], answer
    report: dict[str, Any] = {}
    for _ in range(600):
        report = (await api.get(f"{USER}/import-user-progress", params={"jobId": answer["jobId"]}))["data"]
        if report["finished"]:
            break
        await asyncio.sleep(0.1)
    assert report["finished"] and report["created"] == INLINE_ROWS + 4 and report["failed"] == 1, report
    [error] = report["errors"]
    assert error["row"] == 9 and "no such role" in error["message"], error
    assert (await stored(api, f"{prefix}000")).password_must_change == 1
    assert (await stored(api, f"{prefix}{INLINE_ROWS + 4:03d}")).password_must_change == 1
    # another user of the tenant does not read the report
    other = await api.get(
        f"{USER}/import-user-progress",
        params={"jobId": answer["jobId"]},
        who=await _second_admin(api),
        password=SECOND_ADMIN_PASSWORD,
    )
    assert other["code"] == 400, other


#: Not the account: a password equal to the account is refused (tests/security/test_small.py).
SECOND_ADMIN_PASSWORD = "Second-adm#1"


async def _second_admin(api: Api) -> str:
    ids = await seed_ids(api)
    account = api.unique("adm")
    made = await api.post(
        f"{USER}/submit",
        json={
            "account": account,
            "password": SECOND_ADMIN_PASSWORD,
            "name": "A",
            "realName": "Admin",
            "roleId": ids["role"],
            "deptId": ids["dept"],
        },
    )
    assert made["code"] == 200, made
    async with api.db.sessionmaker() as s:
        await s.execute(update(User).where(User.account == account).values(password_must_change=0))
        await s.commit()
    return account


async def test_cover_existing(api: Api) -> None:
    n = await names(api)
    account = api.unique("cov")
    first = [HEADER[:3] + HEADER[6:8], [account, "A", "钱七", n["role"], n["dept"]]]
    assert (await upload(api, xlsx(first)))["data"]["created"] == 1
    before = await stored(api, account)
    again = (await upload(api, xlsx([["账号", "姓名"], [account, "孙八"]])))["data"]
    assert again["created"] == 0 and again["failed"] == 1 and account in again["errors"][0]["message"]
    covered = (await upload(api, xlsx([["账号", "姓名"], [account, "孙八"]]), covered=1))["data"]
    assert covered["updated"] == 1 and covered["failed"] == 0, covered
    after = await stored(api, account)
    assert after.real_name == "孙八" and after.role_id == before.role_id and after.password == before.password


async def test_export_with_a_filter(api: Api) -> None:
    n = await names(api)
    a, b = api.unique("exp"), api.unique("exp")
    rows = [HEADER[:3] + HEADER[6:8], [a, "A", "周九", n["role"], n["dept"]], [b, "B", "吴十", n["role"], n["dept"]]]
    assert (await upload(api, xlsx(rows)))["data"]["created"] == 2
    headers = await api.headers()
    r = await api.client.get(f"{USER}/export-user", params={"account": a}, headers=headers)
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    got = table(r.content)
    assert got[0][: len(HEADER)] == HEADER and len(got) == 2
    assert got[1][0] == a and got[1][6] == n["role"] and got[1][7] == n["dept"]
    assert not any("argon" in str(c) for c in got[1]), "never a password"


async def _signed_in_user(api: Api, tenant: str = "000000") -> dict[str, str]:
    ids = await seed_ids(api, tenant)
    account = api.unique("me")
    body = {"account": account, "password": "me-pass-1", "name": "Me", "realName": "本人"}
    r = await api.post(f"{USER}/submit", json={**body, "roleId": ids["role"], "deptId": ids["dept"]}, tenant=tenant)
    assert r["code"] == 200, r
    return {"who": account, "password": "me-pass-1", "tenant": tenant, "id": r["data"]["id"]}


async def test_own_profile_read_and_update(api: Api) -> None:
    me = await _signed_in_user(api)
    who = {"who": me["who"], "password": me["password"]}
    info = await api.get(f"{USER}/info", **who)
    assert info["code"] == 200 and info["data"]["account"] == me["who"] and info["data"]["realName"] == "本人"
    assert info["data"]["roleName"] and info["data"]["deptName"]
    body = {"name": "新昵称", "realName": "张小明", "phone": "13912345678", "email": "me@example.com", "sex": 2}
    saved = await api.post(f"{USER}/update-info", json={**body, "birthday": "1990-05-01 00:00:00"}, **who)
    assert saved["code"] == 200, saved
    info = (await api.get(f"{USER}/info", **who))["data"]
    assert (info["name"], info["realName"], info["phone"], info["sex"]) == ("新昵称", "张小明", "13912345678", 2)
    assert info["birthday"].startswith("1990-05-01")

    # the specification's rules, each with its message
    for change, words in (
        ({"phone": ""}, "不能为空"),
        ({"phone": "1391234567"}, "11"),
        ({"phone": "010-12345678"}, "格式"),
        ({"realName": "张"}, "2 到 5"),
        ({"realName": "张三李四王五"}, "2 到 5"),
        ({"email": "not-an-email"}, "email"),
        ({"avatar": "javascript:alert(1)"}, "avatar"),
    ):
        r = await api.post(f"{USER}/update-info", json={**body, **change}, **who)
        assert r["code"] == 400 and words in r["msg"], (change, r)
    # roles and organisations are not one's own to change: the body does not take them
    r = await api.post(f"{USER}/update-info", json={**body, "roleId": str(ADMINISTRATOR_ROLE_ID)}, **who)
    assert (await stored(api, me["who"])).role_id != str(ADMINISTRATOR_ROLE_ID), r
    assert (await api.get(f"{USER}/info", tenant="000000"))["data"]["account"] == "admin"


async def test_grant_roles(api: Api, tenants: Tenants) -> None:
    mine = await _signed_in_user(api, tenants.b)
    theirs = await _signed_in_user(api, tenants.a)
    b_ids, a_ids = await seed_ids(api, tenants.b), await seed_ids(api, tenants.a)
    role = await api.post(
        "/api/blade-system/role/submit",
        json={"roleName": api.unique("granted "), "roleAlias": api.unique("granted"), "sort": 5},
        tenant=tenants.b,
    )
    assert role["code"] == 200, role
    both = f"{role['data']['id']},{b_ids['role']}"
    ok = await api.post(f"{USER}/grant", params={"userIds": mine["id"], "roleIds": both}, tenant=tenants.b)
    assert ok["code"] == 200, ok
    assert (await stored(api, mine["who"], tenants.b)).role_id == both

    # a tenant administrator cannot grant the administrator role
    admin = await api.post(
        f"{USER}/grant", params={"userIds": mine["id"], "roleIds": str(ADMINISTRATOR_ROLE_ID)}, tenant=tenants.b
    )
    assert admin["_status"] == 403, admin
    # another tenant's users or roles are refused, and nothing changes (all or none)
    other_user = await api.post(
        f"{USER}/grant", params={"userIds": f"{mine['id']},{theirs['id']}", "roleIds": b_ids["role"]}, tenant=tenants.b
    )
    assert other_user["code"] == 400, other_user
    other_role = await api.post(
        f"{USER}/grant", params={"userIds": mine["id"], "roleIds": a_ids["role"]}, tenant=tenants.b
    )
    assert other_role["code"] == 400, other_role
    assert (await stored(api, mine["who"], tenants.b)).role_id == both
    assert (await stored(api, theirs["who"])).role_id == a_ids["role"]
    empty = await api.post(f"{USER}/grant", params={"userIds": mine["id"], "roleIds": ""}, tenant=tenants.b)
    assert empty["code"] == 400, empty
    # the platform administrator may
    platform = await api.post(
        f"{USER}/grant", params={"userIds": theirs["id"], "roleIds": str(ADMINISTRATOR_ROLE_ID)}, tenant=tenants.a
    )
    assert platform["code"] == 200, platform


async def test_platform_detail_and_update(api: Api, tenants: Tenants) -> None:
    user = await _signed_in_user(api)
    detail = await api.get(f"{USER}/platform-detail", params={"id": user["id"]})
    assert detail["code"] == 200 and detail["data"]["userType"] == 1 and detail["data"]["userTypeName"], detail
    assert detail["data"]["userExt"] == ""
    changed = await api.post(f"{USER}/update-platform", params={"userId": user["id"], "userType": 2})
    assert changed["code"] == 200 and changed["data"]["userType"] == 2, changed
    assert (await api.get(f"{USER}/platform-detail", params={"id": user["id"]}))["data"]["userType"] == 2
    for params in ({"userType": 9}, {"userType": 0}, {"userType": 1, "userExt": "{}"}):
        r = await api.post(f"{USER}/update-platform", params={"userId": user["id"], **params})
        assert r["code"] == 400, (params, r)
    # another tenant's user is neither shown nor changed
    assert (await api.get(f"{USER}/platform-detail", params={"id": user["id"]}, tenant=tenants.b))["code"] == 400
    other = await api.post(f"{USER}/update-platform", params={"userId": user["id"], "userType": 3}, tenant=tenants.b)
    assert other["code"] == 400
    assert (await stored(api, user["who"])).user_type == 2
