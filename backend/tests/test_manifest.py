"""The resource manifest in the OpenAPI document (``x-liftdesk-resources``): what the web app builds forms on."""

from __future__ import annotations

from typing import Any

from liftdesk.app import create_app
from liftdesk.core.manifest import EXTENSION
from liftdesk.core.registry import REGISTRY


def _document() -> dict[str, Any]:
    return create_app().openapi()


def test_every_resource_and_operation_is_in_the_manifest() -> None:
    doc = _document()
    manifest = doc[EXTENSION]
    assert set(manifest) == {res.name for res in REGISTRY}
    for name, entry in manifest.items():
        for op in entry["operations"] + entry["actions"]:
            assert op["method"].lower() in doc["paths"][op["path"]], (name, op)
        assert entry["fields"], f"{name} has no fields"
    declared = {(a.method, a.path) for a in REGISTRY.actions}
    listed = {(op["method"], op["path"]) for entry in manifest.values() for op in entry["actions"]}
    assert declared == listed


def test_fields_carry_their_limits_and_dictionaries() -> None:
    manifest = _document()[EXTENSION]
    car = manifest["vehicle"]["fields"]
    assert car["carNo"] == {"type": "string", "required": True, "maxLength": 64, "minLength": 1}
    assert car["ratedLoadKg"]["minimum"] == 0 and car["ratedLoadKg"]["maximum"] == 100_000
    assert car["carType"]["dict"] == "car_type" and car["carType"]["default"] == 3
    assert car["deviceNumber"]["pattern"] == "^[0-9]{1,20}$"
    assert car["mechanismId"]["type"] == "id" and car["factoryDate"]["type"] == "datetime"
    assert "carNo" in manifest["vehicle"]["filters"] and "password" not in manifest["user"]["filters"]
    assert manifest["user"]["fields"]["sex"]["dict"] == "sex"
    assert manifest["user"]["fields"]["roleId"]["required"] is True
    assert manifest["dept"]["tree"] is True and manifest["dept"]["label"] == "deptName"
    assert manifest["vehicle"]["tree"] is False and manifest["vehicle"]["label"] == "carNo"
