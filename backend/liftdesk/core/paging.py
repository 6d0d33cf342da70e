"""Paging (``current, size, ascs, descs``) and BladeX filter suffixes, turned into SQLAlchemy clauses.

Sorting and filtering only reach columns on the resource's allow-list; anything else is refused (sort) or
ignored (unknown filter keys, as BladeX's map filters ignore ``blade-auth`` and friends).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field, create_model
from sqlalchemy import ColumnElement, DateTime, Integer, Numeric, Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.sqltypes import BigInteger, Boolean, Float, SmallInteger

from liftdesk.core.envelope import R, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.schemas import Schema, _to_time

T = TypeVar("T")
RESERVED = {"current", "size", "ascs", "descs", "blade-auth", "tenantId_ignore"}
MAX_SIZE = 1000
MAX_PAGE = 10_000_000  # current x size stays far inside a 64-bit OFFSET


class Page(BaseModel, Generic[T]):
    records: list[T]
    total: int
    size: int
    current: int
    pages: int


@dataclass(frozen=True)
class PageQuery:
    current: int = 1
    size: int = 10
    ascs: str = ""
    descs: str = ""


def camel_to_snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def snake_to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


SUFFIXES = (
    "notequal",
    "equal",
    "notlike",
    "likeleft",
    "likeright",
    "like",
    "ge",
    "le",
    "gt",
    "lt",
    "dategt",
    "datelt",
    "dateequal",
    "datege",
    "datele",
    "notnull",
    "null",
    "ignore",
    "in",
)


def _coerce(col: Any, key: str, raw: str) -> Any:
    ctype = col.type
    try:
        if isinstance(ctype, Boolean):
            return raw.lower() in ("1", "true", "yes")
        if isinstance(ctype, (Integer, BigInteger, SmallInteger)):
            text = raw.strip()
            if not text.isascii():  # int() refuses other scripts' digits anyway: say so as a 400
                raise ValueError("not an ASCII number")
            number = int(text)
            if not -(2**63) <= number < 2**63:
                raise ValueError("beyond 64 bits")
            return number
        if isinstance(ctype, (Float, Numeric)):
            real = float(raw)
            if not math.isfinite(real):
                raise ValueError("not a finite number")
            return real
        if isinstance(ctype, DateTime):
            value: datetime = _to_time(raw)
            return value
    except (ValueError, OverflowError) as exc:
        raise ServiceError(t("field_invalid", field=key)) from exc
    return raw


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def filter_clauses(
    columns: Mapping[str, Any], params: Mapping[str, str], allowed: Iterable[str] | None = None
) -> list[ColumnElement[bool]]:
    """BladeX map filters: ``name`` / ``name_like`` LIKE, ``_equal`` =, ``_dategt`` > (time) and so on."""
    allow = set(allowed) if allowed is not None else None
    out: list[ColumnElement[bool]] = []
    for key, raw in params.items():
        if key in RESERVED or raw is None or raw == "":
            continue
        field, _, suffix = key.rpartition("_")
        if not field or suffix not in SUFFIXES:
            field, suffix = key, "like"
        if suffix == "ignore":
            continue
        snake = camel_to_snake(field)
        col = columns.get(snake)
        if col is None or (allow is not None and snake not in allow):
            continue
        if suffix in ("null", "notnull"):
            out.append(col.is_(None) if suffix == "null" else col.is_not(None))
            continue
        if suffix == "in":
            out.append(col.in_([_coerce(col, key, v) for v in raw.split(",") if v]))
            continue
        if suffix.startswith("date"):
            try:
                value = _to_time(raw) if isinstance(raw, str) else raw
            except (ValueError, OverflowError) as exc:
                raise ServiceError(t("field_invalid", field=key)) from exc
            op = suffix[4:]
        else:
            op = suffix
            is_text = not isinstance(col.type, (Integer, BigInteger, SmallInteger, Float, Numeric, DateTime))
            if op.endswith("like") and not is_text:
                op = "equal"
            value = raw if op.endswith(("like", "left", "right")) else _coerce(col, key, raw)
        if op in ("like", "notlike"):
            pat = f"%{_escape_like(str(value))}%"
            out.append(col.like(pat, escape="\\") if op == "like" else col.not_like(pat, escape="\\"))
        elif op == "likeleft":
            out.append(col.like(f"%{_escape_like(str(value))}", escape="\\"))
        elif op == "likeright":
            out.append(col.like(f"{_escape_like(str(value))}%", escape="\\"))
        elif op in ("equal", ""):
            out.append(col == value)
        elif op == "notequal":
            out.append(col != value)
        elif op == "gt":
            out.append(col > value)
        elif op == "lt":
            out.append(col < value)
        elif op == "ge":
            out.append(col >= value)
        elif op == "le":
            out.append(col <= value)
    return out


def order_clauses(columns: Mapping[str, Any], q: PageQuery) -> list[ColumnElement[Any]]:
    out: list[ColumnElement[Any]] = []
    for spec, desc in ((q.ascs, False), (q.descs, True)):
        for name in (s.strip() for s in spec.split(",") if s.strip()):
            col = columns.get(camel_to_snake(name))
            if col is None:
                raise ServiceError(t("bad_sort", field=name))
            out.append(col.desc() if desc else col.asc())
    return out


async def paginate(session: AsyncSession, stmt: Select[Any], q: PageQuery) -> tuple[list[Any], int, int]:
    """Run ``stmt`` for one page; return (rows, total, pages)."""
    size = max(1, min(q.size, MAX_SIZE))
    current = max(1, q.current)
    if current > MAX_PAGE:
        raise ServiceError(t("field_invalid", field="current"))
    total = (await session.execute(select(func.count()).select_from(stmt.order_by(None).subquery()))).scalar_one()
    rows = list((await session.execute(stmt.limit(size).offset((current - 1) * size))).scalars().all())
    return rows, int(total), math.ceil(total / size) if total else 0


def page_body(records: list[Any], total: int, pages: int, q: PageQuery) -> dict[str, Any]:
    """The BladeX page ``{records, total, size, current, pages}`` of one page that :func:`paginate` read."""
    return {
        "records": records,
        "total": total,
        "size": max(1, min(q.size, MAX_SIZE)),
        "current": max(1, q.current),
        "pages": pages,
    }


def r_page_of(model: Any) -> Any:
    """``R[Page[model]]`` for a schema built at run time."""
    return R[Page[model]]


def sort_pattern(columns: Iterable[str]) -> str:
    """The JSON-schema pattern of ``ascs`` / ``descs`` over these (snake_case) columns: comma-separated column names,
    each in snake_case or camelCase (:func:`order_clauses` reads both), or nothing."""
    names = sorted({n for c in columns for n in (c, snake_to_camel(c)) if camel_to_snake(n) == c})
    one = "(?:" + "|".join(re.escape(n) for n in names) + ")"
    return f"^(?:{one}(?:,{one})*)?$"


def sort_description(order: str) -> str:
    return f"columns to sort {order} by, comma-separated (camelCase or snake_case)"


class PageIn(Schema):
    """Paging and sorting of an action's list, in the query; its filters are the other query parameters
    (``code_like`` ...), read from ``ctx.params``. :func:`page_in` documents the columns one list sorts by."""

    current: int = Field(default=1, ge=1, le=10_000_000, description="page number, from 1")
    size: int = Field(default=10, ge=1, le=1_000_000, description="rows per page (at most 1000 are given)")
    ascs: str = Field(default="", max_length=200)
    descs: str = Field(default="", max_length=200)

    def page_query(self) -> PageQuery:
        return PageQuery(self.current, self.size, self.ascs, self.descs)


def page_in(name: str, columns: Iterable[str]) -> type[PageIn]:
    """:class:`PageIn` of a list of rows with these (snake_case) sortable columns: ``ascs`` / ``descs`` documented
    as the names it accepts (checked by :func:`order_clauses`, whose refusal keeps its message)."""
    return _page_in(name, frozenset(columns))


@cache
def _page_in(name: str, columns: frozenset[str]) -> type[PageIn]:
    pattern = sort_pattern(columns)

    def sort(order: str) -> Any:
        described = sort_description(order)
        return (str, Field(default="", max_length=200, description=described, json_schema_extra={"pattern": pattern}))

    return create_model(f"{name}PageIn", __base__=PageIn, ascs=sort("ascending"), descs=sort("descending"))
