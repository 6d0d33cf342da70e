"""What adapters read of a vehicle's latest state outside the pipeline: the last known position (to place a battery
report that carries none). The driver on duty is the pipeline's (``pipeline.drivers``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_, select

from liftdesk.core.db import Database
from liftdesk.telemetry.models import VehicleState


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
