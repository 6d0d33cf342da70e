"""The driver behaviour analysis (司机行为分析): behaviour alarms counted by type over a range, and per day. The face
recognition log's page is its resource's generated ``page`` (``reporting.resources.FACE_LOG``)."""

from __future__ import annotations

from liftdesk.core.report import declare_series_report
from liftdesk.reporting import driver_behavior as behavior
from liftdesk.reporting.resources import BEHAVIOR_MENU, BEHAVIOR_PREFIX, BEHAVIOR_TAG, DRIVER_BEHAVIOR

declare_series_report(
    DRIVER_BEHAVIOR,
    f"{BEHAVIOR_PREFIX}/getFaceAlarmTypeCount",
    name="face_alarm_type_count",
    summary="Driver behaviour alarms of the driver cameras (fatigue, phone, smoking, distraction, no face, camera "
    "blocked, face mismatch) counted by type over the range, every type listed",
    query=behavior.BehaviorQuery,
    row=behavior.BehaviorTypeCount,
    fetch=behavior.type_counts,
    max_days=behavior.MAX_DAYS,
    permission=BEHAVIOR_MENU,
    tag=BEHAVIOR_TAG,
)

declare_series_report(
    DRIVER_BEHAVIOR,
    f"{BEHAVIOR_PREFIX}/getFaceAlarmTypeCountTrend",
    name="face_alarm_type_count_trend",
    summary="Driver behaviour alarms per local day of the range: each type's count and the day's total",
    query=behavior.BehaviorQuery,
    row=behavior.BehaviorDay,
    fetch=behavior.type_trend,
    max_days=behavior.MAX_DAYS,
    permission=BEHAVIOR_MENU,
    tag=BEHAVIOR_TAG,
)
