"""Electronic fences beyond the generated list/create/update/delete/detail (``fleet.resources.FENCE``): which
vehicles a fence can be bound to, the fences of one vehicle, unbinding one, and the per-vehicle fence settings list.

Fences are read through the fence resource's scope and permissions, vehicles through the vehicle resource's data
scope (``service.vehicle_scope``); the rules are in ``fleet.service``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import select

from liftdesk.core import crud
from liftdesk.core.db import table_columns
from liftdesk.core.deps import CurrentUser, SessionDep
from liftdesk.core.envelope import R, ServiceError, ok, r_list_of
from liftdesk.core.i18n import t
from liftdesk.core.paging import filter_clauses, order_clauses, page_body, paginate, r_page_of
from liftdesk.core.router import Current, FilterBody, Size, merged_params, page_query_of, publish_outbox
from liftdesk.fleet import resources as res
from liftdesk.fleet import service as svc
from liftdesk.fleet.models import Fence, FenceCar, Vehicle
from liftdesk.fleet.schemas import FenceCarOut, FenceOut, FenceSettingOut

router = APIRouter(tags=["fence"])
F = f"{res.FICS}/carInfo"


async def _fence_ctx(session: Any, me: Any, request: Request, params: dict[str, str] | None = None) -> crud.Ctx:
    return await crud.Ctx.build(session, me, res.FENCE, params if params is not None else dict(request.query_params))


async def _car(c: crud.Ctx, car_id: str) -> Vehicle:
    ident = crud.parse_id(car_id, "carId")
    car = (await svc.scoped_vehicles(c, [ident])).get(ident)
    if car is None:
        raise ServiceError(t("not_found"))
    return car


async def _fence(c: crud.Ctx, fence_id: str, name: str) -> Fence:
    fence = await crud.get_scoped(c, crud.parse_id(fence_id, name))
    assert isinstance(fence, Fence)
    return fence


@router.get(
    f"{F}/V2/getCarElectronicsAuthorization",
    summary="Vehicles in the caller's scope, each marked bound or not to the fence ``id`` (none: all unbound)",
    response_model=R[list[FenceCarOut]],
)
async def authorization(request: Request, session: SessionDep, me: CurrentUser, id: str = "") -> R[Any]:
    c = await _fence_ctx(session, me, request)
    await c.require("view")
    bound: set[int] = set()
    if id.strip():
        fence = await _fence(c, id, "id")
        bound = await svc.linked_vehicle_ids(c, fence.id)
    scope = await svc.vehicle_scope(c)
    cars = (await session.execute(scope.select(Vehicle).order_by(Vehicle.car_no, Vehicle.id))).scalars().all()
    return ok(
        [
            FenceCarOut(
                car_id=car.id,
                car_no=car.car_no,
                device_number=car.device_number,
                mechanism_id=car.mechanism_id,
                bound=car.id in bound,
            )
            for car in cars
        ]
    )


@router.get(
    f"{F}/getCarElectronicsSet",
    summary="The fences bound to one vehicle",
    response_model=r_list_of(FenceOut),
)
async def fences_of_car(request: Request, session: SessionDep, me: CurrentUser, carId: str = "") -> R[Any]:
    c = await _fence_ctx(session, me, request)  # FenceHooks.filter narrows to the fences of ``carId``
    await c.require("view")
    await _car(c, carId)
    return ok(await crud.all_rows(c))


@router.get(
    f"{F}/delCarOfElectronicsSet",
    summary="Unbind one vehicle from one fence (its terminal is told to drop the area)",
    response_model=R[bool],
)
async def unbind(request: Request, session: SessionDep, me: CurrentUser, carId: str = "", fenceId: str = "") -> R[Any]:
    c = await _fence_ctx(session, me, request)
    await c.require("edit")
    car = await _car(c, carId)
    fence = await _fence(c, fenceId, "fenceId")
    done = await svc.unbind(c, fence, car)
    await publish_outbox(request, c)
    return ok(done)


@router.post(
    f"{F}/getCarFenceSettingList",
    summary="Vehicles in the caller's scope with the fences bound to them (paged; filters in the query or body)",
    response_model=r_page_of(FenceSettingOut),
)
async def fence_settings(
    request: Request,
    session: SessionDep,
    me: CurrentUser,
    body: FilterBody = None,
    current: Current = 1,
    size: Size = 10,
    ascs: str = "",
    descs: str = "",
) -> R[Any]:
    params = merged_params(request.query_params, body)
    c = await _fence_ctx(session, me, request, params)
    await c.require("view")
    q = page_query_of(params)
    scope = await svc.vehicle_scope(c)
    allowed = {k: v for k, v in table_columns(Vehicle).items() if k in res.VEHICLE.filterable}
    stmt = scope.select(Vehicle).where(*filter_clauses(allowed, params, res.VEHICLE.filterable))
    stmt = stmt.order_by(*order_clauses(allowed, q), Vehicle.car_no, Vehicle.id)
    cars, total, pages = await paginate(session, stmt, q)
    names: dict[int, list[str]] = {}
    if cars:
        rows = await session.execute(
            select(FenceCar.vehicle_id, Fence.name)
            .join(Fence, Fence.id == FenceCar.fence_id)
            .where(FenceCar.vehicle_id.in_([car.id for car in cars]), *c.scope.where(Fence))
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
    return ok(page_body(records, total, pages, q))
