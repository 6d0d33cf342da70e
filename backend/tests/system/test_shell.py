"""The shell's helpers (system/shell.py): country and address, the code's enumerations, the columns each user hides
per list, and the pages they visit; with the attacks (anonymous, another tenant, another user, no grant)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from liftdesk.core.i18n import MESSAGES
from liftdesk.system import shell
from tests.conftest import Api, Tenants

FICS = "/api/blade-fics-report/fics/common"
SHOW = "/api/blade-fics/showHide"
LOG = "/api/blade-fics/pageLog"


def test_country_of_public_private_and_unknown_addresses() -> None:
    assert shell.country_of("114.114.114.114", "US").model_dump(by_alias=False) == {
        "ip": "114.114.114.114",
        "country_code": "CN",
        "country_name": "China",
        "is_china": True,
        "local": False,
    }
    google = shell.country_of("8.8.8.8", "CN")
    assert (google.country_code, google.is_china, google.local) == ("US", False, False)
    assert shell.country_of("2001:da8::1", "US").is_china, "IPv6 addresses are looked up too"
    for local in ("127.0.0.1", "10.1.2.3", "192.168.0.9", "::1", "fe80::1", "testclient", ""):
        found = shell.country_of(local, "de")
        assert (found.country_code, found.country_name, found.local, found.is_china) == ("DE", "Germany", True, False)


async def test_get_country_and_ip_need_a_token(api: Api) -> None:
    for path in (f"{FICS}/v3/getCountry", f"{FICS}/v3/ip", f"{FICS}/getEnumToDictList"):
        assert (await api.client.get(path)).status_code == 401
    country = (await api.get(f"{FICS}/v3/getCountry"))["data"]
    # the test client's peer is no public address: the default country (CN)
    assert country["countryCode"] == "CN" and country["isChina"] is True and country["local"] is True
    ip = await api.get(f"{FICS}/v3/ip")
    assert ip["code"] == 200 and ip["data"] == country["ip"]
    forged = await api.get(f"{FICS}/v3/getCountry", headers={"X-Forwarded-For": "8.8.8.8"})
    assert forged["data"]["countryCode"] == "CN", "a forwarding header is not trusted"


async def test_enums_in_both_languages(api: Api) -> None:
    zh = (await api.get(f"{FICS}/getEnumToDictList"))["data"]
    assert {e["code"] for e in zh} == {"message_type", "message_send_type", "page_behavior"}
    types = next(e for e in zh if e["code"] == "message_type")["items"]
    assert types[0] == {"dictKey": "1", "dictValue": "通知公告"} and len(types) == 9
    for e in zh:
        for item in e["items"]:
            assert f"enum.{e['code']}.{item['dictKey']}" in MESSAGES, "every entry has its words"
    r = await api.call("GET", f"{FICS}/getEnumToDictList", params={"code": "page_behavior"}, headers=_en())
    assert r["data"] == [{"code": "page_behavior", "items": [{"dictKey": "visit", "dictValue": "Page visit"}]}]
    bad = await api.get(f"{FICS}/getEnumToDictList", params={"code": "nope"})
    assert bad["code"] == 400 and "code" in bad["msg"]


def _en() -> dict[str, str]:
    return {"Accept-Language": "en"}


async def test_show_hide_is_per_user_and_tenant(api: Api, tenants: Tenants, driver: str) -> None:
    table = api.unique("vehicle_")
    assert (await api.client.post(f"{SHOW}/find", json={"tableKey": table})).status_code == 401
    assert (await api.post(f"{SHOW}/find", json={"tableKey": table}))["data"] == {"tableKey": table, "hidden": []}
    saved = await api.post(f"{SHOW}/options", json={"tableKey": table, "hidden": ["plate", "vin", "plate"]})
    assert saved["code"] == 200 and saved["data"]["hidden"] == ["plate", "vin"]
    assert (await api.post(f"{SHOW}/find", json={"tableKey": table}))["data"]["hidden"] == ["plate", "vin"]
    again = await api.post(f"{SHOW}/options", json={"tableKey": table, "hidden": ["vin"]})
    assert again["data"]["hidden"] == ["vin"]
    assert (await api.post(f"{SHOW}/find", json={"tableKey": table}))["data"]["hidden"] == ["vin"], "replaced"
    # another tenant's administrator and another user of the tenant (no grant at all) see their own: nothing
    other = await api.post(f"{SHOW}/find", json={"tableKey": table}, tenant=tenants.b)
    assert other["code"] == 200 and other["data"]["hidden"] == []
    mine = await api.post(f"{SHOW}/find", json={"tableKey": table}, who=driver, password="driver-1")
    assert mine["code"] == 200 and mine["data"]["hidden"] == []
    own = await api.post(f"{SHOW}/options", json={"tableKey": table, "hidden": ["x"]}, who=driver, password="driver-1")
    assert own["code"] == 200
    assert (await api.post(f"{SHOW}/find", json={"tableKey": table}))["data"]["hidden"] == ["vin"], "untouched"
    for body in ({"tableKey": ""}, {"tableKey": "a b"}, {"tableKey": table, "hidden": ["<x>"]}):
        bad = await api.post(f"{SHOW}/options", json=body)
        assert bad["code"] == 400 and ("tableKey" in bad["msg"] or "hidden" in bad["msg"]), bad


async def test_page_log_save_page_dict_and_counts(api: Api, tenants: Tenants, driver: str) -> None:
    path = "/" + api.unique("page")
    assert (await api.client.post(f"{LOG}/save", json={"logs": [{"pagePath": path}]})).status_code == 401
    saved = await api.post(f"{LOG}/save", json={"logs": [{"pagePath": path, "pageName": "车辆"}] * 2})
    assert saved["code"] == 200 and saved["data"] == 2
    by_driver = await api.post(
        f"{LOG}/save", json={"logs": [{"pagePath": path, "pageName": "车辆"}]}, who=driver, password="driver-1"
    )
    assert by_driver["data"] == 1, "every signed-in user's web app records visits"
    other = await api.post(f"{LOG}/save", json={"logs": [{"pagePath": path}]}, tenant=tenants.b)
    assert other["data"] == 1

    page = (await api.get(f"{LOG}/page", params={"pagePath_equal": path}))["data"]
    assert page["total"] == 3, "the tenant's own visits, not the other tenant's"
    accounts = {r["account"] for r in page["records"]}
    assert accounts == {"admin", driver} and all(r["behavior"] == "visit" for r in page["records"])
    b_page = (await api.get(f"{LOG}/page", params={"pagePath_equal": path}, tenant=tenants.b))["data"]
    assert b_page["total"] == 1 and b_page["records"][0]["account"] == "admin"
    future = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%d")
    later = await api.get(f"{LOG}/page", params={"pagePath_equal": path, "beginTime": future})
    assert later["data"]["total"] == 0

    counts = (await api.get(f"{LOG}/getBehaviorCnt", params={"pagePath": path}))["data"]
    assert counts == [{"pagePath": path, "pageName": "车辆", "behavior": "visit", "count": 3, "users": 2}]
    b_counts = (await api.get(f"{LOG}/getBehaviorCnt", params={"pagePath": path}, tenant=tenants.b))["data"]
    assert [c["count"] for c in b_counts] == [1]

    pages = (await api.get(f"{LOG}/getPageDict"))["data"]
    assert {"dictKey": "/system/user", "dictValue": "用户管理", "code": "user"} in pages
    assert len({p["dictKey"] for p in pages}) == len(pages), "one entry per page"
    assert all(p["dictKey"].startswith("/") for p in pages)


@pytest.mark.parametrize("call", ["page", "getBehaviorCnt", "getPageDict"])
async def test_page_log_reads_are_administrators_only(api: Api, driver: str, call: str) -> None:
    assert (await api.client.get(f"{LOG}/{call}")).status_code == 401
    refused = await api.get(f"{LOG}/{call}", who=driver, password="driver-1")
    assert refused["code"] == 403


async def test_page_log_bad_input(api: Api) -> None:
    for body, field in (
        ({"logs": []}, "logs"),
        ({"logs": [{"pagePath": "no-slash"}]}, "pagePath"),
        ({"logs": [{"pagePath": "/x", "behavior": "hack"}]}, "behavior"),
        ({"logs": [{"pagePath": "/x"}] * 51}, "logs"),
    ):
        bad = await api.post(f"{LOG}/save", json=body)
        assert bad["code"] == 400 and field in bad["msg"], bad
    old = await api.get(f"{LOG}/getBehaviorCnt", params={"beginTime": "2020-01-01", "endTime": "2022-01-01"})
    assert old["code"] == 400 and "beginTime" in old["msg"]
    backwards = await api.get(f"{LOG}/getBehaviorCnt", params={"beginTime": "2024-01-02", "endTime": "2024-01-01"})
    assert backwards["code"] == 400 and "beginTime" in backwards["msg"]
