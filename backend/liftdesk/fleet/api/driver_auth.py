"""Who may drive which vehicle: authorizations of drivers for vehicles and of vehicles for drivers.

- From the driver's side (``core.binding``, declared at both generations of the spec's paths): the vehicles
  authorized and not authorized, side by side with the vehicle list's filters; authorize (at most 200 vehicles per
  driver; the vehicles selected together share a type) and cancel.
- From the vehicle's side: the drivers authorized for a vehicle (``carInfo/getAuthDriver``) and not
  (``carSet/selectDriverListV1``); authorize drivers for one vehicle (``carAuthorizationDriver``: one vehicle, by
  construction) and cancel; ``batchAuthorization``: drivers × vehicles of one type.
- Reads: the vehicles authorized for each of several drivers, the vehicles marked authorized or not for one driver,
  and the authorizations as a list.

Drivers are read through the driver resource's data rule, vehicles through the vehicle resource's: a row the caller
does not see is a 400 and nothing changes. Every change tells the terminals (``fleet.drivers.cards_changed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field
from sqlalchemy import func, select

from liftdesk.core import crud
from liftdesk.core.binding import Binding, declare_binding
from liftdesk.core.db import lock_rows, table_columns
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.paging import MAX_PAGE, MAX_SIZE, Page, filter_clauses, page_body, page_in, paginate
from liftdesk.core.router import page_query_of
from liftdesk.core.schemas import Id
from liftdesk.fleet import driver_schemas as ds
from liftdesk.fleet import drivers as svc
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import Driver, DriverCar, Vehicle

F = res.FICS


async def _vehicles_attached(ctx: crud.Ctx, driver: Any, cars: Sequence[Vehicle]) -> None:
    await svc.cards_changed(ctx, vehicles=[c.id for c in cars])


async def _drivers_attached(ctx: crud.Ctx, car: Vehicle, drivers: Sequence[Driver]) -> None:
    """Drivers just authorized for one vehicle: none of them past 200 vehicles (all or none)."""
    ids = [d.id for d in drivers]
    await lock_rows(ctx.session, Driver, ids)  # counted after any other authorization of them has committed
    counts = await ctx.session.execute(
        ctx.scope.apply(
            select(DriverCar.driver_id, func.count()).where(DriverCar.driver_id.in_(ids)).group_by(DriverCar.driver_id),
            DriverCar,
        )
    )
    for _, n in counts.all():
        if n > svc.MAX_VEHICLES:
            raise ServiceError(t("driver_car_limit", field="driverIds", limit=svc.MAX_VEHICLES, have=n - 1))
    await svc.cards_changed(ctx, vehicles=[car.id])


async def _one_vehicle_changed(ctx: crud.Ctx, car: Vehicle, drivers: Sequence[Driver]) -> None:
    await svc.cards_changed(ctx, vehicles=[car.id])


DRIVER_VEHICLES = Binding(
    owner=res.DRIVER,
    other=res.VEHICLE,
    link=DriverCar,
    owner_key="driver_id",
    other_key="vehicle_id",
    owner_param="driverId",
    others_param="carIds",
    limit=svc.MAX_VEHICLES,
    limit_message="driver_car_limit",
    rule=svc.one_vehicle_type,
    attach=_vehicles_attached,
    detach=_vehicles_attached,
)
VEHICLE_DRIVERS = Binding(
    owner=res.VEHICLE,
    other=res.DRIVER,
    link=DriverCar,
    owner_key="vehicle_id",
    other_key="driver_id",
    owner_param="carId",
    others_param="driverIds",
    attach=_drivers_attached,
    detach=_one_vehicle_changed,
)

declare_binding(
    DRIVER_VEHICLES,
    bound=f"{F}/personnel/queryAuthCar",
    unbound=f"{F}/personnel/queryNotAuthCar",
    bind_path=f"{F}/personnel/addDriverAuthorizationCar",
    unbind_path=f"{F}/personnel/cancelDriverAuthorizationCar",
    noun="Vehicles a driver is authorized for",
    permission="driver_auth",
)
declare_binding(
    DRIVER_VEHICLES,
    bound=f"{F}/driver/queryAuthCar",
    unbound=f"{F}/driver/queryNotAuthCar",
    bind_path=f"{F}/driver/addDriverAuthorizationCar",
    unbind_path=f"{F}/driver/cancelDriverAuthorizationCar",
    noun="Vehicles a driver is authorized for (second generation of the paths)",
    permission="driver_auth",
    name="driver_vehicle_v2",
)
declare_binding(
    VEHICLE_DRIVERS,
    bound=f"{F}/carInfo/getAuthDriver",
    unbound=f"{F}/carSet/selectDriverListV1",
    bind_path=f"{F}/carSet/carAuthorizationDriver",
    unbind_path=f"{F}/carSet/cancelCarAuthorizationDriver",
    noun="Drivers authorized for a vehicle (each driver at most 200 vehicles)",
    permission="driver_auth",
    on=res.VEHICLE_DRIVER,
)


async def _scoped(ctx: crud.Ctx, model: Any, ids: Sequence[int], field: str) -> list[Any]:
    wanted = list(dict.fromkeys(ids))
    rows = (await ctx.session.execute(ctx.scope.select(model).where(model.id.in_(wanted)))).scalars().all()
    if len(rows) != len(wanted):
        raise ServiceError(t("field_invalid", field=field))
    found = {r.id: r for r in rows}
    return [found[i] for i in wanted]


@res.VEHICLE_DRIVER.action(
    "POST",
    f"{F}/carSet/batchAuthorization",
    permission="driver_auth",
    kind="bind",
    body=ds.BatchAuthorization,
    answer=int,
    summary="Authorize drivers for vehicles (every driver for every vehicle; the vehicles share a type; each driver "
    "at most 200 vehicles); answers how many authorizations were added",
)
async def batch_authorization(ctx: crud.Ctx, body: ds.BatchAuthorization) -> int:
    cars = await _scoped(ctx, Vehicle, body.car_ids, "carIds")
    if (refusal := svc.one_vehicle_type(cars)) is not None:
        raise ServiceError(t(refusal))
    drivers = await _scoped(ctx, Driver, body.driver_ids, "driverIds")
    return await svc.authorize(ctx, [d.id for d in drivers], [c.id for c in cars])


@res.DRIVER.action(
    "POST",
    f"{F}/personnel/checkAuthorizationCarIdByDriverIds",
    kind="read",
    body=ds.DriverIdsBody,
    answer=list[ds.DriverCars],
    summary="The vehicles (those the caller sees) each of the drivers is authorized for",
)
async def cars_of_drivers(ctx: crud.Ctx, body: ds.DriverIdsBody) -> list[ds.DriverCars]:
    drivers = await _scoped(ctx, Driver, body.driver_ids, "driverIds")
    ids = [d.id for d in drivers]
    links = await ctx.session.execute(
        ctx.scope.apply(
            select(DriverCar.driver_id, DriverCar.vehicle_id)
            .join(Vehicle, Vehicle.id == DriverCar.vehicle_id)
            .where(DriverCar.driver_id.in_(ids))
            .order_by(DriverCar.driver_id, DriverCar.vehicle_id),
            DriverCar,
            Vehicle,
        )
    )
    cars: dict[int, list[int]] = {i: [] for i in ids}
    for driver_id, vehicle_id in links.all():
        cars[driver_id].append(vehicle_id)
    return [ds.DriverCars(driver_id=i, car_ids=cars[i]) for i in ids]


CarListing = page_in("CarAuthorization", res.VEHICLE.filterable)


class CarAuthorizationQuery(CarListing):  # type: ignore[misc,valid-type]  # built at run time
    driver_id: Id = Field(description="the driver")


@res.DRIVER.action(
    "GET",
    f"{F}/driver/queryCarAuthorization",
    kind="read",
    query=CarAuthorizationQuery,
    answer=Page[ds.CarAuthorizationRow],
    summary="Vehicles in the caller's scope (paged, with the vehicle list's filters), each marked authorized for the "
    "driver or not",
)
async def car_authorization(ctx: crud.Ctx, query: Any) -> dict[str, Any]:
    driver = await crud.get_scoped(ctx, query.driver_id)
    assert isinstance(driver, Driver)
    q = page_query_of(ctx.params)
    allowed = {k: v for k, v in table_columns(Vehicle).items() if k in res.VEHICLE.filterable}
    stmt = ctx.scope.select(Vehicle).where(*filter_clauses(allowed, ctx.params, res.VEHICLE.filterable))
    cars, total, pages = await paginate(ctx.session, stmt.order_by(Vehicle.car_no, Vehicle.id), q)
    linked = set(
        (
            await ctx.session.execute(
                ctx.scope.apply(
                    select(DriverCar.vehicle_id).where(
                        DriverCar.driver_id == driver.id, DriverCar.vehicle_id.in_([c.id for c in cars])
                    ),
                    DriverCar,
                )
            )
        )
        .scalars()
        .all()
    )
    rows = [
        ds.CarAuthorizationRow(
            car_id=c.id,
            car_no=c.car_no,
            device_number=c.device_number,
            car_type=c.car_type,
            mechanism_id=c.mechanism_id,
            authorized=c.id in linked,
        )
        for c in cars
    ]
    return page_body(rows, total, pages, q)


AuthListing = page_in("DriverAuthorization", {"create_time"})


class AuthorizationQuery(AuthListing):  # type: ignore[misc,valid-type]  # built at run time
    driver_id: Id | None = Field(default=None, description="one driver's")
    car_id: Id | None = Field(default=None, description="one vehicle's")
    name: str = Field(default="", max_length=32, description="the driver's name holds this")
    car_no: str = Field(default="", max_length=64, description="the vehicle's number holds this")


@res.DRIVER.action(
    "GET",
    f"{F}/driver/driverAuthorizationPageList",
    kind="read",
    query=AuthorizationQuery,
    answer=Page[ds.AuthorizationRow],
    summary="Authorizations (driver and vehicle, both in the caller's scope), newest first, paged",
)
async def authorization_page(ctx: crud.Ctx, query: Any) -> dict[str, Any]:
    q = page_query_of(ctx.params)
    stmt = ctx.scope.apply(
        select(DriverCar, Driver, Vehicle)
        .join(Driver, Driver.id == DriverCar.driver_id)
        .join(Vehicle, Vehicle.id == DriverCar.vehicle_id),
        DriverCar,
        Driver,
        Vehicle,
    )
    if query.driver_id is not None:
        stmt = stmt.where(DriverCar.driver_id == query.driver_id)
    if query.car_id is not None:
        stmt = stmt.where(DriverCar.vehicle_id == query.car_id)
    if query.name:
        stmt = stmt.where(Driver.name.like(f"%{svc.escape_like(query.name)}%", escape="\\"))
    if query.car_no:
        stmt = stmt.where(Vehicle.car_no.like(f"%{svc.escape_like(query.car_no)}%", escape="\\"))
    order = DriverCar.create_time.asc() if q.ascs else DriverCar.create_time.desc()
    total = await crud.count(ctx, stmt)  # type: ignore[arg-type]  # a select of three entities
    size = max(1, min(q.size, MAX_SIZE))
    if q.current > MAX_PAGE:
        raise ServiceError(t("field_invalid", field="current"))
    found = await ctx.session.execute(
        stmt.order_by(order, DriverCar.driver_id, DriverCar.vehicle_id)
        .offset((max(1, q.current) - 1) * size)
        .limit(size)
    )
    rows = [
        ds.AuthorizationRow(
            driver_id=d.id,
            driver_name=d.name,
            phone=d.phone,
            car_id=v.id,
            car_no=v.car_no,
            device_number=v.device_number,
            car_type=v.car_type,
            create_time=link.create_time,
        )
        for link, d, v in found.all()
    ]
    return page_body(rows, total, -(-total // size) if total else 0, q)
