"""What the alarm center (报警中心) asks and is answered: the alarm lists (``carInfo/getCar*List``), the abnormal
vehicles (``abnormal/*``) and the fault codes (``faultCode/*``), spec 001 §3 and §7.

The specification names the calls and the columns of the lists (collision: level, threshold, actual, direction;
speeding: limit, start and top speed, duration; overload: threshold, actual, duration; other alarms: time, type,
information, driver); the shapes are ours. Every row is one event the pipeline raised (``telemetry.models.Event``):

* **value**: the measure when the alarm began (collision: the peak in g; speeding: km/h; overload: kg), **maxValue**
  the highest while it lasted (an open alarm: so far), **limitValue** the threshold it crossed;
* **durationS**: end - begin in seconds; an alarm still in progress (``open``) counts until now;
* **direction** (collision): the impact's direction in degrees as the terminal measured it (0-359, none when only
  alarm bit 29 told of it); **code** (fault): the fault code the terminal reported.

The range: local days ``startTime`` / ``endTime`` (``yyyy-MM-dd``; a time after the day is accepted and dropped),
an alarm belongs to the day it began; the start must not be after the end and the range is at most 7 days (spec 001
§5, "up to 7 days selectable for a range"), refused with a 400 naming the field.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from liftdesk.core.i18n import current_language
from liftdesk.core.paging import MAX_PAGE
from liftdesk.core.report import Day, ReportQuery
from liftdesk.core.schemas import Id, IdListRequired, Schema, Time

#: The longest range of an alarm list (spec 001 §5 and §9: "range cap 7 days").
ALARM_MAX_DAYS = 7
#: The kinds with a list of their own; the warnings list holds every other kind but ``fault``.
OWN_LISTS = ("collision", "speeding", "overload", "fault")

#: Labels of the kinds the pipeline and the jobs raise (``telemetry.pipeline.stages``, ``telemetry.jobs``).
KIND_LABELS: dict[str, tuple[str, str]] = {
    "collision": ("碰撞报警", "Collision"),
    "speeding": ("超速报警", "Speeding"),
    "overload": ("超载报警", "Overload"),
    "fault": ("故障报警", "Fault"),
    "fence_in": ("进入围栏", "Entered fence"),
    "fence_out": ("驶出围栏", "Left fence"),
    "fence_cross": ("越界报警", "Fence crossing"),
    "fence_speeding": ("围栏内超速", "Speeding in fence"),
    "offline": ("长时间离线", "Long offline"),
    "battery_high_voltage": ("电池高压", "Battery high voltage"),
    "battery_low_voltage": ("电池低压", "Battery low voltage"),
    "battery_over_current": ("电池过流", "Battery over current"),
    "battery_over_temperature": ("电池过温", "Battery over temperature"),
    "battery_liquid_level": ("电池液位低", "Battery liquid level low"),
    "jt808_emergency": ("紧急报警", "Emergency"),
    "jt808_overspeed": ("终端超速", "Terminal overspeed"),
    "jt808_gnss_fault": ("GNSS 模块故障", "GNSS fault"),
    "jt808_antenna_disconnected": ("GNSS 天线断开", "GNSS antenna disconnected"),
    "jt808_antenna_short": ("GNSS 天线短路", "GNSS antenna short"),
    "jt808_power_low": ("主电源欠压", "Main power low"),
    "jt808_power_cut": ("主电源断电", "Main power cut"),
    "jt808_camera_fault": ("摄像头故障", "Camera fault"),
    "jt808_ic_card_fault": ("IC 卡模块故障", "IC card reader fault"),
    "jt808_parking_overtime": ("超时停车", "Parked too long"),
    "jt808_vss_fault": ("车速传感器故障", "Speed sensor fault"),
    "jt808_theft": ("防盗报警", "Theft"),
    "jt808_illegal_ignition": ("非法点火", "Illegal ignition"),
    "jt808_illegal_move": ("非法位移", "Illegal move"),
    "jt808_rollover_warning": ("侧翻预警", "Rollover warning"),
    # drivers on the vehicle (telemetry/pipeline/drivers.py): a refused IC card, the DMS camera's alarms
    "card_refused": ("刷卡被拒", "Card refused"),
    "dms_fatigue": ("疲劳驾驶", "Fatigue"),
    "dms_phone": ("接打电话", "Phone use"),
    "dms_smoking": ("抽烟", "Smoking"),
    "dms_distraction": ("分神驾驶", "Distraction"),
    "dms_no_face": ("未检测到人脸", "No face"),
    "dms_camera_blocked": ("摄像头遮挡", "Camera blocked"),
    "dms_face_mismatch": ("人证不符", "Face mismatch"),
}
#: Why a card was refused (``card_refused`` events' ``detail.reason``).
CARD_REASON_LABELS: dict[str, tuple[str, str]] = {
    "unknown_card": ("未登记的卡", "unknown card"),
    "not_authorized": ("未授权本车", "not authorized on this vehicle"),
    "blacklisted": ("黑名单司机", "driver blacklisted"),
    "licence_expired": ("驾驶证已过期", "licence expired"),
}


def alarm_info(kind: str, detail: dict[str, object]) -> str | None:
    """What an alarm says beyond its kind, in the user's language: a refused card's reason and serial."""
    if kind != "card_refused":
        return None
    label = CARD_REASON_LABELS.get(str(detail.get("reason")))
    reason = (label[1] if current_language() == "en" else label[0]) if label else str(detail.get("reason") or "")
    card = detail.get("card")
    return f"{reason} ({card})" if card else reason


def kind_label(kind: str) -> str:
    """The kind's name in the user's language (the kind itself when unknown)."""
    label = KIND_LABELS.get(kind)
    if label is None:
        return kind
    return label[1] if current_language() == "en" else label[0]


class AlarmQuery(ReportQuery):
    """The filters of every alarm list: organisation branch, vehicle, driver, work state and a range of at most 7
    days."""

    car_id: Id | None = Field(default=None, description="one vehicle")
    car_no: str | None = Field(default=None, max_length=64, description="vehicle number contains")
    driver_name: str | None = Field(default=None, max_length=64, description="driver name contains")
    work_status: int | None = Field(
        default=None, ge=0, le=3, description="work state: 0 unacknowledged, 1 acknowledged, 2 handled, 3 closed"
    )


class CollisionQuery(AlarmQuery):
    level: int | None = Field(default=None, ge=1, le=5, description="collision level 1 (mildest) to 5 (most severe)")


class KindQuery(AlarmQuery):
    kind: str | None = Field(default=None, max_length=32, description="one kind of alarm (e.g. fence_out)")


class FaultQuery(AlarmQuery):
    code: str | None = Field(default=None, max_length=32, description="fault code contains")


class AlarmRow(Schema):
    """One alarm (an event of the pipeline), newest first."""

    id: Id
    car_id: Id
    car_no: str
    device_number: str = ""
    mechanism_id: Id | None = None
    mechanism_name: str = ""
    car_type_name: str = ""
    model_number: str = ""
    kind: str
    kind_name: str = Field(description="the kind in the user's language")
    level: int
    begin_time: Time
    end_time: Time | None = Field(default=None, description="null while in progress")
    open: bool = Field(description="in progress: its duration counts until now")
    duration_s: int = Field(description="end - begin (open: now - begin), seconds")
    value: float | None = Field(default=None, description="the measure when it began (g, km/h, kg...)")
    max_value: float | None = Field(default=None, description="the highest while it lasted (so far, when open)")
    limit_value: float | None = Field(default=None, description="the threshold crossed")
    direction: int | None = Field(default=None, description="collision: impact direction in degrees")
    code: str | None = Field(default=None, description="fault: the fault code")
    info: str | None = Field(default=None, description="card_refused: the reason (user's language) and the card")
    lat: float | None = None
    lon: float | None = None
    driver_name: str | None = None
    work_status: int = Field(default=0, description="0 unacknowledged, 1 acknowledged, 2 handled, 3 closed")
    ack_user_name: str | None = Field(default=None, description="who acknowledged it")
    ack_time: Time | None = None
    cause: str | None = Field(default=None, description="a key of the business dictionary alarm_cause")
    note: str | None = Field(default=None, description="the handling note (and the closing one)")
    assignee_name: str | None = Field(default=None, description="who is to deal with it")
    close_user_name: str | None = None
    close_time: Time | None = None


class AlarmIdsIn(Schema):
    """A selection of alarms (the list rows' ids)."""

    ids: IdListRequired = Field(description="the selected alarms: [1, 2] or 1,2")


class CloseIn(AlarmIdsIn):
    note: str | None = Field(default=None, max_length=500, description="why they are closed (optional)")


class HandleIn(Schema):
    id: Id = Field(description="the alarm")
    note: str = Field(min_length=1, max_length=500, description="what was found and done")
    cause: str | None = Field(default=None, max_length=64, description="a key of the business dictionary alarm_cause")
    assignee_id: Id | None = Field(default=None, description="a user of the tenant who is to deal with it")


class AlarmIdQuery(Schema):
    id: Id = Field(description="the alarm")


class AlarmWorkOut(Schema):
    """Where the work on one alarm stands."""

    id: Id
    work_status: int = Field(description="0 unacknowledged, 1 acknowledged, 2 handled, 3 closed")
    ack_user_name: str | None = None
    ack_time: Time | None = None
    cause: str | None = None
    note: str | None = None
    assignee_id: Id | None = None
    assignee_name: str | None = None
    handle_user_name: str | None = None
    handle_time: Time | None = None
    close_user_name: str | None = None
    close_time: Time | None = None


class AssigneeOut(Schema):
    """A user an alarm can be assigned to."""

    id: Id
    name: str
    account: str


class AlarmLogOut(Schema):
    """One step of the work on an alarm."""

    action: str = Field(description="ack, handle or close")
    user_name: str
    time: Time
    note: str | None = None
    cause: str | None = None
    assignee_name: str | None = None


class AlarmTotals(Schema):
    """Over every alarm the filters select: how many, on how many vehicles, their durations summed."""

    vehicles: int = Field(description="vehicles with an alarm selected")
    alarms: int = Field(description="alarms selected")
    duration_s: int = Field(description="their durations summed (open ones until now), seconds")


# ------------------------------------------------------------------------------------------------ abnormal vehicles

Reason = Literal["offline", "never_reported", "no_position", "clock_fault", "battery", "fault"]
REASON_LABELS: dict[str, tuple[str, str]] = {
    "offline": ("长时间离线", "Offline for days"),
    "never_reported": ("从未上报", "Never reported"),
    "no_position": ("在线无定位", "Online, no positions"),
    "clock_fault": ("终端时钟异常", "Terminal clock fault"),
    "battery": ("电池报警", "Battery alarm"),
    "fault": ("故障码", "Fault codes"),
}


class AbnormalQuery(Schema):
    mechanism_id: Id | None = Field(default=None, description="an organisation and every organisation under it")
    car_no: str | None = Field(default=None, max_length=64, description="vehicle number contains")
    reason: Reason | None = Field(default=None, description="one abnormal condition")
    current: int = Field(default=1, ge=1, le=MAX_PAGE)
    size: int = Field(default=10, ge=1, le=200)


class AbnormalTreeQuery(Schema):
    reason: Reason | None = Field(default=None, description="one abnormal condition")


class AbnormalCarQuery(Schema):
    car_id: Id = Field(description="the vehicle")


class Condition(Schema):
    """One abnormal condition of a vehicle: since when, and what it says."""

    reason: Reason
    reason_name: str
    since: Time | None = Field(default=None, description="when it began (null: not known)")
    info: str = Field(default="", description="the alarm kinds open, the fault codes, the clock's time...")


class AbnormalCar(Schema):
    car_id: Id
    car_no: str
    device_number: str = ""
    mechanism_id: Id | None = None
    mechanism_name: str = ""
    car_type_name: str = ""
    last_seen: Time | None = Field(default=None, description="when the terminal was last heard from")
    online: bool = False
    reasons: list[Reason]
    reason_names: str = Field(description="the reasons in the user's language, joined")
    since: Time | None = Field(default=None, description="the earliest of the conditions")


class OpenAlarm(Schema):
    id: Id
    kind: str
    kind_name: str
    begin_time: Time
    duration_s: int
    value: float | None = None
    max_value: float | None = None
    limit_value: float | None = None


class AbnormalInfo(AbnormalCar):
    conditions: list[Condition]
    fault_codes: list[str] = Field(description="the fault codes of the latest report")
    open_alarms: list[OpenAlarm] = Field(description="every alarm of the vehicle in progress")


class AbnormalNode(Schema):
    """An organisation of the caller's tenant holding abnormal vehicles (in it or under it)."""

    id: Id
    parent_id: Id
    title: str
    count: int = Field(description="abnormal vehicles of this organisation and those under it")
    children: list[AbnormalNode] = Field(default_factory=list)


class FirstOpen(Schema):
    first: bool = Field(description="the abnormal vehicles changed since the caller last opened their list")
    count: int = Field(description="abnormal vehicles now")


# ------------------------------------------------------------------------------------------------------- fault codes


class FaultCodeQuery(Schema):
    mechanism_id: Id | None = Field(default=None, description="an organisation and every organisation under it")
    car_no: str | None = Field(default=None, max_length=64, description="vehicle number contains")
    code: str | None = Field(default=None, max_length=32, description="fault code contains")
    fault_type: str | None = Field(default=None, max_length=32, description="the type: the code's prefix (BMS...)")
    start_time: Day | None = Field(default=None, description="first day (yyyy-MM-dd); default: six days before end")
    end_time: Day | None = Field(default=None, description="last day, included (yyyy-MM-dd); default: today")


class FaultPageQuery(FaultCodeQuery):
    current: int = Field(default=1, ge=1, le=MAX_PAGE)
    size: int = Field(default=10, ge=1, le=200)


class FaultExportQuery(FaultCodeQuery):
    by: Literal["car", "type"] = Field(default="car", description="car: per vehicle; type: per fault code")


class FaultCar(Schema):
    car_id: Id
    car_no: str
    device_number: str = ""
    mechanism_name: str = ""
    count: int = Field(description="faults reported over the range")
    codes: str = Field(description="the distinct codes reported, comma separated")
    last_time: Time
    active: str = Field(description="the codes of the latest report (active now), comma separated")


class FaultType(Schema):
    code: str
    fault_type: str
    count: int = Field(description="times reported over the range")
    cars: int = Field(description="vehicles that reported it")
    last_time: Time
    active_cars: int = Field(description="vehicles whose latest report carries it")


class FaultTreeNode(Schema):
    """A fault type (the code's prefix before ``-``; ``other`` without one) and its codes."""

    key: str
    title: str
    count: int
    children: list[FaultTreeNode] = Field(default_factory=list)
