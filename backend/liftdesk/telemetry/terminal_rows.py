"""What the terminal service reads and writes for many terminals at once (``telemetry.terminals``): their rows and
vehicles in two queries, rounds where each device appears once, retries, the live state rows locked in order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.db import retrying
from liftdesk.fleet.models import Vehicle
from liftdesk.system.models import Dept
from liftdesk.telemetry.models import Terminal, VehicleState


@dataclass
class Rows:
    """The terminal rows of some device numbers and the vehicles their data goes to, read with two queries."""

    terms: dict[str, Terminal]
    by_id: dict[int, Vehicle]
    by_device: dict[str, Vehicle]

    @classmethod
    async def read(cls, s: AsyncSession, devices: Sequence[str]) -> Rows:
        terms = {
            t.device_number: t
            for t in (await s.execute(select(Terminal).where(Terminal.device_number.in_(devices)))).scalars()
        }
        bound = [t.vehicle_id for t in terms.values() if t.vehicle_id is not None]
        which = Vehicle.device_number.in_(devices)
        cars = (
            await s.execute(select(Vehicle).where(Vehicle.is_deleted == 0, or_(Vehicle.id.in_(bound), which)))
        ).scalars()
        rows = cls(terms, {}, {})
        for car in cars:
            rows.by_id[car.id] = car
            if car.device_number:
                rows.by_device.setdefault(car.device_number, car)
        return rows

    def car(self, device: str, term: Terminal | None) -> Vehicle | None:
        if term is not None and term.vehicle_id is not None and term.vehicle_id in self.by_id:
            return self.by_id[term.vehicle_id]
        return self.by_device.get(device)


K = TypeVar("K", bound=Hashable)
I = TypeVar("I")  # noqa: E741 - an item
R = TypeVar("R")


async def each_device_once(
    items: list[I], key: Callable[[I], K], handle: Callable[[list[I]], Awaitable[list[R]]]
) -> list[R]:
    """``handle`` over ``items`` in rounds where each device appears at most once (a terminal that registers twice
    in one round: its second registration is handled after the first is committed), results in order."""
    seen: set[K] = set()
    first: list[int] = []
    later: list[int] = []
    for n, item in enumerate(items):
        (later if key(item) in seen else first).append(n)
        seen.add(key(item))
    results: dict[int, R] = dict(zip(first, await handle([items[n] for n in first]), strict=True))
    if later:
        results.update(zip(later, await each_device_once([items[n] for n in later], key, handle), strict=True))
    return [results[n] for n in range(len(items))]


async def once_more_alone(items: list[I], handle: Callable[[list[I]], Awaitable[list[R]]]) -> list[R]:
    """A round alone that met a row created meanwhile by another connection (a unique constraint) is tried once
    more; a round of several fails, and :class:`Grouped` handles each of its items alone. A round that lost a
    deadlock is done again whole (:func:`retrying`)."""
    try:
        return await retrying(lambda: handle(items))
    except IntegrityError:
        if len(items) > 1:
            raise
    return await retrying(lambda: handle(items))


async def lock_states(s: AsyncSession, devices: list[str]) -> None:
    """PostgreSQL: lock the live state rows of these device numbers first, in vehicle order - the order the
    pipeline writes them in - so that a transaction writing many of them (online marks, touches) and a pipeline
    batch do not take them in opposite orders and deadlock."""
    if s.get_bind().dialect.name != "postgresql" or not devices:
        return
    await s.execute(
        select(VehicleState.vehicle_id)
        .where(VehicleState.device_number.in_(devices))
        .order_by(VehicleState.vehicle_id)
        .with_for_update()
    )


async def root_organisation(s: AsyncSession, tenant_id: str) -> int | None:
    return (
        (
            await s.execute(
                select(Dept.id)
                .where(Dept.tenant_id == tenant_id, Dept.parent_id == 0, Dept.is_deleted == 0)
                .order_by(Dept.sort, Dept.id)
                .limit(1)
            )
        )
        .scalars()
        .first()
    )
