"""One suite over every declared action (``Resource.action``): 401 without a token, 403 without its permission,
another tenant's rows invisible and unchanged, the owner's call served. A meta-test fails when an action has
neither a case (actions.py) nor an exemption with its reason."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from liftdesk.app import load_contexts
from liftdesk.core.actions import SIGNED_IN, Action
from liftdesk.core.registry import OPEN, REGISTRY
from tests.conftest import Api, Tenants
from tests.resources.actions import Call, cases, key

load_contexts()
ACTIONS = {key(a.method, a.path): a for a in REGISTRY.actions}
CASES, EXEMPTIONS = cases()


def url(action: Action, ident: str = "1") -> str:
    return re.sub(r"\{\w+\}", ident, action.path)


def open_to_everyone(action: Action) -> bool:
    return action.permission == SIGNED_IN or (action.permission == "view" and action.resource.view_menus == OPEN)


def test_every_action_has_a_case() -> None:
    missing = set(ACTIONS) - set(CASES) - set(EXEMPTIONS)
    assert not missing, f"actions without a generic case: {sorted(missing)}"
    assert not (set(CASES) | set(EXEMPTIONS)) - set(ACTIONS), "cases of actions that are not declared"
    assert all(reason.strip() for reason in EXEMPTIONS.values())


@pytest.mark.parametrize("name", sorted(ACTIONS))
async def test_unauthenticated_is_401(api: Api, name: str) -> None:
    action = ACTIONS[name]
    r = await api.client.request(action.method, url(action), params={"id": "1", "ids": "1"}, json={})
    assert r.status_code == 401 and r.json()["code"] == 401, r.text
    bad = await api.client.request(action.method, url(action), headers={"Blade-Auth": "bearer not-a-token"})
    assert bad.status_code == 401 and bad.json()["code"] == 401


@pytest.mark.parametrize("name", sorted(ACTIONS))
async def test_without_permission_is_403(api: Api, driver: str, name: str) -> None:
    """A user granted nothing is refused before the input is looked at (so an empty call is enough)."""
    action = ACTIONS[name]
    answer = await api.call(action.method, url(action), who=driver, password="driver-1")
    if open_to_everyone(action):
        assert answer["_status"] != 403, answer
    else:
        assert answer["_status"] == 403 and answer["code"] == 403, answer


async def _call(api: Api, action: Action, call: Call, tenant: str) -> dict[str, Any]:
    kw: dict[str, Any] = {"params": call.params, "tenant": tenant}
    if call.json is not None:
        kw["json"] = call.json
    return await api.call(action.method, url(action, call.ident or "0"), **kw)


async def _probe(api: Api, call: Call) -> Any:
    if call.probe is None:
        return None
    method, path, params = call.probe
    answer = await api.call(method, path, params=params)
    assert answer["code"] == 200, answer
    return answer["data"]


@pytest.mark.parametrize("name", sorted(CASES))
async def test_other_tenant_cannot_see_or_change(api: Api, tenants: Tenants, name: str) -> None:
    action, case = ACTIONS[name], CASES[name]
    call = await case.prepare(api, tenants.a)
    before = await _probe(api, call)
    theirs = await _call(api, action, call, tenants.b)
    if not case.tenant_scoped:
        assert theirs["_status"] == 403, theirs
    elif theirs["code"] == 200:
        assert call.marker is None or call.marker not in json.dumps(theirs["data"]), theirs
    else:
        assert theirs["code"] in (400, 403), theirs
    assert await _probe(api, call) == before, "another tenant's call changed nothing"
    mine = await _call(api, action, call, tenants.a)
    assert mine["code"] == 200 and mine["success"] is True, mine
    if call.marker is not None and action.kind in ("read", "detail", "sub", "aggregate"):
        assert call.marker in json.dumps(mine["data"]), "the owner's answer shows the row"
