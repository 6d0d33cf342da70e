"""What adapters read from or write to a vehicle's latest state outside the pipeline: the driver on duty and
the last known position (to place a battery report that carries none)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError

from liftdesk.core.db import Database
from liftdesk.telemetry.models import VehicleState
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import clean


@dataclass(frozen=True, slots=True)
class LastKnown:
    time: datetime
    lat: float
    lon: float
    speed_kmh: float
    direction: int
    status: int
    alarm: int
    load_kg: float | None
    mileage_km: float | None


def _which(device: str, vehicle_id: int | None) -> object:
    if vehicle_id is not None:
        return or_(VehicleState.vehicle_id == vehicle_id, VehicleState.device_number == device)
    return VehicleState.device_number == device


async def last_known(db: Database, device: str, vehicle_id: int | None) -> LastKnown | None:
    async with db.sessionmaker() as s:
        row = (await s.execute(select(VehicleState).where(_which(device, vehicle_id)))).scalars().first()  # type: ignore[arg-type]
    if row is None or row.device_time is None or row.lat is None or row.lon is None:
        return None
    return LastKnown(
        row.device_time, row.lat, row.lon, row.speed, row.direction, row.status, row.alarm, row.load_kg, row.mileage_km
    )


async def set_driver(
    db: Database,
    pipeline: Pipeline | None,
    device: str,
    tenant_id: str,
    vehicle_id: int | None,
    name: str | None,
    card: str | None,
) -> bool:
    """Store who is on duty (``None`` when the card was pulled) on the vehicle's state row.

    Returns False when the terminal has no vehicle to put it on. The pipeline keeps the driver name per vehicle
    and writes it with every batch, so the change is then also passed through its queue
    (:meth:`Pipeline.set_driver`): a batch in flight cannot write the previous name back after this.
    """
    values = {"driver_name": clean(name, 64), "driver_card": clean(card, 32)}  # terminal text: no NULs etc.
    for _ in range(2):
        async with db.sessionmaker() as s:
            result = await s.execute(update(VehicleState).where(_which(device, vehicle_id)).values(**values))  # type: ignore[arg-type]
            if result.rowcount:  # type: ignore[attr-defined]
                await s.commit()
                break
            if vehicle_id is None:
                return False
            s.add(VehicleState(vehicle_id=vehicle_id, tenant_id=tenant_id, device_number=device, **values))
            try:
                await s.commit()
                break
            except IntegrityError:  # the pipeline created the row meanwhile: update it
                await s.rollback()
    if pipeline is not None:
        await pipeline.set_driver(device, values["driver_name"])
    return True
