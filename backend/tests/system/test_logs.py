"""The usual, API and error logs (core/audit.py, system/logs.py): what a call writes, off the request path, and who
reads it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from liftdesk.app import create_app
from liftdesk.core.audit import MASK, AuditWriter, mask
from liftdesk.system.models import LogApi, LogError
from tests.conftest import Api, Tenants, seed_ids

LOG = "/api/blade-log"


def writer_of(api: Api) -> AuditWriter:
    state: Any = api.client._transport.app.state  # type: ignore[attr-defined]
    audit: AuditWriter = state.audit
    return audit


async def api_logs(api: Api, marker: str) -> list[LogApi]:
    async with api.db.sessionmaker() as s:
        rows = (await s.execute(select(LogApi).where(LogApi.params.contains(marker)))).scalars().all()
    return list(rows)


async def new_post(api: Api, tenant: str = "000000") -> str:
    """A mutating call in ``tenant``; the post code it made (unique: it finds the call's log)."""
    code = api.unique("lg")[:12]
    r = await api.post(
        "/api/blade-system/post/submit",
        json={"postCode": code, "postName": "log", "sort": 1, "category": 1},
        tenant=tenant,
    )
    assert r["code"] == 200, r
    return code


def test_secrets_are_masked_at_any_depth() -> None:
    value = {
        "account": "a",
        "password": "p",
        "newPassword1": "q",
        "nested": {"clientSecret": "s", "list": [{"refresh_token": "t", "keep": 1}], "CaptchaCode": "c"},
    }
    assert mask(value) == {
        "account": "a",
        "password": MASK,
        "newPassword1": MASK,
        "nested": {"clientSecret": MASK, "list": [{"refresh_token": MASK, "keep": 1}], "CaptchaCode": MASK},
    }


async def test_a_mutating_call_writes_one_api_log(api: Api) -> None:
    account = api.unique("logu")
    r = await api.post(
        "/api/blade-user/submit",
        params={"accessToken": "query-secret"},
        json={"account": account, "password": "pass-word-1", "name": "L", "realName": "L", "roleId": "", "deptId": ""},
    )
    await writer_of(api).drain()
    rows = await api_logs(api, account)
    assert len(rows) == 1, (r, rows)
    row = rows[0]
    assert row.method == "POST" and row.request_uri == "/api/blade-user/submit"
    assert row.create_by == "admin" and row.tenant_id == "000000"
    assert row.remote_ip == "127.0.0.1" and row.time is not None and row.time >= 0
    assert row.status == r["_status"]
    params = json.loads(row.params or "{}")
    assert params["account"] == account and params["password"] == MASK and params["accessToken"] == MASK
    assert "pass-word-1" not in (row.params or "") and "query-secret" not in (row.params or "")


async def test_a_read_writes_none(api: Api) -> None:
    marker = api.unique("read")
    r = await api.get("/api/blade-system/post/list", params={"postName": marker})
    assert r["code"] == 200
    await writer_of(api).drain()
    assert await api_logs(api, marker) == []


async def test_the_api_log_pages(api: Api) -> None:
    code = await new_post(api)
    await writer_of(api).drain()
    page = await api.get(f"{LOG}/api/list", params={"params": code})
    assert page["code"] == 200 and [row["createBy"] for row in page["data"]["records"]] == ["admin"], page
    row = page["data"]["records"][0]
    assert row["requestUri"] == "/api/blade-system/post/submit" and row["method"] == "POST"
    got = await api.get(f"{LOG}/api/detail", params={"id": row["id"]})
    assert got["code"] == 200 and code in got["data"]["params"]


async def test_a_slow_log_does_not_delay_the_call(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer's flush waits for a gate the test holds: the call answers while its log is still pending."""
    writer = writer_of(api)
    await writer.drain()
    gate = asyncio.Event()
    flush = writer.flush

    async def held(batch: Any) -> None:
        await gate.wait()
        await flush(batch)

    monkeypatch.setattr(writer, "flush", held)
    try:
        code = await asyncio.wait_for(new_post(api), 30)  # answered, though no log can be written
        assert await api_logs(api, code) == []
    finally:
        gate.set()
    await writer.drain()
    assert len(await api_logs(api, code)) == 1


async def test_a_full_queue_drops_and_never_blocks(api: Api) -> None:
    writer = AuditWriter(api.db, maxsize=1)
    from liftdesk.core.audit import ApiEntry, Request

    writer.queue.put_nowait(ApiEntry(Request(), 200, 1))  # the queue is full (no task drains it)
    writer.submit(ApiEntry(Request(), 200, 1))
    assert writer.dropped == 1 and writer.queue.qsize() == 1
    writer.queue.get_nowait()
    writer.queue.task_done()


async def test_a_server_error_writes_the_error_log_and_answers_a_reference(api: Api, driver: str) -> None:
    app = create_app(api.client._transport.app.state.settings, db=api.db)  # type: ignore[attr-defined]

    async def boom() -> None:
        raise RuntimeError("a bug with a secret inside")

    app.add_api_route("/api/test-only/boom", boom, methods=["POST"])
    app.router.routes.insert(0, app.router.routes.pop())
    headers = await api.headers()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        r = await client.post("/api/test-only/boom", json={"password": "x", "what": "boom"}, headers=headers)
    assert r.status_code == 500
    body = r.json()
    assert body["code"] == 500 and "ref " in body["msg"]
    assert "Traceback" not in r.text and "a bug" not in r.text and "RuntimeError" not in r.text
    ref = body["msg"].rsplit("ref ", 1)[1].rstrip(")")
    await app.state.audit.drain()
    async with api.db.sessionmaker() as s:
        row = await s.get(LogError, int(ref))
        calls = (await s.execute(select(LogApi).where(LogApi.request_uri == "/api/test-only/boom"))).scalars().all()
    assert row is not None and row.exception_name == "builtins.RuntimeError"
    assert row.stack_trace and "Traceback" in row.stack_trace and "a bug" in row.stack_trace
    assert row.file_name and row.file_name.endswith("test_logs.py") and row.line_number
    assert row.create_by == "admin" and row.request_uri == "/api/test-only/boom" and MASK in (row.params or "")
    assert 500 in [c.status for c in calls]  # the failed call has its API log too, with status 500

    listed = await api.get(f"{LOG}/error/list", params={"id": ref})
    rows = [x for x in listed["data"]["records"] if x["id"] == ref]
    assert rows and "stackTrace" not in rows[0], "the list leaves the trace out"
    got = await api.get(f"{LOG}/error/detail", params={"id": ref})
    assert got["code"] == 200 and "a bug" in got["data"]["stackTrace"]

    refused = await api.get(f"{LOG}/error/detail", params={"id": ref}, who=driver, password="driver-1")
    assert refused["_status"] == 403
    assert (await api.get(f"{LOG}/error/list", who=driver, password="driver-1"))["_status"] == 403


async def test_logs_are_the_tenants_own(api: Api, tenants: Tenants, driver: str) -> None:
    mine = await new_post(api, tenants.b)
    theirs = await new_post(api)
    await writer_of(api).drain()

    def codes(page: dict[str, Any]) -> str:
        assert page["code"] == 200, page
        return json.dumps([row["params"] for row in page["data"]["records"]])

    seen_by_b = codes(await api.get(f"{LOG}/api/list", params={"size": 100}, tenant=tenants.b))
    assert mine in seen_by_b and theirs not in seen_by_b
    seen_by_a = codes(await api.get(f"{LOG}/api/list", params={"size": 100}))
    assert theirs in seen_by_a and mine not in seen_by_a
    # the platform administrator reads another tenant's with its tenantId
    assert mine in codes(await api.get(f"{LOG}/api/list", params={"size": 100, "tenantId": tenants.b}))

    rows_a = await api_logs(api, theirs)
    other = await api.get(f"{LOG}/api/detail", params={"id": str(rows_a[0].id)}, tenant=tenants.b)
    assert other["code"] == 404 or other["data"] is None, other
    # the error log is the platform administrator's: another tenant's administrator and a plain user are refused
    assert (await api.get(f"{LOG}/error/list", tenant=tenants.b))["_status"] == 403
    assert (await api.get(f"{LOG}/api/list", who=driver, password="driver-1"))["_status"] == 403


async def test_the_web_apps_error_log_is_a_usual_log(api: Api) -> None:
    marker = api.unique("weberr")
    r = await api.post(
        "/api/blade-auth/oauth/logout",
        json=[{"type": "error", "message": marker, "stack": "at x", "info": "", "url": "/fleet", "time": "t"}],
    )
    assert r["code"] == 200, r
    page = await api.get(f"{LOG}/usual/list", params={"logData": marker})
    assert page["code"] == 200 and len(page["data"]["records"]) == 1, page
    row = page["data"]["records"][0]
    assert row["serviceId"] == "web" and row["logLevel"] == "error" and row["createBy"] == "admin"
    got = await api.get(f"{LOG}/usual/detail", params={"id": row["id"]})
    assert got["code"] == 200 and marker in got["data"]["logData"]


# ---------------------------------------------------------------- which calls are recorded (core.audit.records)


def test_the_decision_goes_by_what_a_route_is_declared_to_do() -> None:
    from liftdesk.app import build_registry
    from liftdesk.core.audit import records
    from liftdesk.core.registry import REGISTRY

    build_registry()
    declared = REGISTRY.reading_routes()
    reads = [
        ("POST", "/api/blade-fics/showHide/find"),  # an action of kind read served with POST
        ("POST", "/api/blade-fics-report/fics/carInfo/getCarLastGPSInfo"),
        ("POST", "/api/blade-fics-report/fics/carInfo/v2/getElectronicFence"),  # a generated read (post_ops)
        ("POST", "/api/blade-user/randomPassword"),  # kind action, declared reads=True: nothing saved
        ("POST", "/api/blade-develop/code/gen-code"),  # an export
        ("GET", "/api/blade-system/post/list"),
    ]
    writes = [
        ("POST", "/api/blade-fics/showHide/options"),
        ("POST", "/api/blade-system/post/submit"),
        ("POST", "/api/blade-user/replacePassword"),
        ("GET", "/api/blade-fics-report/fics/personnel/revertPassword/{id}"),  # a GET that changes a password
        ("GET", "/api/blade-fics/fics/driverExpirationReminder/ignore/{id}"),
        ("DELETE", "/api/blade-fics-report/fics/driver/deleteFacePhoto/{id}"),
    ]
    for method, route in reads + writes:
        assert (method, route) in declared, f"{method} {route} is not a declared route"
    for method, route in reads:
        assert not records(method, route, route, declared), f"{method} {route} only reads"
    for method, route in writes:
        assert records(method, route, route, declared), f"{method} {route} changes something"
    # routes the registry does not declare go by their method; some are never recorded
    assert records("POST", "/api/blade-auth/oauth/logout", None, declared)
    assert records("GET", "/api/blade-auth/oauth/logout", None, declared)
    assert not records("GET", "/api/blade-auth/oauth/captcha", None, declared)
    assert not records("POST", "/api/blade-auth/oauth/token", None, declared)
    assert not records("POST", "/api/liftdesk/ingest", "/api/liftdesk/ingest", declared)
    assert not records("POST", "/not-api/x", None, declared)


async def test_a_read_served_with_post_writes_none(api: Api) -> None:
    marker = api.unique("find")
    found = await api.post("/api/blade-fics/showHide/find", json={"tableKey": marker})
    assert found["code"] == 200, found
    drawn = await api.post("/api/blade-user/randomPassword", params={"marker": marker})
    assert drawn["code"] == 200, drawn
    await writer_of(api).drain()
    assert await api_logs(api, marker) == []


async def test_a_mutating_post_writes_one_with_passwords_masked(api: Api) -> None:
    marker = api.unique("opt")
    saved = await api.post("/api/blade-fics/showHide/options", json={"tableKey": marker, "hidden": ["name"]})
    assert saved["code"] == 200, saved
    account = api.unique("rpl")
    ids = await seed_ids(api)
    made = await api.post(
        "/api/blade-user/submit",
        json={
            "account": account,
            "password": "Init-pass#1",
            "name": "R",
            "realName": "Replace",
            "roleId": ids["driver"],
            "deptId": ids["child_dept"],
        },
    )
    assert made["code"] == 200, made
    replaced = await api.post(
        "/api/blade-user/replacePassword",
        params={"marker": account},
        json={"userIds": str(made["data"]["id"]), "password": "New-pass#123"},
    )
    assert replaced["code"] == 200, replaced
    await writer_of(api).drain()
    options = await api_logs(api, marker)
    assert [(r.method, r.request_uri) for r in options] == [("POST", "/api/blade-fics/showHide/options")]
    rows = [r for r in await api_logs(api, account) if r.request_uri == "/api/blade-user/replacePassword"]
    assert len(rows) == 1, rows
    params = json.loads(rows[0].params or "{}")
    assert params["password"] == MASK and params["marker"] == account
    assert "New-pass#123" not in (rows[0].params or "")
