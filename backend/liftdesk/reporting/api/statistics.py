"""The vehicles' statistics and efficiency under ``carInfo`` (definitions and queries: ``reporting.statistics``):
the statistics list, one vehicle's efficiency against its peers, the fleet's efficiency by type with its workload
bands. The first two are read with the vehicle register's menus; the fleet's statistics with the efficiency
report's menu (it is that report's summary)."""

from __future__ import annotations

from pydantic import Field

from liftdesk.core.crud import Ctx
from liftdesk.core.report import Day, ReportQuery, declare_paged_report
from liftdesk.core.schemas import Id
from liftdesk.fleet.resources import FICS
from liftdesk.reporting import statistics as stats
from liftdesk.reporting.resources import EFFICIENCY_MENU, EFFICIENCY_REPORT
from liftdesk.reporting.schemas import EfficiencyQuery
from liftdesk.telemetry.api.live import _one
from liftdesk.telemetry.resources import VEHICLE_DETAIL

P = f"{FICS}/carInfo"
#: A month, as the efficiency report (spec 001 §5: "some reports need a range over 7 and under 30 days").
MAX_DAYS = 31

declare_paged_report(
    VEHICLE_DETAIL,
    f"{P}/getCarStatisticsList",
    name="car_statistics_list",
    summary="The vehicles' statistics over a range of local days: days used, boot, work, move, load, lift and idle "
    "hours, distance, work efficiency and alarms by kind, per vehicle (a vehicle without data: zeros); filters: "
    "organisation branch, number, type",
    query=stats.StatisticsQuery,
    row=stats.StatisticsRow,
    totals=stats.StatisticsTotals,
    fetch=stats.statistics,
    max_days=MAX_DAYS,
)


class CarEfficiencyQuery(ReportQuery):
    car_id: Id = Field(description="the vehicle")
    start_time: Day | None = Field(default=None, description="first day (yyyy-MM-dd); default: six days before endTime")


@VEHICLE_DETAIL.action(
    "GET",
    f"{P}/getCarEfficiencyInfo",
    summary="One vehicle's efficiency day by day over a range of local days (at most a month): boot, work, move, "
    "load, move-load and idle hours, work and move efficiency, and its workload against the caller's vehicles of its "
    "type (in the organisation branch mechanismId, default all): ratio to their mean work hours; band: overloaded "
    "≥ 2, normal, unsaturated ≤ 0.5, unused",
    kind="aggregate",
    query=CarEfficiencyQuery,
    answer=stats.VehicleEfficiency,
)
async def car_efficiency(ctx: Ctx, query: CarEfficiencyQuery) -> stats.VehicleEfficiency:
    car, _ = await _one(ctx, query.car_id)
    return await stats.vehicle_efficiency(ctx, car, query.period(MAX_DAYS), query.mechanism_id)


@EFFICIENCY_REPORT.action(
    "POST",
    f"{P}/getCarEfficiencyReportStatistics",
    summary="The efficiency report's statistics over a range (at most a month): the selected vehicles together "
    "(hours, work and move efficiency) and per vehicle type with its workload bands (vehicles working ≥ 2× the "
    "type's mean, normal, ≤ 0.5×, unused); the report's filters (organisation branch, number, type, holidays)",
    kind="aggregate",
    permission=EFFICIENCY_MENU,
    body=EfficiencyQuery,
    answer=stats.FleetEfficiency,
)
async def car_efficiency_statistics(ctx: Ctx, body: EfficiencyQuery) -> stats.FleetEfficiency:
    return await stats.fleet_efficiency(ctx, body, body.period(MAX_DAYS))
