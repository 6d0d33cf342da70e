"""The demo tenant's simulated fleet: the vehicles ``make run`` creates so that its simulator's terminals are known,
and the drivers whose IC cards the simulated drivers present (``simulator.model.card_serial``), authorized on their
vehicle, so that the platform accepts them (``telemetry.pipeline.drivers``) and names them on the live map. No card
list is sent to the demo terminals: they accept any card, as terminals never given a list do."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Driver, DriverCar, DriverCard, Vehicle
from liftdesk.system.models import Dept
from liftdesk.system.seed import ROOT_DEPT
from liftdesk.telemetry.simulator import demo_specs
from liftdesk.telemetry.simulator.model import card_serial

#: Drivers per simulated vehicle (``ForkliftState.drivers``).
DEMO_DRIVERS = 3


async def ensure_demo_fleet(session: AsyncSession, n: int, seed: int = 1, tenant_id: str = "000000") -> int:
    """Create the vehicles of the first ``n`` demo terminals that do not exist yet; return how many were made."""
    if n <= 0:
        return 0
    specs = demo_specs(n, seed)
    have = set(
        (
            await session.execute(
                select(Vehicle.device_number).where(
                    Vehicle.device_number.in_([s.device for s in specs]), Vehicle.is_deleted == 0
                )
            )
        )
        .scalars()
        .all()
    )
    depts = list(
        (
            await session.execute(
                select(Dept.id)
                .where(Dept.tenant_id == tenant_id, Dept.parent_id == ROOT_DEPT, Dept.is_deleted == 0)
                .order_by(Dept.sort)
            )
        )
        .scalars()
        .all()
    ) or [ROOT_DEPT]
    made = 0
    for i, spec in enumerate(specs):
        if spec.device in have:
            continue
        dept = depts[(i * len(depts)) // len(specs)]
        car = Vehicle(
            tenant_id=tenant_id,
            car_no=spec.name or f"FL-{i + 1:03d}",
            device_number=spec.device,
            frame_number=spec.frame_number or None,
            car_type=int(spec.vehicle_type),
            rated_load_kg=spec.rated_load_kg,
            overload_threshold_kg=float(spec.rated_load_kg),
            mechanism_id=dept,
            create_dept=dept,
            brand="Liftdesk Sim",
            model_number=spec.profile.label[:64],
            registrant="demo",
            battery_type=spec.battery_chemistry.value if spec.battery_chemistry else None,
        )
        session.add(car)
        made += 1
        await session.flush()
        for n in range(DEMO_DRIVERS):
            driver = next_id()
            # a mobile number of its own per demo driver (139 + the device's last digits and the driver's place)
            phone = f"139{(int(spec.device[-7:]) * DEMO_DRIVERS + n) % 10**8:08d}"
            session.add(Driver(id=driver, tenant_id=tenant_id, name=f"{spec.name or spec.device[-4:]} 司机{n + 1}",
                               phone=phone, mechanism_id=dept, create_dept=dept))  # fmt: skip
            serial = card_serial(spec.device, n)
            session.add(DriverCard(id=next_id(), tenant_id=tenant_id, driver_id=driver, card_kind=1,
                                   card_number=f"D{serial}", serial_number=serial))  # fmt: skip
            session.add(DriverCar(tenant_id=tenant_id, driver_id=driver, vehicle_id=car.id))
    await session.commit()
    return made
