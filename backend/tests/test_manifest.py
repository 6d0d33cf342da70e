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
        if REGISTRY[name].model is not None:
            assert entry["fields"], f"{name} has no fields"
        else:  # a subject: it reads another resource's rows (their data rule), or nothing of a tenant's
            assert not entry["operations"] and not entry["fields"], name
            assert entry.get("scopeVia") or entry["viewMenus"] == ["*"], f"{name} says what it reads"
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


#: The most actions one resource may hold: past a few dozen, a resource holds several subjects (a role could not be
#: granted one of them without the others).
MAX_ACTIONS = 40


def test_no_resource_holds_more_than_forty_actions() -> None:
    manifest = _document()[EXTENSION]
    sizes = {name: len(entry["actions"]) for name, entry in manifest.items()}
    assert max(sizes.values()) <= MAX_ACTIONS, sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    assert sizes["vehicle"] < 10, "the vehicle register is the vehicles' own calls, not every subject about them"
    subjects = {name for name, entry in manifest.items() if entry.get("scopeVia") == "fics_car_info"}
    for subject in ("live", "track", "vehicle_detail", "car_set", "home", "alarm", "efficiency_report"):
        assert subject in subjects, subject
