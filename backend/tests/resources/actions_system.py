"""Generic action cases of the system context (see actions.py for the format)."""

from __future__ import annotations

from tests.resources.actions import ActionCase

CASES: dict[str, ActionCase] = {}

EXEMPTIONS: dict[str, str] = {}
