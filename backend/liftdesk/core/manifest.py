"""The manifest of every resource, published in the OpenAPI document as ``x-liftdesk-resources``.

For each resource: its operations (generated and declared actions) with path, method and kind; whether it is a
tree; the field that labels a row; its fields with type, limits, required flag and dictionary; the filters its
lists accept. The web app builds its forms and tables on it and keeps only presentation (order, width, which
columns show), so a field is declared once, here, in the resource's Pydantic schema.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, get_args

from fastapi import FastAPI
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from liftdesk.core.binding import LIMIT
from liftdesk.core.ids import ID_PATTERN, ID_RE
from liftdesk.core.paging import snake_to_camel
from liftdesk.core.registry import REGISTRY
from liftdesk.core.resource import Resource
from liftdesk.core.router import describe_permission
from liftdesk.core.schemas import trimmed_pattern

EXTENSION = "x-liftdesk-resources"
_LIMITS = ("maxLength", "minLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern")


def _type_of(spec: dict[str, Any]) -> tuple[str, bool]:
    """(JSON type, nullable) of a property, looking through ``anyOf [X, null]``."""
    options = spec.get("anyOf") or [spec]
    types = [o.get("type", "object") for o in options]
    nullable = "null" in types
    real = [o for o in options if o.get("type") != "null"]
    kind = real[0].get("type", "object") if real else "null"
    if kind == "string" and real and real[0].get("pattern") == ID_PATTERN:
        kind = "id"
    if kind == "string" and real and "example" in real[0] and str(real[0]["example"]).count(":") == 2:
        kind = "datetime"
    return kind, nullable


def _implied(kind: str, option: dict[str, Any]) -> bool:
    """Is the option's pattern one the field's type implies (a time's format, a list of ids, whitespace not counting
    toward the minimum length)? The web app checks those by the field's type: the manifest leaves them out."""
    pattern = option.get("pattern")
    if kind == "datetime" or (kind == "string" and str(pattern).startswith(f"^(?:{ID_RE}")):
        return True
    return "minLength" in option and pattern == trimmed_pattern(int(option["minLength"]))


def fields_of(res: Resource) -> dict[str, dict[str, Any]]:
    schema = res.input.model_json_schema(by_alias=True)
    # Required by the schema itself (what a form always needs), not by what the document adds for creating only.
    fields = res.input.model_fields
    required = {info.alias or name for name, info in fields.items() if info.is_required()}
    takes_none = {info.alias or name for name, info in fields.items() if type(None) in get_args(info.annotation)}
    out: dict[str, dict[str, Any]] = {}
    for name, spec in schema.get("properties", {}).items():
        if name == "id":
            continue
        kind, nullable = _type_of(spec)
        field: dict[str, Any] = {"type": kind, "required": name in required}
        options = spec.get("anyOf") or [spec]
        for option in (spec, *options):
            for limit in _LIMITS:
                if limit in option and not (limit == "pattern" and _implied(kind, option)):
                    field[limit] = option[limit]
            for extra, key in (("x-dict", "dict"), ("x-dict-biz", "dictBiz")):
                if extra in option:
                    field[key] = option[extra]
        if "default" in spec and spec["default"] is not None:
            field["default"] = spec["default"]
        if nullable or name in takes_none:  # as the schema takes it (the document may ask more of a creation)
            field["nullable"] = True
        out[name] = field
    return out


def resource_manifest(res: Resource) -> dict[str, Any]:
    ops = [{"path": res.path(op), "method": res.method(op), "kind": kind} for op, kind in res.ops.items()]
    actions = [
        {
            "path": a.path,
            "method": a.method,
            "kind": a.kind,
            "name": a.handler.__name__,
            "permission": describe_permission(a),
            **({"limit": a.openapi[LIMIT]} if a.openapi and LIMIT in a.openapi else {}),
        }
        # by path: the document does not change with the order in which the contexts' modules are imported
        for a in sorted(REGISTRY.actions, key=lambda a: (a.path, a.method))
        if a.resource is res
    ]
    return {
        "name": res.name,
        "code": res.code,
        "prefix": res.prefix,
        "tree": res.is_tree,
        "label": snake_to_camel(res.label),
        "viewMenus": list(res.reading_menus),
        # a subject without a model of its own: the table whose rows (and data rule) it reads
        **({"scopeVia": res.scope_via.__tablename__} if res.scope_via is not None else {}),
        "operations": ops,
        "actions": actions,
        "fields": fields_of(res) if res.schema_in is not None else {},
        "filters": sorted(snake_to_camel(c) for c in res.filterable),
    }


def manifest() -> dict[str, Any]:
    return {res.name: resource_manifest(res) for res in REGISTRY}


#: What a document describes beyond the routes (e.g. the live feed's messages): functions that add to it.
Addition = Callable[[dict[str, Any]], None]


def add_schemas(document: dict[str, Any], models: Sequence[type[BaseModel]]) -> None:
    """Put models in the document's components (for messages no route returns, such as the live feed's)."""
    _, definitions = models_json_schema(
        [(m, "serialization") for m in models], ref_template="#/components/schemas/{model}"
    )
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in definitions.get("$defs", {}).items():
        schemas.setdefault(name, schema)


def install(app: FastAPI, *additions: Addition) -> None:
    """Publish the manifest (and the ``additions``) in the app's OpenAPI document (built once, on first request,
    as FastAPI does)."""
    plain = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = plain()
            document[EXTENSION] = manifest()
            for add in additions:
                add(document)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
