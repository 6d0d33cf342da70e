"""Live state and tracks of vehicles, read through the same scope as every other query."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from pydantic import Field
from sqlalchemy import Select

from liftdesk.core import crud
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.kv import KV
from liftdesk.core.schemas import Id, Schema
from liftdesk.core.security import token_from_request
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.schemas import CarQuery
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.live import LIVE_PATH, TICKET_TTL, issue_ticket
from liftdesk.telemetry.models import VehicleState
from liftdesk.telemetry.view import LiveVehicle, live_state

FICS = "/api/blade-fics-report/fics"


class LiveTicket(Schema):
    ticket: str = Field(description="connect to the live feed with ?ticket= within expiresIn seconds; single use")
    expires_in: int = Field(description="seconds the ticket stays valid")


@telemetry_res.LIVE.action(
    "POST",
    f"{LIVE_PATH}/ticket",
    summary="A ticket to the live feed (the WebSocket at /api/liftdesk/live): single use, valid 30 s, for the caller's "
    "token, so that no token is written in a URL; needs the right to read the live state (the monitor's menu)",
    reads=True,
    answer=LiveTicket,
    tag="live",
)
async def live_ticket(ctx: crud.Ctx, request: Request) -> LiveTicket:
    token = token_from_request(request) or ""
    ticket = await issue_ticket(KV(ctx.session), token)
    return LiveTicket(ticket=ticket, expires_in=int(TICKET_TTL.total_seconds()))


async def _vehicles(c: crud.Ctx, stmt: Select[Any] | None = None) -> list[tuple[Vehicle, VehicleState | None]]:
    q = (
        (stmt if stmt is not None else c.scope.select(Vehicle))
        .outerjoin(VehicleState, VehicleState.vehicle_id == Vehicle.id)
        .add_columns(VehicleState)
        .order_by(Vehicle.car_no, Vehicle.id)
    )
    return [(row[0], row[1]) for row in (await c.session.execute(q)).all()]


def in_organisation(c: crud.Ctx, stmt: Select[Any], mechanism_id: Any) -> Select[Any]:
    """Vehicles of the organisation ``mechanism_id`` and of every organisation under it (an organisation filter
    means the branch of the tree, as the data scope "own organisation and its descendants" does)."""
    if mechanism_id in (None, ""):
        return stmt
    org = crud.parse_id(str(mechanism_id), "mechanismId")
    return stmt.where(*c.scope.in_branch(Vehicle.mechanism_id, org))


class LastGpsIn(Schema):
    car_ids: list[Id] = Field(default_factory=list, description="vehicles (none: every vehicle in scope)")
    car_id: Id | None = None
    device_number: str | None = Field(default=None, max_length=64)
    mechanism_id: Id | None = Field(default=None, description="an organisation and the ones under it")


@telemetry_res.LIVE.action(
    "POST",
    f"{FICS}/carInfo/getCarLastGPSInfo",
    summary="Latest position and state of the caller's vehicles",
    kind="read",
    body=LastGpsIn,
    answer=list[LiveVehicle],
)
async def last_gps(ctx: crud.Ctx, body: LastGpsIn) -> list[LiveVehicle]:
    stmt = ctx.scope.select(Vehicle)
    ids = [*body.car_ids, *([body.car_id] if body.car_id else [])]
    if ids:
        stmt = stmt.where(Vehicle.id.in_(ids))
    if body.device_number:
        stmt = stmt.where(Vehicle.device_number == body.device_number)
    stmt = in_organisation(ctx, stmt, body.mechanism_id)
    return [live_state(car, st) for car, st in await _vehicles(ctx, stmt)]


class StatusCount(Schema):
    total: int
    online: int
    offline: int
    off: int
    idle: int
    moving: int
    loaded: int
    alarm: int


class OrganisationQuery(Schema):
    mechanism_id: Id | None = Field(default=None, description="an organisation and the ones under it")


@telemetry_res.LIVE.action(
    "GET",
    f"{FICS}/carStatus/getCnt",
    summary="How many vehicles are in each state (mechanismId: of that organisation and those under it)",
    kind="aggregate",
    query=OrganisationQuery,
    answer=StatusCount,
    tag="carStatus",
)
async def status_count(ctx: crud.Ctx, query: OrganisationQuery) -> StatusCount:
    rows = await _vehicles(ctx, in_organisation(ctx, ctx.scope.select(Vehicle), query.mechanism_id))
    online = [st for _, st in rows if st is not None and st.online]
    return StatusCount(
        total=len(rows),
        online=len(online),
        offline=len(rows) - len(online),
        off=sum(1 for st in online if st.state == "off"),
        idle=sum(1 for st in online if st.state == "idle"),
        moving=sum(1 for st in online if st.state == "moving"),
        loaded=sum(1 for st in online if st.state == "loaded"),
        alarm=sum(1 for _, st in rows if st is not None and json.loads(st.open_events or "{}")),
    )


async def _one(c: crud.Ctx, ident: int) -> tuple[Vehicle, VehicleState | None]:
    found = await _vehicles(c, c.scope.select(Vehicle).where(Vehicle.id == ident))
    if not found:
        raise ServiceError(t("not_found"))
    return found[0]


@telemetry_res.LIVE.action(
    "GET",
    f"{FICS}/positionTrailing/carRealTimeInfo",
    summary="Live state of one vehicle",
    kind="read",
    query=CarQuery,
    answer=LiveVehicle,
    tag="positionTrailing",
)
async def real_time(ctx: crud.Ctx, query: CarQuery) -> LiveVehicle:
    return live_state(*(await _one(ctx, query.car_id)))
