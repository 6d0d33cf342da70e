"""The abnormal vehicles of the alarm center (异常车辆): vehicles whose terminal or battery needs someone now.

Read from the vehicles' live states (``VehicleState``) and their open alarms; the definition of each condition:
``abnormal``. Every query starts from the vehicles the caller may see (``alarms.vehicles_where``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select

from liftdesk.core.crud import Ctx
from liftdesk.core.db import utcnow
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import current_language, t
from liftdesk.core.paging import Page
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.service import organisation_names
from liftdesk.reporting.alarm_schemas import (
    REASON_LABELS,
    AbnormalCar,
    AbnormalInfo,
    AbnormalNode,
    AbnormalQuery,
    Condition,
    FirstOpen,
    OpenAlarm,
    Reason,
    kind_label,
)
from liftdesk.reporting.alarms import STATE_ON, open_max, shown, vehicles_where
from liftdesk.reporting.home_schemas import OFFLINE_ANOMALY_DAYS
from liftdesk.system.models import Dept
from liftdesk.system.service import dict_labels
from liftdesk.telemetry.models import Event, VehicleState
from liftdesk.telemetry.rules import Thresholds, tenant_thresholds


def _reason_name(reason: str) -> str:
    zh, en = REASON_LABELS[reason]
    return en if current_language() == "en" else zh


def _silent_since(state: Any, now: datetime, silent: timedelta) -> datetime | None:
    """Since when a connected terminal has sent no position, when that is ``silent`` or longer (else None): from its
    latest position, or from when it connected when it sent none since (``online_since``; unknown: not judged)."""
    if not state.online or silent <= timedelta(0):
        return None
    marks = [t for t in (state.server_time, state.online_since) if t is not None]
    if not marks:
        return None
    since: datetime = max(marks)
    return since if now - since >= silent else None


def conditions_of(vehicle: Any, state: Any, now: datetime, silent: timedelta = timedelta(0)) -> list[Condition]:
    """The abnormal conditions of one vehicle now (``abnormal`` reads the definition; ``silent``: the tenant's
    ``silent_minutes``, 0 leaves ``no_position`` out)."""
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
    quiet = _silent_since(state, now, silent)
    if quiet is not None:
        last = state.server_time.isoformat(sep=" ", timespec="seconds") if state.server_time is not None else ""
        out.append(Condition(reason="no_position", reason_name=_reason_name("no_position"), since=quiet, info=last))
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


_SILENT_DEFAULT = timedelta(minutes=Thresholds().silent_minutes)
_SILENT_FLOOR = timedelta(minutes=1)  # a shorter setting counts as one minute (report intervals are seconds)


async def _silences(ctx: Ctx, tenants: set[str]) -> dict[str, timedelta]:
    """Each tenant's ``silent_minutes`` (``telemetry.silentMinutes``), at least a minute; 0: not judged."""
    limits = await tenant_thresholds(ctx.session, sorted(tenants)) if tenants else {}
    return {
        t: timedelta(minutes=max(1, lim.silent_minutes)) if lim.silent_minutes > 0 else timedelta(0)
        for t, lim in limits.items()
    }


def _car_fields(
    v: Any, st: Any, conditions: list[Condition], names: dict[int, str], types: dict[str, str]
) -> dict[str, Any]:
    """What the list and the detail say of one abnormal vehicle (``AbnormalCar``'s fields)."""
    sinces = [c.since for c in conditions if c.since is not None]
    return {
        "car_id": v.id,
        "car_no": v.car_no,
        "device_number": v.device_number or "",
        "mechanism_id": v.mechanism_id,
        "mechanism_name": names.get(v.mechanism_id, "") if v.mechanism_id else "",
        "car_type_name": types.get(str(v.car_type), ""),
        "last_seen": st.last_seen if st is not None else None,
        "online": bool(st.online) if st is not None else False,
        "reasons": [c.reason for c in conditions],
        "reason_names": ", ".join(c.reason_name for c in conditions),
        "since": min(sinces) if sinces else None,
    }


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
    * ``no_position``: its terminal is connected but has sent no position for the tenant's ``silent_minutes``
      (default 10; heartbeats only: no GNSS fix, a report interval set wrong), counted from its latest position or
      from when it connected;
    * ``clock_fault``: its terminal's latest report was dated implausibly (``VehicleState.clock_fault_time``);
    * ``battery``: a battery alarm is open (high / low voltage, over current, over temperature, liquid level);
    * ``fault``: its latest report carried fault codes (they are active until a report without them).
    """
    now = utcnow()
    stmt = (
        select(Vehicle, VehicleState)
        .select_from(Vehicle)
        .outerjoin(VehicleState, STATE_ON)
        .where(
            *vehicles_where(ctx, mechanism_id, car_id, car_no),
            or_(
                VehicleState.open_events.like('%"offline"%'),
                VehicleState.open_events.like('%"battery\\_%', escape="\\"),
                VehicleState.clock_fault_time.is_not(None),
                VehicleState.extra.like('%"faults"%'),
                and_(  # narrowed by the shortest silence a tenant may set; each tenant's own in conditions_of
                    VehicleState.online.is_(True),
                    or_(VehicleState.server_time.is_not(None), VehicleState.online_since.is_not(None)),
                    or_(VehicleState.server_time.is_(None), VehicleState.server_time <= now - _SILENT_FLOOR),
                    or_(VehicleState.online_since.is_(None), VehicleState.online_since <= now - _SILENT_FLOOR),
                ),
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
    silences = await _silences(ctx, {v.tenant_id for v, _ in rows})
    for v, st in rows:
        conditions = conditions_of(v, st, now, silences.get(v.tenant_id, _SILENT_DEFAULT))
        if reason is not None:
            conditions_hit = [c for c in conditions if c.reason == reason]
            if not conditions_hit:
                continue
        if not conditions:
            continue
        car = AbnormalCar(**_car_fields(v, st, conditions, names, types))
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
            .outerjoin(VehicleState, STATE_ON)
            .where(*vehicles_where(ctx, car_id=car_id))
        )
    ).first()
    if row is None:
        raise ServiceError(t("not_found"))
    v, st = row
    conditions = conditions_of(v, st, now, (await _silences(ctx, {v.tenant_id}))[v.tenant_id])
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
    maxima = open_max([st.open_events]) if st is not None else {}
    return AbnormalInfo(
        **_car_fields(v, st, conditions, names, types),
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
