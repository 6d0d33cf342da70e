"""One suite over every declared action (``Resource.action``): 401 without a token, 403 without its permission,
another tenant's rows invisible and unchanged, the owner's call served. A meta-test fails when an action has
neither a case (actions.py) nor an exemption with its reason."""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any

import pytest
from openpyxl import load_workbook

from liftdesk.app import build_registry
from liftdesk.core import crud
from liftdesk.core.registry import REGISTRY
from liftdesk.core.resource import OPEN, SIGNED_IN, Action
from liftdesk.core.router import describe_permission, endpoint_of
from liftdesk.core.transfer import XLSX
from tests.conftest import Api, Tenants, own_organisation_user, seed_ids
from tests.resources.actions import PLACE_IN, Call, cases, key

build_registry()
ACTIONS = {key(a.method, a.path): a for a in REGISTRY.actions}
CASES, EXEMPTIONS = cases()
# send-message's case talks to a local SMS stand-in (actions_system._aliyun_url): internal addresses are allowed while
# this module runs (tests/system/test_egress.py proves the default refuses them).
pytestmark = pytest.mark.usefixtures("allow_private_endpoints")


#: The buttons of the commands sent to vehicles (each kind its own resource's, ``telemetry/resources.py``).
COMMAND_BUTTONS = (
    "car_set_lock",
    "car_set_limit",
    "car_set_threshold",
    "car_set_calibrate",
    "car_set_func",
    "car_set_config",
    "parameter_query_send",
    "terminal_release",
    "terminal_version_update",
    "command_log_send",
    "command_log_cancel",
    "ingest_post",
)


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


def test_alternative_permissions_are_declared_and_described() -> None:
    """A declaration naming alternatives (``permission=("edit", "add")``) is two or more different permissions,
    none of them SIGNED_IN, and the document names each one; the declared ones are checked at start-up the same."""
    from liftdesk.fleet.resources import VEHICLE

    async def probe(ctx: crud.Ctx) -> str:
        return ctx.principal.account

    for bad in (("edit",), ("edit", "edit"), ("edit", SIGNED_IN)):
        with pytest.raises(RuntimeError, match=r"alternative|SIGNED_IN"):
            Action(resource=VEHICLE, method="GET", path="/x", handler=probe, permission=bad, summary="x").check()
    declared = [a for a in ACTIONS.values() if isinstance(a.permission, tuple)]
    assert any(a.path.endswith("/dept/upload-logo") for a in declared), "the logo upload names its alternatives"
    for action in declared:
        action.check()
        described = describe_permission(action)
        assert described.count(" or ") == len(action.permission) - 1, described
    logo = next(a for a in declared if a.path.endswith("/dept/upload-logo"))
    assert describe_permission(logo) == "the button dept_edit or the button dept_add"


async def test_any_one_alternative_suffices(api: Api) -> None:
    """``permission=("edit", "add")`` through the whole layer (the guard before the input, then the call): a user
    holding only the edit button passes, so does one holding only the add button; one holding another button or
    none gets the usual refusal (403, the message of every refusal). Shown on a call of the vehicles (no role gate:
    the buttons decide; the organisations' logo upload also needs an administrator's role), mounted on the app
    while the test runs."""
    from liftdesk.fleet.resources import VEHICLE

    async def alternatives_probe(ctx: crud.Ctx) -> str:
        return ctx.principal.account

    action = Action(
        resource=VEHICLE,
        method="GET",
        path="/api/liftdesk-test/alternatives",
        handler=alternatives_probe,
        permission=("edit", "add"),
        kind="read",
        summary="test only",
    )
    action.check()
    app = api.client._transport.app  # type: ignore[attr-defined]
    app.add_api_route(action.path, endpoint_of(action), methods=["GET"])
    route = next(r for r in app.router.routes if getattr(r, "path", None) == action.path)
    app.router.routes.remove(route)
    app.router.routes.insert(0, route)  # before the catch-all that answers unknown paths
    try:
        ids = await seed_ids(api)
        for buttons, passes in (
            (("vehicle_edit",), True),
            (("vehicle_add",), True),
            (("vehicle_delete",), False),
            ((), False),
        ):
            async with own_organisation_user(api, ids["dept"], buttons=buttons, menus=()) as who:
                answer = await api.get(action.path, **who)
                if passes:
                    assert answer["code"] == 200 and answer["data"] == who["who"], (buttons, answer)
                else:
                    assert answer["_status"] == 403 and answer["code"] == 403, (buttons, answer)
                    assert answer["msg"] == "请求被拒绝", answer
    finally:
        app.router.routes.remove(route)


async def _call(api: Api, action: Action, call: Call, tenant: str, **who: str) -> dict[str, Any]:
    """The answer's envelope; a spreadsheet answer (an export) as an envelope whose data are its rows, a zip as one
    whose data are its files' names."""
    kw: dict[str, Any] = {"params": call.params}
    if call.json is not None:
        kw["json"] = call.json
    if call.files is not None:
        kw["files"] = call.files
    if call.form is not None:
        kw["data"] = call.form
    headers = await api.headers(tenant=tenant, **who)
    r = await api.client.request(action.method, url(action, call.ident or "0"), headers=headers, **kw)
    if r.headers.get("content-type", "").startswith(XLSX):
        assert action.raw, "only raw actions answer files"
        sheet = load_workbook(io.BytesIO(r.content), read_only=True).worksheets[0]
        return {"code": 200, "success": True, "data": [list(row) for row in sheet.iter_rows(values_only=True)]}
    if r.headers.get("content-type", "").startswith("application/zip"):
        assert action.raw, "only raw actions answer files"
        with zipfile.ZipFile(io.BytesIO(r.content)) as archive:
            return {"code": 200, "success": True, "data": archive.namelist()}
    body: dict[str, Any] = r.json()
    body["_status"] = r.status_code
    return body


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
    try:
        before = await _probe(api, call)
        theirs = await _call(api, action, call, tenants.b)
        if not case.tenant_scoped:
            assert theirs["_status"] == 403, theirs
        else:
            _refused_or_silent(theirs, call)
        assert await _probe(api, call) == before, "another tenant's call changed nothing"
        mine = await _call(api, action, call, tenants.a)
        assert mine["code"] == 200 and mine["success"] is True, mine
        if call.marker is not None and action.kind in ("read", "detail", "sub", "aggregate", "export"):
            assert call.marker in json.dumps(mine["data"]), "the owner's answer shows the row"
    finally:
        if case.cleanup is not None:
            await case.cleanup(api, tenants.a, call)


def _refused_or_silent(answer: dict[str, Any], call: Call) -> None:
    if answer["code"] == 200:
        assert call.marker is None or call.marker not in json.dumps(answer["data"]), answer
    else:
        assert answer["code"] in (400, 403), answer


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.data_scope))
async def test_own_organisation_sees_and_changes_only_its_rows(api: Api, name: str) -> None:
    """A user whose data scope is their own organisation (type 3): another organisation's rows are refused or
    left out and stay unchanged; the same call on a row of their organisation is served."""
    action, case = ACTIONS[name], CASES[name]
    ids = await seed_ids(api)
    buttons = ("vehicle_add", "vehicle_edit", "vehicle_delete", "fence", "fence_edit", "report_efficiency")
    buttons += COMMAND_BUTTONS
    buttons += case.scope_buttons
    async with own_organisation_user(
        api, ids["child_dept"], buttons=buttons, resource=case.scope_resource, menus=case.scope_menus
    ) as who:
        token = PLACE_IN.set(ids["dept"])
        try:
            outside = await case.prepare(api, "000000")
        finally:
            PLACE_IN.reset(token)
        before = await _probe(api, outside)
        _refused_or_silent(await _call(api, action, outside, "000000", **who), outside)
        assert await _probe(api, outside) == before, "nothing outside the organisation changed"
        token = PLACE_IN.set(ids["child_dept"])
        try:
            inside = await case.prepare(api, "000000")
        finally:
            PLACE_IN.reset(token)
        mine = await _call(api, action, inside, "000000", **who)
        assert mine["code"] == 200 and mine["success"] is True, mine
