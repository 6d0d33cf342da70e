"""The port through which ``core`` learns who may do what: granted buttons and menus, data rules, API scope paths,
and the organisation tree. ``core`` imports no context; the system context, which owns roles, menus, scopes and
organisations, implements this port (``system/access.py``) and declares it in its ``Context``; the registry's build
installs it (``core.registry.build``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class RuleRow:
    """A data rule granted to a role: which resource, which type (1-5), on which column, with which value."""

    resource_code: str
    scope_type: int
    column: str
    value: str | None


class Access(Protocol):
    async def granted_codes(self, session: AsyncSession, role_ids: Iterable[int]) -> set[str]:
        """Codes of the menus and buttons granted to the roles."""

    async def data_rules(self, session: AsyncSession, role_ids: Iterable[int]) -> list[RuleRow]:
        """The data rules granted to the roles, widest first within each resource."""

    async def api_paths(
        self, session: AsyncSession, role_ids: Iterable[int], codes: Iterable[str]
    ) -> dict[str, list[str | None]]:
        """The API scope paths granted to the roles, by resource code (codes without a grant are absent)."""

    def organisation_branch(self, tenant_id: str, *org_ids: int) -> Select[Any]:
        """Ids of the organisations and of every organisation under them, in the tenant, not deleted."""


_installed: Access | None = None


def install(access: Access) -> None:
    global _installed
    _installed = access


def access() -> Access:
    if _installed is None:
        raise RuntimeError("no access port installed: load the system context first (liftdesk.app.load_contexts)")
    return _installed
