"""SMS (system/sms.py, system/api/sms.py): configurations with masked secrets and one enabled at a time; messages
sent through aliyun's and tencent's APIs to local servers that verify the signatures (tests/system/sms_servers.py);
a wrong secret refused by the provider and reported as a 400; the log provider without a configuration; the
refusals: numbers, parameters, unserved providers, another tenant."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from sqlalchemy import select

from liftdesk.system.models import Sms
from tests.conftest import Api, password_chosen
from tests.system.sms_servers import serve

# The module's S3 / SMS servers run on localhost: internal addresses are allowed while it runs (test_egress.py proves
# the default refuses them).
pytestmark = pytest.mark.usefixtures("allow_private_endpoints")

SMS = "/api/blade-resource/sms"
SEND = f"{SMS}/endpoint/send-message"


async def _new_tenant(api: Api) -> str:
    r = await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("SMS tenant ")})
    assert r["code"] == 200, r
    tenant: str = r["data"]["tenantId"]
    await password_chosen(api, tenant)
    return tenant


def _config(api: Api, category: int, endpoint: str, **extra: Any) -> dict[str, Any]:
    return {
        "category": category,
        "smsCode": api.unique("sms"),
        "templateId": "SMS_154950909" if category == 3 else "1234567",
        "accessKey": "LTAI-test" if category == 3 else "AKID-test",
        "secretKey": "very-secret-key",
        "regionId": "cn-hangzhou" if category == 3 else "ap-guangzhou",
        "signName": "叉车云",
        "appId": "1400006666" if category == 4 else None,
        "endpoint": endpoint,
        **extra,
    }


async def _make(api: Api, tenant: str, body: dict[str, Any]) -> dict[str, Any]:
    r = await api.post(f"{SMS}/submit", json=body, tenant=tenant)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


async def _send(api: Api, tenant: str, lang: str = "zh-CN", **params: str) -> dict[str, Any]:
    headers = await api.headers(tenant=tenant, lang=lang)
    r = await api.client.post(SEND, params=params, headers=headers)
    assert r.status_code in (200, 400), r.text
    body: dict[str, Any] = r.json()
    return body


async def test_aliyun_signed_message_reaches_the_provider(api: Api) -> None:
    tenant = await _new_tenant(api)
    with serve("aliyun", {"LTAI-test": "very-secret-key"}) as provider:
        row = await _make(api, tenant, _config(api, 3, provider.url))
        sent = await _send(
            api, tenant, code=row["smsCode"], phones="13800138000, 13900139000", params='{"code": "1234", "n": 5}'
        )
        assert sent["code"] == 200, sent
        assert sent["data"]["phones"] == ["13800138000", "13900139000"] and sent["data"]["category"] == 3
        assert sent["data"]["requestId"].endswith("^0")
        assert provider.sent == [
            {
                "phones": ["13800138000", "13900139000"],
                "sign": "叉车云",
                "template": "SMS_154950909",
                "params": {"code": "1234", "n": "5"},
                "region": "cn-hangzhou",
            }
        ]
        # a wrong secret: the provider refuses the signature, the caller reads why (never a 500)
        await api.post(f"{SMS}/submit", json={"id": row["id"], "secretKey": "wrong-secret"}, tenant=tenant)
        refused = await _send(api, tenant, code=row["smsCode"], phones="13800138000")
        assert refused["code"] == 400 and "SignatureDoesNotMatch" in refused["msg"], refused
        assert provider.refused == ["SignatureDoesNotMatch"] and len(provider.sent) == 1
        # an unknown key
        await api.post(f"{SMS}/submit", json={"id": row["id"], "accessKey": "LTAI-other"}, tenant=tenant)
        unknown = await _send(api, tenant, lang="en", code=row["smsCode"], phones="13800138000")
        assert unknown["code"] == 400 and "InvalidAccessKeyId.NotFound" in unknown["msg"]
        assert "not sent" in unknown["msg"]


async def test_tencent_signed_message_reaches_the_provider(api: Api) -> None:
    tenant = await _new_tenant(api)
    with serve("tencent", {"AKID-test": "very-secret-key"}) as provider:
        row = await _make(api, tenant, _config(api, 4, provider.url))
        enabled = await api.post(f"{SMS}/enable", params={"id": row["id"]}, tenant=tenant)
        assert enabled["code"] == 200 and enabled["data"]["status"] == 2, enabled
        sent = await _send(api, tenant, phones="13800138000", params='{"1": "8888", "2": "5"}')  # the enabled one
        assert sent["code"] == 200 and sent["data"]["smsCode"] == row["smsCode"], sent
        assert provider.sent == [
            {
                "phones": ["+8613800138000"],
                "app": "1400006666",
                "sign": "叉车云",
                "template": "1234567",
                "params": ["8888", "5"],
                "region": "ap-guangzhou",
            }
        ]
        await api.post(f"{SMS}/submit", json={"id": row["id"], "secretKey": "wrong-secret"}, tenant=tenant)
        refused = await _send(api, tenant, phones="13800138000")
        assert refused["code"] == 400 and "AuthFailure.SignatureFailure" in refused["msg"], refused
        assert provider.refused == ["AuthFailure.SignatureFailure"] and len(provider.sent) == 1


async def test_unreachable_provider_is_a_400(api: Api) -> None:
    tenant = await _new_tenant(api)
    with serve("aliyun", {}) as provider:
        url = provider.url
    row = await _make(api, tenant, _config(api, 3, url))  # nothing listens there any more
    answer = await _send(api, tenant, code=row["smsCode"], phones="13800138000")
    assert answer["code"] == 400 and "ConnectError" in answer["msg"], answer


async def test_log_provider_without_a_configuration(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    tenant = await _new_tenant(api)
    with caplog.at_level(logging.WARNING, logger="liftdesk.system.sms"):
        sent = await _send(api, tenant, phones="13700137000", params='{"code": "4321"}')
    assert sent["code"] == 200 and sent["data"]["smsCode"] == "" and sent["data"]["category"] == 0, sent
    assert any("13700137000" in r.getMessage() and "4321" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"phones": "1380013800"}, "phones"),  # 10 digits
        ({"phones": "13800138000,0755-1234567"}, "phones"),  # a landline
        ({"phones": "13800138000,"}, "phones"),  # an empty one
        ({"phones": "13800138000", "params": "[1, 2]"}, "params"),
        ({"phones": "13800138000", "params": '{"a": {"b": 1}}'}, "params"),
        ({"phones": "13800138000", "params": "not json"}, "params"),
        ({"phones": "13800138000", "code": "no-such-config"}, "code"),
    ],
)
async def test_bad_input_is_a_400_naming_the_field(api: Api, params: dict[str, str], field: str) -> None:
    answer = await _send(api, "000000", **params)
    assert answer["code"] == 400 and field in answer["msg"], answer


async def test_configuration_rules(api: Api) -> None:
    tenant = await _new_tenant(api)
    for bad, field in (
        ({"category": 1}, "category"),  # 云片: no client here
        ({"category": 2}, "category"),
        ({"category": 4, "appId": None}, "appId"),
        ({"signName": ""}, "signName"),
        ({"endpoint": "ftp://x"}, "endpoint"),
        ({"secretKey": "******"}, "secretKey"),
    ):
        r = await api.post(f"{SMS}/submit", json={**_config(api, 3, ""), **bad}, tenant=tenant)
        assert r["code"] == 400 and field in r["msg"], (bad, r)
    made = await _make(api, tenant, _config(api, 3, ""))
    assert made["secretKey"] == "******" and made["status"] == 1 and made["endpoint"] in ("", None)
    listed = await api.client.get(f"{SMS}/list", headers=await api.headers(tenant=tenant))
    assert "very-secret-key" not in listed.text
    detail = await api.client.get(f"{SMS}/detail", params={"id": made["id"]}, headers=await api.headers(tenant=tenant))
    assert "very-secret-key" not in detail.text and detail.json()["data"]["secretKey"] == "******"
    same = await api.post(f"{SMS}/submit", json={"id": made["id"], "secretKey": "******", "remark": "x"}, tenant=tenant)
    assert same["code"] == 200, same
    async with api.db.sessionmaker() as s:
        assert (await s.get(Sms, int(made["id"]))).secret_key == "very-secret-key"  # type: ignore[union-attr]


async def test_enable_leaves_one_enabled_even_at_once(api: Api) -> None:
    tenant = await _new_tenant(api)
    rows = [await _make(api, tenant, _config(api, 3, "")) for _ in range(3)]
    for row in rows:
        r = await api.post(f"{SMS}/enable", params={"id": row["id"]}, tenant=tenant)
        assert r["code"] == 200, r
    answers = await asyncio.gather(
        *(api.post(f"{SMS}/enable", params={"id": row["id"]}, tenant=tenant) for row in rows)
    )
    assert all(a["code"] in (200, 400) for a in answers), answers
    async with api.db.sessionmaker() as s:
        enabled = (
            await s.execute(select(Sms.id).where(Sms.tenant_id == tenant, Sms.status == 2, Sms.is_deleted == 0))
        ).all()
    assert len(enabled) == 1


async def test_another_tenant_cannot_see_enable_or_use_a_configuration(api: Api) -> None:
    owner, other = await _new_tenant(api), await _new_tenant(api)
    with serve("aliyun", {"LTAI-test": "very-secret-key"}) as provider:
        row = await _make(api, owner, _config(api, 3, provider.url))
        listed = await api.get(f"{SMS}/list", tenant=other)
        assert row["smsCode"] not in str(listed["data"])
        detail = await api.get(f"{SMS}/detail", params={"id": row["id"]}, tenant=other)
        assert detail["code"] != 200 or not detail["data"], detail
        enable = await api.post(f"{SMS}/enable", params={"id": row["id"]}, tenant=other)
        assert enable["code"] in (400, 404), enable
        used = await _send(api, other, code=row["smsCode"], phones="13800138000")
        assert used["code"] == 400 and "code" in used["msg"], used
        assert provider.sent == []
        async with api.db.sessionmaker() as s:
            assert (await s.get(Sms, int(row["id"]))).status == 1  # type: ignore[union-attr]


async def test_sending_needs_its_button(api: Api, driver: str) -> None:
    r = await api.post(SEND, params={"phones": "13800138000"}, who=driver, password="driver-1")
    assert r["_status"] == 403 and r["code"] == 403
    anonymous = await api.client.post(SEND, params={"phones": "13800138000"})
    assert anonymous.status_code == 401
