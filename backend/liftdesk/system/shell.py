"""The shell's helpers (issue 12 part 7): where the caller is, the code's enumerations as dictionaries, the columns
each user hides per table and the pages they visit.

- ``common/v3/getCountry`` / ``v3/ip``: the caller's address is the connection's peer (``request.client``): the
  server runs uvicorn with ``proxy_headers=False`` and trusts no ``X-Forwarded-For``, so behind a proxy the answer is
  the proxy's address. The country comes from geoip2fast's embedded database (IPv4 and IPv6, loaded once, ~0.1 s);
  an address that is private, loopback, link-local, reserved or not an address at all is the installation's own
  network: the configured default country (``LIFTDESK_DEFAULT_COUNTRY``, CN). ``isChina``: the country is CN
  (mainland China; Hong Kong, Macao and Taiwan have codes of their own in the database).
- ``common/getEnumToDictList``: the enumerations fixed in code (not editable dictionaries), as BladeX dictionary
  entries ``{dictKey, dictValue}`` in the caller's language: ``message_type`` (the kinds of in-site message the
  system produces, system/messages.py), ``message_send_type`` (how a message type is sent) and ``page_behavior``
  (what a page log records). The tenant's business dictionaries of the same codes are copies of the first two that
  administrators may relabel; these are the values the code itself acts on.
- ``showHide/find`` / ``options``: per tenant, user and table key (a list of the web app), the columns the user hid;
  a column not named is shown, so a column added later appears. Each user reads and writes their own only.
- ``pageLog/save``: the web app sends the pages its user opens (batched, up to 50 at once); ``page`` lists them,
  ``getPageDict`` names the pages (the menus with a route), ``getBehaviorCnt`` counts visits and distinct visitors
  per page and behaviour over a period (at most 366 days). Read by administrators of the tenant.
- ``common/getMechanismParamList``: the organisations ("mechanisms", 机构, as rows elsewhere name them in
  ``mechanismId`` / ``mechanismName``) the caller may see, flat for select boxes, in the order of the tree (a parent
  before its children, siblings by sort). Read as the organisation tree is (every signed-in user; the tenant and the
  caller's data rule of the organisations), so a user who sees one branch gets that branch: its top is a root of the
  list, and ``pathName`` names only organisations the caller sees.
"""

from __future__ import annotations

import ipaddress
import json
from datetime import datetime
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import Field

from liftdesk.core import crud
from liftdesk.core.i18n import t
from liftdesk.core.resource import Hooks
from liftdesk.core.schemas import Id, Schema, Time
from liftdesk.system import models as m

#: The behaviours a page log records (dictionary ``page_behavior``): the web app records page visits.
BEHAVIORS = ("visit",)
#: The longest period ``getBehaviorCnt`` counts over.
MAX_PERIOD_DAYS = 366
#: The most page visits one ``pageLog/save`` takes.
MAX_BATCH = 50


# ---------------------------------------------------------------- where the caller is


class Country(Schema):
    ip: str = Field(description="the caller's address as the server sees it")
    country_code: str = Field(description="ISO 3166-1 alpha-2; empty when the database does not know the address")
    country_name: str = Field(description="the country's English name")
    is_china: bool = Field(description="the country is CN")
    local: bool = Field(description="a private or local address: the country is the installation's default")


@cache
def _geoip() -> Any:
    from geoip2fast import GeoIP2Fast

    return GeoIP2Fast(geoip2fast_data_file="geoip2fast-ipv6.dat.gz")


@cache
def _country_names() -> dict[str, str]:
    import geoip2fast.geoip2fast as data

    _geoip()  # loads the names too
    return dict(entry.split(":", 1) for entry in data.mainListNamesCountry if len(entry.split(":", 1)[0]) == 2)


def _is_local(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return True  # no address (a test client, a socket): the installation's own side
    return not ip.is_global


def country_of(address: str, default_country: str) -> Country:
    if _is_local(address):
        code, local = default_country.upper(), True
    else:
        found = _geoip().lookup(address)
        code = found.country_code if len(found.country_code or "") == 2 and not found.is_private else ""
        local = False
    return Country(
        ip=address,
        country_code=code,
        country_name=_country_names().get(code, ""),
        is_china=code == "CN",
        local=local,
    )


# ---------------------------------------------------------------- the code's enumerations


class DictEntry(Schema):
    dict_key: str
    dict_value: str


class EnumDict(Schema):
    code: str = Field(description="the enumeration")
    items: list[DictEntry]


EnumCode = Literal["message_type", "message_send_type", "page_behavior"]


class EnumQuery(Schema):
    code: EnumCode | None = Field(default=None, description="one enumeration only (default: every one)")


def enum_dicts(code: str | None) -> list[EnumDict]:
    from liftdesk.system.messages import MESSAGE_TYPES, SEND_TYPES

    enums: dict[str, list[str]] = {
        "message_type": [k for k, _ in MESSAGE_TYPES],
        "message_send_type": [k for k, _ in SEND_TYPES],
        "page_behavior": list(BEHAVIORS),
    }
    return [
        EnumDict(code=name, items=[DictEntry(dict_key=k, dict_value=t(f"enum.{name}.{k}")) for k in keys])
        for name, keys in enums.items()
        if code is None or code == name
    ]


# ---------------------------------------------------------------- columns shown and hidden

TableKey = Annotated[
    str,
    Field(
        min_length=1,
        max_length=100,
        pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.:/-]*$",
        description="the list (the web app names it: its resource or page)",
    ),
]
ColumnKey = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")]


class ShowHideFind(Schema):
    table_key: TableKey


class ShowHideIn(Schema):
    table_key: TableKey
    hidden: list[ColumnKey] = Field(
        default=[], max_length=200, description="the columns hidden; every other column is shown"
    )


class ShowHideOut(Schema):
    table_key: str
    hidden: list[str]


def hidden_of(row: m.ShowHide | None) -> list[str]:
    if row is None:
        return []
    value = json.loads(row.hidden or "[]")
    return [str(v) for v in value] if isinstance(value, list) else []


class ShowHideHooks(Hooks):
    def filter(self, ctx: crud.Ctx, stmt: Any) -> Any:
        """The caller's own choices only."""
        return stmt.where(m.ShowHide.user_id == ctx.principal.user_id)


# ---------------------------------------------------------------- page visits

PagePath = Annotated[
    str, Field(min_length=1, max_length=255, pattern=r"^/[^\s]*$", description="the page's route path")
]


class PageLogIn(Schema):
    page_path: PagePath
    page_name: str = Field(default="", max_length=100, description="the page's title as the user saw it")
    behavior: Literal["visit"] = Field(default="visit", description="a key of page_behavior")


class PageLogBatch(Schema):
    logs: list[PageLogIn] = Field(min_length=1, max_length=MAX_BATCH)


class PageLogOut(Schema):
    id: Id
    page_path: str
    page_name: str = ""
    behavior: str
    create_user: Id | None = None
    account: str | None = None
    real_name: str | None = None
    create_time: Time | None = None


class PageDictEntry(Schema):
    dict_key: str = Field(description="the page's route path")
    dict_value: str = Field(description="the page's menu name")
    code: str = Field(description="the menu's code")


class BehaviorQuery(Schema):
    begin_time: Time | None = Field(default=None, description="from (default: 30 days before the end)")
    end_time: Time | None = Field(default=None, description="to (default: now)")
    page_path: str | None = Field(default=None, max_length=255, description="one page only")
    behavior: Literal["visit"] | None = None


class BehaviorCount(Schema):
    page_path: str
    page_name: str
    behavior: str
    count: int = Field(description="how many times")
    users: int = Field(description="how many distinct users")


def check_period(begin: datetime, end: datetime) -> None:
    from liftdesk.core.envelope import ServiceError

    if end < begin:
        raise ServiceError(t("period_order", field="beginTime"))
    if (end - begin).days > MAX_PERIOD_DAYS:
        raise ServiceError(t("period_too_long", field="beginTime", days=MAX_PERIOD_DAYS))


class PageLogHooks(Hooks):
    async def enrich(self, ctx: crud.Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The visitor's account and name beside each visit (users of the tenant, whoever may read them)."""
        ids = {r["create_user"] for r in rows if r.get("create_user")}
        if not ids:
            return rows
        stmt = ctx.scope.select(m.User, data=False).where(m.User.id.in_(ids))
        users = {u.id: u for u in (await ctx.session.execute(stmt)).scalars().all()}
        for r in rows:
            u = users.get(r.get("create_user") or 0)
            r["account"], r["real_name"] = (u.account, u.real_name) if u is not None else (None, None)
        return rows


# ---------------------------------------------------------------- mechanisms (organisations for select boxes)


class MechanismQuery(Schema):
    mechanism_name: Annotated[
        str | None,
        Field(default=None, max_length=45, description="organisations whose name contains this (any case)"),
    ] = None


class Mechanism(Schema):
    """An organisation as a select box offers it."""

    id: Id
    mechanism_id: Id = Field(description="the same id, as rows that name an organisation call it")
    mechanism_name: str
    parent_id: Id | None = None
    dept_category: int
    ancestors: str = Field(description="ids of the organisations above it, from the top (0: none)")
    path_name: str = Field(description="names from the highest organisation the caller sees down to this one")


def mechanisms(roots: list[dict[str, Any]], name: str | None) -> list[Mechanism]:
    """The organisations of a nested tree (``crud.nest``) in its order, a parent before its children, keeping
    those whose name contains ``name`` (any case; every one without it); each one's path is of the tree given."""
    needle = (name or "").strip().casefold()
    out: list[Mechanism] = []
    stack: list[tuple[dict[str, Any], tuple[str, ...]]] = [(r, ()) for r in reversed(roots)]
    while stack:
        row, above = stack.pop()
        own = row.get("dept_name") or ""
        path = (*above, own)
        if needle in own.casefold():
            out.append(
                Mechanism(
                    id=row["id"],
                    mechanism_id=row["id"],
                    mechanism_name=own,
                    parent_id=row.get("parent_id"),
                    dept_category=row.get("dept_category") or 1,
                    ancestors=row.get("ancestors") or "0",
                    path_name=" / ".join(path),
                )
            )
        stack.extend((child, path) for child in reversed(row.get("children", [])))
    return out
