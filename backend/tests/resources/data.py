"""Test data for every registered resource: what to create, one change, one filter.

The generic suite (test_generic.py) runs the same checks over all of them; the meta-test fails when a registered
resource has neither an entry here nor an exemption with a written reason.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from liftdesk.app import build_registry
from tests.conftest import Api, seed_ids
from tests.resources.generated import generated_cases

Factory = Callable[[Api, str], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Case:
    create: Factory
    change: tuple[str, Any]  # field, new value
    filter_field: str  # a field whose created value finds the row with the resource's list filter
    tenant_scoped: bool = True


async def _param(api: Api, tenant: str) -> dict[str, Any]:
    return {"paramName": api.unique("name "), "paramKey": api.unique("key."), "paramValue": "v", "remark": "r"}


async def _dict(api: Api, tenant: str) -> dict[str, Any]:
    return {
        "code": api.unique("code_"),
        "dictKey": "-1",
        "dictValue": api.unique("dict "),
        "sort": 1,
        "isSealed": 0,
        "parentId": "0",
    }


async def _post(api: Api, tenant: str) -> dict[str, Any]:
    return {"postCode": api.unique("p")[:12], "postName": api.unique("post "), "sort": 3, "category": 2}


async def _client(api: Api, tenant: str) -> dict[str, Any]:
    return {
        "clientId": api.unique("cli"),
        "clientSecret": "secret-123",
        "scope": "all",
        "authorizedGrantTypes": "password,refresh_token",
        "accessTokenValidity": 3600,
        "refreshTokenValidity": 7200,
    }


async def _tenant(api: Api, tenant: str) -> dict[str, Any]:
    return {"tenantName": api.unique("Tenant "), "linkman": "Li", "contactNumber": "13800000000", "accountNumber": 10}


async def _role(api: Api, tenant: str) -> dict[str, Any]:
    return {"roleName": api.unique("role "), "roleAlias": api.unique("alias"), "sort": 5, "parentId": "0"}


async def _menu(api: Api, tenant: str) -> dict[str, Any]:
    code = api.unique("menu")
    return {
        "code": code,
        "name": api.unique("Menu "),
        "alias": code,
        "path": f"/test/{code}",
        "sort": 9,
        "category": 1,
        "parentId": "0",
    }


async def _topmenu(api: Api, tenant: str) -> dict[str, Any]:
    return {"code": api.unique("top"), "name": api.unique("Top "), "sort": 2}


async def _dept(api: Api, tenant: str) -> dict[str, Any]:
    return {"deptName": api.unique("Dept "), "sort": 4, "deptCategory": 2, "parentId": "0"}


async def _user(api: Api, tenant: str) -> dict[str, Any]:
    ids = await seed_ids(api, tenant)
    return {
        "account": api.unique("u"),
        "password": "secret-1",
        "name": "Tester",
        "realName": "Tester",
        "roleId": ids["role"],
        "deptId": ids["dept"],
        "postId": ids["post"],
        "sex": 1,
    }


async def _data_scope(api: Api, tenant: str) -> dict[str, Any]:
    # a rule names a resource with a table of its own and one of its columns (``DataScopeHooks``)
    return {
        "resourceCode": "post",
        "scopeName": api.unique("scope "),
        "scopeType": 3,
        "scopeColumn": "create_dept",
    }


async def _api_scope(api: Api, tenant: str) -> dict[str, Any]:
    return {"resourceCode": api.unique("res"), "scopeName": api.unique("api "), "scopePath": "/api/x"}


async def _datasource(api: Api, tenant: str) -> dict[str, Any]:
    return {
        "name": api.unique("ds "),
        "driverClass": "org.postgresql.Driver",
        "url": "jdbc:postgresql://127.0.0.1:5432/x",
        "username": "u",
        "password": "p",
    }


#: A field of a code generation record as its detail answers it (every key given).
FIELD: dict[str, Any] = {
    "type": "string",
    "required": False,
    "maxLength": None,
    "dictCode": None,
    "inList": True,
    "inSearch": False,
    "inForm": True,
}


async def _code(api: Api, tenant: str) -> dict[str, Any]:
    name = api.unique("gen_t").lower()
    return {
        "codeName": api.unique("代码 "),
        "serviceName": "blade-demo",
        "tableName": name,
        "entityName": "Gadget",
        "packageName": name,
        "fields": [
            {**FIELD, "column": "gadget_name", "name": "名称", "required": True, "maxLength": 64, "inSearch": True},
            {**FIELD, "column": "weight", "name": "重量", "type": "double"},
        ],
    }


async def _vehicle(api: Api, tenant: str) -> dict[str, Any]:
    return {
        "carNo": api.unique("FL-"),
        "deviceNumber": str(10**11 + api.counter * 7919 + hash(api.unique()) % 10**9),
        "carType": 4,
        "ratedLoadKg": 2000,
        "brand": "Heli",
        "modelNumber": "CPD20",
    }


async def _fence(api: Api, tenant: str) -> dict[str, Any]:
    return {
        "name": api.unique("Fence "),
        "fenceType": 1,
        "alarmMode": 3,
        "centerLon": 121.5,
        "centerLat": 31.2,
        "radius": 250,
        "remark": "generic",
    }


_REGION_SORT = itertools.count(1)


async def _region(api: Api, tenant: str) -> dict[str, Any]:
    """A town (9-digit code) under the seeded district 南山区 (440305) that is not there yet. Its sort puts the
    newest first in the lists (ordered by sort, then code), which hold the 3,000 seeded regions besides."""
    for _ in range(50):
        code = f"440305{random.randint(100, 999)}"
        if (await api.get("/api/blade-system/region/detail", params={"code": code}))["code"] != 200:
            sort = -next(_REGION_SORT)
            return {"code": code, "parentCode": "440305", "name": api.unique("镇"), "sort": sort, "remark": "generic"}
    raise AssertionError("no free town code under 440305")


async def _notice(api: Api, tenant: str) -> dict[str, Any]:
    return {"title": api.unique("Notice "), "category": 6, "content": "generic", "releaseTime": "2026-03-25 09:00:00"}


async def _oss(api: Api, tenant: str) -> dict[str, Any]:
    return {
        "category": 1,
        "ossCode": api.unique("oss"),
        "endpoint": "http://127.0.0.1:9000",
        "accessKey": "ak",
        "secretKey": "sk-secret",
        "bucketName": "generic-bucket",
        "region": "us-east-1",
        "remark": "generic",
    }


async def _sms(api: Api, tenant: str) -> dict[str, Any]:
    return {
        "category": 3,
        "smsCode": api.unique("sms"),
        "templateId": "SMS_1",
        "accessKey": "ak",
        "secretKey": "sk-secret",
        "regionId": "cn-hangzhou",
        "signName": "generic",
        "remark": "generic",
    }


async def _driver_paper(api: Api, tenant: str) -> dict[str, Any]:
    from tests.fleet.paper_fixtures import insert_driver

    driver = await insert_driver(api, tenant)
    return {
        "driverId": driver["id"],
        "paperNumber": api.unique("N1-"),
        "paperType": 1,
        "validUntil": "2028-03-01 00:00:00",
        "issuingAuthority": "市场监督管理局",
        "remark": "generic",
    }


def mobile() -> str:
    """A mobile number (11 digits, 1[3-9]...) no other test is likely to have taken."""
    return f"1{random.choice('3456789')}{random.randint(0, 10**9 - 1):09d}"


async def _driver(api: Api, tenant: str) -> dict[str, Any]:
    return {"name": api.unique("司机"), "phone": mobile(), "jobNumber": api.unique("J"), "workType": 3, "sex": 1}


async def _driver_apply(api: Api, tenant: str) -> dict[str, Any]:
    return {"name": api.unique("申请"), "phone": mobile(), "jobNumber": api.unique("J"), "licenseNumber": "L-1"}


CASES: dict[str, Case] = {
    "vehicle": Case(_vehicle, ("carStatus", 2), "carNo"),
    "fence": Case(_fence, ("alarmMode", 1), "name"),
    "param": Case(_param, ("paramValue", "changed"), "paramKey", tenant_scoped=False),
    "dict": Case(_dict, ("dictValue", "changed"), "code", tenant_scoped=False),
    "dict_biz": Case(_dict, ("dictValue", "changed"), "code"),
    "post": Case(_post, ("postName", "changed"), "postCode"),
    "client": Case(_client, ("scope", "server"), "clientId", tenant_scoped=False),
    "tenant": Case(_tenant, ("linkman", "Wang"), "tenantName", tenant_scoped=False),
    "role": Case(_role, ("roleName", "changed"), "roleAlias"),
    "menu": Case(_menu, ("name", "changed"), "code", tenant_scoped=False),
    "topmenu": Case(_topmenu, ("name", "changed"), "code"),
    "dept": Case(_dept, ("remark", "changed"), "deptName"),
    "user": Case(_user, ("realName", "Changed"), "account"),
    "data_scope": Case(_data_scope, ("remark", "changed"), "scopeName", tenant_scoped=False),
    "api_scope": Case(_api_scope, ("scopeName", "changed"), "resourceCode", tenant_scoped=False),
    "datasource": Case(_datasource, ("url", "jdbc:postgresql://127.0.0.1:5432/y"), "name", tenant_scoped=False),
    "region": Case(_region, ("remark", "changed"), "name", tenant_scoped=False),
    "oss": Case(_oss, ("remark", "changed"), "ossCode"),
    "sms": Case(_sms, ("remark", "changed"), "smsCode"),
    "notice": Case(_notice, ("content", "changed"), "title"),
    "driver_paper": Case(_driver_paper, ("remark", "changed"), "paperNumber"),
    "driver": Case(_driver, ("jobNumber", "changed"), "name"),
    "driver_apply": Case(_driver_apply, ("jobNumber", "changed"), "name"),
    "code": Case(_code, ("remark", "changed"), "codeName", tenant_scoped=False),
}
# resources made by the code generator (liftdesk.generated): cases from their schemas
build_registry()
CASES.update({name: Case(*args) for name, args in generated_cases().items()})

# Resources exempt from the generic suite, each with the reason.
EXEMPTIONS: dict[str, str] = {
    "command": (
        "read-only: commands are created by the calls that send them to a terminal, never submitted, updated or "
        "removed; the log's paging, filters, sorting, detail, cancel, 401, 403, tenant isolation and vehicle data "
        "scope are tested in tests/telemetry/test_command_api.py"
    ),
    **{
        name: (
            "read-only: logs are written by the server (core/audit.py) and the web app's error upload, never "
            "submitted, updated or removed; paging, filters, detail, 401, 403 and tenant isolation are tested in "
            "tests/system/test_logs.py"
        )
        for name in ("log_usual", "log_api", "log_error")
    },
    "site_msg": (
        "read-only and the caller's own: messages are written by notices and alarms, read, marked and deleted by "
        "their recipient through its actions; the page, filters, another user's and another tenant's ids, 401 are in "
        "tests/system/test_messages.py and test_actions.py"
    ),
    **{
        name: (
            "receive settings are served by their actions only (no generated operations): page, checkSendType, "
            "restoreDefault, the receivers' page, picker, choice and removal, with 401, 403 and tenant isolation, are "
            "in tests/system/test_messages.py and test_actions.py"
        )
        for name in ("msg_receive", "msg_receive_user")
    },
    "show_hide": (
        "served by its actions only (no generated operations): a user's own column choices (showHide/find, options), "
        "with 401, another user's and another tenant's isolation and bad input in tests/system/test_shell.py and "
        "test_actions.py"
    ),
    "page_log": (
        "written by the web app's page visits (pageLog/save), never submitted, updated or removed; page, filters, "
        "counts, the page dictionary, 401, 403 and tenant isolation are in tests/system/test_shell.py and "
        "test_actions.py"
    ),
    "attach": (
        "made by uploading a file (POST /api/blade-fics/file/upload), never by submit; list, detail, rename, remove "
        "(with its stored file), paging, 401, 403 and tenant isolation are in tests/system/test_files.py"
    ),
    "driver_reminder": (
        "read-only: reminders are written by the daily job (fleet/reminders.py), listed and ignored, never submitted, "
        "updated or removed; the page, its filters, days left, ignore, 401, 403 and tenant isolation are in "
        "tests/fleet/test_reminders.py and test_actions.py"
    ),
    "face_log": (
        "read-only: face comparisons are written by the pipeline from the terminals' reports (0x0900 type 0xF2, MQTT "
        "face), never submitted, updated or removed; the page, its filters and their refusals, 401, 403, another "
        "tenant and the data scope are in tests/reporting/test_driver_behavior.py"
    ),
    "report_file": (
        "list, detail and remove only (the spec's report designer list): definitions are saved by the designer, not "
        "submitted; the page, its filter, the detail, removal, 401, 403 and refusal to a tenant administrator are in "
        "tests/system/test_codegen.py"
    ),
    "map_setting": (
        "one row per tenant, served by its actions only (no generated operations): read, save, upload, remove and "
        "the image, with 401, 403 and tenant isolation, are in tests/system/test_map_setting.py and test_actions.py"
    ),
}
