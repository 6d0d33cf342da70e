"""What the system context's action modules share: path prefixes and answer types built at run time."""

from __future__ import annotations

from typing import Any

from pydantic.config import JsonDict

from liftdesk.core.ids import ids_pattern
from liftdesk.core.paging import Page

OAUTH = "/api/blade-auth/oauth"
SYS = "/api/blade-system"
FICS = "/api/blade-fics-report/fics"
USER = "/api/blade-user"
#: A query parameter of comma-separated ids (``crud.parse_ids`` reads up to 10,000; the document says 1,000).
IDS: JsonDict = {"pattern": ids_pattern(1000)}


def list_of(model: Any) -> Any:
    """``list[model]`` for a schema built at run time (the answer of an action)."""
    return list[model]


def page_of(model: Any) -> Any:
    """``Page[model]`` for a schema built at run time."""
    return Page[model]
