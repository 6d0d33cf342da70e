"""Reports: the aggregate kind of action. Sums over the daily aggregates the pipeline writes, per row (a vehicle, a
driver) or per day, over a range of days, for an organisation and the ones under it.

A report is declared in a few lines on the resource whose scope it reads (``declare_paged_report``,
``declare_series_report``); the layer gives every report the same rules:

* the query: :class:`ReportQuery` (``mechanismId``: that organisation and every one under it; ``startTime`` /
  ``endTime``: local days, ``yyyy-MM-dd``, both included; default the last seven days up to today), extended by the
  report with its own filters;
* the range rules of the specification: the start must not be after the end, the span is at most the report's
  ``max_days``; a refusal is a 400 naming the field, in the user's language;
* the answers: a page of rows with ``totals`` (the sums over every row the filters select, not only the page's),
  a plain list (a chart's series), and an .xlsx of the paged report's rows with the same filters (plus the totals
  row), through ``core.transfer``'s workbook;
* the caller's scope: the report's ``fetch`` reads through ``ctx.scope`` like every other query (tenant, data rule),
  and :func:`in_organisation` is the organisation filter (``Scope.in_branch``).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Generic, TypeVar

from fastapi.responses import Response
from pydantic import BaseModel, BeforeValidator, Field, PlainSerializer, WithJsonSchema, create_model
from pydantic_core import PydanticCustomError
from sqlalchemy import ColumnElement, Select

from liftdesk.core.context import Ctx
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.paging import MAX_PAGE, MAX_SIZE, PageQuery
from liftdesk.core.resource import Resource
from liftdesk.core.schemas import _MONTH_DAY, _YEAR, Id, Schema, tenant_zone
from liftdesk.core.transfer import MAX_EXPORT, Column, workbook, xlsx_response

#: The default span of a report's range when it names none: the last seven days, today included.
DEFAULT_DAYS = 7
#: The longest range a report takes unless it says otherwise ("some reports need over 7 and under 30 days").
MAX_DAYS = 31
DATE_PATTERN = f"^{_YEAR}-{_MONTH_DAY}$"
_FORMATS = ("%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M")


#: Not a ``value_error``: the envelope then says "<field> is not valid" in the user's language, not the reason's text.
def _not_a_day() -> PydanticCustomError:
    return PydanticCustomError("day_invalid", "expected yyyy-MM-dd from 1900 to 9998")


def _to_day(value: Any) -> Any:
    """``yyyy-MM-dd`` (a time after it is accepted and dropped: the day is what counts), years 1900 to 9998. Anything
    else is refused as "not valid" in the user's language (``field_invalid``)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        for fmt in _FORMATS:
            try:
                day = datetime.strptime(value.strip(), fmt).date()
                break
            except ValueError:
                continue
        else:
            raise _not_a_day()
        if not 1900 <= day.year <= 9998:
            raise _not_a_day()
        return day
    raise _not_a_day()


Day = Annotated[
    date,
    BeforeValidator(_to_day),
    PlainSerializer(lambda d: d.isoformat(), return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "example": "2026-11-01", "pattern": DATE_PATTERN}),
]
"""A local day of the tenant, ``yyyy-MM-dd``."""


def today() -> date:
    """Today in the tenants' zone (``LIFTDESK_TZ_OFFSET_MINUTES``): the days of the daily aggregates are local."""
    return datetime.now(tenant_zone()).date()


@dataclass(frozen=True)
class Period:
    """The range of a report: ``start`` to ``end``, both included, and the days of it the query includes."""

    start: date
    end: date
    days: tuple[date, ...]


def period_name(name: str, period: Period) -> str:
    """An export's file name with its period (``alarms-all_2026-05-01_2026-05-07``; one day: that day), so that two
    exports of different weeks do not read alike."""
    if period.start == period.end:
        return f"{name}_{period.start.isoformat()}"
    return f"{name}_{period.start.isoformat()}_{period.end.isoformat()}"


class ReportQuery(Schema):
    """The filters every report takes: an organisation (and the ones under it) and a range of days."""

    mechanism_id: Id | None = Field(default=None, description="an organisation and every organisation under it")
    start_time: Day | None = Field(
        default=None, description="first day (yyyy-MM-dd, the tenant's local day); default: six days before endTime"
    )
    end_time: Day | None = Field(default=None, description="last day, included (yyyy-MM-dd); default: today")

    def includes(self, day: date) -> bool:
        """Is ``day`` of the range counted? (A report leaves some out, e.g. weekends.)"""
        return True

    def period(self, max_days: int = MAX_DAYS) -> Period:
        """The range, checked: start not after end (400 naming ``startTime``), at most ``max_days`` days (400 naming
        both)."""
        end = self.end_time or today()
        start = self.start_time or end - timedelta(days=DEFAULT_DAYS - 1)
        if start > end:
            raise ServiceError(t("period_order", field="startTime"))
        span = (end - start).days + 1
        if span > max_days:
            raise ServiceError(t("period_too_long", field="startTime/endTime", days=max_days))
        days = tuple(d for d in (start + timedelta(days=i) for i in range(span)) if self.includes(d))
        return Period(start, end, days)


def in_organisation(ctx: Ctx, column: Any, query: ReportQuery) -> list[ColumnElement[bool]]:
    """The organisation filter on ``column`` (an organisation id column): the organisation ``mechanismId`` and every
    one under it, in the caller's tenant; no clause without one."""
    return ctx.scope.in_branch(column, query.mechanism_id)


def hours(seconds: float | None) -> float:
    """Seconds as hours with two decimals."""
    return round((seconds or 0.0) / 3600.0, 2)


def percent(part: float | None, whole: float | None) -> float:
    """``part / whole`` in percent with two decimals (0 when ``whole`` is 0)."""
    return round(100.0 * (part or 0.0) / whole, 2) if whole else 0.0


RowT = TypeVar("RowT")
TotalsT = TypeVar("TotalsT")


class ReportPage(BaseModel, Generic[RowT, TotalsT]):
    """A page of a report (BladeX's page) and the totals over every row the filters select."""

    records: list[RowT]
    total: int
    size: int
    current: int
    pages: int
    totals: TotalsT


@dataclass(frozen=True)
class Rows:
    """What a paged report's ``fetch`` answers: the rows (of the page asked, or all), how many rows the filters
    select, and their totals."""

    records: Sequence[BaseModel]
    total: int
    totals: BaseModel


#: ``fetch(ctx, query, period, page)``: ``page`` None asks for every row (at most ``MAX_EXPORT``, for the export).
PagedFetch = Callable[["Ctx", Any, Period, PageQuery | None], Awaitable[Rows]]
#: ``fetch(ctx, query, period)``: the series (a list, for a chart).
SeriesFetch = Callable[["Ctx", Any, Period], Awaitable[Sequence[BaseModel]]]


def limits(page: PageQuery | None) -> tuple[int, int]:
    """(limit, offset) of a page as :func:`core.paging.paginate` reads it; every row (``MAX_EXPORT``) for None."""
    if page is None:
        return MAX_EXPORT, 0
    size = max(1, min(page.size, MAX_SIZE))
    current = max(1, page.current)
    if current > MAX_PAGE:
        raise ServiceError(t("field_invalid", field="current"))
    return size, (current - 1) * size


def windowed(stmt: Select[Any], page: PageQuery | None) -> Select[Any]:
    """``stmt`` (ordered) cut to the page (or to ``MAX_EXPORT`` rows)."""
    limit, offset = limits(page)
    return stmt.limit(limit).offset(offset)


@dataclass(frozen=True)
class Export:
    """The .xlsx of a paged report: its path (a GET with the report's filters as query parameters), columns (fields of
    the report's rows), file name and permission (a button code of its own, or ``view``)."""

    path: str
    columns: Sequence[Column]
    filename: str
    permission: str = "view"


def _paged(query: type[ReportQuery]) -> type[ReportQuery]:
    return create_model(
        f"{query.__name__}Paged",
        __base__=query,
        current=(int, Field(default=1, ge=1, le=MAX_PAGE, description="page number, from 1")),
        size=(int, Field(default=10, ge=1, le=1_000_000, description=f"rows per page (at most {MAX_SIZE} are given)")),
    )


def declare_paged_report(
    res: Resource,
    path: str,
    *,
    name: str,
    summary: str,
    query: type[ReportQuery],
    row: type[BaseModel],
    totals: type[BaseModel],
    fetch: PagedFetch,
    max_days: int = MAX_DAYS,
    permission: str = "view",
    export: Export | None = None,
    tag: str = "",
) -> None:
    """A report of rows over a range, paged, with totals (the body: the query's filters, ``current`` and ``size``);
    with ``export``, its .xlsx too."""
    body_model = _paged(query)

    async def paged(ctx: Ctx, body: Any) -> dict[str, Any]:
        page = PageQuery(current=body.current, size=body.size)
        size, offset = limits(page)
        got = await fetch(ctx, body, body.period(max_days), page)
        return {
            "records": list(got.records),
            "total": got.total,
            "size": size,
            "current": offset // size + 1,
            "pages": math.ceil(got.total / size) if got.total else 0,
            "totals": got.totals,
        }

    paged.__name__ = name
    described = f"{summary} (at most {max_days} days; paged, with the totals of every selected row)"
    res.action(
        "POST",
        path,
        summary=described,
        kind="aggregate",
        permission=permission,
        body=body_model,
        answer=ReportPage[row, totals],  # type: ignore[valid-type]
        tag=tag,
    )(paged)
    if export is None:
        return

    async def exported(ctx: Ctx, query: Any) -> Response:
        period = query.period(max_days)
        got = await fetch(ctx, query, period, None)
        rows = [r.model_dump(by_alias=False) for r in got.records]
        last = got.totals.model_dump(by_alias=False)
        last[export.columns[0].shown or export.columns[0].field] = t("report_total")
        return xlsx_response(workbook(export.columns, [*rows, last]), period_name(export.filename, period))

    exported.__name__ = f"export_{name}"
    res.action(
        "GET",
        export.path,
        summary=f"{summary}: the rows as .xlsx with the same filters (query parameters), and a totals row",
        kind="export",
        permission=export.permission,
        query=query,
        raw=True,
        tag=tag,
    )(exported)


def declare_series_report(
    res: Resource,
    path: str,
    *,
    name: str,
    summary: str,
    query: type[ReportQuery],
    row: type[BaseModel],
    fetch: SeriesFetch,
    max_days: int = MAX_DAYS,
    permission: str = "view",
    tag: str = "",
) -> None:
    """A report answered as one list (a chart's series, e.g. one item per day of the range), unpaged."""

    async def series(ctx: Ctx, body: Any) -> list[Any]:
        return list(await fetch(ctx, body, body.period(max_days)))

    series.__name__ = name
    res.action(
        "POST",
        path,
        summary=f"{summary} (at most {max_days} days; a list, unpaged)",
        kind="aggregate",
        permission=permission,
        body=query,
        answer=list[row],  # type: ignore[valid-type]
        tag=tag,
    )(series)
