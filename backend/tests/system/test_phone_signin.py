"""Phone sign-in (system/phone.py): a code by SMS through the log provider (read from the server log), then
``grant_type=sms_code``. The code is stored hashed, valid 5 minutes, single use, void after 5 wrong tries; at most one
a minute and five an hour per number, exactly one of ten parallel requests accepted; a number nobody has gets the
same answer and no message; another tenant's number and key are refused; disabled and locked users are refused.
Time is moved by writing the stored rows' times, not by sleeping."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update

from liftdesk.core.kv import KV
from liftdesk.system import auth
from liftdesk.system.models import SmsValidate, User
from tests.conftest import BASIC, Api, password_chosen

SEND = "/api/blade-resource/sms/endpoint/send-validate"
TOKEN = "/api/blade-auth/oauth/token"


def new_phone() -> str:
    return "19" + "".join(random.choice("0123456789") for _ in range(9))


async def _tenant(api: Api) -> str:
    r = await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("Phone tenant ")})
    assert r["code"] == 200, r
    tenant: str = r["data"]["tenantId"]
    await password_chosen(api, tenant)
    return tenant


async def _admin_has(api: Api, tenant: str, phone: str, **values: Any) -> None:
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(User).where(User.tenant_id == tenant, User.account == "admin").values(phone=phone, **values)
        )
        await s.commit()


async def _send(api: Api, tenant: str, phone: str, lang: str = "zh-CN") -> dict[str, Any]:
    r = await api.client.post(SEND, params={"tenantId": tenant, "phone": phone}, headers={"Accept-Language": lang})
    assert r.status_code in (200, 400), r.text
    body: dict[str, Any] = r.json()
    return body


async def _sign_in(api: Api, tenant: str, phone: str, key: str, code: str, lang: str = "zh-CN") -> dict[str, Any]:
    params = {"grant_type": "sms_code", "tenantId": tenant, "phone": phone, "key": key, "code": code}
    r = await api.client.post(TOKEN, params=params, headers={"Authorization": BASIC, "Accept-Language": lang})
    assert r.status_code in (200, 400), r.text
    body: dict[str, Any] = r.json()
    body["_status"] = r.status_code
    return body


def _codes_sent(caplog: pytest.LogCaptureFixture, phone: str) -> list[str]:
    out = []
    for record in caplog.records:
        text = record.getMessage()
        if record.name == "liftdesk.system.sms" and f"to {phone} " in text:
            out.append(json.loads(text[text.index("{") :])["code"])
    return out


async def _age(api: Api, phone: str, by: timedelta) -> None:
    """Every code of ``phone`` as if asked for ``by`` earlier."""
    async with api.db.sessionmaker() as s:  # row by row: SQLite keeps times as text, no arithmetic in SQL
        for row in (await s.execute(select(SmsValidate).where(SmsValidate.phone == phone))).scalars():
            row.create_time, row.expire_time = row.create_time - by, row.expire_time - by
        await s.commit()


@pytest.fixture
def sms_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.WARNING, logger="liftdesk.system.sms")
    return caplog


async def test_signs_in_by_phone_once_with_a_hashed_code(api: Api, sms_log: pytest.LogCaptureFixture) -> None:
    tenant, phone = await _tenant(api), new_phone()
    await _admin_has(api, tenant, phone)
    sent = await _send(api, tenant, phone)
    assert sent["code"] == 200 and sent["data"]["phone"] == phone and "验证码已发送" in sent["msg"], sent
    key = sent["data"]["id"]
    [code] = _codes_sent(sms_log, phone)
    assert re.fullmatch(r"[0-9]{6}", code)
    async with api.db.sessionmaker() as s:
        row = (await s.execute(select(SmsValidate).where(SmsValidate.key == key))).scalar_one()
    assert code not in row.code_hash and len(row.code_hash) == 64 and row.tenant_id == tenant
    assert timedelta(minutes=4, seconds=59) <= row.expire_time - row.create_time <= timedelta(minutes=5)

    signed = await _sign_in(api, tenant, phone, key, code)
    assert signed["_status"] == 200 and signed["account"] == "admin" and signed["tenant_id"] == tenant, signed
    me = await api.client.get(
        "/api/blade-auth/oauth/user-info", headers={"Blade-Auth": f"bearer {signed['access_token']}"}
    )
    assert me.json()["data"]["account"] == "admin"
    again = await _sign_in(api, tenant, phone, key, code)
    assert again["_status"] == 400 and "验证码已失效" in again["error_description"], again
    assert "access_token" not in again


async def test_a_number_nobody_has_gets_the_same_answer_and_no_message(
    api: Api, sms_log: pytest.LogCaptureFixture
) -> None:
    tenant, known, unknown = await _tenant(api), new_phone(), new_phone()
    await _admin_has(api, tenant, known)
    a, b = await _send(api, tenant, known), await _send(api, tenant, unknown)
    assert {k: v for k, v in a.items() if k != "data"} == {k: v for k, v in b.items() if k != "data"}
    assert set(a["data"]) == set(b["data"]) and len(a["data"]["id"]) == len(b["data"]["id"])
    assert len(_codes_sent(sms_log, known)) == 1 and _codes_sent(sms_log, unknown) == []
    # the limits are the same for both
    assert (await _send(api, tenant, unknown))["msg"] == (await _send(api, tenant, known))["msg"]
    # no code opens a number nobody has
    refused = await _sign_in(api, tenant, unknown, b["data"]["id"], "000000")
    assert refused["_status"] == 400 and "code" in refused["error_description"]


async def test_expired_code_is_refused(api: Api, sms_log: pytest.LogCaptureFixture) -> None:
    tenant, phone = await _tenant(api), new_phone()
    await _admin_has(api, tenant, phone)
    key = (await _send(api, tenant, phone))["data"]["id"]
    [code] = _codes_sent(sms_log, phone)
    await _age(api, phone, timedelta(minutes=5, seconds=1))
    refused = await _sign_in(api, tenant, phone, key, code, lang="en")
    assert refused["_status"] == 400 and refused["error_description"].startswith("code: the code has expired")


async def test_five_wrong_tries_void_the_code(api: Api, sms_log: pytest.LogCaptureFixture) -> None:
    tenant, phone = await _tenant(api), new_phone()
    await _admin_has(api, tenant, phone)
    key = (await _send(api, tenant, phone))["data"]["id"]
    [code] = _codes_sent(sms_log, phone)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for left in (4, 3, 2, 1, 0):
        answer = await _sign_in(api, tenant, phone, key, wrong)
        assert answer["_status"] == 400 and f"还可尝试 {left} 次" in answer["error_description"], answer
    void = await _sign_in(api, tenant, phone, key, code)
    assert void["_status"] == 400 and "验证码已失效" in void["error_description"], void


async def test_parallel_uses_of_the_right_code_sign_in_once(api: Api, sms_log: pytest.LogCaptureFixture) -> None:
    tenant, phone = await _tenant(api), new_phone()
    await _admin_has(api, tenant, phone)
    key = (await _send(api, tenant, phone))["data"]["id"]
    [code] = _codes_sent(sms_log, phone)
    answers = await asyncio.gather(*(_sign_in(api, tenant, phone, key, code) for _ in range(6)))
    assert sorted(a["_status"] for a in answers) == [200] + [400] * 5, answers


async def test_other_tenants_number_and_key_are_refused(api: Api, sms_log: pytest.LogCaptureFixture) -> None:
    mine, theirs, phone = await _tenant(api), await _tenant(api), new_phone()
    await _admin_has(api, theirs, phone)
    # asked in a tenant where nobody has the number: no message, though the other tenant's admin has it
    key = (await _send(api, mine, phone))["data"]["id"]
    assert _codes_sent(sms_log, phone) == []
    await _age(api, phone, timedelta(minutes=1, seconds=1))
    # a code of their tenant does not open mine, nor is their key valid with my tenant
    their_key = (await _send(api, theirs, phone))["data"]["id"]
    [code] = _codes_sent(sms_log, phone)
    for tenant, k in ((mine, their_key), (mine, key)):
        refused = await _sign_in(api, tenant, phone, k, code)
        assert refused["_status"] == 400 and "access_token" not in refused, refused
    assert (await _sign_in(api, theirs, phone, their_key, code))["tenant_id"] == theirs


async def test_ten_parallel_requests_send_exactly_one(api: Api, sms_log: pytest.LogCaptureFixture) -> None:
    tenant, phone = await _tenant(api), new_phone()
    await _admin_has(api, tenant, phone)
    answers = await asyncio.gather(*(_send(api, tenant, phone) for _ in range(10)))
    assert sorted(a["code"] for a in answers) == [200] + [400] * 9, answers
    assert all("秒后再试" in a["msg"] for a in answers if a["code"] == 400)
    assert len(_codes_sent(sms_log, phone)) == 1
    async with api.db.sessionmaker() as s:
        assert (await s.scalar(select(func.count()).where(SmsValidate.phone == phone))) == 1


async def test_one_a_minute_and_five_an_hour_per_number(api: Api, sms_log: pytest.LogCaptureFixture) -> None:
    tenant, other, phone = await _tenant(api), await _tenant(api), new_phone()
    await _admin_has(api, tenant, phone)
    assert (await _send(api, tenant, phone))["code"] == 200
    soon = await _send(api, tenant, phone, lang="en")
    assert soon["code"] == 400 and soon["msg"].startswith("phone: one code a minute"), soon
    assert (await _send(api, other, phone))["code"] == 400  # per number, whatever the tenant
    for _ in range(4):
        await _age(api, phone, timedelta(seconds=61))
        assert (await _send(api, tenant, phone))["code"] == 200
    await _age(api, phone, timedelta(seconds=61))
    sixth = await _send(api, tenant, phone)
    assert sixth["code"] == 400 and "一小时内最多获取 5 次" in sixth["msg"], sixth
    assert len(_codes_sent(sms_log, phone)) == 5
    # the hour slides: 54 minutes later the first (asked 305 s before, now 3545 s) is still in it; a minute later
    # (3606 s) it has left, and one more may be sent
    await _age(api, phone, timedelta(minutes=54))
    assert "一小时内最多获取 5 次" in (await _send(api, tenant, phone))["msg"]
    await _age(api, phone, timedelta(seconds=61))
    assert (await _send(api, tenant, phone))["code"] == 200
    assert len(_codes_sent(sms_log, phone)) == 6


async def test_disabled_and_locked_users_are_refused(api: Api, sms_log: pytest.LogCaptureFixture) -> None:
    tenant, phone = await _tenant(api), new_phone()
    await _admin_has(api, tenant, phone, status=0)
    key = (await _send(api, tenant, phone))["data"]["id"]
    [code] = _codes_sent(sms_log, phone)
    refused = await _sign_in(api, tenant, phone, key, code)
    assert refused["_status"] == 400 and "账号未启用或已被禁用" in refused["error_description"], refused

    await _admin_has(api, tenant, phone, status=1)
    async with api.db.sessionmaker() as s:  # five failed passwords from this address: the account is locked here
        for _ in range(5):
            await KV(s).incr(auth.fail_key(tenant, "admin", "127.0.0.1"), auth.LOCK_WINDOW)
        await s.commit()
    await _age(api, phone, timedelta(seconds=61))
    key = (await _send(api, tenant, phone))["data"]["id"]
    code = _codes_sent(sms_log, phone)[-1]
    locked = await _sign_in(api, tenant, phone, key, code)
    assert locked["_status"] == 400 and "登录错误次数过多" in locked["error_description"], locked


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"phone": "1380013800"}, "phone"),
        ({"phone": "0755-1234567"}, "phone"),
        ({"phone": "13800138000", "key": ""}, "key"),
        ({"phone": "13800138000", "key": "k", "code": ""}, "code"),
        ({"phone": "13800138000", "key": "k", "code": "12ab56"}, "code"),
        ({"phone": "13800138000", "key": "k", "code": "1234567"}, "code"),
    ],
)
async def test_bad_grant_input_names_the_field(api: Api, params: dict[str, str], field: str) -> None:
    full = {"grant_type": "sms_code", "tenantId": "000000", "key": "k", "code": "123456", **params}
    r = await api.client.post(TOKEN, params=full, headers={"Authorization": BASIC})
    assert r.status_code == 400 and r.json()["error_description"].startswith(f"{field}"), r.text


@pytest.mark.parametrize("phone", ["", "1380013800", "0755-1234567", "23800138000"])
async def test_bad_number_is_refused_naming_phone(api: Api, phone: str) -> None:
    answer = await _send(api, "000000", phone)
    assert answer["code"] == 400 and answer["msg"].startswith("phone"), answer


async def test_unknown_tenant_is_refused(api: Api) -> None:
    answer = await _send(api, "999998", new_phone(), lang="en")
    assert answer["code"] == 400 and answer["msg"] == "Tenant ID not found", answer
