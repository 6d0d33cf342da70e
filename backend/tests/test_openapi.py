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
