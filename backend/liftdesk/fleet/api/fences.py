"""Electronic fences beyond the generated list/create/update/delete/detail (``fleet.resources.FENCE``): which
vehicles a fence can be bound to, the fences of one vehicle, unbinding one, and the per-vehicle fence settings list.

They are actions of the fence resource (``core.actions``): fences are read through its scope and permissions,
vehicles through the vehicle resource's data scope (``service.vehicle_scope``); the rules are in ``fleet.service``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field
from pydantic.config import JsonDict
from sqlalchemy import select

from liftdesk.core import binding, crud
from liftdesk.core.binding import Binding, declare_binding
from liftdesk.core.db import table_columns
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.paging import (
    MAX_PAGE,
    Page,
    PageIn,
    filter_clauses,
    order_clauses,
    page_body,
    page_in,
    paginate,
    sort_description,
    sort_pattern,
)
from liftdesk.core.router import page_query_of
from liftdesk.core.schemas import Id, Schema
from liftdesk.fleet import resources as res
from liftdesk.fleet import service as svc
from liftdesk.fleet.models import Fence, FenceCar, Vehicle
from liftdesk.fleet.schemas import CarQuery, FenceCarOut, FenceOut, FenceSettingOut

F = f"{res.FICS}/carInfo"
#: The most vehicles one fence is bound to (a terminal holds a bounded number of areas; a site has far fewer).
MAX_FENCE_VEHICLES = 2_000


#: Vehicles bound to fences: the lists, bind and unbind of ``core.binding`` (declared at the end) and ``unbind``.
FENCE_VEHICLES = Binding(
    owner=res.FENCE,
    other=res.VEHICLE,
    link=FenceCar,
    owner_key="fence_id",
    other_key="vehicle_id",
    owner_param="fenceId",
    others_param="carIds",
    limit=MAX_FENCE_VEHICLES,
    attach=svc.attach_vehicles,
    detach=svc.detach_vehicles,
)


async def _car(c: crud.Ctx, ident: int) -> Vehicle:
    car = (await svc.scoped_vehicles(c, [ident])).get(ident)
    if car is None:
        raise ServiceError(t("not_found"))
    return car


async def _fence(c: crud.Ctx, ident: int) -> Fence:
    fence = await crud.get_scoped(c, ident)
    assert isinstance(fence, Fence)
    return fence


class FenceIdQuery(Schema):
    id: Id | None = Field(default=None, description="the fence (none: every vehicle is marked unbound)")


@res.FENCE.action(
    "GET",
    f"{F}/V2/getCarElectronicsAuthorization",
    summary="Vehicles in the caller's scope, each marked bound or not to the fence ``id`` (none: all unbound)",
    kind="read",
    query=FenceIdQuery,
    answer=list[FenceCarOut],
)
async def authorization(ctx: crud.Ctx, query: FenceIdQuery) -> list[FenceCarOut]:
    bound: set[int] = set()
    if query.id is not None:
        fence = await _fence(ctx, query.id)
        bound = await svc.linked_vehicle_ids(ctx, fence.id)
    scope = await svc.vehicle_scope(ctx)
    cars = (await ctx.session.execute(scope.select(Vehicle).order_by(Vehicle.car_no, Vehicle.id))).scalars().all()
    return [
        FenceCarOut(
            car_id=car.id,
            car_no=car.car_no,
            device_number=car.device_number,
            mechanism_id=car.mechanism_id,
            bound=car.id in bound,
        )
        for car in cars
    ]


@res.FENCE.action(
    "GET",
    f"{F}/getCarElectronicsSet",
    summary="The fences bound to one vehicle",
    kind="sub",
    query=CarQuery,
    answer=list[FenceOut],  # type: ignore[valid-type]  # a schema built at run time (out_schema)
)
async def fences_of_car(ctx: crud.Ctx, query: CarQuery) -> list[dict[str, Any]]:
    await _car(ctx, query.car_id)
    return await crud.all_rows(ctx)  # FenceHooks.filter narrows to the fences of ``carId``


class UnbindQuery(Schema):
    car_id: Id
    fence_id: Id


@res.FENCE.action(
    "GET",
    f"{F}/delCarOfElectronicsSet",
    summary="Unbind one vehicle from one fence (its terminal is told to drop the area)",
    permission="edit",
    kind="unbind",
    query=UnbindQuery,
    answer=bool,
)
async def unbind(ctx: crud.Ctx, query: UnbindQuery) -> bool:
    await _car(ctx, query.car_id)  # a vehicle the caller does not see is "not found", as the spec's call says
    if not await binding.unbind(ctx, FENCE_VEHICLES, query.fence_id, [query.car_id]):
        raise ServiceError(t("not_found"))  # not bound to that fence
    return True


#: The vehicles of ``getCarFenceSettingList``: paging and sorting in the query (``PageIn``) or the body.
CarPageIn = page_in("Vehicle", res.VEHICLE.filterable)
_NUMBER: JsonDict = {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}
_SORT: JsonDict = {"type": "string", "pattern": sort_pattern(res.VEHICLE.filterable)}


class FiltersIn(Schema):
    """Paging, sorting and filters of vehicles (as in the query, e.g. carNo_like), merged over the query."""

    # Read as the query's text (``merged_params``): paging and sorting documented as those take them.
    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "properties": {
                "current": {**_NUMBER, "description": "page number, from 1"},
                "size": {**_NUMBER, "description": "rows per page (at most 1000 are given)"},
                "ascs": {**_SORT, "description": sort_description("ascending")},
                "descs": {**_SORT, "description": sort_description("descending")},
            }
        },
    )


@res.FENCE.action(
    "POST",
    f"{F}/getCarFenceSettingList",
    summary="Vehicles in the caller's scope with the fences bound to them (paged; filters in the query or body)",
    kind="read",
    query=CarPageIn,
    body=FiltersIn,
    answer=Page[FenceSettingOut],
    body_params=True,
)
async def fence_settings(ctx: crud.Ctx, query: PageIn, body: FiltersIn) -> dict[str, Any]:
    params = ctx.params  # the query's and the body's (``body_params``)
    q = page_query_of(params)
    scope = await svc.vehicle_scope(ctx)
    allowed = {k: v for k, v in table_columns(Vehicle).items() if k in res.VEHICLE.filterable}
    stmt = scope.select(Vehicle).where(*filter_clauses(allowed, params, res.VEHICLE.filterable))
    stmt = stmt.order_by(*order_clauses(allowed, q), Vehicle.car_no, Vehicle.id)
    cars, total, pages = await paginate(ctx.session, stmt, q)
    names: dict[int, list[str]] = {}
    if cars:
        rows = await ctx.session.execute(
            select(FenceCar.vehicle_id, Fence.name)
            .join(Fence, Fence.id == FenceCar.fence_id)
            .where(FenceCar.vehicle_id.in_([car.id for car in cars]), *ctx.scope.where(Fence))
            .order_by(Fence.name, Fence.id)
        )
        for vehicle_id, name in rows.all():
            names.setdefault(vehicle_id, []).append(name)
    records = [
        FenceSettingOut(
            car_id=car.id,
            car_no=car.car_no,
            device_number=car.device_number,
            mechanism_id=car.mechanism_id,
            fence_count=len(names.get(car.id, [])),
            fence_names=names.get(car.id, []),
        )
        for car in cars
    ]
    return page_body(records, total, pages, q)


declare_binding(
    FENCE_VEHICLES,
    bound="/api/liftdesk/fence/boundCars",
    unbound="/api/liftdesk/fence/unboundCars",
    bind_path="/api/liftdesk/fence/bindCars",
    unbind_path="/api/liftdesk/fence/unbindCars",
    noun="Vehicles of an electronic fence",
)
