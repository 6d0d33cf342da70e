"""Rules of the fleet context."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, update

from liftdesk.core.crud import Ctx
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.registry import Hooks
from liftdesk.fleet.models import Terminal, Vehicle
from liftdesk.system.models import Dept
from liftdesk.system.service import dict_labels
from liftdesk.telemetry.models import DailyStat, VehicleState

VEHICLE_CHANGED = "fleet.vehicle.changed"


class VehicleHooks(Hooks):
    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if obj.device_number:
            # A terminal reports under one device number whatever the tenant, so the number is unique across
            # tenants; this check reveals only that the number is taken.
            taken = select(Vehicle.id).where(
                Vehicle.device_number == obj.device_number, Vehicle.is_deleted == 0, Vehicle.id != (obj.id or 0)
            )
            if (await ctx.session.execute(taken.limit(1))).first() is not None:
                raise ServiceError(t("duplicate", field="deviceNumber", value=obj.device_number))
        if obj.mechanism_id is None:
            obj.mechanism_id = ctx.principal.dept_id
        else:
            found = await ctx.session.execute(ctx.scope.select(Dept).where(Dept.id == obj.mechanism_id))
            if found.first() is None:
                raise ServiceError(t("field_invalid", field="mechanismId"))
        if creating:
            obj.create_dept = obj.mechanism_id

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        await ctx.session.execute(
            update(Terminal)
            .where(Terminal.vehicle_id == obj.id, Terminal.device_number != (obj.device_number or ""))
            .values(vehicle_id=None)
        )
        if obj.device_number:
            await ctx.session.execute(
                update(Terminal)
                .where(Terminal.device_number == obj.device_number, Terminal.tenant_id == obj.tenant_id)
                .values(vehicle_id=obj.id)
            )
        ctx.outbox.append((VEHICLE_CHANGED, {"vehicleId": obj.id, "deviceNumber": obj.device_number}))

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        ids = [r.id for r in rows]
        await ctx.session.execute(update(Terminal).where(Terminal.vehicle_id.in_(ids)).values(vehicle_id=None))
        for r in rows:
            ctx.outbox.append((VEHICLE_CHANGED, {"vehicleId": r.id, "deviceNumber": r.device_number}))

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ids = [r["id"] for r in rows]
        if not ids:
            return rows
        depts = dict(
            (
                await ctx.session.execute(
                    select(Dept.id, Dept.dept_name).where(
                        Dept.id.in_({r["mechanism_id"] for r in rows if r["mechanism_id"]})
                    )
                )
            ).all()
        )
        states = {
            s.vehicle_id: s
            for s in (await ctx.session.execute(select(VehicleState).where(VehicleState.vehicle_id.in_(ids)))).scalars()
        }
        hours = dict(
            (
                await ctx.session.execute(
                    select(DailyStat.vehicle_id, func.sum(DailyStat.boot_s))
                    .where(DailyStat.vehicle_id.in_(ids))
                    .group_by(DailyStat.vehicle_id)
                )
            ).all()
        )
        types = await dict_labels(ctx.session, "car_type")
        statuses = await dict_labels(ctx.session, "car_status")
        for r in rows:
            st = states.get(r["id"])
            r.update(
                car_id=r["id"],
                mechanism_name=depts.get(r["mechanism_id"], ""),
                car_type_name=types.get(str(r["car_type"]), ""),
                car_status_name=statuses.get(str(r["car_status"]), ""),
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
        return rows
