"""Generic action cases of code generation (see actions.py for the format): gen-code and copy, the platform
administrator's only. What the zip holds, the refusals and the round trip are in tests/system/test_codegen.py."""

from __future__ import annotations

from tests.conftest import Api
from tests.resources.actions import ActionCase, Call, key
from tests.resources.data import _code

CODE = "/api/blade-develop/code"


async def _record(api: Api, tenant: str) -> Call:
    r = await api.post(f"{CODE}/submit", json=await _code(api, tenant))
    assert r["code"] == 200, r
    row = r["data"]
    return Call(
        params={"ids": row["id"], "id": row["id"]},
        marker=row["packageName"],
        probe=("GET", f"{CODE}/list", {"size": 1000}),
    )


CASES: dict[str, ActionCase] = {
    key("POST", f"{CODE}/gen-code"): ActionCase(_record, tenant_scoped=False),
    key("POST", f"{CODE}/copy"): ActionCase(_record, tenant_scoped=False),
}

EXEMPTIONS: dict[str, str] = {}
