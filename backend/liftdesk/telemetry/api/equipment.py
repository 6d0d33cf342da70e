"""The lists of what vehicles carry beyond their live state: the battery of electric vehicles
(``getCarBatteryStatusList``) and the engine control unit of combustion ones (``getCarEcuList``), paged, with the
filters of the state lists (``lists.StateListIn``) and one of their own.

Both read the same page of vehicles as the state lists (:func:`lists.state_page`) and then, in one statement for
the whole page, what each vehicle's latest stored report carried (``fics_position.extra``: the battery, the fuel
level); the vehicle's state row keeps its active fault codes and the latest frame of each CAN id. No statement is
made per row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field
from sqlalchemy import select

from liftdesk.core import crud
from liftdesk.core.paging import Page
from liftdesk.core.schemas import Time
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.api.lists import _FILTERS, Listed, StateListIn, StateRow, family_clause, state_page
from liftdesk.telemetry.api.live import FICS
from liftdesk.telemetry.api.status import extra_of
from liftdesk.telemetry.models import Position, VehicleState


async def latest_reports(ctx: crud.Ctx, listed: Listed) -> dict[int, tuple[datetime, dict[str, Any]]]:
    """(time, extra) of the latest stored report of each vehicle of the page, in one statement: a probe of the
    positions' key (tenant, vehicle, time) per vehicle, newest first."""
    if not listed.cars:
        return {}

    def latest(column: Any) -> Any:
        return (
            select(column)
            .where(Position.tenant_id == Vehicle.tenant_id, Position.vehicle_id == Vehicle.id)
            .order_by(Position.device_time.desc())
            .limit(1)
            .correlate(Vehicle)
            .scalar_subquery()
        )

    stmt = select(Vehicle.id, latest(Position.device_time), latest(Position.extra)).where(
        *ctx.scope.where(Vehicle), Vehicle.id.in_([c.id for c in listed.cars])
    )
    return {ident: (when, extra_of(extra)) for ident, when, extra in (await ctx.session.execute(stmt)).all() if when}


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# ------------------------------------------------------------------------------------- getCarBatteryStatusList


class BatteryListIn(StateListIn):
    soc_below: float | None = Field(
        default=None, ge=0, le=100, description="only vehicles whose state of charge is below this (%)"
    )


class BatteryRow(StateRow):
    """An electric vehicle and its battery as its latest report gave it (a vehicle that never reported a battery
    has none of the battery's values)."""

    battery_number: str | None = None
    battery_brand: str | None = None
    battery_type: str | None = None
    battery_time: Time | None = Field(default=None, description="the time of the report the battery values are of")
    voltage_v: float | None = None
    current_a: float | None = Field(default=None, description="positive: discharging")
    charge_state: str | None = Field(default=None, description="idle | charging | discharging")
    temperature_c: float | None = Field(default=None, description="the hottest probe")
    cell_min_mv: int | None = None
    cell_max_mv: int | None = None
    cell_spread_mv: int | None = Field(default=None, description="highest − lowest cell voltage")
    battery_alarms: list[str] = Field(default_factory=list, description="battery alarms in progress, by kind")


def battery_fields(report: tuple[datetime, dict[str, Any]] | None) -> dict[str, Any]:
    if report is None or not isinstance(report[1].get("battery"), dict):
        return {}
    bat: dict[str, Any] = report[1]["battery"]
    temps = [v for v in (_num(x) for x in bat.get("t", [])) if v is not None]
    cells = [int(v) for v in (_num(x) for x in bat.get("cells", [])) if v is not None]
    state = bat.get("state")
    return {
        "battery_time": report[0],
        "voltage_v": _num(bat.get("v")),
        "current_a": _num(bat.get("a")),
        "charge_state": state if isinstance(state, str) else None,
        "temperature_c": max(temps) if temps else None,
        "cell_min_mv": min(cells) if cells else None,
        "cell_max_mv": max(cells) if cells else None,
        "cell_spread_mv": max(cells) - min(cells) if cells else None,
    }


@telemetry_res.LIVE.action(
    "POST",
    f"{FICS}/carInfo/getCarBatteryStatusList",
    summary="The electric vehicles with their battery now: state of charge, voltage, current, charge state, the "
    "hottest probe, the lowest and highest cell and their spread, battery alarms in progress; paged; "
    f"{_FILTERS}, and socBelow",
    kind="read",
    body=BatteryListIn,
    answer=Page[BatteryRow],
)
async def battery_status_list(ctx: crud.Ctx, body: BatteryListIn) -> dict[str, Any]:
    where = [family_clause("electric")]
    if body.soc_below is not None:
        low = select(VehicleState.vehicle_id).where(
            *ctx.scope.where(VehicleState, data=False), VehicleState.soc_pct < body.soc_below
        )
        where.append(Vehicle.id.in_(low))
    listed = await state_page(ctx, body, *where)
    reports = await latest_reports(ctx, listed)
    records = []
    for car in listed.cars:
        row = listed.row(car)
        records.append(
            BatteryRow(
                **row,
                battery_number=car.battery_number,
                battery_brand=car.battery_brand,
                battery_type=car.battery_type,
                battery_alarms=[k for k in row["alarms"] if k.startswith("battery")],
                **battery_fields(reports.get(car.id)),
            )
        )
    return listed.body(records)


# ----------------------------------------------------------------------------------------------- getCarEcuList


class EcuListIn(StateListIn):
    faulty: bool | None = Field(
        default=None, description="true: only vehicles whose latest report carried fault codes; false: only the others"
    )


class EcuRow(StateRow):
    """A combustion vehicle, its engine's file (the emission registration of non-road machinery: engine number and
    brand, emission type, environmental code) and what its engine control unit reports: the fuel level of its
    latest report, the fault codes active now, the CAN ids passed on and the latest frame's time."""

    engine_number: str | None = None
    engine_brand: str | None = None
    emission_type: str | None = None
    environmental_code: str | None = None
    fuel_l: float | None = Field(default=None, description="fuel level of the latest report, litres")
    faults: list[str] = Field(default_factory=list, description="fault codes of the latest report")
    can_ids: int = Field(default=0, description="CAN ids whose latest frame is kept")
    can_time: str | None = Field(default=None, description="when the latest CAN frame arrived (UTC, ISO 8601)")


def ecu_fields(state: VehicleState | None, report: tuple[datetime, dict[str, Any]] | None) -> dict[str, Any]:
    extra = extra_of(state.extra) if state is not None else {}
    found_can, found_faults = extra.get("can"), extra.get("faults")
    can: dict[str, Any] = found_can if isinstance(found_can, dict) else {}
    faults: list[Any] = found_faults if isinstance(found_faults, list) else []
    times = [str(f["time"]) for f in can.values() if isinstance(f, dict) and f.get("time")]
    return {
        "fuel_l": _num(report[1].get("fuel_l")) if report else None,
        "faults": [str(c) for c in faults],
        "can_ids": len(can),
        "can_time": max(times) if times else None,
    }


@telemetry_res.LIVE.action(
    "POST",
    f"{FICS}/carInfo/getCarEcuList",
    summary="The combustion vehicles with their engine control unit: engine number and brand, emission type, "
    "environmental code, fuel level, active fault codes, CAN ids reporting and the latest frame's time; paged; "
    f"{_FILTERS}, and faulty",
    kind="read",
    body=EcuListIn,
    answer=Page[EcuRow],
)
async def ecu_list(ctx: crud.Ctx, body: EcuListIn) -> dict[str, Any]:
    where = [family_clause("combustion")]
    if body.faulty is not None:
        faulty = select(VehicleState.vehicle_id).where(
            *ctx.scope.where(VehicleState, data=False), VehicleState.extra.contains('"faults"', autoescape=True)
        )
        where.append(Vehicle.id.in_(faulty) if body.faulty else Vehicle.id.not_in(faulty))
    listed = await state_page(ctx, body, *where)
    reports = await latest_reports(ctx, listed)
    records = [
        EcuRow(
            **listed.row(car),
            engine_number=car.engine_number,
            engine_brand=car.engine_brand,
            emission_type=car.emission_type,
            environmental_code=car.environmental_code,
            **ecu_fields(listed.states.get(car.id), reports.get(car.id)),
        )
        for car in listed.cars
    ]
    return listed.body(records)
