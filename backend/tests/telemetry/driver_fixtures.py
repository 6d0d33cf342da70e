"""Drivers, their cards and authorizations written straight into the database (the driver calls are another part of
issue 14), and the event the drivers' service emits when the cards a vehicle accepts change."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from sqlalchemy import delete, update

from liftdesk.core.context import Ctx
from liftdesk.core.db import Database
from liftdesk.core.events import emit
from liftdesk.core.ids import next_id
from liftdesk.core.security import LEVEL_TENANT, Principal
from liftdesk.core.services import Services
from liftdesk.fleet.events import DriverCardsChanged
from liftdesk.fleet.models import Driver, DriverCar, DriverCard
from liftdesk.fleet.resources import VEHICLE
from tests.resources.data import mobile


def new_serial() -> str:
    return f"{random.randrange(10**9, 10**10):010d}"


async def add_driver(
    db: Database,
    tenant: str = "000000",
    *,
    vehicles: tuple[int, ...] = (),
    serial: str | None = None,
    pin: str | None = None,
    valid_until: datetime | None = None,
    blacklisted: bool = False,
    name: str | None = None,
    mechanism_id: int | None = None,
) -> dict[str, Any]:
    """A driver with one card (``serial``, a new one by default), authorized on ``vehicles``."""
    ident, card = next_id(), next_id()
    serial = serial or new_serial()
    name = name or f"司机{ident % 10000}"
    async with db.sessionmaker() as s:
        s.add(
            Driver(
                id=ident,
                tenant_id=tenant,
                name=name,
                phone=mobile(),
                mechanism_id=mechanism_id,
                create_dept=mechanism_id,
                license_valid_until=valid_until,
                blacklisted=int(blacklisted),
            )
        )
        s.add(
            DriverCard(
                id=card,
                tenant_id=tenant,
                driver_id=ident,
                card_kind=1,
                card_number=f"C{serial}",
                serial_number=serial,
                password=pin,
            )
        )
        for vid in vehicles:
            s.add(DriverCar(tenant_id=tenant, driver_id=ident, vehicle_id=vid))
        await s.commit()
    return {"id": ident, "name": name, "serial": serial, "card": card}


async def authorize(db: Database, tenant: str, driver_id: int, *vehicles: int) -> None:
    async with db.sessionmaker() as s:
        for vid in vehicles:
            s.add(DriverCar(tenant_id=tenant, driver_id=driver_id, vehicle_id=vid))
        await s.commit()


async def unauthorize(db: Database, tenant: str, driver_id: int, *vehicles: int) -> None:
    async with db.sessionmaker() as s:
        await s.execute(
            delete(DriverCar).where(
                DriverCar.tenant_id == tenant, DriverCar.driver_id == driver_id, DriverCar.vehicle_id.in_(vehicles)
            )
        )
        await s.commit()


async def set_driver_fields(db: Database, driver_id: int, **values: Any) -> None:
    async with db.sessionmaker() as s:
        await s.execute(update(Driver).where(Driver.id == driver_id).values(**values))
        await s.commit()


async def cards_changed(services: Services, db: Database, tenant: str, *vehicle_ids: int) -> None:
    """What the drivers' service does when the cards of vehicles change: emit ``DriverCardsChanged`` in its
    transaction as the tenant's administrator, commit, then run what waits for the commit (``core.router.finish``)."""
    principal = Principal(
        user_id=1, tenant_id=tenant, account="admin", role_aliases=("admin",), admin_level=LEVEL_TENANT
    )
    async with db.sessionmaker() as s:
        ctx = await Ctx.build(s, principal, VEHICLE)
        await emit(ctx, DriverCardsChanged(vehicle_ids=list(vehicle_ids)))
        await s.commit()
    for action in ctx.after_commit:
        await action(services)
