"""Where the reports stand in the registry.

A report reads vehicles and their daily aggregates: its calls are actions of the ``vehicle`` resource, so that the
vehicles' scope and data rule apply to them as to every other read of vehicles (the daily aggregates of a vehicle the
caller may not see are never summed). Each report is guarded by its own menu (``system/seed.py``): reading it needs
that menu, exporting it the menu's export button; the vehicle register's menu gives neither.
"""

from __future__ import annotations

from liftdesk.core.registry import REGISTRY, Resource
from liftdesk.fleet.resources import FICS, VEHICLE
from liftdesk.reporting.driver_behavior import FaceLogHooks, FaceRecordIn, FaceRecordOut
from liftdesk.telemetry.models import FaceRecord

#: The resource the reports are declared on (its scope and data rule).
REPORTS = VEHICLE
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

FACE_LOG = REGISTRY.register(
    Resource(
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
)
