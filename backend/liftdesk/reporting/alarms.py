"""Queries of the alarm center (报警中心): the alarm lists, the abnormal vehicles and the fault codes.

Everything comes from what the pipeline stored: the events (``telemetry.models.Event``), the vehicles' live states
(``VehicleState``: alarms in progress in ``open_events``, the latest report's fault codes in ``extra["faults"]``,
``clock_fault_time``) and the terminals' connection (``last_seen``). Every query starts from the vehicles the caller
may see (``ctx.scope``: tenant, soft delete, the vehicles' data rule), narrowed to an organisation branch when one is
named; events and states hang on those vehicles, so nothing of a vehicle the caller does not see is read. Shapes and
definitions: ``alarm_schemas``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar, cast

from sqlalchemy import ColumnElement, Select, and_, func, literal, or_, select

from liftdesk.core.crud import Ctx
from liftdesk.core.db import utcnow
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import current_language, t
from liftdesk.core.paging import Page, PageQuery
from liftdesk.core.report import Period, ReportQuery, Rows, windowed
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.service import organisation_names
from liftdesk.reporting.alarm_schemas import (
    ALARM_MAX_DAYS,
    OWN_LISTS,
    REASON_LABELS,
    AbnormalCar,
    AbnormalInfo,
    AbnormalNode,
    AbnormalQuery,
    AlarmQuery,
    AlarmRow,
    AlarmTotals,
    Condition,
    FaultCar,
    FaultCodeQuery,
    FaultTreeNode,
    FaultType,
    FirstOpen,
    OpenAlarm,
    Reason,
    alarm_info,
    kind_label,
)
from liftdesk.reporting.home import utc_of
from liftdesk.reporting.home_schemas import OFFLINE_ANOMALY_DAYS
from liftdesk.system.models import Dept
from liftdesk.system.service import dict_labels
from liftdesk.telemetry.models import Event, VehicleState

_STATE_ON = and_(VehicleState.vehicle_id == Vehicle.id, VehicleState.tenant_id == Vehicle.tenant_id)
_EVENT_ON = and_(Vehicle.id == Event.vehicle_id, Vehicle.tenant_id == Event.tenant_id)


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


def _open_max(states: Sequence[Any]) -> dict[int, float]:
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
            .join(Vehicle, _EVENT_ON)
            .where(*where)
        )
    ).one()
    stmt = (
        select(
            Event, Vehicle.car_no, Vehicle.device_number, Vehicle.mechanism_id, Vehicle.car_type, Vehicle.model_number
        )
        .select_from(Event)
        .join(Vehicle, _EVENT_ON)
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
        maxima = _open_max(list(states))
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
            )
        )
    count, vehicles, total_s = totals
    return Rows(
        records=records,
        total=int(count),
        totals=AlarmTotals(vehicles=int(vehicles), alarms=int(count), duration_s=round(float(total_s or 0))),
    )


# ------------------------------------------------------------------------------------------------ abnormal vehicles


def _reason_name(reason: str) -> str:
    zh, en = REASON_LABELS[reason]
    return en if current_language() == "en" else zh


def conditions_of(vehicle: Any, state: Any, now: datetime) -> list[Condition]:
    """The abnormal conditions of one vehicle now (``abnormal`` reads the definition)."""
    out: list[Condition] = []
    if state is None or state.last_seen is None:
        registered = vehicle.create_time
        if (
            vehicle.device_number
            and registered is not None
            and registered <= now - timedelta(days=OFFLINE_ANOMALY_DAYS)
        ):
            out.append(Condition(reason="never_reported", reason_name=_reason_name("never_reported"), since=registered))
        if state is None:
            return out
    opened = json.loads(state.open_events or "{}")
    if "offline" in opened:
        since = datetime.fromisoformat(opened["offline"]["begin"]) if opened["offline"].get("begin") else None
        days = f"{(now - state.last_seen).days}" if state.last_seen else ""
        out.append(Condition(reason="offline", reason_name=_reason_name("offline"), since=since, info=days))
    if state.clock_fault_time is not None:
        out.append(
            Condition(
                reason="clock_fault",
                reason_name=_reason_name("clock_fault"),
                since=state.server_time,
                info=state.clock_fault_time.isoformat(sep=" ", timespec="seconds"),
            )
        )
    battery = sorted(k for k in opened if k.startswith("battery_"))
    if battery:
        begins = [datetime.fromisoformat(opened[k]["begin"]) for k in battery if opened[k].get("begin")]
        info = ", ".join(kind_label(k) for k in battery)
        out.append(
            Condition(reason="battery", reason_name=_reason_name("battery"), since=min(begins, default=None), info=info)
        )
    faults = [str(c) for c in json.loads(state.extra or "{}").get("faults", [])]
    if faults:
        out.append(
            Condition(
                reason="fault", reason_name=_reason_name("fault"), since=state.device_time, info=", ".join(faults)
            )
        )
    return out


async def abnormal(
    ctx: Ctx,
    mechanism_id: int | None = None,
    car_no: str | None = None,
    car_id: int | None = None,
    reason: Reason | None = None,
) -> list[tuple[AbnormalCar, Any, Any, list[Condition]]]:
    """The vehicles the caller may see that are abnormal now, silent longest first. A vehicle is abnormal when one
    of these holds (all read from the stored state, nothing guessed):

    * ``offline``: its ``offline`` alarm is open - the terminal has been silent (no position, no heartbeat) for the
      tenant's ``offline_days`` (default 7: spec 001 §9 "device anomaly: offline 7 consecutive days or more");
    * ``never_reported``: it names a terminal (a device number), was registered 7 days ago or more and its terminal
      has never been heard from;
    * ``clock_fault``: its terminal's latest report was dated implausibly (``VehicleState.clock_fault_time``);
    * ``battery``: a battery alarm is open (high / low voltage, over current, over temperature, liquid level);
    * ``fault``: its latest report carried fault codes (they are active until a report without them).
    """
    now = utcnow()
    stmt = (
        select(Vehicle, VehicleState)
        .select_from(Vehicle)
        .outerjoin(VehicleState, _STATE_ON)
        .where(
            *vehicles_where(ctx, mechanism_id, car_id, car_no),
            or_(
                VehicleState.open_events.like('%"offline"%'),
                VehicleState.open_events.like('%"battery\\_%', escape="\\"),
                VehicleState.clock_fault_time.is_not(None),
                VehicleState.extra.like('%"faults"%'),
                and_(
                    or_(VehicleState.vehicle_id.is_(None), VehicleState.last_seen.is_(None)),
                    Vehicle.device_number.is_not(None),
                    Vehicle.device_number != "",
                    Vehicle.create_time <= now - timedelta(days=OFFLINE_ANOMALY_DAYS),
                ),
            ),
        )
    )
    found = []
    rows = (await ctx.session.execute(stmt)).all()
    names = await organisation_names(ctx, {v.mechanism_id for v, _ in rows if v.mechanism_id})
    types = await dict_labels(ctx.session, "car_type")
    for v, st in rows:
        conditions = conditions_of(v, st, now)
        if reason is not None:
            conditions_hit = [c for c in conditions if c.reason == reason]
            if not conditions_hit:
                continue
        if not conditions:
            continue
        sinces = [c.since for c in conditions if c.since is not None]
        car = AbnormalCar(
            car_id=v.id,
            car_no=v.car_no,
            device_number=v.device_number or "",
            mechanism_id=v.mechanism_id,
            mechanism_name=names.get(v.mechanism_id, "") if v.mechanism_id else "",
            car_type_name=types.get(str(v.car_type), ""),
            last_seen=st.last_seen if st is not None else None,
            online=bool(st.online) if st is not None else False,
            reasons=[c.reason for c in conditions],
            reason_names=", ".join(c.reason_name for c in conditions),
            since=min(sinces) if sinces else None,
        )
        found.append((car, v, st, conditions))
    found.sort(key=lambda f: (f[0].since or datetime.max, f[0].car_no, f[0].car_id))
    return found


async def abnormal_page(
    ctx: Ctx, q: AbnormalQuery, found: Sequence[tuple[AbnormalCar, Any, Any, list[Condition]]] | None = None
) -> Page[AbnormalCar]:
    """A page of the abnormal vehicles (``found``: those of ``q``'s filters, already read)."""
    if found is None:
        found = await abnormal(ctx, q.mechanism_id, q.car_no, reason=q.reason)
    start = (q.current - 1) * q.size
    records = [f[0] for f in found[start : start + q.size]]
    pages = (len(found) + q.size - 1) // q.size
    return Page[AbnormalCar](records=records, total=len(found), size=q.size, current=q.current, pages=pages)


async def abnormal_info(ctx: Ctx, car_id: int) -> AbnormalInfo:
    """One vehicle's abnormal conditions, its active fault codes and its alarms in progress (a vehicle the caller
    does not see: 400 not found; a normal one: no conditions)."""
    now = utcnow()
    row = (
        await ctx.session.execute(
            select(Vehicle, VehicleState)
            .select_from(Vehicle)
            .outerjoin(VehicleState, _STATE_ON)
            .where(*vehicles_where(ctx, car_id=car_id))
        )
    ).first()
    if row is None:
        raise ServiceError(t("not_found"))
    v, st = row
    conditions = conditions_of(v, st, now)
    names = await organisation_names(ctx, {v.mechanism_id} if v.mechanism_id else set())
    types = await dict_labels(ctx.session, "car_type")
    opened = json.loads(st.open_events or "{}") if st is not None else {}
    ids = [int(a["id"]) for a in opened.values() if str(a.get("id", "")).isdigit()]
    events = []
    if ids:
        events = list(
            await ctx.session.scalars(
                select(Event)
                .where(Event.id.in_(ids), Event.vehicle_id == v.id, *ctx.scope.where(Event))
                .order_by(Event.begin_time)
            )
        )
    maxima = _open_max([st.open_events]) if st is not None else {}
    sinces = [c.since for c in conditions if c.since is not None]
    return AbnormalInfo(
        car_id=v.id,
        car_no=v.car_no,
        device_number=v.device_number or "",
        mechanism_id=v.mechanism_id,
        mechanism_name=names.get(v.mechanism_id, "") if v.mechanism_id else "",
        car_type_name=types.get(str(v.car_type), ""),
        last_seen=st.last_seen if st is not None else None,
        online=bool(st.online) if st is not None else False,
        reasons=[c.reason for c in conditions],
        reason_names=", ".join(c.reason_name for c in conditions),
        since=min(sinces) if sinces else None,
        conditions=conditions,
        fault_codes=[str(c) for c in json.loads((st.extra if st is not None else None) or "{}").get("faults", [])],
        open_alarms=[
            OpenAlarm(
                id=e.id,
                kind=e.kind,
                kind_name=kind_label(e.kind),
                begin_time=e.begin_time,
                duration_s=max(0, int((now - e.begin_time).total_seconds())),
                value=shown(e.kind, e.value),
                max_value=shown(e.kind, maxima.get(e.id, e.max_value)),
                limit_value=shown(e.kind, e.limit_value),
            )
            for e in events
        ],
    )


async def abnormal_tree(ctx: Ctx, reason: Reason | None) -> list[AbnormalNode]:
    """The caller's organisations that hold abnormal vehicles (in them or under them), with their counts."""
    found = await abnormal(ctx, reason=reason)
    depts = list((await ctx.session.execute(ctx.scope.select(Dept).order_by(Dept.sort, Dept.id))).scalars().all())
    nodes = {d.id: AbnormalNode(id=d.id, parent_id=d.parent_id, title=d.dept_name, count=0) for d in depts}
    for car, *_ in found:
        org = car.mechanism_id
        seen: set[int] = set()
        while org is not None and org in nodes and org not in seen:
            seen.add(org)
            nodes[org].count += 1
            org = nodes[org].parent_id
    roots: list[AbnormalNode] = []
    for d in depts:
        node = nodes[d.id]
        if node.count == 0:
            continue
        (nodes[d.parent_id].children if d.parent_id in nodes else roots).append(node)
    return roots


def _fingerprint(found: Sequence[tuple[AbnormalCar, Any, Any, list[Condition]]]) -> str:
    items = sorted(f"{car.car_id}:{','.join(car.reasons)}" for car, *_ in found)
    return hashlib.sha256("|".join(items).encode()).hexdigest()


#: How long a user's "seen" mark of the abnormal list is kept.
SEEN_TTL = timedelta(days=90)


def _seen_key(ctx: Ctx) -> str:
    return f"abnormal-seen:{ctx.scope.tenant_id}:{ctx.principal.user_id}"


async def mark_seen(ctx: Ctx, found: Sequence[tuple[AbnormalCar, Any, Any, list[Condition]]]) -> None:
    """The caller has opened the full list of abnormal vehicles: remember what it held."""
    from liftdesk.core.kv import KV

    await KV(ctx.session).set(_seen_key(ctx), _fingerprint(found), SEEN_TTL)


async def first_open(ctx: Ctx) -> FirstOpen:
    """Has the list of abnormal vehicles changed (vehicles, or their conditions) since the caller last opened it
    (the first page of ``getCarAbnormalPage`` without filters)? A caller who never opened it, and has abnormal
    vehicles, is answered true."""
    from liftdesk.core.kv import KV

    found = await abnormal(ctx)
    seen = await KV(ctx.session).get(_seen_key(ctx))
    changed = seen != _fingerprint(found) if seen is not None else bool(found)
    return FirstOpen(first=changed, count=len(found))


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
        .join(Vehicle, _EVENT_ON)
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
        .join(VehicleState, _STATE_ON)
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
