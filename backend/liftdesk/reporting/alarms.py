"""Queries of the alarm center (报警中心): the alarm lists, the abnormal vehicles and the fault codes.

Everything comes from what the pipeline stored: the events (``telemetry.models.Event``), the vehicles' live states
(``VehicleState``: alarms in progress in ``open_events``, the latest report's fault codes in ``extra["faults"]``,
``clock_fault_time``) and the terminals' connection (``last_seen``). Every query starts from the vehicles the caller
may see (``ctx.scope``: tenant, soft delete, the vehicles' data rule), narrowed to an organisation branch when one is
named; events and states hang on those vehicles, so nothing of a vehicle the caller does not see is read. Shapes and
definitions: ``alarm_schemas``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar, cast

from sqlalchemy import ColumnElement, Select, and_, func, literal, select

from liftdesk.core.crud import Ctx
from liftdesk.core.db import utcnow
from liftdesk.core.paging import Page, PageQuery
from liftdesk.core.report import Period, ReportQuery, Rows, windowed
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.service import organisation_names
from liftdesk.reporting.alarm_schemas import (
    ALARM_MAX_DAYS,
    OWN_LISTS,
    AlarmQuery,
    AlarmRow,
    AlarmTotals,
    FaultCar,
    FaultCodeQuery,
    FaultTreeNode,
    FaultType,
    alarm_info,
    kind_label,
)
from liftdesk.reporting.handling import EVENT_ON, status_where, work_fields, works_of
from liftdesk.reporting.home import utc_of
from liftdesk.system.service import dict_labels
from liftdesk.telemetry.models import Event, VehicleState

STATE_ON = and_(VehicleState.vehicle_id == Vehicle.id, VehicleState.tenant_id == Vehicle.tenant_id)


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def like_code(code: str) -> str:
    """A LIKE pattern of a fault event's ``detail`` (``{"code": "..."}``) whose code contains ``code``."""
    return '%"code": "' + _like(code)


def vehicles_where(
    ctx: Ctx, mechanism_id: int | None = None, car_id: int | None = None, car_no: str | None = None
) -> list[ColumnElement[bool]]:
    """The vehicles the caller may see (scope), of the organisation ``mechanism_id`` and those under it, one vehicle
    or those whose number contains ``car_no``."""
    out = ctx.scope.where(Vehicle)
    out += ctx.scope.in_branch(Vehicle.mechanism_id, mechanism_id)
    if car_id is not None:
        out.append(Vehicle.id == car_id)
    if car_no:
        out.append(Vehicle.car_no.like(_like(car_no), escape="\\"))
    return out


def _seconds(ctx: Ctx, now: datetime) -> Any:
    """end - begin of an event in seconds (an open one: until ``now``), in the database's own arithmetic."""
    end = func.coalesce(Event.end_time, literal(now, Event.begin_time.type))
    if ctx.session.get_bind().dialect.name == "postgresql":
        return func.extract("epoch", end - Event.begin_time)
    return (func.julianday(end) - func.julianday(Event.begin_time)) * 86400.0


def _events_where(ctx: Ctx, q: AlarmQuery, period: Period) -> list[ColumnElement[bool]]:
    out = [
        Event.begin_time >= utc_of(period.start),
        Event.begin_time < utc_of(period.end + timedelta(days=1)),
        *ctx.scope.where(Event),
        *vehicles_where(ctx, q.mechanism_id, q.car_id, q.car_no),
    ]
    if q.driver_name:
        out.append(Event.driver_name.like(_like(q.driver_name), escape="\\"))
    if q.work_status is not None:
        out.append(status_where(q.work_status))
    return out


def kinds_where(
    kinds: Sequence[str] | None = None, kind: str | None = None, every: bool = False
) -> list[ColumnElement[bool]]:
    """``kinds``: those kinds only; None: every kind but those with a list of their own (the warnings); ``every``:
    any kind. ``kind``: one of them."""
    out: list[ColumnElement[bool]] = []
    if not every:
        out.append(Event.kind.in_(kinds) if kinds is not None else Event.kind.not_in(OWN_LISTS))
    if kind:
        out.append(Event.kind == kind)
    return out


def shown(kind: str, value: float | None) -> float | None:
    """A value as the user reads it: the pipeline raises ``battery_low_voltage`` on the voltage negated (it opens
    when ``-voltage > -limit``), so its value, peak (the lowest voltage) and limit are shown as volts again."""
    if value is None or kind != "battery_low_voltage":
        return value
    return -value


def open_max(states: Sequence[Any]) -> dict[int, float]:
    """The highest value so far of every alarm in progress (``open_events``: the stored event keeps the value it
    began with until it closes)."""
    out: dict[int, float] = {}
    for raw in states:
        for alarm in json.loads(raw or "{}").values():
            try:
                out[int(alarm["id"])] = float(alarm["max"])
            except (KeyError, TypeError, ValueError):
                continue
    return out


async def alarm_rows(
    ctx: Ctx, q: AlarmQuery, period: Period, page: PageQuery | None, extra: Sequence[ColumnElement[bool]]
) -> Rows:
    """The alarms the filters select (``extra``: the list's kinds and its own filters), newest first."""
    now = utcnow()
    where = [*_events_where(ctx, q, period), *extra]
    seconds = _seconds(ctx, now)
    totals = (
        await ctx.session.execute(
            select(func.count(Event.id), func.count(func.distinct(Event.vehicle_id)), func.sum(seconds))
            .select_from(Event)
            .join(Vehicle, EVENT_ON)
            .where(*where)
        )
    ).one()
    stmt = (
        select(
            Event, Vehicle.car_no, Vehicle.device_number, Vehicle.mechanism_id, Vehicle.car_type, Vehicle.model_number
        )
        .select_from(Event)
        .join(Vehicle, EVENT_ON)
        .where(*where)
        .order_by(Event.begin_time.desc(), Event.id.desc())
    )
    rows = (await ctx.session.execute(windowed(cast("Select[Any]", stmt), page))).all()
    names = await organisation_names(ctx, {r.mechanism_id for r in rows if r.mechanism_id})
    types = await dict_labels(ctx.session, "car_type")
    open_ids = {r.Event.vehicle_id for r in rows if r.Event.end_time is None}
    maxima: dict[int, float] = {}
    if open_ids:
        states = await ctx.session.scalars(
            select(VehicleState.open_events).where(
                VehicleState.vehicle_id.in_(open_ids), *ctx.scope.where(VehicleState)
            )
        )
        maxima = open_max(list(states))
    works = await works_of(ctx, [r.Event for r in rows])
    records = []
    for r in rows:
        e: Event = r.Event
        detail = json.loads(e.detail or "{}")
        direction = detail.get("direction")
        end = e.end_time or now
        records.append(
            AlarmRow(
                id=e.id,
                car_id=e.vehicle_id,
                car_no=r.car_no,
                device_number=r.device_number or "",
                mechanism_id=r.mechanism_id,
                mechanism_name=names.get(r.mechanism_id, "") if r.mechanism_id else "",
                car_type_name=types.get(str(r.car_type), ""),
                model_number=r.model_number or "",
                kind=e.kind,
                kind_name=kind_label(e.kind),
                level=e.level,
                begin_time=e.begin_time,
                end_time=e.end_time,
                open=e.end_time is None,
                duration_s=max(0, int((end - e.begin_time).total_seconds())),
                value=shown(e.kind, e.value),
                max_value=shown(e.kind, maxima.get(e.id, e.max_value) if e.end_time is None else e.max_value),
                limit_value=shown(e.kind, e.limit_value),
                direction=int(direction) if isinstance(direction, int | float) else None,
                code=str(detail["code"]) if detail.get("code") is not None else None,
                info=alarm_info(e.kind, detail),
                lat=e.lat,
                lon=e.lon,
                driver_name=e.driver_name,
                **work_fields(works.get(e.id)),
            )
        )
    count, vehicles, total_s = totals
    return Rows(
        records=records,
        total=int(count),
        totals=AlarmTotals(vehicles=int(vehicles), alarms=int(count), duration_s=round(float(total_s or 0))),
    )


# ------------------------------------------------------------------------------------------------------- fault codes


def checked(q: FaultCodeQuery) -> Period:
    """The range of a fault query, checked as every alarm list's (at most 7 days; 400 naming the field)."""
    return ReportQuery(start_time=q.start_time, end_time=q.end_time).period(ALARM_MAX_DAYS)


T = TypeVar("T")


def page_of(rows: Sequence[T], current: int, size: int) -> Page[T]:
    """One page of rows computed whole."""
    start = (current - 1) * size
    return Page[T](
        records=list(rows[start : start + size]),
        total=len(rows),
        size=size,
        current=current,
        pages=(len(rows) + size - 1) // size,
    )


def fault_type(code: str) -> str:
    """A code's type: its prefix before ``-`` (``BMS-CELL_OVER_VOLTAGE`` → ``BMS``); ``other`` without one."""
    head, sep, _ = code.partition("-")
    return head if sep and head else "other"


async def _faults(ctx: Ctx, q: FaultCodeQuery, period: Period) -> list[tuple[Any, str]]:
    """The fault events of the range (each a code a report carried that the previous one did not): the columns the
    fault pages read (rows, not entities: a week of a fleet's faults is thousands of rows) and each one's code."""
    stmt = (
        select(
            Event.begin_time,
            Event.detail,
            Vehicle.id,
            Vehicle.car_no,
            Vehicle.device_number,
            Vehicle.mechanism_id,
        )
        .select_from(Event)
        .join(Vehicle, EVENT_ON)
        .where(
            Event.kind == "fault",
            Event.begin_time >= utc_of(period.start),
            Event.begin_time < utc_of(period.end + timedelta(days=1)),
            *ctx.scope.where(Event),
            *vehicles_where(ctx, q.mechanism_id, car_no=q.car_no),
        )
        .order_by(Event.begin_time.desc(), Event.id.desc())
    )
    out = []
    for row in (await ctx.session.execute(stmt)).all():
        code = str(json.loads(row.detail or "{}").get("code", ""))
        if q.code and q.code.lower() not in code.lower():
            continue
        if q.fault_type and fault_type(code) != q.fault_type:
            continue
        out.append((row, code))
    return out


async def _active(ctx: Ctx, q: FaultCodeQuery) -> dict[int, list[str]]:
    """The fault codes of each vehicle's latest report (active now)."""
    rows = await ctx.session.execute(
        select(VehicleState.vehicle_id, VehicleState.extra)
        .select_from(Vehicle)
        .join(VehicleState, STATE_ON)
        .where(*vehicles_where(ctx, q.mechanism_id, car_no=q.car_no), VehicleState.extra.like('%"faults"%'))
    )
    return {vid: [str(c) for c in json.loads(extra or "{}").get("faults", [])] for vid, extra in rows.all()}


async def fault_cars(ctx: Ctx, q: FaultCodeQuery, period: Period) -> list[FaultCar]:
    """Per vehicle that reported a fault over the range: how many, which codes, the last, and the codes active."""
    faults = await _faults(ctx, q, period)
    active = await _active(ctx, q)
    names = await organisation_names(ctx, {r.mechanism_id for r, _ in faults if r.mechanism_id})
    by: dict[int, FaultCar] = {}
    codes: dict[int, list[str]] = {}
    for r, code in faults:  # newest first: the first seen of a vehicle is its last fault
        if r.id not in by:
            by[r.id] = FaultCar(
                car_id=r.id,
                car_no=r.car_no,
                device_number=r.device_number or "",
                mechanism_name=names.get(r.mechanism_id, "") if r.mechanism_id else "",
                count=0,
                codes="",
                last_time=r.begin_time,
                active=", ".join(active.get(r.id, [])),
            )
            codes[r.id] = []
        by[r.id].count += 1
        if code not in codes[r.id]:
            codes[r.id].append(code)
    for vid, car in by.items():
        car.codes = ", ".join(sorted(codes[vid]))
    return sorted(by.values(), key=lambda c: (c.last_time, c.car_id), reverse=True)


async def fault_types(ctx: Ctx, q: FaultCodeQuery, period: Period) -> list[FaultType]:
    """Per fault code reported over the range: how many times, by how many vehicles, the last, active on how many."""
    faults = await _faults(ctx, q, period)
    active = await _active(ctx, q)
    by: dict[str, FaultType] = {}
    cars: dict[str, set[int]] = {}
    for r, code in faults:
        if code not in by:
            on = sum(1 for codes in active.values() if code in codes)
            by[code] = FaultType(
                code=code, fault_type=fault_type(code), count=0, cars=0, last_time=r.begin_time, active_cars=on
            )
            cars[code] = set()
        by[code].count += 1
        cars[code].add(r.id)
    for code, row in by.items():
        row.cars = len(cars[code])
    return sorted(by.values(), key=lambda r: (-r.count, r.code))


async def fault_tree(ctx: Ctx, q: FaultCodeQuery, period: Period) -> list[FaultTreeNode]:
    """The fault types of the range and their codes, with how many times each was reported."""
    rows = await fault_types(ctx, FaultCodeQuery(**{**q.model_dump(), "code": None, "fault_type": None}), period)
    types: dict[str, FaultTreeNode] = {}
    for r in sorted(rows, key=lambda r: r.code):
        node = types.setdefault(r.fault_type, FaultTreeNode(key=r.fault_type, title=r.fault_type, count=0))
        node.count += r.count
        node.children.append(FaultTreeNode(key=f"{r.fault_type}/{r.code}", title=r.code, count=r.count))
    return sorted(types.values(), key=lambda n: (n.key == "other", n.key))
