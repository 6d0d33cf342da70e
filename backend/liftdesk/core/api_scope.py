"""API scopes (BladeX ``blade_scope_api``, granted to roles through ``blade_role_scope`` with ``scope_category`` 2).

An API scope names a resource code and a path: it lists an interface a role MAY call for that resource. When the
roles of a caller who is not an administrator have been granted API scopes for a resource, the caller may call only
the paths of that resource that one of those scopes covers (403 otherwise); the paths of resources for which the
roles hold no API scope are not narrowed (as in BladeX, where ``permissionAll()`` guards the interfaces that declare
it and a role's other interfaces stay open).

Coverage follows BladeX's ``permissionAll()``: the request path (without its query) **contains** the granted path.
A ``*`` in a granted path stands for any characters but ``/`` and a ``**`` for any characters, so that
``/api/blade-fics-report/fics/carInfo/**`` covers every call under ``carInfo/``. An empty path covers nothing
(BladeX's ``uri.contains("")`` would let such a row grant everything).

Which resource a path belongs to is read from the registry: the generated operations of each resource and the
actions declared on it; a route declared by hand belongs to the resource(s) with the longest prefix it falls under.
Actions every signed-in user may call (``SIGNED_IN``: signing out, one's own menus and password) belong to none.

Enforced by ``core.deps.get_principal``, the dependency every route with a token goes through (generated
operations, actions and hand-written routes alike), once per request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.access import access
from liftdesk.core.envelope import Forbidden
from liftdesk.core.i18n import t
from liftdesk.core.registry import REGISTRY
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.security import Principal


@lru_cache(maxsize=1024)
def _pattern(scope_path: str) -> re.Pattern[str]:
    escaped = re.escape(scope_path).replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
    return re.compile(escaped)


def covers(scope_path: str | None, path: str) -> bool:
    """Does a granted ``scope_path`` cover the request ``path``? (BladeX: the path contains it; ``*`` / ``**``.)"""
    granted = (scope_path or "").strip()
    if not granted:
        return False
    if "*" not in granted:
        return granted in path
    return _pattern(granted).search(path) is not None


class _Index:
    """Route path (as declared, ``{id}`` included) → codes of the resources it belongs to."""

    def __init__(self) -> None:
        self.exact: dict[str, frozenset[str]] = {}
        self.prefixes: dict[str, set[str]] = {}
        for res in REGISTRY:
            for op in res.ops:
                self.exact[res.path(op)] = frozenset({res.code})
            self.prefixes.setdefault(res.prefix.rstrip("/"), set()).add(res.code)
        for action in REGISTRY.actions:
            # Calls every signed-in user may make about themselves (sign out, their menus, their password) are no
            # resource's interface: an API scope does not close them.
            mine = action.permission == SIGNED_IN
            self.exact[action.path] = frozenset() if mine else frozenset({action.resource.code})
        self.frozen = REGISTRY.frozen

    def codes(self, route_path: str) -> frozenset[str]:
        found = self.exact.get(route_path)
        if found is not None:
            return found
        best = ""
        for prefix in self.prefixes:
            if len(prefix) > len(best) and (route_path == prefix or route_path.startswith(prefix + "/")):
                best = prefix
        # Several resources sharing the prefix (vehicles and fences under ``carInfo``): the path is each one's.
        return frozenset(self.prefixes[best]) if best else frozenset()


_index: _Index | None = None


def resource_codes(route_path: str) -> frozenset[str]:
    """Codes of the resources a route (its declared path) belongs to; empty: no resource's."""
    global _index
    if _index is None or not _index.frozen:
        index = _Index()
        if not index.frozen:  # resources are still registering (a script, a unit test): nothing to keep
            return index.codes(route_path)
        _index = index
    return _index.codes(route_path)


async def granted_paths(
    session: AsyncSession, role_ids: Iterable[int], codes: Iterable[str]
) -> dict[str, list[str | None]]:
    """The API scope paths granted to ``role_ids`` for each of ``codes`` (codes without a grant are absent)."""
    return await access().api_paths(session, role_ids, codes)


async def check(session: AsyncSession, principal: Principal, request: Request) -> None:
    """403 when the caller's roles hold API scopes for the resource of this request and none covers its path."""
    if principal.is_admin or not principal.role_ids:
        return
    route = request.scope.get("route")
    path = request.url.path
    codes = resource_codes(getattr(route, "path", None) or path)
    if not codes:
        return
    granted = await granted_paths(session, principal.role_ids, codes)
    for paths in granted.values():
        if not any(covers(p, path) for p in paths):
            raise Forbidden(t("forbidden"), 403)
