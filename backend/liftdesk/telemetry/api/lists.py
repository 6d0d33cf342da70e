"""The vehicle lists with their live state: all (``getCarStateInfoList``), electric (``getCarElectricVehicleInfoList``)
and combustion (``getCarDieselVehicleInfoList``; the car types of ``status.COMBUSTION_TYPES``), paged, filtered by
organisation branch, number, type, state and online; and one vehicle by its frame number.

Every row is :class:`~liftdesk.telemetry.view.LiveVehicle` (the live feed's shape) with the names a list shows. The
state filter is the monitor's: ``offline`` (terminal not connected), else ``off`` / ``idle`` / ``moving`` /
``loaded`` of an online vehicle, ``alarm`` for one with an alarm in progress.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from sqlalchemy import and_, not_, or_

from liftdesk.core import crud
from liftdesk.core.envelope import NotFound
from liftdesk.core.i18n import t
from liftdesk.core.paging import Page, PageQuery, page_body, paginate
from liftdesk.core.schemas import Id, Schema
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.schemas import VehicleOut
from liftdesk.telemetry.api.live import FICS, in_organisation
from liftdesk.telemetry.api.status import COMBUSTION_TYPES
from liftdesk.telemetry.models import VehicleState
from liftdesk.telemetry.view import LiveVehicle, live_state

State = Literal["offline", "off", "idle", "moving", "loaded", "alarm"]


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


async def _state_list(ctx: crud.Ctx, body: StateListIn, power: str | None) -> dict[str, Any]:
    stmt = in_organisation(ctx, ctx.scope.select(Vehicle), body.mechanism_id)
    if body.car_no and body.car_no.strip():
        stmt = stmt.where(Vehicle.car_no.contains(body.car_no.strip(), autoescape=True))
    if body.car_type is not None:
        stmt = stmt.where(Vehicle.car_type == body.car_type)
    if power == "electric":
        stmt = stmt.where(Vehicle.car_type.not_in(COMBUSTION_TYPES))
    elif power == "combustion":
        stmt = stmt.where(Vehicle.car_type.in_(COMBUSTION_TYPES))
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
    named = {r["id"]: r for r in await ctx.resource.hooks.enrich(ctx, crud.serialise(ctx.resource, cars))}
    records = [
        StateRow(
            **live_state(car, states.get(car.id)).model_dump(),
            mechanism_name=named[car.id].get("mechanism_name") or "",
            car_type_name=named[car.id].get("car_type_name") or "",
        )
        for car in cars
    ]
    return page_body(records, total, pages, q)


def _declare(op: str, power: str | None, summary: str) -> None:
    async def handler(ctx: crud.Ctx, body: StateListIn) -> dict[str, Any]:
        return await _state_list(ctx, body, power)

    handler.__name__ = f"state_list_{power or 'all'}"
    res.VEHICLE.action(
        "POST",
        f"{FICS}/carInfo/{op}",
        summary=summary,
        kind="read",
        body=StateListIn,
        answer=Page[StateRow],
    )(handler)


_declare(
    "getCarStateInfoList",
    None,
    "The vehicles with their live state, paged; filters: organisation branch, "
    "number, type, state (offline, off, idle, moving, loaded, alarm)",
)
_declare(
    "getCarElectricVehicleInfoList",
    "electric",
    "The electric vehicles (every type but diesel, petrol and "
    "natural gas) with their live state (charge in soc), paged; the filters of getCarStateInfoList",
)
_declare(
    "getCarDieselVehicleInfoList",
    "combustion",
    "The combustion vehicles (diesel, petrol, natural gas) with "
    "their live state, paged; the filters of getCarStateInfoList",
)


class FrameQuery(Schema):
    frame_number: str = Field(min_length=1, max_length=64, description="the vehicle's frame number (VIN), exactly")


@res.VEHICLE.action(
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
    return await crud.detail(ctx, car.id)
