"""Generic action cases of the system context (see actions.py for the format).

Menus, dictionaries (``dict``) and data scopes are platform-wide: where another tenant's administrator may read
them too, a case has no marker and only proves that both calls are served. Tenant-owned rows (roles, top menus,
users, business dictionaries) carry a marker another tenant's answer must not show; the platform's tenants are the
platform administrator's alone (``tenant_scoped=False``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from liftdesk.system.models import Dict, Menu
from tests.conftest import Api, md5, password_chosen
from tests.resources.actions import ActionCase, Call, key
from tests.resources.data import CASES as RESOURCE_CASES

SYS = "/api/blade-system"
OAUTH = "/api/blade-auth/oauth"
USER = "/api/blade-user"
FICS = "/api/blade-fics-report/fics"


async def _submit(api: Api, path: str, resource: str, tenant: str, **extra: Any) -> dict[str, Any]:
    """A new row of ``resource`` (its generic test data) in ``tenant``, as the API answers it."""
    payload = {**(await RESOURCE_CASES[resource].create(api, tenant)), **extra}
    r = await api.post(f"{path}/submit", json=payload, tenant=tenant)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


async def menu_id(api: Api, code: str) -> str:
    async with api.db.sessionmaker() as s:
        found = (await s.execute(select(Menu.id).where(Menu.code == code, Menu.is_deleted == 0))).scalars().first()
    assert found is not None, f"menu {code}"
    return str(found)


async def _role(api: Api, tenant: str) -> dict[str, Any]:
    return await _submit(api, f"{SYS}/role", "role", tenant)


async def _top_menu(api: Api, tenant: str) -> dict[str, Any]:
    return await _submit(api, f"{SYS}/topmenu", "topmenu", tenant)


async def _user(api: Api, tenant: str) -> dict[str, Any]:
    return await _submit(api, USER, "user", tenant)


async def _tenant(api: Api, tenant: str) -> dict[str, Any]:
    row = await _submit(api, f"{SYS}/tenant", "tenant", tenant)
    await password_chosen(api, row["tenantId"])
    return row


async def _dict_biz(api: Api, tenant: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A business dictionary of ``tenant``: its root and one entry."""
    root = await _submit(api, f"{SYS}/dict-biz", "dict_biz", tenant)
    entry = await _submit(
        api, f"{SYS}/dict-biz", "dict_biz", tenant, code=root["code"], dictKey="1", parentId=root["id"]
    )
    return root, entry


# ---------------------------------------------------------------- the session's own calls


async def _nothing(api: Api, tenant: str) -> Call:
    """A call about the caller alone (their clock, a random password): both tenants are served, nothing to hide."""
    return Call()


async def _error_log(api: Api, tenant: str) -> Call:
    return Call(json=[{"type": "error", "message": api.unique("boom "), "url": "/wel/index"}])


async def _user_info(api: Api, tenant: str) -> Call:
    me = await api.get(f"{OAUTH}/user-info", tenant=tenant)
    assert me["code"] == 200, me
    return Call(marker=me["data"]["userId"])


async def _tenants_of_account(api: Api, tenant: str) -> Call:
    return Call(params={"password": md5("admin")})


# ---------------------------------------------------------------- menus of the shell


async def _routes(api: Api, tenant: str) -> Call:
    """A top menu of the tenant holding the user menu: another tenant's admin also holds that menu, but naming the
    top menu must not show it them."""
    top = await _top_menu(api, tenant)
    user_menu = await menu_id(api, "user")
    r = await api.post(f"{SYS}/topmenu/grant", json={"topMenuIds": [top["id"]], "menuIds": [user_menu]}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(params={"topMenuId": top["id"]}, marker=user_menu)


async def _buttons(api: Api, tenant: str) -> Call:
    return Call(marker="param_add")  # the platform administrator's button, never a tenant administrator's


async def _top_menus(api: Api, tenant: str) -> Call:
    top = await _top_menu(api, tenant)
    return Call(marker=top["id"], probe=("GET", f"{SYS}/topmenu/detail", {"id": top["id"]}))


async def _visit(api: Api, tenant: str) -> Call:
    return Call(json={"menuId": await menu_id(api, "param")})


async def _platform_menu(api: Api, tenant: str) -> Call:
    """The grant trees list the caller's own menus: the parameter menu is the platform administrator's only."""
    return Call(marker=await menu_id(api, "param"))


async def _granted_role(api: Api, tenant: str) -> tuple[dict[str, Any], str]:
    role = await _role(api, tenant)
    param = await menu_id(api, "param")
    r = await api.post(f"{SYS}/role/grant", json={"roleIds": [role["id"]], "menuIds": [param]}, tenant=tenant)
    assert r["code"] == 200, r
    return role, param


async def _role_keys(api: Api, tenant: str) -> Call:
    role, param = await _granted_role(api, tenant)
    return Call(params={"roleIds": role["id"]}, marker=param)


async def _role_grant(api: Api, tenant: str) -> Call:
    role = await _role(api, tenant)
    return Call(
        json={"roleIds": [role["id"]], "menuIds": [await menu_id(api, "param")]},
        probe=("GET", f"{SYS}/menu/role-tree-keys", {"roleIds": role["id"]}),
    )


async def _role_tree(api: Api, tenant: str) -> Call:
    role = await _role(api, tenant)
    return Call(marker=role["id"], probe=("GET", f"{SYS}/role/detail", {"id": role["id"]}))


async def _top_keys(api: Api, tenant: str) -> Call:
    top = await _top_menu(api, tenant)
    param = await menu_id(api, "param")
    r = await api.post(f"{SYS}/topmenu/grant", json={"topMenuIds": [top["id"]], "menuIds": [param]}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(params={"topMenuIds": top["id"]}, marker=param)


async def _top_grant(api: Api, tenant: str) -> Call:
    top = await _top_menu(api, tenant)
    return Call(
        json={"topMenuIds": [top["id"]], "menuIds": [await menu_id(api, "param")]},
        probe=("GET", f"{SYS}/menu/top-tree-keys", {"topMenuIds": top["id"]}),
    )


async def _lazy_menus(api: Api, tenant: str) -> Call:
    return Call(params={"parentId": await menu_id(api, "system")})


# ---------------------------------------------------------------- dictionaries


async def _dict_code(api: Api, tenant: str) -> Call:
    return Call(params={"code": "sex"})


async def _dict_children(api: Api, tenant: str) -> Call:
    async with api.db.sessionmaker() as s:
        root = (await s.execute(select(Dict.id).where(Dict.code == "sex", Dict.parent_id == 0))).scalars().first()
    assert root is not None
    return Call(params={"parentId": str(root)})


async def _biz_dictionary(api: Api, tenant: str) -> Call:
    root, entry = await _dict_biz(api, tenant)
    return Call(params={"code": root["code"]}, marker=entry["id"])


async def _biz_roots(api: Api, tenant: str) -> Call:
    root, _ = await _dict_biz(api, tenant)
    return Call(params={"code": root["code"]}, marker=root["id"])


async def _biz_children(api: Api, tenant: str) -> Call:
    root, entry = await _dict_biz(api, tenant)
    return Call(params={"parentId": root["id"]}, marker=entry["id"])


# ---------------------------------------------------------------- tenants and users


async def _tenant_setting(api: Api, tenant: str) -> Call:
    row = await _tenant(api, tenant)
    return Call(
        params={"ids": row["id"], "accountNumber": 5, "expireTime": "2099-01-01 00:00:00"},
        probe=("GET", f"{SYS}/tenant/detail", {"id": row["id"]}),
    )


async def _tenant_datasource(api: Api, tenant: str) -> Call:
    row = await _tenant(api, tenant)
    ds = await _submit(api, "/api/blade-develop/datasource", "datasource", tenant)
    return Call(
        params={"tenantId": row["tenantId"], "datasourceId": ds["id"]},
        probe=("GET", f"{SYS}/tenant/detail", {"id": row["id"]}),
    )


async def _unlock(api: Api, tenant: str) -> Call:
    user = await _user(api, tenant)
    return Call(params={"userIds": user["id"]}, probe=("GET", f"{USER}/detail", {"id": user["id"]}))


async def _reset(api: Api, tenant: str) -> Call:
    user = await _user(api, tenant)
    return Call(params={"userIds": user["id"]}, marker=user["account"])


async def _replace(api: Api, tenant: str) -> Call:
    user = await _user(api, tenant)
    return Call(json={"userIds": user["id"], "password": "Other-pw2!"}, marker=user["account"])


CASES: dict[str, ActionCase] = {
    key("POST", f"{OAUTH}/logout"): ActionCase(_error_log),
    key("GET", f"{OAUTH}/user-info"): ActionCase(_user_info),
    key("POST", f"{USER}/getTenantListByAccount"): ActionCase(_tenants_of_account),
    key("GET", f"{SYS}/menu/routes"): ActionCase(_routes),
    key("GET", f"{SYS}/menu/buttons"): ActionCase(_buttons),
    key("GET", f"{SYS}/menu/top-menu"): ActionCase(_top_menus),
    key("POST", f"{SYS}/menu/visit"): ActionCase(_visit),
    key("GET", f"{SYS}/menu/grant-tree"): ActionCase(_platform_menu),
    key("GET", f"{SYS}/menu/role-tree-keys"): ActionCase(_role_keys),
    key("POST", f"{SYS}/role/grant"): ActionCase(_role_grant),
    key("GET", f"{SYS}/role/select-tree"): ActionCase(_role_tree),
    key("GET", f"{SYS}/menu/grant-top-tree"): ActionCase(_platform_menu),
    key("GET", f"{SYS}/menu/top-tree-keys"): ActionCase(_top_keys),
    key("POST", f"{SYS}/topmenu/grant"): ActionCase(_top_grant),
    key("GET", f"{SYS}/menu/menu-list"): ActionCase(_nothing),
    key("GET", f"{SYS}/menu/lazy-menu-list"): ActionCase(_lazy_menus),
    key("GET", f"{SYS}/dict/dictionary"): ActionCase(_dict_code),
    key("GET", f"{SYS}/dict/parent-list"): ActionCase(_dict_code),
    key("GET", f"{SYS}/dict/child-list"): ActionCase(_dict_children),
    key("GET", f"{SYS}/dict-biz/dictionary"): ActionCase(_biz_dictionary),
    key("GET", f"{SYS}/dict-biz/parent-list"): ActionCase(_biz_roots),
    key("GET", f"{SYS}/dict-biz/child-list"): ActionCase(_biz_children),
    key("POST", f"{SYS}/tenant/setting"): ActionCase(_tenant_setting, tenant_scoped=False),
    key("POST", f"{SYS}/tenant/datasource"): ActionCase(_tenant_datasource, tenant_scoped=False),
    key("POST", f"{USER}/unlock"): ActionCase(_unlock),
    key("POST", f"{USER}/reset-password"): ActionCase(_reset),
    key("POST", f"{USER}/replacePassword"): ActionCase(_replace),
    key("POST", f"{USER}/randomPassword"): ActionCase(_nothing),
    key("GET", f"{FICS}/common/getIpOffset"): ActionCase(_nothing),
}

EXEMPTIONS: dict[str, str] = {
    key("GET", f"{OAUTH}/clear-cache"): (
        "answers BladeX's bare {success, msg} (no code envelope, which the owner's check reads) and touches no row "
        "of any tenant: it drops expired captcha, lockout and revocation entries; test_shell_endpoints covers it"
    ),
    key("POST", f"{USER}/update-password"): (
        "changes the caller's own password and revokes every token of theirs: the owner's call (tenant A's "
        "administrator) would end the session the rest of the suite signs in with; it names no other row "
        "(test_signin covers it, including the revocation)"
    ),
}


# ---------------------------------------------------------------- the tenant's map (system/api/map_setting.py)

MAP = "/api/liftdesk/map"
MAP_PROBE = ("GET", f"{MAP}/setting", {})


def _plan_png() -> bytes:
    from tests.system.test_map_setting import png

    return png()


async def _map_setting(api: Api, tenant: str) -> Call:
    url = f"https://{api.unique('tiles')}.example.com/{{z}}/{{x}}/{{y}}.png"
    r = await api.post(f"{MAP}/setting/save", json={"tileUrl": url}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(marker=url)


async def _map_save(api: Api, tenant: str) -> Call:
    url = f"https://{api.unique('tiles')}.example.com/{{z}}/{{x}}/{{y}}.png"
    return Call(json={"tileUrl": url}, probe=MAP_PROBE)


async def _map_upload(api: Api, tenant: str) -> Call:
    return Call(files={"file": ("plan.png", _plan_png(), "image/png")}, probe=MAP_PROBE)


async def _map_remove(api: Api, tenant: str) -> Call:
    r = await api.post(f"{MAP}/plan/upload", files={"file": ("plan.png", _plan_png(), "image/png")}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(probe=MAP_PROBE)


CASES.update(
    {
        key("GET", f"{MAP}/setting"): ActionCase(_map_setting),
        key("POST", f"{MAP}/setting/save"): ActionCase(_map_save),
        key("POST", f"{MAP}/plan/upload"): ActionCase(_map_upload),
        key("POST", f"{MAP}/plan/remove"): ActionCase(_map_remove),
    }
)
EXEMPTIONS[key("GET", f"{MAP}/plan/image")] = (
    "answers the image's bytes (no envelope, which the suite's calls read); tests/system/test_map_setting.py proves "
    "that it needs a token, that another tenant gets no image of this one's and that the owner gets theirs"
)


# ---------------------------------------------------------------- the error log's detail (system/api/logs.py)


async def _error_log(api: Api, tenant: str) -> Call:
    """An error log of ``tenant`` as a server error writes it (tests/system/test_logs.py makes real ones)."""
    from liftdesk.system.models import LogError

    row = LogError(tenant_id=tenant, exception_name="builtins.RuntimeError", message="m", stack_trace="Traceback")
    async with api.db.sessionmaker() as s:
        s.add(row)
        await s.commit()
    return Call(params={"id": str(row.id)}, marker=str(row.id))


# the platform administrator's only: another tenant's administrator is refused outright
CASES[key("GET", "/api/blade-log/error/detail")] = ActionCase(_error_log, tenant_scoped=False)


# ---------------------------------------------------------------- organisations (system/api/depts.py)
# The suite's own-organisation case narrows vehicles (a rule on the vehicle resource), not organisations: the
# organisations' data scope is proven in tests/system/test_depts.py (a branch moved under and away from the user's).

DEPT = f"{SYS}/dept"


async def _dept_row(api: Api, tenant: str, parent: str = "0") -> dict[str, Any]:
    return await _submit(api, DEPT, "dept", tenant, parentId=parent)


def _dept_probe(row: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    return ("GET", f"{DEPT}/detail", {"id": row["id"]})


async def _dept_by_name(api: Api, tenant: str) -> Call:
    row = await _dept_row(api, tenant)
    return Call(params={"deptName": row["deptName"]}, marker=row["id"])


async def _dept_tree(api: Api, tenant: str) -> Call:
    row = await _dept_row(api, tenant)
    return Call(marker=row["id"])


async def _dept_invite(api: Api, tenant: str) -> Call:
    row = await _dept_row(api, tenant)
    return Call(params={"ids": row["id"]}, probe=_dept_probe(row))


async def _dept_sort(api: Api, tenant: str) -> Call:
    parent = await _dept_row(api, tenant)
    first, second = await _dept_row(api, tenant, parent["id"]), await _dept_row(api, tenant, parent["id"])
    return Call(json={"ids": [second["id"], first["id"]]}, probe=_dept_probe(second))


async def _dept_move(api: Api, tenant: str) -> Call:
    parent = await _dept_row(api, tenant)
    child = await _dept_row(api, tenant, parent["id"])
    return Call(json={"deptId": child["id"], "parentId": "0"}, probe=_dept_probe(child))


CASES.update(
    {
        key("GET", f"{DEPT}/page-list"): ActionCase(_dept_by_name),
        key("GET", f"{DEPT}/orgPage"): ActionCase(_dept_by_name),
        key("GET", f"{DEPT}/user-dept-tree"): ActionCase(_dept_tree),
        key("POST", f"{DEPT}/resetInviteCode"): ActionCase(_dept_invite),
        key("POST", f"{DEPT}/orgSort"): ActionCase(_dept_sort),
        key("POST", f"{DEPT}/deptTransfer"): ActionCase(_dept_move),
    }
)


# ---------------------------------------------------------------- users beyond CRUD (system/api/users.py)


def _user_probe(user: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    return ("GET", f"{USER}/detail", {"id": user["id"]})


def _users_xlsx(*rows: list[object]) -> bytes:
    import io

    from openpyxl import Workbook

    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


async def _own_info(api: Api, tenant: str) -> Call:
    me = await api.get(f"{USER}/info", tenant=tenant)
    assert me["code"] == 200, me
    return Call(marker=me["data"]["id"])


async def _own_update(api: Api, tenant: str) -> Call:
    """The owner's profile as it is, with a mobile number: another tenant's call changes its own admin's only."""
    me = (await api.get(f"{USER}/info", tenant=tenant))["data"]
    body = {k: me[k] for k in ("name", "realName", "email", "avatar", "sex", "birthday")}
    return Call(json={**body, "phone": "13800000000"}, probe=("GET", f"{USER}/info", {}))


async def _platform_detail(api: Api, tenant: str) -> Call:
    user = await _user(api, tenant)
    return Call(params={"id": user["id"]}, marker=user["account"])


async def _platform_update(api: Api, tenant: str) -> Call:
    user = await _user(api, tenant)
    return Call(params={"userId": user["id"], "userType": 2}, probe=_user_probe(user))


async def _user_grant(api: Api, tenant: str) -> Call:
    user, role = await _user(api, tenant), await _role(api, tenant)
    return Call(params={"userIds": user["id"], "roleIds": role["id"]}, probe=_user_probe(user))


async def _user_import(api: Api, tenant: str) -> Call:
    """Covering an existing user of the tenant: another tenant's import of the same account must not touch it."""
    user = await _user(api, tenant)
    data = _users_xlsx(["账号", "姓名"], [user["account"], "覆盖"])
    return Call(
        params={"isCovered": 1},
        files={"file": ("users.xlsx", data, "application/octet-stream")},
        probe=_user_probe(user),
    )


async def _user_export(api: Api, tenant: str) -> Call:
    user = await _user(api, tenant)
    return Call(params={"account": user["account"]}, marker=user["account"], probe=_user_probe(user))


async def _user_import_progress(api: Api, tenant: str) -> Call:
    prefix = api.unique("prg")
    data = _users_xlsx(["账号"], *([f"{prefix}{i}"] for i in range(201)))
    files = {"file": ("users.xlsx", data, "application/octet-stream")}
    r = await api.post(f"{USER}/import-user", files=files, tenant=tenant)
    assert r["code"] == 200 and r["data"]["jobId"], r
    return Call(params={"jobId": r["data"]["jobId"]}, marker=r["data"]["jobId"])


CASES.update(
    {
        key("GET", f"{USER}/info"): ActionCase(_own_info),
        key("POST", f"{USER}/update-info"): ActionCase(_own_update),
        key("GET", f"{USER}/platform-detail"): ActionCase(_platform_detail),
        key("POST", f"{USER}/update-platform"): ActionCase(_platform_update),
        key("POST", f"{USER}/grant"): ActionCase(_user_grant),
        key("POST", f"{USER}/import-user"): ActionCase(_user_import),
        key("GET", f"{USER}/export-user"): ActionCase(_user_export),
        key("GET", f"{USER}/export-template"): ActionCase(_nothing),
        key("GET", f"{USER}/import-user-progress"): ActionCase(_user_import_progress),
    }
)


# ---------------------------------------------------------------- in-site messages and receive settings

FICS_MSG = "/api/blade-fics/fics"


async def _own_message(api: Api, tenant: str, unread: bool = True) -> dict[str, Any]:
    """A notice published in ``tenant``: its administrator's message about it."""
    title = api.unique("Notice ")
    notice = await api.post("/api/blade-desk/notice/submit", json={"title": title, "category": 1}, tenant=tenant)
    assert notice["code"] == 200, notice
    found = await api.get(f"{FICS_MSG}/message/messageList", params={"isRead": 0, "size": 100}, tenant=tenant)
    (message,) = [m for m in found["data"]["records"] if m["title"] == title]
    return dict(message)


def _message_probe(message: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    return ("GET", f"{FICS_MSG}/siteMsg/page", {"id_equal": message["id"]})


async def _message_list(api: Api, tenant: str) -> Call:
    message = await _own_message(api, tenant)
    return Call(params={"isRead": 0, "msgType": 1}, marker=message["id"])


async def _message_info(api: Api, tenant: str) -> Call:
    message = await _own_message(api, tenant)
    return Call(ident=message["id"], marker=message["id"], probe=_message_probe(message))


async def _message_ids(api: Api, tenant: str) -> Call:
    message = await _own_message(api, tenant)
    return Call(params={"ids": message["id"]}, probe=_message_probe(message))


async def _all_read(api: Api, tenant: str) -> Call:
    return Call(probe=_message_probe(await _own_message(api, tenant)))


def _receivers_probe(msg_type: int) -> tuple[str, str, dict[str, Any]]:
    return ("GET", f"{FICS_MSG}/siteMsgReceiveUser/page", {"msgType": msg_type})


async def _chosen(api: Api, tenant: str, msg_type: int) -> dict[str, Any]:
    """A new user of ``tenant`` chosen to receive ``msg_type``; its row of the receivers' page."""
    user = await _user(api, tenant)
    path = f"{FICS_MSG}/siteMsgReceiveUser"
    r = await api.post(f"{path}/selectUserSub", json={"msgType": msg_type, "userIds": [user["id"]]}, tenant=tenant)
    assert r["code"] == 200, r
    rows = (await api.get(f"{path}/page", params={"msgType": msg_type, "size": 1000}, tenant=tenant))["data"]
    (row,) = [c for c in rows["records"] if c["userId"] == user["id"]]
    return dict(row)


async def _send_type(api: Api, tenant: str) -> Call:
    return Call(json={"msgType": 8, "sendType": "1"}, probe=("GET", f"{FICS_MSG}/siteMsgReceive/page", {"msgType": 8}))


async def _restore(api: Api, tenant: str) -> Call:
    await _chosen(api, tenant, 8)
    return Call(json={"msgType": 8}, probe=_receivers_probe(8))


async def _remove_receiver(api: Api, tenant: str) -> Call:
    row = await _chosen(api, tenant, 7)
    return Call(json={"msgType": 7, "userIds": [row["userId"]]}, probe=_receivers_probe(7))


async def _receivers(api: Api, tenant: str) -> Call:
    row = await _chosen(api, tenant, 6)
    return Call(params={"msgType": 6, "size": 1000}, marker=row["account"])


async def _pickable(api: Api, tenant: str) -> Call:
    user = await _user(api, tenant)
    return Call(params={"msgType": 6, "account": user["account"]}, marker=user["account"])


async def _choose(api: Api, tenant: str) -> Call:
    user = await _user(api, tenant)
    return Call(json={"msgType": 5, "userIds": [user["id"]]}, probe=_receivers_probe(5))


async def _drop_choice(api: Api, tenant: str) -> Call:
    row = await _chosen(api, tenant, 5)
    return Call(params={"ids": row["id"]}, probe=_receivers_probe(5))


CASES.update(
    {
        key("GET", f"{FICS_MSG}/message/getNotReadCount"): ActionCase(_nothing),
        key("GET", f"{FICS_MSG}/message/messageList"): ActionCase(_message_list),
        key("GET", f"{FICS_MSG}/message/messageInfo/{{id}}"): ActionCase(_message_info),
        key("POST", f"{FICS_MSG}/siteMsg/markRead"): ActionCase(_message_ids),
        key("POST", f"{FICS_MSG}/siteMsg/del"): ActionCase(_message_ids),
        key("POST", f"{FICS_MSG}/siteMsg/allRead"): ActionCase(_all_read),
        key("GET", f"{FICS_MSG}/siteMsgReceive/page"): ActionCase(_nothing),
        key("POST", f"{FICS_MSG}/siteMsgReceive/checkSendType"): ActionCase(_send_type),
        key("POST", f"{FICS_MSG}/siteMsgReceive/restoreDefault"): ActionCase(_restore),
        key("POST", f"{FICS_MSG}/siteMsgReceive/removeReceiveUser"): ActionCase(_remove_receiver),
        key("GET", f"{FICS_MSG}/siteMsgReceiveUser/page"): ActionCase(_receivers),
        key("GET", f"{FICS_MSG}/siteMsgReceiveUser/selectUserList"): ActionCase(_pickable),
        key("POST", f"{FICS_MSG}/siteMsgReceiveUser/selectUserSub"): ActionCase(_choose),
        key("POST", f"{FICS_MSG}/siteMsgReceiveUser/del"): ActionCase(_drop_choice),
    }
)


# ---------------------------------------------------------------- files (system/api/files.py)

OSS = "/api/blade-resource/oss"


async def _none_enabled(api: Api, tenant: str) -> None:
    """No configuration of the tenant enabled: its uploads go to the local disk (an earlier case may have enabled
    one pointing nowhere)."""
    from sqlalchemy import update

    from liftdesk.system.models import Oss

    async with api.db.sessionmaker() as s:
        await s.execute(update(Oss).where(Oss.tenant_id == tenant).values(status=1))
        await s.commit()


async def _oss_remove(api: Api, tenant: str, call: Call) -> None:
    """The enabled store (at an address where nothing listens) goes: the tenant's uploads go to its disk again."""
    r = await api.post(f"{OSS}/remove", params={"ids": call.params["id"]}, tenant=tenant)
    assert r["code"] == 200, r


async def _oss_enable(api: Api, tenant: str) -> Call:
    row = (await api.post(f"{OSS}/submit", json=await RESOURCE_CASES["oss"].create(api, tenant), tenant=tenant))["data"]
    return Call(params={"id": row["id"]}, marker=row["ossCode"], probe=("GET", f"{OSS}/detail", {"id": row["id"]}))


async def _file_upload(api: Api, tenant: str) -> Call:
    await _none_enabled(api, tenant)
    return Call(files={"file": ("plan.png", _plan_png(), "image/png")}, probe=("GET", f"{OSS}/list", {}))


async def _cos_token(api: Api, tenant: str) -> Call:
    """An enabled configuration of a bucket of its own (at an address where nothing listens: a credential is signed
    here, nothing is sent); another tenant gets its own storage's credential or the local disk's refusal."""
    bucket = f"cos-{api.unique('b').lower()}"
    config = {**await RESOURCE_CASES["oss"].create(api, tenant), "bucketName": bucket}
    row = (await api.post(f"{OSS}/submit", json=config, tenant=tenant))["data"]
    assert (await api.post(f"{OSS}/enable", params={"id": row["id"]}, tenant=tenant))["code"] == 200
    return Call(params={"fileName": "plan.png"}, marker=bucket, probe=("GET", "/api/blade-resource/attach/list", {}))


async def _no_store(api: Api, tenant: str, call: Call) -> None:
    await _none_enabled(api, tenant)


CASES.update(
    {
        key("POST", f"{OSS}/enable"): ActionCase(_oss_enable, cleanup=_oss_remove),
        key("POST", "/api/blade-fics/file/upload"): ActionCase(_file_upload),
        key("GET", f"{FICS}/common/cosToken"): ActionCase(_cos_token, cleanup=_no_store),
    }
)
EXEMPTIONS[key("POST", f"{OSS}/test")] = (
    "needs an S3 server to succeed: tests/system/test_files.py runs it against moto's, and proves another tenant's "
    "configuration is not found"
)
EXEMPTIONS[key("GET", "/api/blade-resource/attach/download")] = (
    "answers the file's bytes (no envelope, which the suite's calls read); tests/system/test_files.py proves that it "
    "needs a token, that another tenant gets no file of this one's and that the owner gets theirs"
)


# ---------------------------------------------------------------- SMS (system/api/sms.py)

SMS = "/api/blade-resource/sms"
_SMS_SERVER: list[Any] = []


def _aliyun_url() -> str:
    """A local aliyun stand-in that verifies signatures (tests/system/sms_servers.py), kept for the session."""
    from tests.system.sms_servers import serve

    if not _SMS_SERVER:
        running = serve("aliyun", {"ak": "sk-secret"})  # kept: its server stops when it is collected
        _SMS_SERVER.extend((running, running.__enter__()))
    return str(_SMS_SERVER[1].url)


async def _sms_remove(api: Api, tenant: str, call: Call) -> None:
    ident = call.params.get("id") or call.ident
    if ident:
        r = await api.post(f"{SMS}/remove", params={"ids": ident}, tenant=tenant)
        assert r["code"] == 200, r


async def _sms_enable(api: Api, tenant: str) -> Call:
    row = await _submit(api, SMS, "sms", tenant)
    return Call(params={"id": row["id"]}, marker=row["smsCode"], probe=("GET", f"{SMS}/detail", {"id": row["id"]}))


async def _sms_send(api: Api, tenant: str) -> Call:
    """A message through the tenant's configuration (at the local aliyun); another tenant has none of that code."""
    row = await _submit(api, SMS, "sms", tenant, endpoint=_aliyun_url())
    params = {"code": row["smsCode"], "phones": "13800138000", "params": '{"code": "1234"}'}
    return Call(params=params, marker=row["smsCode"], probe=("GET", f"{SMS}/detail", {"id": row["id"]}))


async def _sms_send_remove(api: Api, tenant: str, call: Call) -> None:
    listed = await api.get(f"{SMS}/list", params={"smsCode": call.params["code"]}, tenant=tenant)
    ids = [r["id"] for r in listed["data"]["records"] if r["smsCode"] == call.params["code"]]
    if ids:
        await api.post(f"{SMS}/remove", params={"ids": ",".join(ids)}, tenant=tenant)


CASES.update(
    {
        key("POST", f"{SMS}/enable"): ActionCase(_sms_enable, cleanup=_sms_remove),
        key("POST", f"{SMS}/endpoint/send-message"): ActionCase(_sms_send, cleanup=_sms_send_remove),
    }
)


# ---------------------------------------------------------------- organisation logos (system/api/logos.py)


async def _logo_upload(api: Api, tenant: str) -> Call:
    await _none_enabled(api, tenant)
    return Call(files={"file": ("logo.png", _plan_png(), "image/png")}, probe=("GET", f"{OSS}/list", {}))


async def _own_logo(api: Api, tenant: str) -> Call:
    """The tenant administrator's organisation gets a logo: another tenant's call answers its own, never this."""
    await _none_enabled(api, tenant)
    up = await api.post(f"{DEPT}/upload-logo", files={"file": ("logo.png", _plan_png(), "image/png")}, tenant=tenant)
    assert up["code"] == 200, up
    me = (await api.get(f"{USER}/info", tenant=tenant))["data"]
    dept = (await api.get(f"{USER}/detail", params={"id": me["id"]}, tenant=tenant))["data"]["deptId"].split(",")[0]
    saved = await api.post(f"{DEPT}/submit", json={"id": dept, "deptLogo": up["data"]["link"]}, tenant=tenant)
    assert saved["code"] == 200, saved
    return Call(marker=up["data"]["link"], probe=_dept_probe({"id": dept}))


# ---------------------------------------------------------------- registrations (system/api/registrations.py)


async def _pending_user(api: Api, tenant: str) -> dict[str, Any]:
    """A registration of ``tenant`` waiting for approval, as register-guest writes it."""
    from liftdesk.system.models import User

    account = api.unique("reg")
    async with api.db.sessionmaker() as s:
        user = User(tenant_id=tenant, account=account, name=account, real_name=account, password="x", status=0)
        user.role_id, user.dept_id, user.post_id = "", "", ""
        s.add(user)
        await s.commit()
        return {"id": str(user.id), "account": account}


async def _audit_pass(api: Api, tenant: str) -> Call:
    user, role, dept = await _pending_user(api, tenant), await _role(api, tenant), await _dept_row(api, tenant)
    return Call(params={"userIds": user["id"], "roleIds": role["id"], "deptIds": dept["id"]}, probe=_user_probe(user))


async def _audit_refuse(api: Api, tenant: str) -> Call:
    user = await _pending_user(api, tenant)
    return Call(params={"userIds": user["id"]}, probe=_user_probe(user))


CASES.update(
    {
        key("POST", f"{DEPT}/upload-logo"): ActionCase(_logo_upload),
        key("GET", f"{DEPT}/logo"): ActionCase(_own_logo),
        key("POST", f"{USER}/audit-pass"): ActionCase(_audit_pass),
        key("POST", f"{USER}/audit-refuse"): ActionCase(_audit_refuse),
    }
)
