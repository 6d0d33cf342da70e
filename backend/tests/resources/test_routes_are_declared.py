"""Every API route is declared: an operation the resource layer generates from a registered resource, an action
declared on a resource (``Resource.action``, which checks the token and the permission), or one of the calls that
need no token, all served by ``system.api.public`` and listed in its ``PUBLIC``. A hand-written route anywhere else
fails here, even at a declared path (it would answer instead of the declared one, or beside it)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from fastapi import FastAPI
from fastapi.routing import iter_route_contexts

from liftdesk.app import create_app
from liftdesk.core.config import Settings
from liftdesk.core.registry import REGISTRY
from liftdesk.system.api.public import PUBLIC

#: Who serves each kind of route: the module of its endpoint. Generated operations and declared actions come out of
#: the one route builder.
GENERATED_BY = ACTIONS_BY = "liftdesk.core.router"
PUBLIC_BY = "liftdesk.system.api.public"

#: Modules serving routes of another kind than HTTP operations, with why: the live feed is one WebSocket (no
#: operation of a resource; authenticated by the access token it connects with, scoped to the vehicles of the
#: caller's data rule, closed when the token is revoked: ``tests/telemetry/test_live.py``; its messages are
#: documented in the OpenAPI document's ``x-liftdesk-live``).
NOT_OPERATIONS = frozenset({"liftdesk.telemetry.live"})

Key = tuple[str, str]


def _app() -> FastAPI:
    return create_app(Settings(env="test"))


def api_routes(app: FastAPI) -> Iterator[tuple[str, str, str]]:
    """(method, path, module of the endpoint) of every route under /api, routers included (a WebSocket's method is
    WEBSOCKET)."""
    for route in iter_route_contexts(app.routes):
        path = route.path or ""
        if not (path == "/api" or path.startswith("/api/")):
            continue
        module = getattr(route.endpoint, "__module__", "") or ""
        for method in sorted(route.methods or {"WEBSOCKET"}):
            yield method, path, module


def generated() -> set[Key]:
    return {(res.method(op), res.path(op)) for res in REGISTRY for op in res.ops}


def actions() -> set[Key]:
    return {(a.method, a.path) for a in REGISTRY.actions}


def test_every_api_route_is_generated_an_action_or_public() -> None:
    app = _app()
    gen, act = generated(), actions()
    wrong: list[str] = []
    for method, path, module in api_routes(app):
        key = (method, path)
        if module in NOT_OPERATIONS:
            continue
        if key in gen:
            expected = GENERATED_BY
        elif key in act:
            expected = ACTIONS_BY
        elif key in PUBLIC:
            expected = PUBLIC_BY
        else:
            wrong.append(f"{method} {path} ({module}): neither generated, nor an action, nor public")
            continue
        if module != expected:
            wrong.append(f"{method} {path}: served by {module}, declared as {expected}'s")
    assert not wrong, "undeclared API routes:\n" + "\n".join(wrong)


def test_each_route_is_served_once_and_every_declaration_is_served() -> None:
    app = _app()
    served = Counter((method, path) for method, path, _ in api_routes(app))
    twice = sorted(f"{m} {p}" for (m, p), n in served.items() if n > 1)
    assert not twice, f"served by more than one route: {twice}"
    for name, declared in (("generated", generated()), ("actions", actions()), ("PUBLIC", set(PUBLIC))):
        missing = sorted(f"{m} {p}" for m, p in declared - set(served))
        assert not missing, f"{name} not served: {missing}"
    assert not set(PUBLIC) & (generated() | actions()), "a public call is also declared on a resource"


def test_the_openapi_document_holds_declared_calls_only() -> None:
    """The same check on the document the web client is generated from (independent of how routers nest)."""
    app = _app()
    allowed = generated() | actions() | set(PUBLIC)
    migrating = {(m, p) for m, p, module in api_routes(app) if module in NOT_OPERATIONS}
    documented = {
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        if path.startswith("/api")
        for method in operations
    }
    assert documented, "the document lists the API"
    assert not documented - allowed - migrating, sorted(documented - allowed - migrating)
