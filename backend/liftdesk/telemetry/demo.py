"""The demo tenant's simulated fleet: the vehicles ``make run`` creates so that its simulator's terminals are known."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.fleet.models import Vehicle
from liftdesk.system.models import Dept
from liftdesk.system.seed import ROOT_DEPT
from liftdesk.telemetry.simulator import demo_specs


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
        session.add(
            Vehicle(
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
        )
        made += 1
    await session.commit()
    return made
