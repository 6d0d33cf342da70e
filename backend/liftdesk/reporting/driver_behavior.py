"""The face recognition log (人脸识别记录, ``faceRecognitionLog/page``) and the driver behaviour analysis (司机行为分析,
``driverBehaviorAnalysis/getFaceAlarmTypeCount`` and ``getFaceAlarmTypeCountTrend``), from what the terminals'
driver cameras reported (``telemetry.pipeline.drivers``: face comparisons in ``fics_face_record``, behaviour alarms as
``dms_*`` events).

Both read through the vehicles the caller may see (``reporting.alarms.vehicles_where``: tenant, the vehicles' data
rule, an organisation branch); the face log also through its own resource's rule (``face_log``, on the vehicle's
organisation when the record was stored).

The face log's filters (query parameters): ``mechanismId`` (that organisation and the ones under it), ``carId``,
``carNo`` (contains), ``driverId``, ``result`` (0 matched, 1 no match, 2 no face), ``startTime`` / ``endTime``
(local days ``yyyy-MM-dd``, both included; a start after the end is a 400 naming ``startTime``). The analysis takes
the reports' range rules (``core.report``: default the last 7 days, at most :data:`MAX_DAYS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from pydantic import Field
from sqlalchemy import func, select

from liftdesk.core.crud import Ctx
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import current_language, t
from liftdesk.core.report import Day, Period, ReportQuery, _to_day
from liftdesk.core.resource import Hooks
from liftdesk.core.schemas import Id, Schema, Time, out_schema
from liftdesk.fleet.models import Driver, Vehicle
from liftdesk.fleet.service import organisation_names
from liftdesk.reporting.alarm_schemas import KIND_LABELS
from liftdesk.reporting.alarms import vehicles_where
from liftdesk.reporting.home import utc_of
from liftdesk.telemetry.models import Event, FaceRecord
from liftdesk.telemetry.pipeline.drivers import DMS_KINDS

#: The longest range of the analysis ("some reports need a range over 7 and under 30 days"): a month.
MAX_DAYS = 31
#: The behaviour alarm kinds, in the order the analysis lists them.
KINDS: tuple[str, ...] = tuple(DMS_KINDS.values())
RESULT_LABELS: dict[int, tuple[str, str]] = {
    0: ("匹配", "Matched"),
    1: ("不匹配", "No match"),
    2: ("无人脸", "No face"),
}
TRIGGER_LABELS: dict[int, tuple[str, str]] = {
    0: ("开机", "Power-on"),
    1: ("定时", "Periodic"),
    2: ("刷卡", "Card inserted"),
    3: ("平台抓拍", "Platform request"),
}


def _label(labels: dict[int, tuple[str, str]] | dict[str, tuple[str, str]], key: Any) -> str:
    pair = labels.get(key)
    if pair is None:
        return str(key)
    return pair[1] if current_language() == "en" else pair[0]


# ------------------------------------------------------------------------------------------------ the face log


class FaceRecordIn(Schema):
    """A face comparison as a terminal reported it (read-only: written by the pipeline)."""

    vehicle_id: Id
    mechanism_id: Id | None = None
    device_number: str | None = None
    driver_id: Id | None = Field(default=None, description="the driver matched (by the card serial the terminal named)")
    card_serial: str | None = None
    result: int = Field(default=0, description="0 matched, 1 no match, 2 no face")
    similarity: float | None = Field(default=None, description="percent 0-100")
    trigger: int = Field(default=1, description="0 power-on, 1 periodic, 2 card inserted, 3 platform request")
    photo: str | None = Field(default=None, description="the terminal's reference of the picture")
    device_time: Time


FaceRecordOut = out_schema(
    "FaceRecordOut",
    FaceRecordIn,
    FaceRecord,
    create_time=(Time | None, None),
    car_id=(Id | None, None),
    car_no=(str | None, None),
    driver_name=(str | None, None),
    mechanism_name=(str | None, None),
    result_name=(str, ""),
    trigger_name=(str, ""),
)


def _int_param(ctx: Ctx, name: str) -> int | None:
    raw = (ctx.params.get(name) or "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ServiceError(t("field_invalid", field=name)) from None


def _day_param(ctx: Ctx, name: str) -> date | None:
    raw = (ctx.params.get(name) or "").strip()
    try:
        day = _to_day(raw)
    except ValueError:
        raise ServiceError(t("field_invalid", field=name)) from None
    return day if isinstance(day, date) else None


class FaceLogHooks(Hooks):
    """The face log's filters (module docstring) and the names beside each row."""

    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        car_no = (ctx.params.get("carNo") or "").strip() or None
        visible = select(Vehicle.id).where(
            *vehicles_where(ctx, _int_param(ctx, "mechanismId"), _int_param(ctx, "carId"), car_no)
        )
        stmt = stmt.where(FaceRecord.vehicle_id.in_(visible))
        driver = _int_param(ctx, "driverId")
        if driver is not None:
            stmt = stmt.where(FaceRecord.driver_id == driver)
        result = _int_param(ctx, "result")
        if result is not None:
            stmt = stmt.where(FaceRecord.result == result)
        start, end = _day_param(ctx, "startTime"), _day_param(ctx, "endTime")
        if start is not None and end is not None and start > end:
            raise ServiceError(t("period_order", field="startTime"))
        if start is not None:
            stmt = stmt.where(FaceRecord.device_time >= utc_of(start))
        if end is not None:
            stmt = stmt.where(FaceRecord.device_time < utc_of(end + timedelta(days=1)))
        return stmt

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not rows:
            return rows
        cars = dict(
            (
                await ctx.session.execute(
                    ctx.scope.apply(
                        select(Vehicle.id, Vehicle.car_no).where(Vehicle.id.in_({r["vehicle_id"] for r in rows})),
                        Vehicle,
                        data=False,
                    )
                )
            ).all()
        )
        drivers = dict(
            (
                await ctx.session.execute(
                    ctx.scope.apply(
                        select(Driver.id, Driver.name).where(Driver.id.in_({r["driver_id"] for r in rows})),
                        Driver,
                        data=False,
                    )
                )
            ).all()
        )
        depts = await organisation_names(ctx, {r["mechanism_id"] for r in rows if r.get("mechanism_id")})
        for r in rows:
            r.update(
                car_id=r["vehicle_id"],
                car_no=cars.get(r["vehicle_id"]),
                driver_name=drivers.get(r.get("driver_id") or 0),
                mechanism_name=depts.get(r.get("mechanism_id") or 0, ""),
                result_name=_label(RESULT_LABELS, r.get("result")),
                trigger_name=_label(TRIGGER_LABELS, r.get("trigger")),
            )
        return rows


# ------------------------------------------------------------------------------------------------ the analysis


class BehaviorQuery(ReportQuery):
    """The analysis' filters: an organisation branch, a vehicle, a driver and a range of days (at most 31)."""

    car_id: Id | None = Field(default=None, description="one vehicle")
    car_no: str | None = Field(default=None, max_length=64, description="vehicle number contains")
    driver_id: Id | None = Field(default=None, description="one driver (the driver on duty when the alarm began)")


class BehaviorTypeCount(Schema):
    """How many behaviour alarms of one type."""

    type: str = Field(description="fatigue, phone, smoking, distraction, no_face, camera_blocked, face_mismatch")
    kind: str = Field(description="the event kind (dms_<type>), as the alarm center lists it")
    type_name: str = Field(description="the type in the user's language")
    count: int


class BehaviorDay(Schema):
    """One day of the trend: every type's count (zeros included) and their total."""

    day: Day
    total: int
    counts: list[BehaviorTypeCount]


def _counts(by_kind: dict[str, int]) -> list[BehaviorTypeCount]:
    return [
        BehaviorTypeCount(
            type=kind.removeprefix("dms_"),
            kind=kind,
            type_name=_label(KIND_LABELS, kind),
            count=by_kind.get(kind, 0),
        )
        for kind in KINDS
    ]


def _alarms(ctx: Ctx, q: BehaviorQuery, period: Period, *columns: Any) -> Any:
    stmt = (
        select(*columns)
        .join(Vehicle, (Vehicle.id == Event.vehicle_id) & (Vehicle.tenant_id == Event.tenant_id))
        .where(
            *vehicles_where(ctx, q.mechanism_id, q.car_id, q.car_no),
            Event.tenant_id == ctx.scope.tenant_id,
            Event.kind.in_(KINDS),
            Event.begin_time >= utc_of(period.start),
            Event.begin_time < utc_of(period.end + timedelta(days=1)),
        )
    )
    if q.driver_id is not None:
        stmt = stmt.where(Event.driver_id == q.driver_id)
    return stmt


async def type_counts(ctx: Ctx, q: BehaviorQuery, period: Period) -> Sequence[BehaviorTypeCount]:
    """Every behaviour alarm type with its count over the range (zeros included)."""
    rows = await ctx.session.execute(_alarms(ctx, q, period, Event.kind, func.count()).group_by(Event.kind))
    return _counts({kind: int(n) for kind, n in rows.all()})


async def type_trend(ctx: Ctx, q: BehaviorQuery, period: Period) -> Sequence[BehaviorDay]:
    """Per day of the range (local days), every type's count."""
    offset = utc_of(period.start) - datetime.combine(period.start, datetime.min.time())
    days: dict[date, dict[str, int]] = {d: {} for d in period.days}
    rows = await ctx.session.execute(_alarms(ctx, q, period, Event.kind, Event.begin_time))
    for kind, begin in rows.all():
        day = (begin - offset).date()
        if day in days:
            days[day][kind] = days[day].get(kind, 0) + 1
    return [BehaviorDay(day=d, total=sum(c.values()), counts=_counts(c)) for d, c in days.items()]
