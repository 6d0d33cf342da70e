"""The vehicle lists with their live state: all (``getCarStateInfoList``), by family (electric, combustion, stacker,
fuel cell: ``FAMILIES``), the home page's (``getHomeCarList``: with today's use), paged, filtered by organisation
branch, number, type, state and online; and one vehicle by its frame number.

Every row is :class:`~liftdesk.telemetry.view.LiveVehicle` (the live feed's shape) with the names a list shows. The
state filter is the monitor's: ``offline`` (terminal not connected), else ``off`` / ``idle`` / ``moving`` /
``loaded`` of an online vehicle, ``alarm`` for one with an alarm in progress.

A page costs the same few statements whatever its size (:func:`state_page`: count, page, states, names), never one
per row; the lists of ``telemetry.api.equipment`` build on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import ColumnElement, and_, func, not_, or_, select

from liftdesk.core import crud
from liftdesk.core.envelope import NotFound
from liftdesk.core.i18n import t
from liftdesk.core.paging import Page, PageQuery, page_body, paginate
from liftdesk.core.report import hours, today
from liftdesk.core.schemas import Id, Schema
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.schemas import VehicleOut
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.api.live import FICS
from liftdesk.telemetry.api.status import COMBUSTION_TYPES
from liftdesk.telemetry.models import DailyStat, VehicleState
from liftdesk.telemetry.view import LiveVehicle, live_state

State = Literal["offline", "off", "idle", "moving", "loaded", "alarm"]
Family = Literal["electric", "combustion", "stacker", "fuel_cell"]

#: ``car_type`` values of stackers (the dictionary: 8 堆高车). Reach trucks (6) are lift trucks, not stackers.
STACKER_TYPES = frozenset({8})
#: The ``car_type`` dictionary has no fuel-cell type: a fuel-cell vehicle is one whose battery type names its fuel
#: cell (the register's free-text 电池类型, e.g. "氢燃料电池"), in any of these words, case aside.
FUEL_CELL_WORDS = ("燃料电池", "氢", "fuel cell", "fuel-cell", "hydrogen")


def family_clause(family: Family) -> ColumnElement[bool]:
    """The vehicles of one family: ``electric`` (every type but the combustion ones), ``combustion`` (diesel, petrol,
    natural gas), ``stacker`` (``STACKER_TYPES``), ``fuel_cell`` (``FUEL_CELL_WORDS`` in the battery type)."""
    if family == "electric":
        return Vehicle.car_type.not_in(COMBUSTION_TYPES)
    if family == "combustion":
        return Vehicle.car_type.in_(COMBUSTION_TYPES)
    if family == "stacker":
        return Vehicle.car_type.in_(STACKER_TYPES)
    kind = func.lower(Vehicle.battery_type)
    return or_(*(kind.contains(word, autoescape=True) for word in FUEL_CELL_WORDS))


class StateListIn(Schema):
    current: int = Field(default=1, ge=1, le=10_000_000, description="page number, from 1")
    size: int = Field(default=10, ge=1, le=1000, description="rows per page")
    mechanism_id: Id | None = Field(default=None, description="an organisation and the ones under it")
    car_no: str | None = Field(default=None, max_length=64, description="vehicles whose number holds this")
    car_type: int | None = Field(default=None, ge=0, le=99, description="a value of the car_type dictionary")
    state: State | None = Field(default=None, description="offline, or the state of an online vehicle, or alarm")


class StateRow(LiveVehicle):
    mechanism_name: str = ""
    car_type_name: str = ""


def _state_clause(state: State) -> Any:
    online = VehicleState.online.is_(True)
    if state == "offline":
        return or_(VehicleState.vehicle_id.is_(None), not_(online))
    if state == "alarm":
        return and_(VehicleState.open_events.is_not(None), VehicleState.open_events.not_in(("", "{}")))
    return and_(online, VehicleState.state == state)


@dataclass(frozen=True)
class Listed:
    """One page of vehicles with their live states and the names a list shows (by vehicle id)."""

    cars: list[Vehicle]
    states: dict[int, VehicleState]
    named: dict[int, dict[str, Any]]
    total: int
    pages: int
    query: PageQuery

    def row(self, car: Vehicle) -> dict[str, Any]:
        """The fields of :class:`StateRow` of one of the page's vehicles."""
        names = self.named[car.id]
        return {
            **live_state(car, self.states.get(car.id)).model_dump(),
            "mechanism_name": names.get("mechanism_name") or "",
            "car_type_name": names.get("car_type_name") or "",
        }

    def body(self, records: Sequence[Any]) -> dict[str, Any]:
        return page_body(list(records), self.total, self.pages, self.query)


async def state_page(ctx: crud.Ctx, body: StateListIn, *where: ColumnElement[bool]) -> Listed:
    """A page of the caller's vehicles (the filters of :class:`StateListIn`, and ``where``), ordered by number."""
    stmt = ctx.scope.select(Vehicle).where(*ctx.scope.in_branch(Vehicle.mechanism_id, body.mechanism_id), *where)
    if body.car_no and body.car_no.strip():
        stmt = stmt.where(Vehicle.car_no.contains(body.car_no.strip(), autoescape=True))
    if body.car_type is not None:
        stmt = stmt.where(Vehicle.car_type == body.car_type)
    if body.state is not None:
        stmt = stmt.outerjoin(VehicleState, VehicleState.vehicle_id == Vehicle.id).where(_state_clause(body.state))
    q = PageQuery(body.current, body.size)
    cars, total, pages = await paginate(ctx.session, stmt.order_by(Vehicle.car_no, Vehicle.id), q)
    states = {}
    if cars:
        found = await ctx.session.execute(
            ctx.scope.select(VehicleState, data=False).where(VehicleState.vehicle_id.in_([c.id for c in cars]))
        )
        states = {st.vehicle_id: st for st in found.scalars()}
    named = {r["id"]: r for r in await res.VEHICLE.hooks.enrich(ctx, crud.serialise(res.VEHICLE, cars))}
    return Listed(cars, states, named, total, pages, q)


def _declare(op: str, family: Family | None, summary: str) -> None:
    where = (family_clause(family),) if family else ()

    async def handler(ctx: crud.Ctx, body: StateListIn) -> dict[str, Any]:
        listed = await state_page(ctx, body, *where)
        return listed.body([StateRow(**listed.row(car)) for car in listed.cars])

    handler.__name__ = f"state_list_{family or 'all'}"
    telemetry_res.LIVE.action(
        "POST",
        f"{FICS}/carInfo/{op}",
        summary=summary,
        kind="read",
        body=StateListIn,
        answer=Page[StateRow],
    )(handler)


_FILTERS = "the filters of getCarStateInfoList"
_declare(
    "getCarStateInfoList",
    None,
    "The vehicles with their live state, paged; filters: organisation branch, "
    "number, type, state (offline, off, idle, moving, loaded, alarm)",
)
_declare(
    "getCarElectricVehicleInfoList",
    "electric",
    f"The electric vehicles (every type but diesel, petrol and natural gas) with their live state (charge in soc), "
    f"paged; {_FILTERS}",
)
_declare(
    "getCarDieselVehicleInfoList",
    "combustion",
    f"The combustion vehicles (diesel, petrol, natural gas) with their live state, paged; {_FILTERS}",
)
_declare(
    "getCarStackerList",
    "stacker",
    f"The stackers (car type 8, 堆高车) with their live state, paged; {_FILTERS}",
)
_declare(
    "getCarFuelCellList",
    "fuel_cell",
    "The fuel-cell vehicles with their live state, paged: the car_type dictionary has no fuel-cell type, so a "
    "fuel-cell vehicle is one whose battery type (电池类型) names it (燃料电池, 氢, fuel cell, hydrogen); "
    f"{_FILTERS}",
)


# ----------------------------------------------------------------------------------------------- getHomeCarList


class HomeCarRow(StateRow):
    """A vehicle of the home page's list: its live state and what it did today (the tenant's local day, from the
    daily aggregates the pipeline keeps)."""

    today_boot_hours: float = Field(default=0.0, description="hours with ACC on today")
    today_work_hours: float = Field(default=0.0, description="hours working today (moving, loaded or lifting)")
    today_distance_km: float = Field(default=0.0, description="kilometres today")
    today_alarms: int = Field(default=0, description="alarms raised today")


_ALARM_COUNTS = ("collision_n", "speeding_n", "overload_n", "fence_n", "battery_n", "fault_n", "other_n")


@telemetry_res.LIVE.action(
    "POST",
    f"{FICS}/carInfo/getHomeCarList",
    summary="The home page's vehicle list: the vehicles with their live state and today's use (boot and work hours, "
    f"distance, alarms raised), paged; {_FILTERS}",
    kind="read",
    body=StateListIn,
    answer=Page[HomeCarRow],
)
async def home_car_list(ctx: crud.Ctx, body: StateListIn) -> dict[str, Any]:
    listed = await state_page(ctx, body)
    used: dict[int, Any] = {}
    if listed.cars:
        stmt = ctx.scope.apply(
            select(
                DailyStat.vehicle_id,
                DailyStat.boot_s,
                DailyStat.work_s,
                DailyStat.distance_km,
                sum((getattr(DailyStat, c) for c in _ALARM_COUNTS[1:]), getattr(DailyStat, _ALARM_COUNTS[0])),
            ).where(DailyStat.day == today(), DailyStat.vehicle_id.in_([c.id for c in listed.cars])),
            DailyStat,
        )
        used = {row[0]: row for row in (await ctx.session.execute(stmt)).all()}
    records = []
    for car in listed.cars:
        day = used.get(car.id)
        extra = (
            {
                "today_boot_hours": hours(day[1]),
                "today_work_hours": hours(day[2]),
                "today_distance_km": round(float(day[3] or 0.0), 3),
                "today_alarms": int(day[4] or 0),
            }
            if day is not None
            else {}
        )
        records.append(HomeCarRow(**listed.row(car), **extra))
    return listed.body(records)


class FrameQuery(Schema):
    frame_number: str = Field(min_length=1, max_length=64, description="the vehicle's frame number (VIN), exactly")


@telemetry_res.LIVE.action(
    "GET",
    f"{FICS}/carInfo/getCarInfoByFrameNumber",
    summary="The vehicle with this frame number (the caller's scope), as getCarInfo answers it",
    kind="read",
    query=FrameQuery,
    answer=VehicleOut,
)
async def by_frame_number(ctx: crud.Ctx, query: FrameQuery) -> dict[str, Any]:
    stmt = ctx.scope.select(Vehicle).where(Vehicle.frame_number == query.frame_number.strip())
    car = (await ctx.session.execute(stmt.order_by(Vehicle.id).limit(1))).scalar_one_or_none()
    if car is None:
        raise NotFound(t("not_found"))
    return await crud.detail(ctx.about(res.VEHICLE), car.id)
