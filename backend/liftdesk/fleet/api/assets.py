"""Vehicle assets (``carAssets``): the register's vehicles seen as the organisation's assets (/carManages/addAssrets:
frame and in-factory numbers, brand, model, factory and registration dates, registrant, warranty) with their
warranty's state and their age, and the removal of one (``delete`` by ``carId``: the register's own removal, with its
rules, for a vehicle is the asset; there is no asset apart from its vehicle).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import ColumnElement, and_

from liftdesk.core import crud
from liftdesk.core.db import utcnow
from liftdesk.core.paging import Page, PageQuery, page_body, paginate
from liftdesk.core.schemas import Id, Schema, dictionary
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.schemas import CarQuery, VehicleOut

P = f"{res.FICS}/carAssets"
#: A warranty ending within this many days is "expiring".
EXPIRING_DAYS = 30

Warranty = Literal["valid", "expiring", "expired", "none"]


class AssetQuery(Schema):
    current: int = Field(default=1, ge=1, le=10_000_000, description="page number, from 1")
    size: int = Field(default=10, ge=1, le=1000, description="rows per page")
    mechanism_id: Id | None = Field(default=None, description="an organisation and the ones under it")
    car_no: str | None = Field(default=None, max_length=64, description="vehicles whose number holds this")
    frame_number: str | None = Field(default=None, max_length=64, description="frame numbers that hold this")
    car_type: Annotated[int, Field(ge=0, le=8), dictionary("car_type")] | None = None
    car_status: Annotated[int, Field(ge=0, le=2), dictionary("car_status")] | None = None
    warranty: Warranty | None = Field(
        default=None,
        description=f"valid (ends after {EXPIRING_DAYS} days), expiring (within {EXPIRING_DAYS} days), expired, "
        "none (no warranty date)",
    )


class AssetRow(VehicleOut):  # type: ignore[misc,valid-type]
    """A vehicle as an asset: the register's row, its warranty's state and its age."""

    warranty_state: Warranty = "none"
    warranty_days_left: int | None = Field(default=None, description="days until the warranty ends (negative: past)")
    age_years: float | None = Field(default=None, description="years since its factory date, one decimal")


def _warranty_clause(state: Warranty, now: datetime) -> ColumnElement[bool]:
    soon = now + timedelta(days=EXPIRING_DAYS)
    end = Vehicle.warranty_expiry
    if state == "none":
        return end.is_(None)
    if state == "expired":
        return end < now
    if state == "expiring":
        return and_(end >= now, end <= soon)
    return end > soon


def _warranty(end: datetime | None, now: datetime) -> dict[str, Any]:
    if end is None:
        return {"warranty_state": "none"}
    left = (end - now).total_seconds() / 86400.0
    state = "expired" if left < 0 else "expiring" if left <= EXPIRING_DAYS else "valid"
    return {"warranty_state": state, "warranty_days_left": int(left // 1)}


@res.VEHICLE.action(
    "GET",
    f"{P}/list",
    summary="The vehicles as assets, paged: the register's fields, the warranty's state (valid, expiring within "
    f"{EXPIRING_DAYS} days, expired, none) and days left, the age since the factory date; filters: organisation "
    "branch, number, frame number, type, status, warranty",
    kind="read",
    query=AssetQuery,
    answer=Page[AssetRow],
    tag="carAssets",
)
async def asset_list(ctx: crud.Ctx, query: AssetQuery) -> dict[str, Any]:
    now = utcnow()
    stmt = ctx.scope.select(Vehicle).where(*ctx.scope.in_branch(Vehicle.mechanism_id, query.mechanism_id))
    for column, text in ((Vehicle.car_no, query.car_no), (Vehicle.frame_number, query.frame_number)):
        if text and text.strip():
            stmt = stmt.where(column.contains(text.strip(), autoescape=True))
    if query.car_type is not None:
        stmt = stmt.where(Vehicle.car_type == query.car_type)
    if query.car_status is not None:
        stmt = stmt.where(Vehicle.car_status == query.car_status)
    if query.warranty is not None:
        stmt = stmt.where(_warranty_clause(query.warranty, now))
    q = PageQuery(query.current, query.size)
    cars, total, pages = await paginate(ctx.session, stmt.order_by(Vehicle.car_no, Vehicle.id), q)
    rows = await ctx.resource.hooks.enrich(ctx, crud.serialise(ctx.resource, cars))
    records = []
    for car, row in zip(cars, rows, strict=True):
        age = (now - car.factory_date).days / 365.25 if car.factory_date else None
        records.append(AssetRow(**row, **_warranty(car.warranty_expiry, now), age_years=_round(age)))
    return page_body(records, total, pages, q)


def _round(value: float | None) -> float | None:
    return round(value, 1) if value is not None else None


@res.VEHICLE.action(
    "POST",
    f"{P}/delete",
    summary="Remove the vehicle carId as an asset: the register's removal (deleteCarInfoById) with its rules (its "
    "fences and terminal let go)",
    kind="action",
    permission="delete",
    query=CarQuery,
    answer=bool,
    tag="carAssets",
)
async def asset_delete(ctx: crud.Ctx, query: CarQuery) -> bool:
    return await crud.remove(ctx, [query.car_id])
