"""What telemetry does when the fleet changes (``core.events`` handlers of ``fleet.events``), and what it adds to the
fleet's answers (its ports).

- A saved vehicle takes its terminal (by device number) and a terminal it no longer names is let go; a removed
  vehicle lets its terminal go.
- Vehicle lists carry the live state (online, powered, locked, position, mileage, hours worked).
- A fence is refused when a terminal could not hold its area; area changes are queued as terminal commands once
  the transaction has committed (audited with the caller).
- When the cards a vehicle accepts change (an authorization, a card, a licence, a blacklist, a driver removed), its
  card list is queued for its terminal once the transaction has committed (``telemetry.cards``).
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import func, select, update

from liftdesk.core.context import Ctx
from liftdesk.core.envelope import ServiceError
from liftdesk.core.events import Provision, Subscription, provide, subscribe
from liftdesk.core.i18n import t
from liftdesk.core.services import Services
from liftdesk.fleet.events import (
    VEHICLE_LIST_COLUMNS,
    DriverCardsChanged,
    FenceAreas,
    FenceChecking,
    VehicleSaved,
    VehiclesRemoving,
)
from liftdesk.fleet.geometry import CIRCLE
from liftdesk.telemetry.cards import queue_card_lists
from liftdesk.telemetry.commands import CommandService
from liftdesk.telemetry.commands import validate as validate_command
from liftdesk.telemetry.fences import delete_area_command, set_area_command
from liftdesk.telemetry.models import DailyStat, Terminal, VehicleState

log = logging.getLogger("liftdesk.telemetry")


async def bind_terminal(ctx: Ctx, event: VehicleSaved) -> None:
    vehicle = event.vehicle
    await ctx.session.execute(
        update(Terminal)
        .where(
            *ctx.scope.where(Terminal),
            Terminal.vehicle_id == vehicle.id,
            Terminal.device_number != (vehicle.device_number or ""),
        )
        .values(vehicle_id=None)
    )
    if vehicle.device_number:
        # The terminal row keeps the vehicle's SIM number (the card in the terminal; its ICCID comes from 0x0107).
        await ctx.session.execute(
            update(Terminal)
            .where(*ctx.scope.where(Terminal), Terminal.device_number == vehicle.device_number)
            .values(vehicle_id=vehicle.id, sim_number=vehicle.sim_number)
        )


async def release_terminals(ctx: Ctx, event: VehiclesRemoving) -> None:
    ids = [v.id for v in event.vehicles]
    await ctx.session.execute(
        update(Terminal).where(*ctx.scope.where(Terminal), Terminal.vehicle_id.in_(ids)).values(vehicle_id=None)
    )


async def live_columns(ctx: Ctx, rows: list[dict[str, Any]]) -> None:
    """The vehicle lists' live columns (the fleet's port ``VEHICLE_LIST_COLUMNS``)."""
    ids = [r["id"] for r in rows]
    if not ids:
        return
    states = {
        s.vehicle_id: s
        for s in (
            await ctx.session.execute(ctx.scope.select(VehicleState).where(VehicleState.vehicle_id.in_(ids)))
        ).scalars()
    }
    hours = dict(
        (
            await ctx.session.execute(
                ctx.scope.apply(
                    select(DailyStat.vehicle_id, func.sum(DailyStat.boot_s))
                    .where(DailyStat.vehicle_id.in_(ids))
                    .group_by(DailyStat.vehicle_id),
                    DailyStat,
                )
            )
        ).all()
    )
    for r in rows:
        st = states.get(r["id"])
        r.update(
            online=bool(st and st.online),
            power_on=bool(st and st.acc),
            locked=bool(st and (st.lock_level or 0) > 0),
            mileage=st.mileage_km if st else None,
            speed=st.speed if st else None,
            working_hours=round(float(hours.get(r["id"]) or 0.0) / 3600, 2),
            lat=st.lat if st else None,
            lon=st.lon if st else None,
            gps_time=st.device_time if st else None,
            state=st.state if st else None,
        )


async def fits_a_terminal(ctx: Ctx, event: FenceChecking) -> None:
    fence = event.fence
    _, msg_id, payload = set_area_command(fence)
    try:
        validate_command(msg_id, payload)
    except ValueError as exc:
        field = "centerLon" if fence.fence_type == CIRCLE else "points"
        raise ServiceError(t("validation", field=field, reason=str(exc))) from exc


async def queue_area_commands(ctx: Ctx, event: FenceAreas) -> None:
    """The commands are built now (from the fence as saved) and queued through the command service once the
    transaction has committed."""
    items = [
        (
            c.car.tenant_id,
            c.car.id,
            c.car.device_number or "",
            delete_area_command(c.fence_type, c.area_id) if c.fence is None else set_area_command(c.fence),
        )
        for c in event.changes
    ]
    user_id = ctx.principal.user_id

    async def send(services: Services) -> None:
        service = services.find(CommandService)
        if service is None:  # no command service in this context (a unit test, a script)
            return
        for tenant_id, vehicle_id, device, (name, msg_id, payload) in items:
            try:
                await service.create(tenant_id, vehicle_id, device, name, msg_id, payload, user_id)
            except ValueError:  # validated when the fence was saved; log rather than fail a committed save
                log.exception("area command %s for %s not queued", name, device)

    ctx.after_commit.append(send)


async def queue_card_list_commands(ctx: Ctx, event: DriverCardsChanged) -> None:
    """The lists are computed from the committed rows (not from this transaction's view, which a concurrent change
    would not be in) and queued through the command service, audited with the caller. Only the caller's tenant's
    vehicles: an id of another tenant finds no vehicle."""
    ids = {int(v) for v in event.vehicle_ids}
    tenant_id, user_id = ctx.scope.tenant_id, ctx.principal.user_id

    async def send(services: Services) -> None:
        service = services.find(CommandService)
        if service is None:  # no command service in this context (a unit test, a script)
            return
        await queue_card_lists(services.db, service, tenant_id, ids, user_id)

    if ids:
        ctx.after_commit.append(send)


#: What telemetry does about the fleet's events, in order (its ``Context.subscriptions``).
SUBSCRIPTIONS: tuple[Subscription[Any], ...] = (
    subscribe(VehicleSaved, bind_terminal),
    subscribe(VehiclesRemoving, release_terminals),
    subscribe(FenceChecking, fits_a_terminal),
    subscribe(FenceAreas, queue_area_commands),
    subscribe(DriverCardsChanged, queue_card_list_commands),
)
#: The fleet's ports telemetry implements.
PROVIDES: tuple[Provision[Any], ...] = (provide(VEHICLE_LIST_COLUMNS, live_columns),)
