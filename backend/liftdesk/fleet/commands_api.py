"""Commands to vehicles' terminals from the settings screens (``carSet``): parameter query and set, lock, speed limit.

Each call creates audited commands through the command service (pending → sent → acknowledged | failed | timeout,
queued while the terminal is offline) and waits a few seconds for the answer; a slower answer is read later from
``/api/liftdesk/command/detail``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import Field

from liftdesk.core import crud
from liftdesk.core.deps import CurrentUser, SessionDep
from liftdesk.core.envelope import R, ServiceError, ok
from liftdesk.core.i18n import t
from liftdesk.core.schemas import Id, Schema, Time
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import Vehicle

router = APIRouter(tags=["carSet"])
F = "/api/blade-fics-report/fics/carSet"
QUERY_ALL, SET_PARAMS = 0x8104, 0x8103
MAX_WAIT_S = 30.0


class CommandOut(Schema):
    command_id: Id
    car_id: Id | None = None
    device_number: str
    name: str
    status: str
    attempts: int = 0
    result: Any = None
    error: str | None = None
    create_time: Time | None = None
    done_time: Time | None = None


def _out(view: Any) -> CommandOut:
    return CommandOut(
        command_id=view.id,
        car_id=view.vehicle_id,
        device_number=view.device,
        name=view.name,
        status=view.status,
        attempts=view.attempts,
        result=view.result,
        error=view.error,
        create_time=view.create_time,
        done_time=view.done_time,
    )


async def _cars(c: crud.Ctx, ids: list[int]) -> list[Vehicle]:
    if not ids:
        raise ServiceError(t("ids_required"))
    rows = list((await c.session.execute(c.scope.select(Vehicle).where(Vehicle.id.in_(ids)))).scalars().all())
    if len(rows) != len(set(ids)):
        raise ServiceError(t("not_found"))
    for car in rows:
        if not car.device_number:
            raise ServiceError(t("no_terminal", value=car.car_no))
    return rows


async def _send(
    request: Request, c: crud.Ctx, cars: list[Vehicle], name: str, msg_id: int, payload: dict[str, Any], wait_s: float
) -> list[CommandOut]:
    commands = request.app.state.commands
    ids = []
    for car in cars:
        try:
            ids.append(
                await commands.create(
                    car.tenant_id, car.id, car.device_number or "", name, msg_id, payload, c.principal.user_id
                )
            )
        except ValueError as exc:
            raise ServiceError(str(exc)) from exc
    out = []
    for command_id in ids:
        view = await commands.wait(command_id, min(max(wait_s, 0.0), MAX_WAIT_S)) if wait_s > 0 else None
        out.append(_out(view or await commands.get(command_id)))
    return out


@router.get(
    f"{F}/sendGetDeviceConfig/{{id}}",
    summary="Ask a vehicle's terminal for all its parameters",
    response_model=R[CommandOut],
)
async def query_config(request: Request, session: SessionDep, me: CurrentUser, id: str, wait: float = 8.0) -> R[Any]:
    c = await crud.Ctx.build(session, me, res.VEHICLE)
    await c.require("edit")
    [car] = await _cars(c, [crud.parse_id(id, "id")])
    [answer] = await _send(request, c, [car], "queryParams", QUERY_ALL, {}, wait)
    return ok(answer)


class CarsIn(Schema):
    car_ids: list[Id] = Field(default_factory=list)
    car_id: Id | None = None
    wait: Annotated[float, Field(ge=0, le=MAX_WAIT_S)] = 5.0

    def ids(self) -> list[int]:
        return list(self.car_ids) + ([self.car_id] if self.car_id else [])


class ConfigIn(CarsIn):
    params: dict[str, Any]


class LockIn(CarsIn):
    lock_level: Annotated[int, Field(ge=0, le=2)]


class RateIn(CarsIn):
    speed_limit: Annotated[float, Field(ge=0, le=30)]


async def _settings(request: Request, session: Any, me: Any, body: CarsIn, name: str, params: dict[str, Any]) -> R[Any]:
    c = await crud.Ctx.build(session, me, res.VEHICLE)
    await c.require("edit")
    cars = await _cars(c, body.ids())
    return ok(await _send(request, c, cars, name, SET_PARAMS, {"params": params}, body.wait))


@router.post(
    f"{F}/sendDeviceConfig",
    summary="Set terminal parameters (names or ids → values)",
    response_model=R[list[CommandOut]],
)
async def send_config(request: Request, session: SessionDep, me: CurrentUser, body: ConfigIn) -> R[Any]:
    if not body.params:
        raise ServiceError(t("field_required", field="params"))
    return await _settings(request, session, me, body, "setParams", body.params)


@router.post(f"{F}/lockCar", summary="Lock (1 soft, 2 full) or unlock (0) vehicles", response_model=R[list[CommandOut]])
async def lock_car(request: Request, session: SessionDep, me: CurrentUser, body: LockIn) -> R[Any]:
    return await _settings(request, session, me, body, "lockCar", {"lock_level": body.lock_level})


@router.post(
    f"{F}/rateLimiting", summary="Set the speed limit (0–30 km/h) of vehicles", response_model=R[list[CommandOut]]
)
async def rate_limiting(request: Request, session: SessionDep, me: CurrentUser, body: RateIn) -> R[Any]:
    return await _settings(request, session, me, body, "rateLimiting", {"speed_limit": round(body.speed_limit)})
