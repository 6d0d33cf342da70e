"""Generic test data of the resources the code generator made (``liftdesk.generated``): built from each one's
submit schema, so that a generated resource is covered by the generic suite the moment it is installed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic.alias_generators import to_camel

from liftdesk.core.registry import REGISTRY
from liftdesk.core.resource import Resource
from liftdesk.core.schemas import TIME_PATTERN
from tests.conftest import Api

SAMPLE_TIME, CHANGED_TIME = "2025-01-31 08:00:00", "2025-02-01 09:30:00"


def _properties(res: Resource) -> dict[str, dict[str, Any]]:
    """camelCase field → its JSON schema (the non-null option of an optional one), ``id`` left out."""
    schema = res.input.model_json_schema(by_alias=True)
    out: dict[str, dict[str, Any]] = {}
    for name, spec in schema.get("properties", {}).items():
        options = [o for o in spec.get("anyOf", [spec]) if o.get("type") != "null"]
        if name != "id" and options:
            out[name] = options[0]
    return out


def _value(spec: dict[str, Any], text: str, changed: bool = False) -> Any:
    kind = spec.get("type")
    if kind == "string" and spec.get("pattern") == TIME_PATTERN:
        return CHANGED_TIME if changed else SAMPLE_TIME
    if kind == "string":
        return text[: spec.get("maxLength", 255)]
    if kind == "integer":
        return 8 if changed else 7
    if kind == "number":
        return 2.5 if changed else 1.5
    raise AssertionError(f"no sample for a field of type {kind}")


Factory = Callable[[Api, str], Awaitable[dict[str, Any]]]


def case_of(res: Resource) -> tuple[Factory, tuple[str, Any], str]:
    """(what to create, one change, the filter field): every field given, the label filtered, another changed."""
    props = _properties(res)
    label = to_camel(res.label)

    async def create(api: Api, tenant: str) -> dict[str, Any]:
        return {name: _value(spec, api.unique("gen")) for name, spec in props.items()}

    other = next(name for name in props if name != label)
    return create, (other, _value(props[other], "changed", changed=True)), label


def generated_cases() -> dict[str, tuple[Factory, tuple[str, Any], str]]:
    """Cases (``data.Case`` arguments) of the registered resources made by the code generator."""
    return {
        res.name: case_of(res)
        for res in REGISTRY
        if res.model is not None and res.model.__module__.startswith("liftdesk.generated.")
    }
