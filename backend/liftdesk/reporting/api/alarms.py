"""The alarm lists of the alarm center (报警中心 → 报警记录): every alarm, collisions, speeding, overloads, the
other alarms and operation warnings, faults; each paged with its totals and exported as .xlsx with the same filters.

Declared on the reports' resource (the vehicles: their scope and data rule) with the report layer's paged kind
(``core.report.declare_paged_report``: the range rules, the page, the totals, the export). Reading needs the menu
``alarm_record``, exporting its button ``alarm_record_export``. The spec names the lists
(``carInfo/getCar*List``) but no export of them: the exports are ours, ``/api/liftdesk/alarm/<list>/export``.
Definitions of the columns: ``reporting.alarm_schemas``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, func

from liftdesk.core.crud import Ctx
from liftdesk.core.paging import PageQuery
from liftdesk.core.report import Export, PagedFetch, Period, Rows, declare_paged_report
from liftdesk.core.transfer import Column
from liftdesk.reporting import alarms
from liftdesk.reporting.alarm_schemas import (
    ALARM_MAX_DAYS,
    AlarmQuery,
    AlarmRow,
    AlarmTotals,
    CollisionQuery,
    FaultQuery,
    KindQuery,
)
from liftdesk.reporting.resources import (
    ALARM,
    ALARM_EXPORT,
    ALARM_EXPORT_PREFIX,
    ALARM_MENU,
    ALARM_PREFIX,
    ALARM_TAG,
)
from liftdesk.telemetry.models import Event

HEAD = (
    Column("mechanism_name", "所属机构", "Organisation"),
    Column("car_no", "车辆编号", "Vehicle number"),
    Column("device_number", "终端设备号", "Device number"),
)
BEGIN = Column("begin_time", "开始时间", "Begin")
END = Column("end_time", "结束时间", "End")
DURATION = Column("duration_s", "持续时长(秒)", "Duration (s)")
DRIVER = Column("driver_name", "司机", "Driver")
KIND = Column("kind_name", "报警类型", "Alarm type")

COLUMNS: dict[str, tuple[Column, ...]] = {
    "all": (*HEAD, KIND, BEGIN, END, DURATION, Column("value", "报警值", "Value"), DRIVER),
    "collision": (
        *HEAD,
        Column("level", "碰撞等级", "Level"),
        Column("begin_time", "报警时间", "Time"),
        Column("limit_value", "碰撞阈值(g)", "Threshold (g)"),
        Column("value", "碰撞实际值(g)", "Actual (g)"),
        Column("direction", "碰撞方向(°)", "Direction (°)"),
        DRIVER,
    ),
    "speeding": (
        *HEAD,
        BEGIN,
        END,
        Column("limit_value", "限速(km/h)", "Speed limit (km/h)"),
        Column("value", "开始速度(km/h)", "Start speed (km/h)"),
        Column("max_value", "最高速度(km/h)", "Top speed (km/h)"),
        DURATION,
        DRIVER,
    ),
    "overload": (
        *HEAD,
        BEGIN,
        END,
        Column("limit_value", "超载阈值(kg)", "Threshold (kg)"),
        Column("max_value", "实际载重(kg)", "Actual load (kg)"),
        DURATION,
        DRIVER,
    ),
    "warning": (*HEAD, KIND, BEGIN, END, DURATION, DRIVER),
    "fault": (*HEAD, Column("code", "故障码", "Fault code"), Column("begin_time", "报警时间", "Time"), DRIVER),
}


def _fetch(kinds: Sequence[str] | None, own: Any = None, every: bool = False) -> PagedFetch:
    """The list's fetch: alarms of ``kinds`` (None: the warnings; ``every``: any kind) and its own filters
    (``own(query)``)."""

    async def fetch(ctx: Ctx, query: Any, period: Period, page: PageQuery | None) -> Rows:
        extra = alarms.kinds_where(kinds, getattr(query, "kind", None), every)
        if own is not None:
            extra.extend(own(query))
        return await alarms.alarm_rows(ctx, query, period, page, extra)

    return fetch


def _level(q: CollisionQuery) -> list[ColumnElement[bool]]:
    return [Event.level == q.level] if q.level is not None else []


def _code(q: FaultQuery) -> list[ColumnElement[bool]]:
    return [func.lower(Event.detail).like(alarms.like_code(q.code.lower()), escape="\\")] if q.code else []


LISTS: tuple[tuple[str, str, str, type[AlarmQuery], PagedFetch], ...] = (
    (
        "getCarAlarmInfoList",
        "all",
        "Every alarm of the vehicles (any kind; kind: one of them)",
        KindQuery,
        _fetch(None, every=True),
    ),
    (
        "getCarCollisionList",
        "collision",
        "Collision alarms: level (1-5), threshold and actual peak (g), direction, driver (level: one level)",
        CollisionQuery,
        _fetch(("collision",), _level),
    ),
    (
        "getCarSpeedingList",
        "speeding",
        "Speeding alarms: the limit, the speed when it began, the top speed, how long it lasted",
        AlarmQuery,
        _fetch(("speeding",)),
    ),
    (
        "getCarOverloadList",
        "overload",
        "Overload alarms: the threshold and the actual (highest) load, how long it lasted",
        AlarmQuery,
        _fetch(("overload",)),
    ),
    (
        "getCarWarningList",
        "warning",
        "Other alarms and operation warnings: every kind but collision, speeding, overload and fault (fences, "
        "battery, long offline, the terminal's own alarms; kind: one of them)",
        KindQuery,
        _fetch(None),
    ),
    (
        "getCarFaultList",
        "fault",
        "Fault alarms: each fault code a report carried that the previous one did not (code: contains)",
        FaultQuery,
        _fetch(("fault",), _code),
    ),
)

for _path, _list, _summary, _query, _fetcher in LISTS:
    declare_paged_report(
        ALARM,
        f"{ALARM_PREFIX}/{_path}",
        name=f"alarm_{_list}_list",
        summary=f"{_summary}; newest first. Filters: mechanismId (branch), carId, carNo, driverName, startTime / "
        "endTime (local days, the day the alarm began)",
        query=_query,
        row=AlarmRow,
        totals=AlarmTotals,
        fetch=_fetcher,
        max_days=ALARM_MAX_DAYS,
        permission=ALARM_MENU,
        export=Export(
            f"{ALARM_EXPORT_PREFIX}/{_list}/export", COLUMNS[_list], f"alarms-{_list}", permission=ALARM_EXPORT
        ),
        tag=ALARM_TAG,
    )
