"""API scopes: a role granted API scopes for a resource calls only the interfaces of that resource they cover."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import select

from liftdesk.core.api_scope import covers
from liftdesk.system.models import Menu
from tests.conftest import Api, seed_ids

CAR = "/api/blade-fics-report/fics/carInfo"


@pytest.mark.parametrize(
    "granted,path,expected",
    [
        (f"{CAR}/page", f"{CAR}/page", True),
        (f"{CAR}/page", f"{CAR}/getCarInfo", False),
        ("carInfo/page", f"{CAR}/page", True),  # BladeX: the request path contains the granted one
        (f"{CAR}/**", f"{CAR}/getCarInfo", True),
        (f"{CAR}/**", "/api/blade-fics-report/fics/carSet/lockCar", False),
        ("/api/blade-fics-report/fics/*/page", f"{CAR}/page", True),
        ("/api/blade-fics-report/fics/*/page", f"{CAR}/v2/page", False),  # one * stays within one segment
        (f"{CAR}/get*", f"{CAR}/getCarInfo", True),
        (f"{CAR}/get*", f"{CAR}/page", False),
        ("", f"{CAR}/page", False),  # an empty path grants nothing
        (None, f"{CAR}/page", False),
        ("/api/x.y", "/api/xzy", False),  # no regular expression in a path
    ],
)
def test_what_a_granted_path_covers(granted: str | None, path: str, expected: bool) -> None:
    assert covers(granted, path) is expected


@asynccontextmanager
async def api_scoped_user(
    api: Api, *paths: str, resource: str = "vehicle", menus: tuple[str, ...] = ("vehicle",)
) -> AsyncIterator[dict[str, str]]:
    """A user whose role holds the ``menus`` (default the vehicle menu) and API scopes of ``resource`` (default the
    vehicles) for ``paths`` only."""
    role = (
        await api.post(
            "/api/blade-system/role/submit",
            json={"roleName": api.unique("api "), "roleAlias": api.unique("api"), "sort": 9},
        )
    )["data"]["id"]
    scopes = []
    for path in paths:
        r = await api.post(
            "/api/blade-system/api-scope/submit",
            json={
                "resourceCode": resource,
                "scopeName": api.unique(f"{resource} api "),
                "scopePath": path,
                "scopeType": 2,
            },
        )
        assert r["code"] == 200, r
        scopes.append(r["data"]["id"])
    async with api.db.sessionmaker() as s:
        ids = (await s.execute(select(Menu.id).where(Menu.code.in_(menus), Menu.is_deleted == 0))).scalars().all()
    grant = {"roleIds": [role], "menuIds": [str(m) for m in ids], "apiScopeIds": scopes}
    assert (await api.post("/api/blade-system/role/grant", json=grant))["code"] == 200
    account, password = api.unique("apis"), "api-scope-pass"
    dept = (await seed_ids(api))["dept"]
    user = await api.post(
        "/api/blade-user/submit",
        json={"account": account, "password": password, "name": "A", "realName": "A", "roleId": role, "deptId": dept},
    )
    assert user["code"] == 200, user
    try:
        yield {"who": account, "password": password}
    finally:
        await api.post("/api/blade-system/api-scope/remove", params={"ids": ",".join(scopes)})


async def test_a_role_with_api_scopes_calls_only_the_covered_interfaces(api: Api) -> None:
    car = await api.post(f"{CAR}/insertCarInfo", json={"carNo": api.unique("API-"), "carType": 4})
    assert car["code"] == 200, car
    detail = {"carId": car["data"]["id"]}
    async with api_scoped_user(api, f"{CAR}/page") as who:
        page = await api.get(f"{CAR}/page", params={"size": 5}, **who)
        assert page["_status"] == 200 and page["code"] == 200, page
        denied = await api.get(f"{CAR}/getCarInfo", params=detail, **who)
        assert denied["_status"] == 403, denied
        # other calls of the vehicle register (its own actions) are closed too
        assert (await api.get(f"{CAR}/getCarDictionariesList", **who))["_status"] == 403
        # ... but the live state and the command log are subjects of their own: a vehicle API scope is not theirs
        assert (await api.get("/api/blade-fics-report/fics/carStatus/getCnt", **who))["_status"] == 200
        assert (await api.get("/api/liftdesk/command/list", **who))["_status"] == 200
        # what every signed-in user calls about themselves stays open
        assert (await api.get("/api/blade-system/menu/routes", **who))["_status"] == 200
        assert (await api.get("/api/blade-auth/oauth/user-info", **who))["_status"] == 200
        # the administrator is not narrowed by API scopes
        assert (await api.get(f"{CAR}/getCarInfo", params=detail))["code"] == 200

    async with api_scoped_user(api, f"{CAR}/page", f"{CAR}/get*") as who:
        assert (await api.get(f"{CAR}/getCarInfo", params=detail, **who))["code"] == 200
        assert (await api.get(f"{CAR}/getCarDictionariesList", **who))["code"] == 200

    # an API scope of the live state (its own code, car_monitor) narrows its calls, and leaves the vehicles' open
    live = ("car_monitor", "vehicle")
    async with api_scoped_user(api, "/carStatus/getCnt", resource="car_monitor", menus=live) as who:
        assert (await api.get("/api/blade-fics-report/fics/carStatus/getCnt", **who))["code"] == 200
        last = await api.post(f"{CAR}/getCarLastGPSInfo", json={}, **who)
        assert last["_status"] == 403, last
        assert (await api.get(f"{CAR}/getCarInfo", params=detail, **who))["code"] == 200

    async with api_scoped_user(api, "/api/blade-fics-report/fics/**") as who:
        assert (await api.get(f"{CAR}/getCarInfo", params=detail, **who))["code"] == 200
        assert (await api.get("/api/blade-fics-report/fics/carStatus/getCnt", **who))["code"] == 200


async def test_without_api_scopes_a_role_is_not_narrowed(api: Api) -> None:
    car = await api.post(f"{CAR}/insertCarInfo", json={"carNo": api.unique("API-"), "carType": 4})
    async with api_scoped_user(api) as who:
        r = await api.get(f"{CAR}/getCarInfo", params={"carId": car["data"]["id"]}, **who)
        assert r["code"] == 200, r
