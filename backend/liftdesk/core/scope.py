"""The ONE choke point: tenant isolation, soft delete and data scope for every query, generated or hand-written.

A handler asks ``Scope.of(...)`` once and then builds every query from ``scope.select(Model)`` or
``scope.apply(stmt, Model)``; rows it creates get their tenant and audit stamps from ``scope.stamp``. A query
built without it is a bug (``tests/test_unscoped_queries.py`` looks for them).

Every model is read through the data rule of its OWN resource: ``scope.select(Dept)`` applies the caller's rule of
the ``dept`` resource, ``scope.select(Vehicle)`` the one of ``vehicle``, whatever resource the request is about
(``REGISTRY.code_of`` maps a model to its resource's code). A model of no resource, or one whose resource has no
rule for the caller, gets tenant and soft delete only. The caller's rules, for every resource code, are read once
per scope (one query) when it is built.

A rule that cannot be evaluated (its column is not one of the model's) admits no row.

Data scope types (dict ``data_scope_type``): 1 all, 2 own rows (``create_user``), 3 own organisation,
4 own organisation and its descendants, 5 custom. BladeX's type 5 is a raw SQL fragment; ours is a list of
organisation ids in ``scope_value`` (comma separated), so that no SQL ever comes from a table a tenant can edit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, false, literal, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.access import access
from liftdesk.core.db import AuditMixin, Base, SoftDeleteMixin, TenantMixin, table_columns, utcnow
from liftdesk.core.ids import ids_of
from liftdesk.core.registry import REGISTRY
from liftdesk.core.security import Principal

M = TypeVar("M", bound=Base)
S = TypeVar("S", bound="Select[*tuple[Any, ...]]")


@dataclass(frozen=True)
class DataRule:
    scope_type: int
    column: str = "create_dept"
    value: str | None = None


def organisation_branch(tenant_id: str, *org_ids: int) -> Select[Any]:
    """Ids of the organisations ``org_ids`` and of every organisation under them, in ``tenant_id``, not deleted: the
    one definition of "this organisation and the ones under it" (data scope type 4, organisation filters), kept by
    the context that owns organisations (``core.access``)."""
    return access().organisation_branch(tenant_id, *org_ids)


@dataclass
class Scope:
    principal: Principal
    tenant_id: str = ""
    dept_ids: tuple[int, ...] = ()
    # The caller's data rules by resource code (empty: administrators, callers without rules).
    rules: Mapping[str, DataRule] = field(default_factory=dict)
    # The resource the request is about (``rule`` is its rule); every model still gets its own resource's rule.
    resource_code: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    async def of(
        cls,
        session: AsyncSession,
        principal: Principal,
        resource_code: str | None = None,
        tenant_id: str | None = None,
    ) -> Scope:
        """Build the scope of one request. ``tenant_id`` lets the platform administrator look at another tenant.
        ``resource_code`` names the request's resource (``rule``); it does not choose the rules applied."""
        tenant = principal.tenant_id
        if tenant_id and principal.is_administrator:
            tenant = tenant_id
        rules: Mapping[str, DataRule] = {}
        if not principal.is_admin and principal.role_ids:
            rules = await load_rules(session, principal.role_ids)
        return cls(
            principal=principal,
            tenant_id=tenant,
            dept_ids=principal.dept_ids,
            rules=rules,
            resource_code=resource_code,
        )

    @property
    def rule(self) -> DataRule | None:
        """The rule of the request's resource (``resource_code``)."""
        return self.rules.get(self.resource_code) if self.resource_code else None

    def rule_for(self, model: type[Base]) -> DataRule | None:
        """The caller's data rule of ``model``'s own resource, if any."""
        code = REGISTRY.code_of(model)
        return self.rules.get(code) if code is not None else None

    def narrows(self, model: type[Base]) -> bool:
        """Does the caller's data rule hide some of ``model``'s rows of the tenant?"""
        rule = self.rule_for(model)
        return rule is not None and rule.scope_type != 1

    def where(self, model: type[Base], *, data: bool = True) -> list[ColumnElement[bool]]:
        """Tenant, soft delete and (``data``) the data rule of ``model``'s resource. ``data=False`` is for names of
        referenced rows (labels beside rows the caller may read), never for the rows a caller reads or writes."""
        out: list[ColumnElement[bool]] = []
        if issubclass(model, TenantMixin):
            out.append(model.tenant_id == self.tenant_id)
        if issubclass(model, SoftDeleteMixin):
            out.append(model.is_deleted == 0)
        if data:
            rule = self.rule_for(model)
            if rule is not None and rule.scope_type != 1:
                columns = table_columns(model)
                out.append(self._data_clause(rule, lambda name: getattr(model, name) if name in columns else None))
        return out

    def admits(self, obj: Base) -> ColumnElement[bool]:
        """The data rule of the row's model evaluated on the row's own values (stored or not yet), as a constant SQL
        condition: would the caller see this row once it is written? (e.g. a row placed in an organisation)."""
        model = type(obj)
        rule = self.rule_for(model)
        if rule is None or rule.scope_type == 1:
            return true()
        columns = table_columns(model)

        def value(name: str) -> Any:
            if name not in columns:
                return None
            return literal(getattr(obj, name), columns[name].type)

        return self._data_clause(rule, value)

    def _data_clause(self, rule: DataRule, column: Callable[[str], Any]) -> ColumnElement[bool]:
        if rule.scope_type == 1:
            return true()
        if rule.scope_type == 2:
            own = column("create_user")
            return own == self.principal.user_id if own is not None else false()
        col = column(rule.column)
        if col is None:
            # A rule on a column the model lacks cannot say which rows it admits: it admits none (fail closed). The
            # data scope form refuses such a rule and the start-up check reports stored ones
            # (``Registry.rule_problem``).
            return false()
        if rule.scope_type == 3:
            return col.in_(self.dept_ids) if self.dept_ids else false()
        if rule.scope_type == 4:
            if not self.dept_ids:
                return false()
            return or_(col.in_(self.dept_ids), col.in_(organisation_branch(self.tenant_id, *self.dept_ids)))
        if rule.scope_type == 5:
            ids = set(ids_of(rule.value))
            return col.in_(ids) if ids else false()
        return false()  # a type this code does not know admits nothing

    def in_branch(self, column: Any, org_id: int | None) -> list[ColumnElement[bool]]:
        """The organisation filter: ``column`` (an organisation id column) is the organisation ``org_id`` or one
        under it, in the caller's tenant (:func:`organisation_branch`); no clause without one. Every call's
        organisation filter (``mechanismId``, the home page's ``deptId``) is this clause."""
        if org_id is None:
            return []
        return [column.in_(organisation_branch(self.tenant_id, org_id))]

    def select(self, model: type[M], *, data: bool = True) -> Select[M]:
        return select(model).where(*self.where(model, data=data))

    def apply(self, stmt: S, *models: type[Base], data: bool = True) -> S:
        for model in models:
            stmt = stmt.where(*self.where(model, data=data))
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


async def load_rules(session: AsyncSession, role_ids: tuple[int, ...]) -> dict[str, DataRule]:
    """The data rules granted to ``role_ids`` (role_scope category 1), by resource code, in one query. Several
    roles with rules on one resource: the widest grant wins (type 1 all is the widest)."""
    rules: dict[str, DataRule] = {}
    for row in await access().data_rules(session, role_ids):
        if row.resource_code not in rules:
            rules[row.resource_code] = DataRule(row.scope_type, row.column, row.value)
    return rules
