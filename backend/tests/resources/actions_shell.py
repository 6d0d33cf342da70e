"""Generic action cases of the shell's helpers (system/shell.py; see actions.py for the format).

Column choices are the caller's own: another tenant's administrator finds theirs (never the owner's hidden column)
and saves theirs. Page visits are the tenant's: another tenant's page and counts never show the owner's page, and
its save leaves the owner's visits as they were. The mechanisms are the tenant's organisations: another tenant's list
never names the owner's. Country, address, the code's enumerations and the page dictionary (the platform's menus) are
about the caller alone or the same for everyone."""

from __future__ import annotations

from tests.conftest import Api
from tests.resources.actions import ActionCase, Call, key

COMMON = "/api/blade-fics-report/fics/common"
SHOW = "/api/blade-fics/showHide"
LOG = "/api/blade-fics/pageLog"


async def _nothing(api: Api, tenant: str) -> Call:
    return Call()


async def _hidden_column(api: Api, tenant: str) -> Call:
    table, column = api.unique("table_"), api.unique("col_")
    r = await api.post(f"{SHOW}/options", json={"tableKey": table, "hidden": [column]}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(json={"tableKey": table}, marker=column)


async def _choose_columns(api: Api, tenant: str) -> Call:
    return Call(json={"tableKey": api.unique("table_"), "hidden": ["plate"]})


async def _visit(api: Api, tenant: str) -> str:
    path = "/" + api.unique("page")
    r = await api.post(f"{LOG}/save", json={"logs": [{"pagePath": path, "pageName": "P"}]}, tenant=tenant)
    assert r["code"] == 200, r
    return path


async def _save_visit(api: Api, tenant: str) -> Call:
    path = await _visit(api, tenant)
    probe = ("GET", f"{LOG}/page", {"pagePath_equal": path})
    return Call(json={"logs": [{"pagePath": path}]}, probe=probe)


async def _visits(api: Api, tenant: str) -> Call:
    path = await _visit(api, tenant)
    return Call(params={"pagePath_equal": path}, marker=path)


async def _visit_counts(api: Api, tenant: str) -> Call:
    path = await _visit(api, tenant)
    return Call(params={"pagePath": path}, marker=path)


async def _mechanism(api: Api, tenant: str) -> Call:
    name = api.unique("Mech ")
    r = await api.post("/api/blade-system/dept/submit", json={"deptName": name, "sort": 1}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(params={"mechanismName": name}, marker=r["data"]["id"])


CASES: dict[str, ActionCase] = {
    key("GET", f"{COMMON}/v3/getCountry"): ActionCase(_nothing),
    key("GET", f"{COMMON}/v3/ip"): ActionCase(_nothing),
    key("GET", f"{COMMON}/getEnumToDictList"): ActionCase(_nothing),
    key("GET", f"{COMMON}/getMechanismParamList"): ActionCase(_mechanism),
    key("POST", f"{SHOW}/find"): ActionCase(_hidden_column),
    key("POST", f"{SHOW}/options"): ActionCase(_choose_columns),
    key("POST", f"{LOG}/save"): ActionCase(_save_visit),
    key("GET", f"{LOG}/page"): ActionCase(_visits),
    key("GET", f"{LOG}/getBehaviorCnt"): ActionCase(_visit_counts),
    key("GET", f"{LOG}/getPageDict"): ActionCase(_nothing),
}

EXEMPTIONS: dict[str, str] = {}
