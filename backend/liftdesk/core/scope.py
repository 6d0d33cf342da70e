"""The ONE choke point: tenant isolation, soft delete and data scope for every query, generated or hand-written.

A handler asks ``Scope.of(...)`` once and then builds every query from ``scope.select(Model)`` or
``scope.apply(stmt, Model)``; rows it creates get their tenant and audit stamps from ``scope.stamp``. A query
built without it is a bug.

Data scope types (dict ``data_scope_type``): 1 all, 2 own rows (``create_user``), 3 own organisation,
4 own organisation and its descendants, 5 custom. BladeX's type 5 is a raw SQL fragment; ours is a list of
organisation ids in ``scope_value`` (comma separated), so that no SQL ever comes from a table a tenant can edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, false, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.db import AuditMixin, Base, SoftDeleteMixin, TenantMixin, utcnow
from liftdesk.core.ids import ids_of
from liftdesk.core.security import Principal

M = TypeVar("M", bound=Base)


@dataclass(frozen=True)
class DataRule:
    scope_type: int
    column: str = "create_dept"
    value: str | None = None


@dataclass
class Scope:
    principal: Principal
    rule: DataRule | None = None
    dept_ids: tuple[int, ...] = ()
    dept_tree_ids: tuple[int, ...] = ()
    tenant_id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    async def of(
        cls,
        session: AsyncSession,
        principal: Principal,
        resource_code: str | None = None,
        tenant_id: str | None = None,
    ) -> Scope:
        """Build the scope of one request. ``tenant_id`` lets the platform administrator look at another tenant."""
        tenant = principal.tenant_id
        if tenant_id and principal.is_administrator:
            tenant = tenant_id
        scope = cls(principal=principal, tenant_id=tenant, dept_ids=principal.dept_ids)
        if resource_code and not principal.is_admin and principal.role_ids:
            scope.rule = await _load_rule(session, principal, resource_code)
            if scope.rule is not None and scope.rule.scope_type == 4:
                scope.dept_tree_ids = await _descendants(session, principal.dept_ids)
        return scope

    def where(self, model: type[Base]) -> list[ColumnElement[bool]]:
        out: list[ColumnElement[bool]] = []
        if issubclass(model, TenantMixin):
            out.append(model.tenant_id == self.tenant_id)
        if issubclass(model, SoftDeleteMixin):
            out.append(model.is_deleted == 0)
        rule = self.rule
        if rule is not None and rule.scope_type != 1:
            out.append(self._data_clause(model, rule))
        return out

    def _data_clause(self, model: type[Base], rule: DataRule) -> ColumnElement[bool]:
        col = getattr(model, rule.column, None)
        if col is None:
            return true()
        if rule.scope_type == 2:
            own = getattr(model, "create_user", None)
            return own == self.principal.user_id if own is not None else false()
        if rule.scope_type == 3:
            return col.in_(self.dept_ids) if self.dept_ids else false()
        if rule.scope_type == 4:
            ids = set(self.dept_ids) | set(self.dept_tree_ids)
            return col.in_(ids) if ids else false()
        if rule.scope_type == 5:
            ids = set(ids_of(rule.value))
            return col.in_(ids) if ids else false()
        return true()

    def select(self, model: type[M]) -> Select[M]:
        return select(model).where(*self.where(model))

    def apply(self, stmt: Select[Any], *models: type[Base]) -> Select[Any]:
        for model in models:
            stmt = stmt.where(*self.where(model))
        return stmt

    def stamp(self, obj: Base, *, creating: bool) -> None:
        """Tenant and audit columns of a row written through this scope."""
        if isinstance(obj, TenantMixin) and creating:
            obj.tenant_id = self.tenant_id
        if isinstance(obj, AuditMixin):
            now = utcnow()
            if creating:
                obj.create_user = self.principal.user_id
                obj.create_dept = self.principal.dept_id
                obj.create_time = now
            obj.update_user = self.principal.user_id
            obj.update_time = now


async def _load_rule(session: AsyncSession, principal: Principal, resource_code: str) -> DataRule | None:
    from liftdesk.system.models import RoleScope, ScopeData

    stmt = (
        select(ScopeData)
        .join(RoleScope, RoleScope.scope_id == ScopeData.id)
        .where(
            RoleScope.scope_category == 1,
            RoleScope.role_id.in_(principal.role_ids),
            ScopeData.resource_code == resource_code,
            ScopeData.is_deleted == 0,
        )
        .order_by(ScopeData.scope_type)
    )
    rows = (await session.execute(stmt)).scalars().all()
    if not rows:
        return None
    # Several roles: the widest grant wins (type 1 all is the widest).
    best = rows[0]
    return DataRule(best.scope_type, best.scope_column or "create_dept", best.scope_value)


async def _descendants(session: AsyncSession, dept_ids: tuple[int, ...]) -> tuple[int, ...]:
    from liftdesk.system.models import Dept

    if not dept_ids:
        return ()
    conds = [Dept.ancestors.like(f"%{d}%") for d in dept_ids]
    rows = (await session.execute(select(Dept.id).where(or_(*conds), Dept.is_deleted == 0))).scalars().all()
    return tuple(rows)
