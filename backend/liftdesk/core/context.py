"""``Ctx``: what one request works with (its session, its caller, the scope every query goes through, the resource
it is about), and the permission check every call makes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.access import access
from liftdesk.core.envelope import Forbidden
from liftdesk.core.i18n import t
from liftdesk.core.resource import OPEN, SIGNED_IN, Resource
from liftdesk.core.scope import Scope
from liftdesk.core.security import Principal

if TYPE_CHECKING:
    from liftdesk.core.services import Services

#: Work to do once a request's transaction has committed, given the app's services.
AfterCommit = Callable[["Services"], Awaitable[None]]


@dataclass
class Ctx:
    """What one request works with: its session, its caller and the scope every query goes through."""

    session: AsyncSession
    principal: Principal
    scope: Scope
    resource: Resource
    params: Mapping[str, str] = field(default_factory=dict)
    _codes: set[str] | None = None
    # Bus messages to publish once the transaction has committed (cache invalidation, live updates).
    outbox: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # Work to do once the transaction has committed, given the app's services (the command service and friends),
    # e.g. queue terminal commands for what was saved. Outside a request nothing runs them.
    after_commit: list[AfterCommit] = field(default_factory=list)

    @classmethod
    async def build(
        cls, session: AsyncSession, principal: Principal, resource: Resource, params: Mapping[str, str] | None = None
    ) -> Ctx:
        params = params or {}
        tenant = params.get("tenantId") if resource.is_tenant else None
        scope = await Scope.of(session, principal, resource.code, tenant_id=tenant)
        return cls(session=session, principal=principal, scope=scope, resource=resource, params=params)

    def about(self, resource: Resource) -> Ctx:
        """The same request about another resource (its permissions and hooks), sharing the session, the caller,
        the scope (every model keeps its own data rule) and the work to do after the commit."""
        return Ctx(
            session=self.session,
            principal=self.principal,
            scope=self.scope,
            resource=resource,
            params=self.params,
            _codes=self._codes,
            outbox=self.outbox,
            after_commit=self.after_commit,
        )

    async def granted_codes(self) -> set[str]:
        if self._codes is None:
            self._codes = await access().granted_codes(self.session, self.principal.role_ids)
        return self._codes

    async def require(self, action: str | tuple[str, ...]) -> None:
        """``action`` is add / edit / delete / view, ``*`` (every signed-in user) or a button code of its own;
        administrators pass, other roles need the button code to write and one of the resource's menus
        (``Resource.reading_menus``) to read. A tuple names alternatives: any one of them suffices, and a caller
        holding none gets the refusal of the last."""
        if isinstance(action, tuple):
            for alternative in action[:-1]:
                try:
                    await self.require(alternative)
                except Forbidden:
                    continue
                return
            action = action[-1]
        res, me = self.resource, self.principal
        if action == SIGNED_IN:
            return
        roles = res.read_roles if action == "view" else res.write_roles
        if roles is not None and not any(me.has_role(r) for r in roles):
            raise Forbidden(t("forbidden"), 403)
        # Tenant administrators (role alias ``admin``) act on everything their tenant owns, as BladeX's
        # HAS_ROLE_ADMIN guard lets them; other roles need the button code granted through their menus.
        if me.is_admin:
            return
        if action == "view":
            menus = res.reading_menus
            if menus == OPEN or set(menus) & await self.granted_codes():
                return
            raise Forbidden(t("forbidden"), 403)
        code = f"{res.code}_{action}" if action in ("add", "edit", "delete") else action
        if code not in await self.granted_codes():
            raise Forbidden(t("forbidden"), 403)
