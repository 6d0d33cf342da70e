"""The command log as users read it: who sent what to which vehicle, when, how many attempts, and the answer.

Commands (``fics_command``) belong to a tenant; the rows a caller sees are the tenant's (the scope) narrowed to the
vehicles the caller's data scope shows (the command resource uses the vehicle's resource code, so its data rule is
the vehicle's). A caller without a data rule (all data) also sees commands that have no vehicle.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, select

from liftdesk.core import crud
from liftdesk.core.envelope import NotFound
from liftdesk.core.i18n import t
from liftdesk.core.resource import Hooks
from liftdesk.fleet.models import Vehicle
from liftdesk.system.models import User
from liftdesk.telemetry.models import Command
from liftdesk.telemetry.schemas import CommandOut


def visible(ctx: crud.Ctx, stmt: Select[Any]) -> Select[Any]:
    """Narrow a query of commands (already scoped to the tenant) to the vehicles the caller's data scope shows."""
    if ctx.scope.narrows(Vehicle):
        stmt = stmt.where(Command.vehicle_id.in_(select(Vehicle.id).where(*ctx.scope.where(Vehicle))))
    return stmt


def _json(text: Any) -> Any:
    if not isinstance(text, str) or not text:
        return None
    try:
        return json.loads(text)
    except ValueError:  # written by us as JSON; an unreadable row is shown as it is rather than failing the page
        return text


async def describe(ctx: crud.Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Serialised command rows → the answer: JSON payload/result, the sender's name, the vehicle's number."""
    # Names and numbers of deleted users and vehicles are still shown (the log outlives them): tenant-filtered here
    # rather than through the scope, which leaves deleted rows out.
    users = {r["create_user"] for r in rows if r.get("create_user")}
    cars = {r["car_id"] for r in rows if r.get("car_id")}
    names: dict[int, str] = {}
    if users:
        found = await ctx.session.execute(
            select(User.id, User.real_name, User.name, User.account).where(
                User.id.in_(users), User.tenant_id == ctx.scope.tenant_id
            )
        )
        names = {ident: real or name or account or "" for ident, real, name, account in found.all()}
    car_nos: dict[int, str] = {}
    if cars:
        numbers = await ctx.session.execute(
            select(Vehicle.id, Vehicle.car_no).where(Vehicle.id.in_(cars), Vehicle.tenant_id == ctx.scope.tenant_id)
        )
        car_nos = {ident: car_no for ident, car_no in numbers.all()}
    for r in rows:
        r["payload"] = _json(r.get("payload"))
        r["result"] = _json(r.get("result"))
        r["create_user_name"] = names.get(r["create_user"], "") if r.get("create_user") else ""
        r["car_no"] = car_nos.get(r["car_id"]) if r.get("car_id") else None
    return rows


async def read(ctx: crud.Ctx, ids: Sequence[int]) -> list[dict[str, Any]]:
    """The commands ``ids`` as the caller may see them (tenant + data scope), in the order of ``ids``."""
    stmt = visible(ctx, ctx.scope.select(Command).where(Command.id.in_(list(ids))))
    rows = {c.id: c for c in (await ctx.session.execute(stmt)).scalars().all()}
    found = [rows[i] for i in ids if i in rows]
    return await describe(ctx, [CommandOut.model_validate(c).model_dump(by_alias=False) for c in found])


async def detail(ctx: crud.Ctx, ident: int) -> dict[str, Any]:
    await ctx.require("view")
    found = await read(ctx, [ident])
    if not found:
        raise NotFound(t("not_found"))
    return found[0]


class CommandLogHooks(Hooks):
    """``carId`` filters by vehicle (like ``vehicleId_equal``), ``carNo`` (or ``carNo_like``) by the vehicle's number
    (contains, the tenant's vehicles); rows are narrowed by the vehicle data scope."""

    def filter(self, ctx: crud.Ctx, stmt: Any) -> Any:
        car = ctx.params.get("carId", "")
        if car:
            stmt = stmt.where(Command.vehicle_id == crud.parse_id(car, "carId"))
        number = (ctx.params.get("carNo_like") or ctx.params.get("carNo") or "").strip()
        if number:
            numbered = select(Vehicle.id).where(
                Vehicle.tenant_id == ctx.scope.tenant_id, Vehicle.car_no.contains(number, autoescape=True)
            )
            stmt = stmt.where(Command.vehicle_id.in_(numbered))
        return visible(ctx, stmt)

    async def enrich(self, ctx: crud.Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return await describe(ctx, rows)
