"""The reporting context's subjects: the home page, each report, the alarm center's pages, the drivers' behaviour.

Each is a resource of its own, with the code of its menu (``system/seed.py``), so that a role is granted one without
the others and an API scope can name it. They read vehicles and their daily aggregates, and have no model of their
own: ``scope_via=Vehicle``, so the vehicles' data rule applies to them as to every other read of vehicles (the daily
aggregates of a vehicle the caller may not see are never summed). Reading a report needs its menu, exporting it the
menu's export button; the vehicle register's menu gives neither.
"""

from __future__ import annotations

from liftdesk.core.resource import OPEN, Resource
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.resources import FICS
from liftdesk.reporting.driver_behavior import FaceLogHooks, FaceRecordIn, FaceRecordOut
from liftdesk.telemetry.models import FaceRecord

#: The spec's prefix of the intelligent reports, and the tag they are documented under.
REPORT_PREFIX = f"{FICS}/intelligentReport"
TAG = "intelligentReport"
#: 智能报表 → 车辆效率报表: its menu code (reading) and its export button.
EFFICIENCY_MENU = "report_efficiency"
EFFICIENCY_EXPORT = f"{EFFICIENCY_MENU}_export"

#: The fleet home page's calls (首页 ``/wel/index``): the spec's prefix and tag. The home page is no menu (every
#: signed-in user lands on it), so reading it needs a valid token only; what it counts is still the caller's
#: vehicles (tenant and data scope), as the vehicles' resource reads them.
HOME_PREFIX = f"{FICS}/carHome"
HOME_TAG = "carHome"

#: 报警中心 (the alarm center, ``reporting/api/alarms.py`` and ``faults.py``): its menus (reading) and export buttons.
#: The alarm lists sit under the spec's ``carInfo`` prefix; their exports, which the spec does not name, on ours.
ALARM_MENU = "alarm_record"
ALARM_EXPORT = f"{ALARM_MENU}_export"
ABNORMAL_MENU = "alarm_abnormal"
FAULT_MENU = "alarm_fault"
FAULT_EXPORT = f"{FAULT_MENU}_export"
ALARM_PREFIX = f"{FICS}/carInfo"
ALARM_EXPORT_PREFIX = "/api/liftdesk/alarm"
ABNORMAL_PREFIX = f"{FICS}/abnormal"
FAULT_PREFIX = f"{FICS}/faultCode"
ALARM_TAG = "alarm"

#: 司机行为 (drivers on the vehicle, ``reporting/driver_behavior.py``): the face recognition log (its own resource,
#: read-only, its data rule on the vehicle's organisation) and the behaviour analysis (reports of the vehicles).
FACE_LOG_MENU = "face_log"
BEHAVIOR_MENU = "driver_behavior"
BEHAVIOR_PREFIX = "/api/blade-fics/fics/driverBehaviorAnalysis"
BEHAVIOR_TAG = "driverBehaviorAnalysis"

FACE_LOG = Resource(
    name="face_log",
    model=FaceRecord,
    prefix="/api/blade-fics/faceRecognitionLog",
    # read-only: face comparisons are written by the pipeline from the terminals' reports, never submitted
    schema_in=FaceRecordIn,
    schema_out=FaceRecordOut,
    code=FACE_LOG_MENU,
    label="id",
    # ``detail`` is ours (the spec lists the page only): the list's view opens one record, through the same
    # narrowing as the list (the vehicles the caller may see)
    ops={"page": "page", "detail": "detail"},
    hooks=FaceLogHooks(),
    default_order=("-device_time",),
    tag="faceRecognitionLog",
)


#: 首页: every signed-in user lands on it; it counts the caller's vehicles (tenant and data scope).
HOME = Resource(
    name="home",
    prefix=HOME_PREFIX,
    code="home",
    scope_via=Vehicle,
    ops={},
    view_menus=OPEN,
    tag=HOME_TAG,
)
#: 智能报表 → 车辆效率报表.
EFFICIENCY_REPORT = Resource(
    name="efficiency_report",
    prefix=REPORT_PREFIX,
    code=EFFICIENCY_MENU,
    scope_via=Vehicle,
    ops={},
    tag=TAG,
)
#: 报警中心 → 报警记录.
ALARM = Resource(
    name="alarm",
    prefix=ALARM_PREFIX,
    code=ALARM_MENU,
    scope_via=Vehicle,
    ops={},
    tag=ALARM_TAG,
)
#: 报警中心 → 异常车辆.
ABNORMAL = Resource(
    name="abnormal",
    prefix=ABNORMAL_PREFIX,
    code=ABNORMAL_MENU,
    scope_via=Vehicle,
    ops={},
    tag=ALARM_TAG,
)
#: 报警中心 → 故障码.
FAULT_CODE = Resource(
    name="fault_code",
    prefix=FAULT_PREFIX,
    code=FAULT_MENU,
    scope_via=Vehicle,
    ops={},
    tag=ALARM_TAG,
)
#: 司机管理 → 司机行为分析.
DRIVER_BEHAVIOR = Resource(
    name="driver_behavior",
    prefix=BEHAVIOR_PREFIX,
    code=BEHAVIOR_MENU,
    scope_via=Vehicle,
    ops={},
    tag=BEHAVIOR_TAG,
)

RESOURCES = (FACE_LOG, HOME, EFFICIENCY_REPORT, ALARM, ABNORMAL, FAULT_CODE, DRIVER_BEHAVIOR)
