"""Queries of the fleet home page (``carHome``): the fleet now (vehicles' live states and terminals), today's use
and alarms (the daily aggregates and the events), the online trend (positions).

Every query starts from the vehicles the caller may see (``ctx.scope``: tenant, soft delete, the vehicles' data
rule), narrowed to an organisation branch when one is named; the rows of telemetry hang on those vehicles (a
vehicle's daily rows, events, positions, state and terminal), so nothing of a vehicle the caller does not see is
counted. Definitions: ``home_schemas``.
"""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, case, exists, func, or_, select

from liftdesk.core.crud import Ctx
from liftdesk.core.db import utcnow
from liftdesk.core.paging import Page
from liftdesk.core.report import Period, hours, percent, today
from liftdesk.core.schemas import tenant_zone
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.service import organisation_names
from liftdesk.reporting.home_schemas import (
    BATTERY_KINDS,
    LOW_SOC_PCT,
    OFFLINE_ANOMALY_DAYS,
    AlarmSummary,
    BatterySummary,
    CarDictItem,
    FleetOverview,
    HomeAlarm,
    HomeQuery,
    KindCount,
    OfflineAnalysis,
    OfflineTerminal,
    OfflineTerminalQuery,
    OnlineTrend,
    OrganisationOnline,
    ProtocolCount,
    TerminalSummary,
    TrendPoint,
    TypeCount,
    UsageSum,
)
from liftdesk.system.models import Dict
from liftdesk.system.service import dict_labels
from liftdesk.telemetry.models import DailyStat, Event, Position, Terminal, VehicleState

#: The live state of a vehicle (outer-joined: a vehicle never heard from has none).
_STATE_ON = and_(VehicleState.vehicle_id == Vehicle.id, VehicleState.tenant_id == Vehicle.tenant_id)
_ONLINE = VehicleState.online.is_(True)
_POWERED = and_(_ONLINE, VehicleState.state != "off")
_IN_ALARM = and_(VehicleState.open_events.is_not(None), VehicleState.open_events.not_in(("", "{}")))
_HAS_TERMINAL = and_(Vehicle.device_number.is_not(None), Vehicle.device_number != "")
_ALARM_COLUMNS = ("collision_n", "speeding_n", "overload_n", "fence_n", "fault_n", "battery_n", "other_n")


def _count(condition: ColumnElement[bool]) -> Any:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def vehicles_where(ctx: Ctx, q: HomeQuery) -> list[ColumnElement[bool]]:
    """The vehicles the caller may see (scope), of the organisation ``deptId`` and those under it."""
    return [*ctx.scope.where(Vehicle), *ctx.scope.in_branch(Vehicle.mechanism_id, q.dept_id)]


def utc_of(day: date) -> datetime:
    """The first instant of a local day of the tenants' zone, as stored (naive UTC)."""
    offset = tenant_zone().utcoffset(None) or timedelta()
    return datetime.combine(day, time()) - offset


async def overview(ctx: Ctx, q: HomeQuery) -> FleetOverview:
    stmt = (
        select(
            func.count(Vehicle.id),
            _count(_ONLINE),
            _count(_POWERED),
            _count(and_(_POWERED, VehicleState.state == "idle")),
            _count(and_(_POWERED, VehicleState.state == "moving")),
            _count(and_(_POWERED, VehicleState.state == "loaded")),
            _count(_IN_ALARM),
            _count(_HAS_TERMINAL),
            _count(and_(_HAS_TERMINAL, or_(VehicleState.online.is_(None), VehicleState.online.is_(False)))),
        )
        .select_from(Vehicle)
        .outerjoin(VehicleState, _STATE_ON)
        .where(*vehicles_where(ctx, q))
    )
    total, online, powered, idle, moving, loaded, alarm, terminals, off = (
        int(v) for v in (await ctx.session.execute(stmt)).one()
    )
    return FleetOverview(
        total=total,
        online=online,
        offline=total - online,
        powered_on=powered,
        idle=idle,
        moving=moving,
        loaded=loaded,
        in_alarm=alarm,
        with_terminal=terminals,
        terminal_offline=off,
        online_rate=percent(online, total),
        powered_on_rate=percent(powered, total),
    )


def _daily(ctx: Ctx, q: HomeQuery, period: Period, *columns: Any) -> Any:
    """``columns`` over the daily rows of the period of the caller's vehicles."""
    return (
        select(*columns)
        .select_from(DailyStat)
        .join(Vehicle, and_(Vehicle.id == DailyStat.vehicle_id, Vehicle.tenant_id == DailyStat.tenant_id))
        .where(DailyStat.day.in_(period.days), *ctx.scope.where(DailyStat), *vehicles_where(ctx, q))
    )


async def usage(ctx: Ctx, q: HomeQuery, period: Period) -> UsageSum:
    idle = case((DailyStat.boot_s > DailyStat.work_s, DailyStat.boot_s - DailyStat.work_s), else_=0.0)
    stmt = _daily(
        ctx,
        q,
        period,
        func.count(func.distinct(case((DailyStat.boot_s > 0, DailyStat.vehicle_id)))),
        func.count(func.distinct(case((DailyStat.work_s > 0, DailyStat.vehicle_id)))),
        *(
            func.coalesce(func.sum(c), 0.0)
            for c in (DailyStat.boot_s, DailyStat.work_s, DailyStat.move_s, DailyStat.load_s, idle)
        ),
        func.coalesce(func.sum(DailyStat.distance_km), 0.0),
    )
    powered, working, boot, work, move, load, idle_s, km = (await ctx.session.execute(stmt)).one()
    return UsageSum(
        start_time=period.start,
        end_time=period.end,
        powered_on_vehicles=int(powered),
        working_vehicles=int(working),
        boot_hours=hours(boot),
        work_hours=hours(work),
        move_hours=hours(move),
        load_hours=hours(load),
        idle_hours=hours(idle_s),
        distance_km=round(float(km), 2),
        utilisation=percent(work, boot),
    )


def _reported(tenant: str, start: datetime, end: datetime) -> ColumnElement[bool]:
    """The vehicle's terminal sent a position from ``start`` (included) to ``end`` (excluded): one probe of the
    positions' primary key (tenant, vehicle, device time) per vehicle."""
    return exists().where(
        Position.tenant_id == tenant,
        Position.vehicle_id == Vehicle.id,
        Position.device_time >= start,
        Position.device_time < end,
    )


async def online_trend(ctx: Ctx, q: HomeQuery, period: Period) -> OnlineTrend:
    """A one-day range: its hours (today: up to the current hour); a longer one: its days."""
    tenant = ctx.scope.tenant_id
    where = vehicles_where(ctx, q)
    total = int((await ctx.session.execute(select(func.count(Vehicle.id)).where(*where))).scalar_one())
    hourly = period.start == period.end
    if hourly:
        first = utc_of(period.start)
        count = 24
        if period.start == today():
            count = min(24, int((utcnow() - first).total_seconds() // 3600) + 1)
        starts = [first + timedelta(hours=h) for h in range(count)]
        buckets = [(s, s + timedelta(hours=1)) for s in starts]
        labels = [f"{period.start.isoformat()} {h:02d}:00" for h in range(count)]
    else:
        buckets = [(utc_of(d), utc_of(d + timedelta(days=1))) for d in period.days]
        labels = [d.isoformat() for d in period.days]
    online: list[int] = []
    if buckets:
        row = (
            await ctx.session.execute(
                select(*(_count(_reported(tenant, a, b)) for a, b in buckets)).select_from(Vehicle).where(*where)
            )
        ).one()
        online = [int(v) for v in row]
    powered: dict[date, int] = {}
    if not hourly:
        stmt = _daily(ctx, q, period, DailyStat.day, func.count(DailyStat.vehicle_id)).where(DailyStat.boot_s > 0)
        powered = {d: int(n) for d, n in (await ctx.session.execute(stmt.group_by(DailyStat.day))).all()}
    points = [
        TrendPoint(time=label, online=n, powered_on=None if hourly else powered.get(period.days[i], 0))
        for i, (label, n) in enumerate(zip(labels, online, strict=True))
    ]
    return OnlineTrend(unit="hour" if hourly else "day", total=total, points=points)


async def offline_analysis(ctx: Ctx, q: HomeQuery) -> OfflineAnalysis:
    now = utcnow()
    seen = VehicleState.last_seen
    off = and_(_HAS_TERMINAL, or_(VehicleState.online.is_(None), VehicleState.online.is_(False)))
    stmt = (
        select(
            _count(_HAS_TERMINAL),
            func.count(Vehicle.id),
            _count(and_(_HAS_TERMINAL, _ONLINE)),
            _count(and_(off, seen.is_(None))),
            _count(and_(off, seen >= now - timedelta(days=1))),
            _count(and_(off, seen < now - timedelta(days=1), seen >= now - timedelta(days=OFFLINE_ANOMALY_DAYS))),
            _count(and_(off, seen < now - timedelta(days=OFFLINE_ANOMALY_DAYS))),
        )
        .select_from(Vehicle)
        .outerjoin(VehicleState, _STATE_ON)
        .where(*vehicles_where(ctx, q))
    )
    terminals, total, online, never, day, week, more = (int(v) for v in (await ctx.session.execute(stmt)).one())
    return OfflineAnalysis(
        with_terminal=terminals,
        no_terminal=total - terminals,
        online=online,
        offline=never + day + week + more,
        never_seen=never,
        under_one_day=day,
        one_to_seven_days=week,
        seven_days_or_more=more,
    )


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


async def offline_terminals(ctx: Ctx, q: OfflineTerminalQuery) -> Page[OfflineTerminal]:
    """Vehicles naming a terminal that is not connected: silent longest first, never heard from last."""
    where = [
        *vehicles_where(ctx, q),
        _HAS_TERMINAL,
        or_(VehicleState.online.is_(None), VehicleState.online.is_(False)),
    ]
    if q.car_no:
        where.append(Vehicle.car_no.like(_like(q.car_no), escape="\\"))
    base = select(Vehicle.id).select_from(Vehicle).outerjoin(VehicleState, _STATE_ON).where(*where)
    total = int((await ctx.session.execute(select(func.count()).select_from(base.subquery()))).scalar_one())
    rows = (
        await ctx.session.execute(
            select(
                Vehicle.id,
                Vehicle.car_no,
                Vehicle.device_number,
                Vehicle.mechanism_id,
                Vehicle.car_type,
                VehicleState.last_seen,
            )
            .select_from(Vehicle)
            .outerjoin(VehicleState, _STATE_ON)
            .where(*where)
            .order_by(case((VehicleState.last_seen.is_(None), 1), else_=0), VehicleState.last_seen, Vehicle.car_no)
            .limit(q.size)
            .offset((q.current - 1) * q.size)
        )
    ).all()
    names = await organisation_names(ctx, {r.mechanism_id for r in rows if r.mechanism_id})
    types = await dict_labels(ctx.session, "car_type")
    now = utcnow()
    records = [
        OfflineTerminal(
            car_id=r.id,
            car_no=r.car_no,
            device_number=r.device_number or "",
            dept_id=r.mechanism_id,
            dept_name=names.get(r.mechanism_id, "") if r.mechanism_id else "",
            car_type=r.car_type,
            car_type_name=types.get(str(r.car_type), ""),
            last_seen=r.last_seen,
            silent_days=round((now - r.last_seen).total_seconds() / 86400, 1) if r.last_seen else None,
        )
        for r in rows
    ]
    pages = (total + q.size - 1) // q.size
    return Page[OfflineTerminal](records=records, total=total, size=q.size, current=q.current, pages=pages)


async def terminal_summary(ctx: Ctx, q: HomeQuery) -> TerminalSummary:
    where = [*vehicles_where(ctx, q), _HAS_TERMINAL]
    counted = (
        select(
            func.count(Vehicle.id),
            _count(_ONLINE),
            _count(or_(VehicleState.last_seen.is_(None), VehicleState.vehicle_id.is_(None))),
        )
        .select_from(Vehicle)
        .outerjoin(VehicleState, _STATE_ON)
        .where(*where)
    )
    total, online, never = (int(v) for v in (await ctx.session.execute(counted)).one())
    protocol = func.coalesce(Terminal.protocol, "none")
    by = (
        select(protocol, func.count(Vehicle.id), _count(_ONLINE))
        .select_from(Vehicle)
        .outerjoin(VehicleState, _STATE_ON)
        .outerjoin(Terminal, and_(Terminal.device_number == Vehicle.device_number, *ctx.scope.where(Terminal)))
        .where(*where)
        .group_by(protocol)
        .order_by(func.count(Vehicle.id).desc(), protocol)
    )
    protocols = [ProtocolCount(protocol=p, total=int(n), online=int(o)) for p, n, o in await ctx.session.execute(by)]
    return TerminalSummary(
        total=total, online=online, offline=total - online, never_connected=never, by_protocol=protocols
    )


async def by_type(ctx: Ctx, q: HomeQuery) -> list[TypeCount]:
    stmt = (
        select(Vehicle.car_type, func.count(Vehicle.id), _count(_ONLINE), _count(_POWERED))
        .select_from(Vehicle)
        .outerjoin(VehicleState, _STATE_ON)
        .where(*vehicles_where(ctx, q))
        .group_by(Vehicle.car_type)
    )
    types = await dict_labels(ctx.session, "car_type")
    out = [
        TypeCount(car_type=t, car_type_name=types.get(str(t), str(t)), total=int(n), online=int(o), powered_on=int(p))
        for t, n, o, p in await ctx.session.execute(stmt)
    ]
    return sorted(out, key=lambda c: (-c.total, c.car_type))


async def by_organisation(ctx: Ctx, q: HomeQuery) -> list[OrganisationOnline]:
    stmt = (
        select(Vehicle.mechanism_id, func.count(Vehicle.id), _count(_ONLINE), _count(_POWERED))
        .select_from(Vehicle)
        .outerjoin(VehicleState, _STATE_ON)
        .where(*vehicles_where(ctx, q))
        .group_by(Vehicle.mechanism_id)
    )
    rows = (await ctx.session.execute(stmt)).all()
    names = await organisation_names(ctx, {r[0] for r in rows if r[0]})
    out = [
        OrganisationOnline(
            dept_id=org,
            dept_name=names.get(org, "") if org else "",
            total=int(n),
            online=int(o),
            powered_on=int(p),
            online_rate=percent(o, n),
        )
        for org, n, o, p in rows
    ]
    return sorted(out, key=lambda r: (-r.total, r.dept_name))


async def car_types(ctx: Ctx) -> list[CarDictItem]:
    """The vehicle type dictionary (a platform dictionary every tenant reads), in its order."""
    stmt = ctx.scope.select(Dict).where(Dict.code == "car_type", Dict.parent_id != 0).order_by(Dict.sort, Dict.dict_key)
    return [CarDictItem(dict_key=d.dict_key, dict_value=d.dict_value) for d in (await ctx.session.scalars(stmt))]


async def alarm_summary(ctx: Ctx, q: HomeQuery, period: Period) -> AlarmSummary:
    sums = [func.coalesce(func.sum(getattr(DailyStat, c)), 0) for c in _ALARM_COLUMNS]
    any_alarm = or_(*(getattr(DailyStat, c) > 0 for c in _ALARM_COLUMNS))
    stmt = _daily(ctx, q, period, *sums, func.count(func.distinct(case((any_alarm, DailyStat.vehicle_id)))))
    collision, speeding, overload, fence, fault, battery, other, vehicles = (
        int(v) for v in (await ctx.session.execute(stmt)).one()
    )
    now = (
        select(_count(_IN_ALARM)).select_from(Vehicle).outerjoin(VehicleState, _STATE_ON).where(*vehicles_where(ctx, q))
    )
    return AlarmSummary(
        start_time=period.start,
        end_time=period.end,
        total=collision + speeding + overload + fence + fault + battery + other,
        collision=collision,
        speeding=speeding,
        overload=overload,
        fence=fence,
        fault=fault,
        battery=battery,
        other=other,
        vehicles_with_alarms=vehicles,
        in_alarm_now=int((await ctx.session.execute(now)).scalar_one()),
    )


def _events(ctx: Ctx, q: HomeQuery, period: Period, *columns: Any) -> Any:
    """``columns`` over the events of the caller's vehicles that began in the period."""
    return (
        select(*columns)
        .select_from(Event)
        .join(Vehicle, and_(Vehicle.id == Event.vehicle_id, Vehicle.tenant_id == Event.tenant_id))
        .where(
            Event.begin_time >= utc_of(period.start),
            Event.begin_time < utc_of(period.end + timedelta(days=1)),
            *ctx.scope.where(Event),
            *vehicles_where(ctx, q),
        )
    )


async def battery_summary(ctx: Ctx, q: HomeQuery, period: Period) -> BatterySummary:
    total = _daily(ctx, q, period, func.coalesce(func.sum(DailyStat.battery_n), 0))
    kinds = _events(ctx, q, period, Event.kind, func.count(Event.id)).where(Event.kind.in_(BATTERY_KINDS))
    counted = dict((await ctx.session.execute(kinds.group_by(Event.kind))).all())
    states = (
        await ctx.session.execute(
            select(VehicleState.open_events, VehicleState.soc_pct)
            .select_from(Vehicle)
            .join(VehicleState, _STATE_ON)
            .where(*vehicles_where(ctx, q))
        )
    ).all()
    open_now = sum(1 for events, _ in states if any(k.startswith("battery_") for k in json.loads(events or "{}")))
    socs = [soc for _, soc in states if soc is not None]
    return BatterySummary(
        start_time=period.start,
        end_time=period.end,
        total=int((await ctx.session.execute(total)).scalar_one()),
        by_kind=[KindCount(kind=k, count=int(counted.get(k, 0))) for k in BATTERY_KINDS],
        open_now=open_now,
        with_soc=len(socs),
        low_soc=sum(1 for soc in socs if soc < LOW_SOC_PCT),
    )


async def recent_alarms(ctx: Ctx, q: HomeQuery, period: Period, size: int) -> list[HomeAlarm]:
    stmt = _events(
        ctx,
        q,
        period,
        Event.id,
        Event.vehicle_id,
        Vehicle.car_no,
        Vehicle.mechanism_id,
        Event.kind,
        Event.level,
        Event.begin_time,
        Event.end_time,
        Event.value,
        Event.limit_value,
        Event.driver_name,
    ).order_by(Event.begin_time.desc(), Event.id.desc())
    rows = (await ctx.session.execute(stmt.limit(size))).all()
    names = await organisation_names(ctx, {r.mechanism_id for r in rows if r.mechanism_id})
    return [
        HomeAlarm(
            id=r.id,
            car_id=r.vehicle_id,
            car_no=r.car_no,
            dept_name=names.get(r.mechanism_id, "") if r.mechanism_id else "",
            kind=r.kind,
            level=r.level,
            begin_time=r.begin_time,
            end_time=r.end_time,
            value=r.value,
            limit_value=r.limit_value,
            driver_name=r.driver_name,
        )
        for r in rows
    ]
