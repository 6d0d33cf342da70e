"""The vehicle settings screens (``carSet``): parameters read and written on terminals, locks, limits, thresholds,
calibrations and function switches. Sent as ``telemetry.api.commands`` describes (validated once, one audited
command per vehicle, answers awaited up to ``wait`` seconds)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from pydantic import AliasChoices, ConfigDict, Field

from liftdesk.core import crud
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.paging import snake_to_camel
from liftdesk.core.schemas import Schema, documented
from liftdesk.core.services import Services
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.api.commands import (
    CARS_RULE,
    MAX_WAIT_S,
    QUERY_ALL,
    QUERY_PARAMS,
    CarsIn,
    F,
    _answer,
    _cars,
    _send,
    _service,
    _set,
)
from liftdesk.telemetry.commands import (
    SWITCHES_ALL,
    SWITCHES_PID,
    UnknownParameter,
    switch_bits,
)
from liftdesk.telemetry.schemas import CommandOut

# --------------------------------------------------------------------------- carSet: parameters


class WaitQuery(Schema):
    wait: float = Field(default=8.0, description="seconds to wait for the answer (0-30; more waits 30)")


@telemetry_res.CAR_SET.action(
    "GET",
    f"{F}/carSet/sendGetDeviceConfig/{{id}}",
    summary="Ask a vehicle's terminal for all its parameters (0x8104); query wait: seconds to wait (0-30)",
    permission="car_set_config",
    query=WaitQuery,
    answer=CommandOut,
    tag="carSet",
)
async def query_config(ctx: crud.Ctx, query: WaitQuery, ident: int, services: Services) -> dict[str, Any]:
    [car] = await _cars(ctx, [ident])
    [answer] = await _send(services, ctx, [car], "queryParams", QUERY_ALL, {}, query.wait)
    return answer


class ConfigIn(CarsIn):
    params: Annotated[dict[str, Any], Field(json_schema_extra={"minProperties": 1})]


@telemetry_res.CAR_SET.action(
    "POST",
    f"{F}/carSet/sendDeviceConfig",
    summary="Set terminal parameters (0x8103): {carIds, params: {name or id: value}, wait}",
    permission="car_set_config",
    body=ConfigIn,
    answer=list[CommandOut],
    tag="carSet",
)
async def send_config(ctx: crud.Ctx, body: ConfigIn, services: Services) -> list[dict[str, Any]]:
    if not body.params:
        raise ServiceError(t("field_required", field="params"))
    return await _set(services, ctx, body, "setParams", body.params)


class LockIn(CarsIn):
    lock_level: Annotated[int, Field(ge=0, le=2, description="0 unlock, 1 level-1 lock, 2 level-2 lock")]


@telemetry_res.CAR_SET.action(
    "POST",
    f"{F}/carSet/lockCar",
    summary="Lock (1 soft, 2 full) or unlock (0) vehicles: {carIds, lockLevel, wait}",
    permission="car_set_lock",
    body=LockIn,
    answer=list[CommandOut],
    tag="carSet",
)
async def lock_car(ctx: crud.Ctx, body: LockIn, services: Services) -> list[dict[str, Any]]:
    return await _set(services, ctx, body, "lockCar", {"lock_level": body.lock_level})


class RateIn(CarsIn):
    speed_limit: Annotated[float, Field(ge=0, le=30, description="km/h, 0 lifts the limit")]


@telemetry_res.CAR_SET.action(
    "POST",
    f"{F}/carSet/rateLimiting",
    summary="Set the speed limit (0-30 km/h, 0 lifts it) of vehicles: {carIds, speedLimit, wait}",
    permission="car_set_limit",
    body=RateIn,
    answer=list[CommandOut],
    tag="carSet",
)
async def rate_limiting(ctx: crud.Ctx, body: RateIn, services: Services) -> list[dict[str, Any]]:
    return await _set(services, ctx, body, "rateLimiting", {"speed_limit": round(body.speed_limit)})


class CrashIn(CarsIn):
    crash_threshold_value: Annotated[float, Field(ge=0, le=20, description="impact alarm threshold in g (0.1 g)")]
    crash_level: Annotated[int | None, Field(ge=1, le=5, description="impact sensitivity level 1-5")] = None


@telemetry_res.CAR_SET.action(
    "POST",
    f"{F}/carSet/crashThresholdValue",
    summary="Set the collision threshold (0-20 g, vendor parameter 0xF003) and optionally the level (1-5, 0xF004): "
    "{carIds, crashThresholdValue, crashLevel?, wait}",
    permission="car_set_threshold",
    body=CrashIn,
    answer=list[CommandOut],
    tag="carSet",
)
async def crash_threshold(ctx: crud.Ctx, body: CrashIn, services: Services) -> list[dict[str, Any]]:
    params: dict[str, Any] = {"collision_threshold": round(body.crash_threshold_value * 10)}
    if body.crash_level is not None:
        params["collision_level"] = body.crash_level
    return await _set(services, ctx, body, "crashThresholdValue", params)


class OverloadIn(CarsIn):
    overload_threshold_value: Annotated[
        int, Field(ge=0, le=600, description="overload threshold, 0-600 in steps of 10 kg (0-6 000 kg)")
    ]


@telemetry_res.CAR_SET.action(
    "POST",
    f"{F}/carSet/overloadThresholdValue",
    summary="Set the overload threshold (0-600 in 10 kg steps, vendor parameter 0xF005): "
    "{carIds, overloadThresholdValue, wait}",
    permission="car_set_threshold",
    body=OverloadIn,
    answer=list[CommandOut],
    tag="carSet",
)
async def overload_threshold(ctx: crud.Ctx, body: OverloadIn, services: Services) -> list[dict[str, Any]]:
    params = {"overload_threshold": body.overload_threshold_value}
    return await _set(services, ctx, body, "overloadThresholdValue", params)


Factor = Annotated[float, Field(ge=0.5, le=2.0, description="correction factor 0.5-2.0 (1.0 = none), 0.001 steps")]


class SpeedCalibrationIn(CarsIn):
    speed_calibration: Annotated[
        Factor, Field(validation_alias=AliasChoices("speedCalibration", "carSpeedCalibration", "speed_calibration"))
    ]


@telemetry_res.CAR_SET.action(
    "POST",
    f"{F}/carSet/speedCalibration",
    summary="Set the speed correction factor (0.5-2.0, vendor parameter 0xF006): "
    "{carIds, speedCalibration (or carSpeedCalibration), wait}",
    permission="car_set_calibrate",
    body=SpeedCalibrationIn,
    answer=list[CommandOut],
    tag="carSet",
)
async def speed_calibration(ctx: crud.Ctx, body: SpeedCalibrationIn, services: Services) -> list[dict[str, Any]]:
    params = {"speed_calibration": round(body.speed_calibration * 1000)}
    return await _set(services, ctx, body, "speedCalibration", params)


class WeightCalibrationIn(CarsIn):
    weight_calibration: Annotated[
        Factor, Field(validation_alias=AliasChoices("weightCalibration", "weighCalibration", "weight_calibration"))
    ]


@telemetry_res.CAR_SET.action(
    "POST",
    f"{F}/carSet/weightCalibration",
    summary="Set the load correction factor (0.5-2.0, vendor parameter 0xF007): "
    "{carIds, weightCalibration (or weighCalibration), wait}",
    permission="car_set_calibrate",
    body=WeightCalibrationIn,
    answer=list[CommandOut],
    tag="carSet",
)
async def weight_calibration(ctx: crud.Ctx, body: WeightCalibrationIn, services: Services) -> list[dict[str, Any]]:
    params = {"weight_calibration": round(body.weight_calibration * 1000)}
    return await _set(services, ctx, body, "weightCalibration", params)


Flag = Annotated[int | None, Field(ge=0, le=1, description="1 on, 0 off; absent: left as it is")]
#: funcset body field → the function switch (bit of vendor parameter 0xF008) it turns on or off.
FUNCSET_FIELDS = {
    "fence_setting": "fence",
    "authorization_status": "authorization",
    "spot_check_set": "spot_check",
    "slot_card_set": "card",
    "car_networking_set": "networking",
    "seat_belt_detection_function": "seat_belt_detection",
    "dms_function": "dms",
}


#: funcset: at least one switch is given (on or off).
SWITCHES_RULE: dict[str, Any] = {
    "anyOf": [
        {"required": [snake_to_camel(f)], "properties": {snake_to_camel(f): {"type": "integer"}}}
        for f in FUNCSET_FIELDS
    ]
}


class FuncSetIn(CarsIn):
    model_config = ConfigDict(json_schema_extra=documented(rules=(CARS_RULE, SWITCHES_RULE)))

    fence_setting: Flag = None
    authorization_status: Flag = None
    spot_check_set: Flag = None
    slot_card_set: Flag = None
    car_networking_set: Flag = None
    seat_belt_detection_function: Flag = None
    dms_function: Flag = None

    def switches(self) -> dict[str, bool]:
        out = {}
        for field, switch in FUNCSET_FIELDS.items():
            value = getattr(self, field)
            if value is not None:
                out[switch] = bool(value)
        return out


@telemetry_res.CAR_SET.action(
    "POST",
    f"{F}/carSet/funcset",
    summary="Turn function switches on (1) or off (0), leaving the others as they are: {carIds, fenceSetting?, "
    "authorizationStatus?, spotCheckSet?, slotCardSet?, carNetworkingSet?, seatBeltDetectionFunction?, "
    "dmsFunction?, wait}. The switches are one terminal parameter (0xF008): the named bits are set on the last "
    "value the terminal reported or was set to; when none is known, the terminal is asked first (within wait) "
    "and the call is refused if it has not answered",
    permission="car_set_func",
    body=FuncSetIn,
    answer=list[CommandOut],
    tag="carSet",
)
async def funcset(ctx: crud.Ctx, body: FuncSetIn, services: Services) -> list[dict[str, Any]]:
    switches = body.switches()
    if not switches:
        names = ", ".join(snake_to_camel(f) for f in FUNCSET_FIELDS)
        raise ServiceError(t("field_required", field=names))
    mask, _ = switch_bits(switches)
    cars = await _cars(ctx, body.ids())
    service, user = _service(services), ctx.principal.user_id
    if mask != SWITCHES_ALL:
        await _learn_switches(services, ctx, cars, body.wait)
    ids = []
    for car in cars:
        try:
            ids.append(await service.create_switches(car.tenant_id, car.id, car.device_number or "", switches, user))
        except UnknownParameter as exc:  # its value went unknown meanwhile (a queued set failed)
            raise ServiceError(t("param_unknown", field="functionSwitches", value=car.car_no)) from exc
        except ValueError as exc:
            raise ServiceError(t("command_invalid", reason=exc)) from exc
    return await _answer(services, ctx, ids, body.wait)


async def _learn_switches(services: Services, c: crud.Ctx, cars: list[Vehicle], wait_s: float) -> None:
    """Make sure the function switches of every vehicle are known before any of them is changed: ask the terminals
    whose value is unknown (0x8106) and wait for them; refuse (400) if some stay unknown - their query stays queued,
    so a retry after the terminal answered succeeds."""
    service = _service(services)

    async def unknown() -> list[Vehicle]:
        values = [await service.last_param_value(car.device_number or "", SWITCHES_PID) for car in cars]
        return [car for car, value in zip(cars, values, strict=True) if not isinstance(value, int)]

    missing = await unknown()
    if not missing:
        return
    queries = [
        await service.create(
            car.tenant_id,
            car.id,
            car.device_number or "",
            "queryFunctionSwitches",
            QUERY_PARAMS,
            {"ids": ["function_switches"]},
            c.principal.user_id,
        )
        for car in missing
    ]
    if wait_s > 0:
        await asyncio.gather(*(service.wait(q, min(wait_s, MAX_WAIT_S)) for q in queries))
    still = await unknown()
    if still:
        raise ServiceError(t("param_unknown", field="functionSwitches", value=", ".join(c.car_no for c in still)))
