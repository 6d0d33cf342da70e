"""Finding 1 of the security probe: a tenant administrator made itself platform administrator through a comma in a
role alias. Platform rights now come from the platform tenant's administrator role, by id, at sign-in."""

from __future__ import annotations

from sqlalchemy import update

from liftdesk.system import models as m
from tests.conftest import Api, Tenants, seed_ids

TENANT_LIST = "/api/blade-system/tenant/list"


async def test_a_role_alias_is_one_identifier(api: Api, tenants: Tenants) -> None:
    as_b = {"tenant": tenants.b}
    for alias in ("admin,administrator", "a b", ",", "管理员", "x" * 65):
        r = await api.post(
            "/api/blade-system/role/submit", json={"roleName": api.unique("r"), "roleAlias": alias, "sort": 1}, **as_b
        )
        assert r["code"] == 400 and "roleAlias" in r["msg"], (alias, r)


async def test_a_forged_alias_grants_no_platform_rights(api: Api, tenants: Tenants) -> None:
    """Even when a row holds the attack's alias (written before the fix), signing in is not platform-wide."""
    as_b = {"tenant": tenants.b}
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(m.Role)
            .where(m.Role.tenant_id == tenants.b, m.Role.role_alias == "admin")
            .values(role_alias="admin,administrator")
        )
        await s.commit()
    try:
        api.tokens.pop(f"{tenants.b}/admin", None)
        r = await api.login("admin", "admin", tenants.b)
        assert r.status_code == 200, r.text
        token = r.json()["access_token"]
        api.tokens[f"{tenants.b}/admin"] = token
        listed = await api.get(TENANT_LIST, **as_b)
        assert listed["code"] == 403 or {t["tenantId"] for t in listed["data"]["records"]} <= {tenants.b}, listed
        users = await api.get("/api/blade-user/page", params={"tenantId": "000000", "size": 100}, **as_b)
        assert users["code"] == 403 or all(u["tenantId"] == tenants.b for u in users["data"]["records"]), users
        cars = await api.get(
            "/api/blade-fics-report/fics/carInfo/getCarInfoList", params={"tenantId": "000000"}, **as_b
        )
        assert cars["code"] in (403, 404) or all(
            c.get("tenantId", tenants.b) == tenants.b for c in cars["data"]["records"]
        ), cars
    finally:
        async with api.db.sessionmaker() as s:
            await s.execute(
                update(m.Role)
                .where(m.Role.tenant_id == tenants.b, m.Role.role_alias == "admin,administrator")
                .values(role_alias="admin")
            )
            await s.commit()
        api.tokens.pop(f"{tenants.b}/admin", None)


async def test_renaming_a_role_to_administrator_grants_nothing(api: Api, tenants: Tenants) -> None:
    """The platform tenant's own ``admin`` (tenant administrator) cannot become platform administrator either: a
    role of its own aliased ``administrator`` is refused, and the seeded administrator role cannot be assigned."""
    ids = await _role_ids(api)
    dept = (await seed_ids(api))["dept"]
    account = api.unique("ta")
    r = await api.post(
        "/api/blade-user/submit",
        json={
            "account": account,
            "password": "Tenant-adm1n",
            "name": "TA",
            "realName": "TA",
            "roleId": ids["admin"],
            "deptId": dept,
        },
    )
    assert r["code"] == 200, r
    who = {"who": account, "password": "Tenant-adm1n"}
    made = await api.post(
        "/api/blade-system/role/submit",
        json={"roleName": api.unique("r"), "roleAlias": "administrator", "sort": 1},
        **who,
    )
    assert made["code"] == 403, made
    grant = await api.post(
        "/api/blade-user/submit",
        json={"id": r["data"]["id"], "roleId": f"{ids['admin']},{ids['administrator']}", "deptId": dept},
        **who,
    )
    assert grant["code"] == 403, grant
    listed = await api.get(TENANT_LIST, **who)
    assert listed["code"] == 403, "tenants are the platform administrator's alone"


async def _role_ids(api: Api) -> dict[str, str]:
    roles = (await api.get("/api/blade-system/role/list"))["data"]
    out: dict[str, str] = {}

    def walk(rows: list[dict[str, str]]) -> None:
        for row in rows:
            out[row["roleAlias"]] = row["id"]
            walk(row.get("children") or [])  # type: ignore[arg-type]

    walk(roles)
    return out


async def test_reads_need_a_menu(api: Api, driver: str) -> None:
    """Finding 11: a user granted nothing read every list of its tenant. Hand-written reads go through the same
    check as the generated ones (the generic suite covers those)."""
    who = {"who": driver, "password": "driver-1"}
    fics = "/api/blade-fics-report/fics"
    for method, path in (
        ("POST", f"{fics}/carInfo/getCarLastGPSInfo"),
        ("GET", f"{fics}/carStatus/getCnt"),
        ("GET", "/api/liftdesk/command/list"),
        ("GET", "/api/blade-system/param/list"),
    ):
        r = await api.call(method, path, **who)
        assert r["code"] == 403, (path, r)
    assert (await api.get("/api/blade-system/dict/dictionary", params={"code": "sex"}, **who))["code"] == 200


async def test_credential_parameters_are_the_platform_administrators(api: Api, tenants: Tenants) -> None:
    as_b = {"tenant": tenants.b}
    keys = {
        p["paramKey"] for p in (await api.get("/api/blade-system/param/list", params={"size": 1000}))["data"]["records"]
    }
    assert "account.initPassword" in keys, "the platform administrator sees it"
    theirs = await api.get("/api/blade-system/param/list", params={"size": 1000}, **as_b)
    assert "account.initPassword" not in {p["paramKey"] for p in theirs["data"]["records"]}
    probe = await api.get("/api/blade-system/param/list", params={"paramValue": "123456", "size": 1000}, **as_b)
    assert all("password" not in p["paramKey"] for p in probe["data"]["records"]), "no filtering around it either"
    secret = next(
        p
        for p in (await api.get("/api/blade-system/param/list", params={"size": 1000}))["data"]["records"]
        if p["paramKey"] == "account.initPassword"
    )
    detail = await api.get("/api/blade-system/param/detail", params={"id": secret["id"]}, **as_b)
    assert detail["code"] == 404 or detail["code"] == 400, detail


async def test_device_numbers_of_other_tenants_stay_unnamed(api: Api, tenants: Tenants) -> None:
    """Finding 4: "deviceNumber 已存在" confirmed another tenant's terminal. Now: own tenant named, others neutral."""
    device = f"5{abs(hash(api.unique())) % 10**11:011d}"
    cars = "/api/blade-fics-report/fics/carInfo/insertCarInfo"
    mine = await api.post(cars, json={"carNo": api.unique("DEV-"), "deviceNumber": device})
    assert mine["code"] == 200, mine
    again = await api.post(cars, json={"carNo": api.unique("DEV-"), "deviceNumber": device})
    assert again["code"] == 400 and mine["data"]["carNo"] in again["msg"], again
    other = await api.post(cars, json={"carNo": api.unique("DEV-"), "deviceNumber": device}, tenant=tenants.b)
    assert other["code"] == 400 and other["msg"] == f"deviceNumber {device} 不可用", other
    unknown = f"4{abs(hash(api.unique())) % 10**11:011d}"
    free = await api.post(cars, json={"carNo": api.unique("DEV-"), "deviceNumber": unknown}, tenant=tenants.b)
    assert free["code"] == 200
