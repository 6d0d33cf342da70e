"""The vehicle efficiency report and the fleet's daily hours, summed from the daily aggregates.

Every query reads the vehicles through the caller's scope (tenant, the vehicles' data rule) and their daily rows
through it too (tenant): a vehicle the caller does not see adds nothing. A vehicle of the filters without data in
the range is a row of zeros (an unused vehicle is worth seeing in an efficiency report).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Subquery, case, func, select

from liftdesk.core.crud import Ctx
from liftdesk.core.paging import PageQuery
from liftdesk.core.report import Period, Rows, hours, in_organisation, percent, windowed
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.service import organisation_names
from liftdesk.reporting.schemas import EfficiencyQuery, EfficiencyRow, EfficiencyTotals, FleetDay
from liftdesk.system.service import dict_labels
from liftdesk.telemetry.models import DailyStat

#: Idle of one day: boot − work, never below 0 (``DailyStat.idle_s``).
_IDLE = case((DailyStat.boot_s > DailyStat.work_s, DailyStat.boot_s - DailyStat.work_s), else_=0.0)
_SUMS = ("boot_s", "load_s", "move_s", "idle_s", "move_load_s")


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def vehicle_filters(ctx: Ctx, q: EfficiencyQuery) -> list[ColumnElement[bool]]:
    """The report's vehicle filters: organisation branch, number (contains), type."""
    out = in_organisation(ctx, Vehicle.mechanism_id, q)
    if q.car_no:
        out.append(Vehicle.car_no.like(_like(q.car_no), escape="\\"))
    if q.car_type is not None:
        out.append(Vehicle.car_type == q.car_type)
    return out


def per_vehicle(ctx: Ctx, period: Period) -> Subquery:
    """Seconds of each vehicle over the days of the period (the caller's tenant)."""
    return ctx.scope.apply(
        select(
            DailyStat.vehicle_id.label("vehicle_id"),
            func.sum(DailyStat.boot_s).label("boot_s"),
            func.sum(DailyStat.load_s).label("load_s"),
            func.sum(DailyStat.move_s).label("move_s"),
            func.sum(_IDLE).label("idle_s"),
            func.sum(DailyStat.move_load_s).label("move_load_s"),
        )
        .where(DailyStat.day.in_(period.days))
        .group_by(DailyStat.vehicle_id),
        DailyStat,
    ).subquery("sums")


def _seconds(sums: Subquery, *, labelled: bool = True) -> list[Any]:
    """The sums of a vehicle, 0 without data (labelled by their names for the rows)."""
    out = [func.coalesce(sums.c[name], 0.0) for name in _SUMS]
    return [c.label(name) for c, name in zip(out, _SUMS, strict=True)] if labelled else out


async def efficiency(ctx: Ctx, q: EfficiencyQuery, period: Period, page: PageQuery | None) -> Rows:
    sums = per_vehicle(ctx, period)
    where = vehicle_filters(ctx, q)
    counted = ctx.scope.apply(
        select(func.count(Vehicle.id), *(func.sum(c) for c in _seconds(sums, labelled=False)))
        .select_from(Vehicle)
        .outerjoin(sums, sums.c.vehicle_id == Vehicle.id)
        .where(*where),
        Vehicle,
    )
    total, *seconds = (await ctx.session.execute(counted)).one()
    listed = ctx.scope.apply(
        select(Vehicle.id, Vehicle.car_no, Vehicle.device_number, Vehicle.car_type, Vehicle.mechanism_id)
        .add_columns(*_seconds(sums))
        .outerjoin(sums, sums.c.vehicle_id == Vehicle.id)
        .where(*where)
        .order_by(Vehicle.car_no, Vehicle.id),
        Vehicle,
    )
    found = (await ctx.session.execute(windowed(listed, page))).all()
    names = await organisation_names(ctx, {r.mechanism_id for r in found if r.mechanism_id})
    types = await dict_labels(ctx.session, "car_type")
    records = [
        EfficiencyRow(
            car_id=r.id,
            mechanism_id=r.mechanism_id,
            mechanism_name=names.get(r.mechanism_id, "") if r.mechanism_id else "",
            car_no=r.car_no,
            equipment_no=r.device_number,
            car_type=r.car_type,
            car_type_name=types.get(str(r.car_type), ""),
            cumulative_boot_time=hours(r.boot_s),
            load_time=hours(r.load_s),
            mobile_time=hours(r.move_s),
            free_time=hours(r.idle_s),
            moving_load_time=hours(r.move_load_s),
            mobile_efficiency=percent(r.move_s, r.boot_s),
        )
        for r in found
    ]
    boot, load, move, idle, move_load = (float(s or 0.0) for s in seconds)
    totals = EfficiencyTotals(
        vehicles=int(total),
        cumulative_boot_time=hours(boot),
        load_time=hours(load),
        mobile_time=hours(move),
        free_time=hours(idle),
        moving_load_time=hours(move_load),
        mobile_efficiency=percent(move, boot),
    )
    return Rows(records=records, total=int(total), totals=totals)


async def fleet_days(ctx: Ctx, q: EfficiencyQuery, period: Period) -> list[FleetDay]:
    """One item per day of the period (a day without data is zeros): the selected vehicles' summed hours and how
    many of them worked."""
    stmt = ctx.scope.apply(
        select(
            DailyStat.day,
            func.sum(DailyStat.boot_s),
            func.sum(DailyStat.work_s),
            func.sum(DailyStat.move_s),
            func.sum(_IDLE),
            func.count(case((DailyStat.work_s > 0, DailyStat.vehicle_id))),
        )
        .join(Vehicle, Vehicle.id == DailyStat.vehicle_id)
        .where(DailyStat.day.in_(period.days), *vehicle_filters(ctx, q))
        .group_by(DailyStat.day),
        DailyStat,
        Vehicle,
    )
    by_day = {row[0]: row[1:] for row in (await ctx.session.execute(stmt)).all()}
    out = []
    for day in period.days:
        boot, work, move, idle, working = by_day.get(day, (0.0, 0.0, 0.0, 0.0, 0))
        out.append(
            FleetDay(
                search_time=day,
                boot_time=hours(boot),
                work_time=hours(work),
                mobile_time=hours(move),
                free_time=hours(idle),
                working_vehicles=int(working or 0),
            )
        )
    return out
