"""The fleet home page (首页, ``/wel/index``): the fleet now, today's use, the online trend, alarms and battery
warnings, terminals offline, vehicles by type and by organisation (the spec's ``carHome`` calls).

Declared on the reports' resource (the vehicles: their scope and data rule). The home page has no menu: every
signed-in user lands on it, so each call needs a valid token only (``SIGNED_IN``); a caller without vehicles in
their scope is answered zeros and empty lists, never another tenant's or another organisation's vehicles.
Definitions of online, powered on, in alarm, utilisation: ``reporting.home_schemas``.
"""

from __future__ import annotations

from liftdesk.core.crud import Ctx
from liftdesk.core.paging import Page
from liftdesk.core.resource import SIGNED_IN
from liftdesk.reporting import home
from liftdesk.reporting.home_schemas import (
    HOME_MAX_DAYS,
    AlarmSummary,
    BatterySummary,
    CarDictItem,
    FleetOverview,
    HomeAlarm,
    HomeQuery,
    HomeRangeQuery,
    OfflineAnalysis,
    OfflineTerminal,
    OfflineTerminalQuery,
    OnlineTrend,
    OrganisationOnline,
    RecentAlarmsQuery,
    TerminalSummary,
    TypeCount,
    UsageSum,
)
from liftdesk.reporting.resources import HOME, HOME_PREFIX, HOME_TAG

P = HOME_PREFIX
#: What every call of the page says of its permission and filter.
OPEN = "The home page is no menu: a valid token is enough; the caller's vehicles only (tenant, data scope)"
ORG = "deptId: that organisation and those under it"
RANGE = f"{ORG}; startTime / endTime: local days (yyyy-MM-dd), default today, at most {HOME_MAX_DAYS} days"


@HOME.action(
    "GET",
    f"{P}/getCarHomeOnlineStatic",
    summary=f"The fleet now: vehicles, online, powered on (by state), in alarm, terminals offline. {ORG}. {OPEN}",
    kind="aggregate",
    permission=SIGNED_IN,
    query=HomeQuery,
    answer=FleetOverview,
    tag=HOME_TAG,
)
async def home_overview(ctx: Ctx, query: HomeQuery) -> FleetOverview:
    return await home.overview(ctx, query)


@HOME.action(
    "GET",
    f"{P}/getCarHomeOpenSum",
    summary=f"Boot (ACC on) and work hours, distance and utilisation (work / boot) over the range. {RANGE}. {OPEN}",
    kind="aggregate",
    permission=SIGNED_IN,
    query=HomeRangeQuery,
    answer=UsageSum,
    tag=HOME_TAG,
)
async def home_open_sum(ctx: Ctx, query: HomeRangeQuery) -> UsageSum:
    return await home.usage(ctx, query, query.period())


@HOME.action(
    "POST",
    f"{P}/getFleetEquipmentOonLineTrends",
    summary="Vehicles online per hour (a one-day range; default today, up to the current hour) or per day (a "
    "longer range; with the vehicles powered on each day). Online in an hour or a day: the terminal sent a "
    f"position in it. {RANGE}. {OPEN}",
    kind="aggregate",
    permission=SIGNED_IN,
    body=HomeRangeQuery,
    answer=OnlineTrend,
    tag=HOME_TAG,
)
async def home_online_trend(ctx: Ctx, body: HomeRangeQuery) -> OnlineTrend:
    return await home.online_trend(ctx, body, body.period())


@HOME.action(
    "POST",
    f"{P}/getOfflineAnalysisFleetEquipment",
    summary="Terminals not connected, by how long they have been silent (never, under a day, 1-7 days, 7 days or "
    f"more: a device anomaly). {ORG}. {OPEN}",
    kind="aggregate",
    permission=SIGNED_IN,
    body=HomeQuery,
    answer=OfflineAnalysis,
    tag=HOME_TAG,
)
async def home_offline_analysis(ctx: Ctx, body: HomeQuery) -> OfflineAnalysis:
    return await home.offline_analysis(ctx, body)


@HOME.action(
    "POST",
    f"{P}/getTerminalOffListInfo",
    summary="Vehicles whose terminal is offline, with the time it was last heard from: silent longest first, never "
    f"heard from last; paged. {ORG}. {OPEN}",
    kind="read",
    permission=SIGNED_IN,
    body=OfflineTerminalQuery,
    answer=Page[OfflineTerminal],
    tag=HOME_TAG,
)
async def home_offline_terminals(ctx: Ctx, body: OfflineTerminalQuery) -> Page[OfflineTerminal]:
    return await home.offline_terminals(ctx, body)


@HOME.action(
    "GET",
    f"{P}/getTerminalSelectInfo",
    summary=f"The terminals of the vehicles: connected, not, never heard from, by protocol. {ORG}. {OPEN}",
    kind="aggregate",
    permission=SIGNED_IN,
    query=HomeQuery,
    answer=TerminalSummary,
    tag=HOME_TAG,
)
async def home_terminals(ctx: Ctx, query: HomeQuery) -> TerminalSummary:
    return await home.terminal_summary(ctx, query)


@HOME.action(
    "GET",
    f"{P}/getCarDictionariesList",
    summary=f"The vehicle type dictionary (car_type), in its order: the home page's labels. {OPEN}",
    kind="read",
    permission=SIGNED_IN,
    answer=list[CarDictItem],
    tag=HOME_TAG,
)
async def home_car_types(ctx: Ctx) -> list[CarDictItem]:
    return await home.car_types(ctx)


@HOME.action(
    "GET",
    f"{P}/getCarVehicleAssetClassification",
    summary=f"Vehicles per type (names of the car_type dictionary), online and powered on, most first. {ORG}. {OPEN}",
    kind="aggregate",
    permission=SIGNED_IN,
    query=HomeQuery,
    answer=list[TypeCount],
    tag=HOME_TAG,
)
async def home_by_type(ctx: Ctx, query: HomeQuery) -> list[TypeCount]:
    return await home.by_type(ctx, query)


@HOME.action(
    "GET",
    f"{P}/getCarHomeCodeOnLineList",
    summary=f"Vehicles per organisation (their own), online and powered on, most first. {ORG}. {OPEN}",
    kind="aggregate",
    permission=SIGNED_IN,
    query=HomeQuery,
    answer=list[OrganisationOnline],
    tag=HOME_TAG,
)
async def home_by_organisation(ctx: Ctx, query: HomeQuery) -> list[OrganisationOnline]:
    return await home.by_organisation(ctx, query)


@HOME.action(
    "GET",
    f"{P}/getCarHomeWarringStatic",
    summary="Vehicle alarms over the range by type (collision, speeding, overload, fence, fault, battery, other), "
    f"the vehicles that had one and the vehicles in alarm now. {RANGE}. {OPEN}",
    kind="aggregate",
    permission=SIGNED_IN,
    query=HomeRangeQuery,
    answer=AlarmSummary,
    tag=HOME_TAG,
)
async def home_alarms(ctx: Ctx, query: HomeRangeQuery) -> AlarmSummary:
    return await home.alarm_summary(ctx, query, query.period())


@HOME.action(
    "GET",
    f"{P}/getCarHomeBatteryWarringStatic",
    summary="Battery warnings over the range by kind (low and high voltage, over current, over temperature, liquid "
    f"level), those in progress, and the vehicles whose state of charge is low now. {RANGE}. {OPEN}",
    kind="aggregate",
    permission=SIGNED_IN,
    query=HomeRangeQuery,
    answer=BatterySummary,
    tag=HOME_TAG,
)
async def home_battery(ctx: Ctx, query: HomeRangeQuery) -> BatterySummary:
    return await home.battery_summary(ctx, query, query.period())


@HOME.action(
    "GET",
    f"{P}/getCarHomeCarWarringStaticList",
    summary=f"The latest alarms of the range, newest first (at most size, 50). {RANGE}. {OPEN}",
    kind="read",
    permission=SIGNED_IN,
    query=RecentAlarmsQuery,
    answer=list[HomeAlarm],
    tag=HOME_TAG,
)
async def home_recent_alarms(ctx: Ctx, query: RecentAlarmsQuery) -> list[HomeAlarm]:
    return await home.recent_alarms(ctx, query, query.period(), query.size)
