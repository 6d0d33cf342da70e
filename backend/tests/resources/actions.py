"""Test data of the generic action suite (test_actions.py): for every declared action, how to call it on a row of
one tenant. Each context keeps its cases in its own module (``actions_fleet.py``, ``actions_system.py``); this
module holds the format and joins them.

The suite calls every case as another tenant's administrator (the answer must be a refusal, or a success that
does not mention the row, and the row's ``probe`` must read the same afterwards) and then as the owner's
administrator (the same call must succeed: a case whose call is refused anyway proves nothing).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from tests.conftest import Api


@dataclass
class Call:
    """One call of an action, made for a row of the tenant the case prepared it in."""

    params: dict[str, Any] = field(default_factory=dict)
    json: Any = None
    ident: str | None = None  # the path id (``.../sendGetDeviceConfig/{id}``)
    #: Multipart files (``{"file": (name, bytes, type)}``) for an upload.
    files: dict[str, Any] | None = None
    #: Form fields (``application/x-www-form-urlencoded``) of an action that reads its body from a form.
    form: dict[str, Any] | None = None
    #: A text the answer of another tenant must not contain (the row's id, its name).
    marker: str | None = None
    #: A read (method, path, params) of the owner's whose answer another tenant's call must leave unchanged.
    probe: tuple[str, str, dict[str, Any]] | None = None


Prepare = Callable[[Api, str], Awaitable[Call]]


@dataclass(frozen=True)
class ActionCase:
    prepare: Prepare
    #: False for platform-wide actions: another tenant's administrator is refused outright (403).
    tenant_scoped: bool = True
    #: The rows ``prepare`` makes are placed in the organisation ``PLACE_IN`` names (vehicles, and what hangs on
    #: them): the suite checks that a user who sees their own organisation only is served for rows of theirs and
    #: refused (or not told) for the others.
    data_scope: bool = False
    #: Undoes what the owner's successful call leaves that other tests would meet (an enabled object store sends every
    #: later upload of the tenant to it): run after the other-tenant test, whatever its outcome.
    cleanup: Callable[[Api, str, Call], Awaitable[None]] | None = None
    #: The data-scope case's user: the resource whose rule (own organisation) it gets, and the menus and buttons
    #: its role is granted besides the vehicle buttons (default: the vehicles' rule, the vehicle and command menus).
    scope_resource: str = "vehicle"
    scope_menus: tuple[str, ...] = ("vehicle", "command_log")
    scope_buttons: tuple[str, ...] = ()


#: The organisation ``prepare`` places its rows in (None: the caller's own), for the data-scope case.
PLACE_IN: ContextVar[str | None] = ContextVar("PLACE_IN", default=None)


def key(method: str, path: str) -> str:
    return f"{method} {path}"


def cases() -> tuple[dict[str, ActionCase], dict[str, str]]:
    """Every context's cases and exemptions (an exemption names the action and says why it has no case)."""
    from tests.resources import (
        actions_codegen,
        actions_drivers,
        actions_fleet,
        actions_papers,
        actions_reporting,
        actions_shell,
        actions_system,
        actions_transfer,
        actions_vision,
    )

    out: dict[str, ActionCase] = {}
    exempt: dict[str, str] = {}
    modules = (actions_fleet, actions_reporting, actions_system, actions_transfer, actions_papers, actions_drivers)
    for module in (*modules, actions_vision, actions_shell, actions_codegen):
        clash = (set(out) | set(exempt)) & (set(module.CASES) | set(module.EXEMPTIONS))
        assert not clash, f"action cases declared twice: {sorted(clash)}"
        out.update(module.CASES)
        exempt.update(module.EXEMPTIONS)
    return out, exempt
