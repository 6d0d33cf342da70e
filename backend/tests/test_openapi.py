"""The OpenAPI document the web client is generated from must be the app's current one (``make client``)."""

from __future__ import annotations

import json
from pathlib import Path

from liftdesk.app import create_app
from liftdesk.core.config import Settings

COMMITTED = Path(__file__).resolve().parents[2] / "frontend" / "openapi.json"


def test_frontend_openapi_document_is_current() -> None:
    current = create_app(Settings(env="test")).openapi()
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    assert committed == json.loads(json.dumps(current)), "stale: run `make client` and commit the result"


def test_every_operation_has_a_unique_id() -> None:
    doc = create_app(Settings(env="test")).openapi()
    ids = [op["operationId"] for path in doc["paths"].values() for op in path.values()]
    assert len(ids) == len(set(ids))


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"].rsplit("/", 1)[-1]] if "$ref" in node else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def _unbounded_integer(schema: dict[str, object]) -> bool:
    options = [schema, *schema.get("anyOf", []), *schema.get("allOf", [])]  # type: ignore[list-item]
    if schema.get("type") == "array":
        options.append(schema.get("items", {}))
    return any(o.get("type") == "integer" for o in options) and not any("maximum" in o for o in options)


def test_every_integer_a_request_carries_is_bounded() -> None:
    """An integer without a documented maximum reaches a 32-bit column (PostgreSQL answers 500 past 2^31): every
    integer of a query or a body states its range, so the server refuses what the column cannot hold, naming the
    field."""
    doc = create_app(Settings(env="test")).openapi()
    components = doc["components"]["schemas"]
    unbounded: set[str] = set()
    todo: list[str] = []
    for path, operations in doc["paths"].items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if _unbounded_integer(parameter.get("schema", {})):
                    unbounded.add(f"{path} ?{parameter['name']}")
            todo += _refs(operation.get("requestBody", {})) + _refs(operation.get("parameters", []))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for field, schema in components[name].get("properties", {}).items():
            if _unbounded_integer(schema):
                unbounded.add(f"{name}.{field}")
        todo += _refs(components[name])
    assert seen, "no request schema found: the walk is broken"
    assert not unbounded, sorted(unbounded)
