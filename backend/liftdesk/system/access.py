"""The system context's side of ``core.access``: roles, menus, scopes and organisations as core needs them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import ColumnElement, Select, false, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.access import RuleRow
from liftdesk.system.models import Dept, Menu, RoleMenu, RoleScope, ScopeApi, ScopeData

#: ``blade_role_scope.scope_category``: 1 data scope, 2 API scope.
DATA_SCOPE, API_SCOPE = 1, 2


class SystemAccess:
    async def granted_codes(self, session: AsyncSession, role_ids: Iterable[int]) -> set[str]:
        stmt = (
            select(Menu.code)
            .join(RoleMenu, RoleMenu.menu_id == Menu.id)
            .where(RoleMenu.role_id.in_(list(role_ids)), Menu.is_deleted == 0)
        )
        return set((await session.execute(stmt)).scalars().all())

    async def data_rules(self, session: AsyncSession, role_ids: Iterable[int]) -> list[RuleRow]:
        stmt = (
            select(ScopeData)
            .join(RoleScope, RoleScope.scope_id == ScopeData.id)
            .where(
                RoleScope.scope_category == DATA_SCOPE,
                RoleScope.role_id.in_(list(role_ids)),
                ScopeData.is_deleted == 0,
            )
            .order_by(ScopeData.resource_code, ScopeData.scope_type, ScopeData.id)
        )
        return [
            RuleRow(row.resource_code, row.scope_type, row.scope_column or "create_dept", row.scope_value)
            for row in (await session.execute(stmt)).scalars()
        ]

    async def api_paths(
        self, session: AsyncSession, role_ids: Iterable[int], codes: Iterable[str]
    ) -> dict[str, list[str | None]]:
        stmt = (
            select(ScopeApi.resource_code, ScopeApi.scope_path)
            .join(RoleScope, RoleScope.scope_id == ScopeApi.id)
            .where(
                RoleScope.scope_category == API_SCOPE,
                RoleScope.role_id.in_(list(role_ids)),
                ScopeApi.resource_code.in_(list(codes)),
                ScopeApi.is_deleted == 0,
            )
        )
        out: dict[str, list[str | None]] = {}
        for code, path in (await session.execute(stmt)).all():
            out.setdefault(code, []).append(path)
        return out

    def organisation_branch(self, tenant_id: str, *org_ids: int) -> Select[Any]:
        """``ancestors`` is the comma path of a row's parents (``0,1,12``): a row is under 12 when its path ends
        with ``,12`` or holds ``,12,`` (so that 112 and 120 are not)."""
        conds: list[ColumnElement[bool]] = []
        for given in org_ids:
            org = int(given)  # an id, never text: it is spliced into a LIKE pattern
            conds += [Dept.id == org, Dept.ancestors.like(f"%,{org}"), Dept.ancestors.like(f"%,{org},%")]
        under = or_(*conds) if conds else false()
        # never correlated with an enclosing query of organisations: it is a set of ids of its own
        return select(Dept.id).where(Dept.tenant_id == tenant_id, Dept.is_deleted == 0, under).correlate(None)
