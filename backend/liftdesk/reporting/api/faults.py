"""The abnormal vehicles (报警中心 → 异常车辆, ``abnormal/*``) and the fault codes (报警中心 → 故障码,
``faultCode/*``): read from the vehicles' live states and the ``fault`` events of the pipeline.

Declared on the reports' resource (the vehicles: their scope and data rule). Reading the abnormal vehicles needs the
menu ``alarm_abnormal``; the fault codes the menu ``alarm_fault``, their export its button ``alarm_fault_export``.
What "abnormal" means: ``reporting.abnormal.abnormal``. A fault code's type is its prefix (``BMS-...`` → ``BMS``).
"""

from __future__ import annotations

from fastapi.responses import Response

from liftdesk.core.crud import Ctx
from liftdesk.core.paging import Page
from liftdesk.core.report import period_name
from liftdesk.core.transfer import Column, workbook, xlsx_response
from liftdesk.reporting import abnormal, alarms
from liftdesk.reporting.alarm_schemas import (
    ALARM_MAX_DAYS,
    AbnormalCar,
    AbnormalCarQuery,
    AbnormalInfo,
    AbnormalNode,
    AbnormalQuery,
    AbnormalTreeQuery,
    FaultCar,
    FaultCodeQuery,
    FaultExportQuery,
    FaultPageQuery,
    FaultTreeNode,
    FaultType,
    FirstOpen,
)
from liftdesk.reporting.resources import (
    ABNORMAL,
    ABNORMAL_MENU,
    ABNORMAL_PREFIX,
    ALARM_TAG,
    FAULT_CODE,
    FAULT_EXPORT,
    FAULT_MENU,
    FAULT_PREFIX,
)

ORG = "mechanismId: that organisation and those under it"
RANGE = f"startTime / endTime: local days (yyyy-MM-dd; default the last 7), at most {ALARM_MAX_DAYS} days"


@ABNORMAL.action(
    "GET",
    f"{ABNORMAL_PREFIX}/getCarAbnormalTree",
    summary="The caller's organisations holding abnormal vehicles (in them or under them) and how many; reason: "
    "one condition",
    kind="aggregate",
    permission=ABNORMAL_MENU,
    query=AbnormalTreeQuery,
    answer=list[AbnormalNode],
    tag=ALARM_TAG,
)
async def abnormal_tree(ctx: Ctx, query: AbnormalTreeQuery) -> list[AbnormalNode]:
    return await abnormal.abnormal_tree(ctx, query.reason)


@ABNORMAL.action(
    "GET",
    f"{ABNORMAL_PREFIX}/getCarAbnormalPage",
    summary="The vehicles abnormal now (offline for days, never reported, terminal clock fault, a battery alarm "
    f"open, fault codes active), longest first; paged. {ORG}; carNo: contains; reason: one condition. Opening the "
    "first page without filters marks the list seen (getIsFirstOpenCarAbnormalInfo)",
    kind="read",
    permission=ABNORMAL_MENU,
    query=AbnormalQuery,
    answer=Page[AbnormalCar],
    tag=ALARM_TAG,
)
async def abnormal_page(ctx: Ctx, query: AbnormalQuery) -> Page[AbnormalCar]:
    if query.current == 1 and query.mechanism_id is None and not query.car_no and query.reason is None:
        found = await abnormal.abnormal(ctx)  # the whole list: marked seen, and its first page answered
        await abnormal.mark_seen(ctx, found)
        return await abnormal.abnormal_page(ctx, query, found)
    return await abnormal.abnormal_page(ctx, query)


@ABNORMAL.action(
    "GET",
    f"{ABNORMAL_PREFIX}/getCarAbnormalInfo",
    summary="One vehicle's abnormal conditions (each with since when), its active fault codes and its alarms in "
    "progress (none: the vehicle is normal)",
    kind="read",
    permission=ABNORMAL_MENU,
    query=AbnormalCarQuery,
    answer=AbnormalInfo,
    tag=ALARM_TAG,
)
async def abnormal_info(ctx: Ctx, query: AbnormalCarQuery) -> AbnormalInfo:
    return await abnormal.abnormal_info(ctx, query.car_id)


@ABNORMAL.action(
    "GET",
    f"{ABNORMAL_PREFIX}/getIsFirstOpenCarAbnormalInfo",
    summary="Whether the abnormal vehicles (which, and their conditions) changed since the caller last opened "
    "their list, and how many there are now (a caller who never opened it: true when there are any)",
    kind="aggregate",
    permission=ABNORMAL_MENU,
    answer=FirstOpen,
    tag=ALARM_TAG,
)
async def abnormal_first_open(ctx: Ctx) -> FirstOpen:
    return await abnormal.first_open(ctx)


@FAULT_CODE.action(
    "GET",
    f"{FAULT_PREFIX}/tree",
    summary=f"The fault types reported over the range and their codes, with how often. {ORG}; {RANGE}",
    kind="aggregate",
    permission=FAULT_MENU,
    query=FaultCodeQuery,
    answer=list[FaultTreeNode],
    tag=ALARM_TAG,
)
async def fault_tree(ctx: Ctx, query: FaultCodeQuery) -> list[FaultTreeNode]:
    return await alarms.fault_tree(ctx, query, alarms.checked(query))


@FAULT_CODE.action(
    "GET",
    f"{FAULT_PREFIX}/faultCarPage",
    summary="Faults by vehicle over the range: how many, the codes, the last, the codes active now; latest first, "
    f"paged. {ORG}; carNo, code: contain; faultType: the code's prefix; {RANGE}",
    kind="aggregate",
    permission=FAULT_MENU,
    query=FaultPageQuery,
    answer=Page[FaultCar],
    tag=ALARM_TAG,
)
async def fault_car_page(ctx: Ctx, query: FaultPageQuery) -> Page[FaultCar]:
    rows = await alarms.fault_cars(ctx, query, alarms.checked(query))
    return alarms.page_of(rows, query.current, query.size)


@FAULT_CODE.action(
    "GET",
    f"{FAULT_PREFIX}/faultTypePage",
    summary="Faults by code over the range: times reported, vehicles, the last, vehicles with it active now; most "
    f"first, paged. {ORG}; carNo, code: contain; faultType: the code's prefix; {RANGE}",
    kind="aggregate",
    permission=FAULT_MENU,
    query=FaultPageQuery,
    answer=Page[FaultType],
    tag=ALARM_TAG,
)
async def fault_type_page(ctx: Ctx, query: FaultPageQuery) -> Page[FaultType]:
    rows = await alarms.fault_types(ctx, query, alarms.checked(query))
    return alarms.page_of(rows, query.current, query.size)


CAR_COLUMNS = (
    Column("mechanism_name", "所属机构", "Organisation"),
    Column("car_no", "车辆编号", "Vehicle number"),
    Column("device_number", "终端设备号", "Device number"),
    Column("count", "故障次数", "Faults"),
    Column("codes", "故障码", "Fault codes"),
    Column("last_time", "最近故障时间", "Last fault"),
    Column("active", "当前故障码", "Active now"),
)
TYPE_COLUMNS = (
    Column("fault_type", "故障类型", "Fault type"),
    Column("code", "故障码", "Fault code"),
    Column("count", "故障次数", "Times"),
    Column("cars", "车辆数", "Vehicles"),
    Column("last_time", "最近故障时间", "Last fault"),
    Column("active_cars", "当前故障车辆数", "Vehicles with it active"),
)


@FAULT_CODE.action(
    "GET",
    f"{FAULT_PREFIX}/export",
    summary="The faults as .xlsx with the same filters: by vehicle (by=car) or by code (by=type)",
    kind="export",
    permission=FAULT_EXPORT,
    query=FaultExportQuery,
    raw=True,
    tag=ALARM_TAG,
)
async def fault_export(ctx: Ctx, query: FaultExportQuery) -> Response:
    period = alarms.checked(query)
    if query.by == "type":
        types = await alarms.fault_types(ctx, query, period)
        return xlsx_response(
            workbook(TYPE_COLUMNS, [r.model_dump(by_alias=False) for r in types]), period_name("fault-codes", period)
        )
    cars = await alarms.fault_cars(ctx, query, period)
    return xlsx_response(
        workbook(CAR_COLUMNS, [r.model_dump(by_alias=False) for r in cars]), period_name("fault-vehicles", period)
    )
