"""The vehicle efficiency report (智能报表 → 车辆效率报表): per vehicle over a range, its export, and the fleet's
hours per day for the chart above it."""

from __future__ import annotations

from liftdesk.core.report import Export, declare_paged_report, declare_series_report
from liftdesk.core.transfer import Column
from liftdesk.reporting import service
from liftdesk.reporting.resources import EFFICIENCY_EXPORT, EFFICIENCY_MENU, EFFICIENCY_REPORT, REPORT_PREFIX, TAG
from liftdesk.reporting.schemas import EfficiencyQuery, EfficiencyRow, EfficiencyTotals, FleetDay

#: The longest range of the report: "some reports need a range over 7 and under 30 days" (spec 001 §5): a month.
MAX_DAYS = 31

COLUMNS = (
    Column("mechanism_name", "所属机构", "Organisation"),
    Column("car_no", "车辆编号", "Vehicle number"),
    Column("equipment_no", "终端设备号", "Device number"),
    Column("car_type_name", "车辆类型", "Vehicle type"),
    Column("cumulative_boot_time", "累计开机时长(h)", "Boot time (h)"),
    Column("load_time", "负载时长(h)", "Load time (h)"),
    Column("mobile_time", "行驶时长(h)", "Move time (h)"),
    Column("free_time", "空闲时长(h)", "Idle time (h)"),
    Column("moving_load_time", "带载行驶时长(h)", "Move-load time (h)"),
    Column("mobile_efficiency", "行驶效率(%)", "Move efficiency (%)"),
)

declare_paged_report(
    EFFICIENCY_REPORT,
    f"{REPORT_PREFIX}/getCarWorkEfficiencyList",
    name="car_work_efficiency_list",
    summary="Vehicle efficiency report: per vehicle over the range, boot, load, move, idle and move-load hours and "
    "move efficiency (move / boot, %)",
    query=EfficiencyQuery,
    row=EfficiencyRow,
    totals=EfficiencyTotals,
    fetch=service.efficiency,
    max_days=MAX_DAYS,
    permission=EFFICIENCY_MENU,
    export=Export(
        f"{REPORT_PREFIX}/exportCarWorkEfficiencyList", COLUMNS, "vehicle-efficiency", permission=EFFICIENCY_EXPORT
    ),
    tag=TAG,
)

declare_series_report(
    EFFICIENCY_REPORT,
    f"{REPORT_PREFIX}/getCarFleetWorkTimeCount",
    name="car_fleet_work_time_count",
    summary="The fleet's hours per day of the range: boot, work, move and idle hours summed over the selected "
    "vehicles, and how many of them worked",
    query=EfficiencyQuery,
    row=FleetDay,
    fetch=service.fleet_days,
    max_days=MAX_DAYS,
    permission=EFFICIENCY_MENU,
    tag=TAG,
)
