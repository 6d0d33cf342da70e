"""Commands to vehicles' terminals: the settings screens (``carSet``, ``parameterQuery``, ``operation``), one generic
call for the other command types, and the command log (``/api/liftdesk/command/list``, ``detail``, ``cancel``).

Each sending call validates the command once (``telemetry.commands.validate``: a bad value is a 400 naming the
field before anything is stored), creates one audited command per vehicle through the command service (pending →
sent → acknowledged | failed | timeout, queued while the terminal is offline, cancellable while pending), waits up
to ``wait`` seconds (default 5, at most 30) for the answers and returns the commands as they stand; a slower answer
is read later from ``/api/liftdesk/command/detail?id=``. Vehicles are ``carIds`` (a list) and/or ``carId``; all of
them must be the caller's (tenant and data scope) and have a terminal. Sending needs the ``vehicle_edit`` right.

Every call is an action of its resource (``core.actions``): the vehicle's for the sending calls and the terminal
release (``edit``), the command log's for a command's detail (``view``) and cancelling (``edit``).

Settings the platform keeps on the vehicle (speed limit, collision threshold, overload threshold) are written to
the vehicle when the terminal acknowledges them (``telemetry.commands``), not when they are sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import ConfigDict, Field

from liftdesk.core import crud
from liftdesk.core.batch import declare_batch
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.schemas import NOT_BLANK, SPACE_CHARS, Id, Schema, documented
from liftdesk.core.services import Services
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.schemas import CarQuery
from liftdesk.telemetry import command_log
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.commands import (
    COMMAND_NAMES,
    PENDING,
    CommandService,
    url_upgrade_payload,
    validate,
)
from liftdesk.telemetry.schemas import CommandOut
from liftdesk.telemetry.terminals import TerminalService

F = "/api/blade-fics-report/fics"
CMD = "/api/liftdesk/command"
QUERY_ALL, SET_PARAMS, QUERY_PARAMS, QUERY_ATTRIBUTES = 0x8104, 0x8103, 0x8106, 0x8107
TERMINAL_CONTROL, UPGRADE_PACKAGE = 0x8105, 0x8108
MAX_WAIT_S = 30.0
#: Command types ``/api/liftdesk/command/send`` accepts: the ones no settings call sends. Parameter sets go through
#: ``sendDeviceConfig`` and the named settings; circles and polygons are the electronic fences' (their area ids
#: belong to the fences).
GENERIC_COMMANDS = (
    "terminal_control",
    "vehicle_control",
    "text",
    "query_location",
    "confirm_alarm",
    "set_rectangle_areas",
    "delete_rectangle_areas",
    "query_params",
    "query_attributes",
)

Wait = Annotated[float, Field(ge=0, le=MAX_WAIT_S, description="seconds to wait for the answers (0-30)")]
#: The vehicles of a call: ``carIds`` (a list) and/or ``carId``, at least one (``_cars`` refuses none; a carId of 0
#: names none).
CARS_RULE: dict[str, Any] = {
    "anyOf": [
        {"required": ["carIds"], "properties": {"carIds": {"minItems": 1}}},
        {"required": ["carId"], "properties": {"carId": {"type": "string", "not": {"pattern": "^0+$"}}}},
    ]
}
#: Text the terminal reads as one of the ``;``-separated parameters of an upgrade from a URL.
UPGRADE_PARAM = r"^[^;]*$"


def _nothing_or(value: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [{"type": "null"}, {"type": "string", "maxLength": 0}], **value}


#: ``versionUpdate``: exactly one of url and package (an empty one counts as none).
URL_OR_PACKAGE: dict[str, Any] = {
    "oneOf": [
        {
            "required": ["url"],
            "properties": {"url": {"type": "string", "minLength": 1}, "package": _nothing_or({})},
        },
        {
            "required": ["package"],
            "properties": {"package": {"type": "string", "pattern": NOT_BLANK}, "url": _nothing_or({})},
        },
    ]
}


class CarsIn(Schema):
    model_config = ConfigDict(json_schema_extra=documented(rules=(CARS_RULE,)))

    car_ids: list[Id] = Field(default_factory=list)
    car_id: Id | None = None
    wait: Wait = 5.0

    def ids(self) -> list[int]:
        return list(self.car_ids) + ([self.car_id] if self.car_id else [])


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


def _service(services: Services) -> CommandService:
    return services.get(CommandService)


def _checked(msg_id: int, payload: dict[str, Any]) -> None:
    """Validate once, before any command is stored: every vehicle gets the same payload, so a bad value must not
    leave some vehicles commanded and others not."""
    try:
        validate(msg_id, payload)
    except ValueError as exc:
        raise ServiceError(t("command_invalid", reason=exc)) from exc


async def _answer(services: Services, c: crud.Ctx, ids: list[int], wait_s: float) -> list[dict[str, Any]]:
    """Wait (at most ``wait_s`` in all, not per command) for the answers, then read the commands back."""
    service = _service(services)
    wait_s = min(max(wait_s, 0.0), MAX_WAIT_S)
    if wait_s > 0:
        await asyncio.gather(*(service.wait(command_id, wait_s) for command_id in ids))
    return await command_log.read(c, ids)


async def _send(
    services: Services, c: crud.Ctx, cars: list[Vehicle], name: str, msg_id: int, payload: dict[str, Any], wait_s: float
) -> list[dict[str, Any]]:
    _checked(msg_id, payload)
    service = _service(services)
    ids = []
    for car in cars:
        try:
            ids.append(
                await service.create(
                    car.tenant_id, car.id, car.device_number or "", name, msg_id, payload, c.principal.user_id
                )
            )
        except ValueError as exc:  # validated above; kept so that a rule of the service is still a 400
            raise ServiceError(t("command_invalid", reason=exc)) from exc
    return await _answer(services, c, ids, wait_s)


async def _set(
    services: Services, c: crud.Ctx, body: CarsIn, name: str, params: dict[str, Any]
) -> list[dict[str, Any]]:
    cars = await _cars(c, body.ids())
    return await _send(services, c, cars, name, SET_PARAMS, {"params": params}, body.wait)


# --------------------------------------------------------------------------- parameterQuery, operation


async def _attributes(services: Services, c: crud.Ctx, body: CarsIn, name: str) -> list[dict[str, Any]]:
    cars = await _cars(c, body.ids())
    return await _send(services, c, cars, name, QUERY_ATTRIBUTES, {}, body.wait)


_ATTRIBUTES_SUMMARY = (
    "Ask terminals what they are (0x8107 query attributes: model, ICCID, hardware and firmware versions; the "
    "answer also updates the terminal's record): {carIds, wait}"
)


@telemetry_res.PARAMETER_QUERY.action(
    "POST",
    f"{F}/parameterQuery/hardwareVersionNumberQuery",
    summary=_ATTRIBUTES_SUMMARY,
    permission="parameter_query_send",
    body=CarsIn,
    answer=list[CommandOut],
    tag="parameterQuery",
)
async def hardware_version_query(ctx: crud.Ctx, body: CarsIn, services: Services) -> list[dict[str, Any]]:
    return await _attributes(services, ctx, body, "hardwareVersionNumberQuery")


@telemetry_res.PARAMETER_QUERY.action(
    "POST",
    f"{F}/parameterQuery/softwareVersionNumberQuery",
    summary=_ATTRIBUTES_SUMMARY,
    permission="parameter_query_send",
    body=CarsIn,
    answer=list[CommandOut],
    tag="parameterQuery",
)
async def software_version_query(ctx: crud.Ctx, body: CarsIn, services: Services) -> list[dict[str, Any]]:
    return await _attributes(services, ctx, body, "softwareVersionNumberQuery")


@telemetry_res.PARAMETER_QUERY.action(
    "POST",
    f"{F}/parameterQuery/versionNumberQuery",
    summary=_ATTRIBUTES_SUMMARY,
    permission="parameter_query_send",
    body=CarsIn,
    answer=list[CommandOut],
    tag="parameterQuery",
)
async def version_query(ctx: crud.Ctx, body: CarsIn, services: Services) -> list[dict[str, Any]]:
    return await _attributes(services, ctx, body, "versionNumberQuery")


class VersionUpdateIn(CarsIn):
    model_config = ConfigDict(json_schema_extra=documented(rules=(CARS_RULE, URL_OR_PACKAGE)))

    url: Annotated[
        str | None,
        Field(
            max_length=255,
            description="http(s)/ftp URL of the firmware file",
            json_schema_extra={"pattern": r"^(?:https?|ftp)://[A-Za-z0-9.-]+(?::[0-9]{1,4})?(?:/[!-:<-~]*)?$"},
        ),
    ] = None
    package: Annotated[str | None, Field(description="or the upgrade file itself, base64 (0x8108)")] = None
    version: Annotated[
        str,
        Field(
            min_length=1,
            max_length=64,
            description="firmware version it installs",
            json_schema_extra={"pattern": f"^[^;]*[^;{SPACE_CHARS}][^;]*$"},
        ),
    ]
    maker: Annotated[
        str,
        Field(
            max_length=5, description="maker id (5 characters, JT/T 808)", json_schema_extra={"pattern": UPGRADE_PARAM}
        ),
    ] = ""
    hardware_version: Annotated[
        str,
        Field(
            max_length=64, description="hardware version it is for (URL)", json_schema_extra={"pattern": UPGRADE_PARAM}
        ),
    ] = ""
    upgrade_type: Annotated[
        int, Field(ge=0, le=255, description="package: 0 terminal, 12 IC card reader, 52 GNSS module")
    ] = 0
    connect_timeout_min: Annotated[
        int | None, Field(ge=0, le=0xFFFF, description="URL: minutes the terminal may take to reach the server")
    ] = None


@telemetry_res.TERMINAL_VERSION.action(
    "POST",
    f"{F}/operation/versionUpdate",
    summary="Upgrade terminals' firmware: {carIds, url, version, maker?, hardwareVersion?, connectTimeoutMin?, "
    "wait} tells them to fetch it (0x8105 command 1, the platform stores no file), or {carIds, package (base64), "
    "version, maker, upgradeType?} sends the file (0x8108); exactly one of url and package",
    permission="terminal_version_update",
    body=VersionUpdateIn,
    answer=list[CommandOut],
    tag="operation",
)
async def version_update(ctx: crud.Ctx, body: VersionUpdateIn, services: Services) -> list[dict[str, Any]]:
    if bool(body.url) == bool(body.package):
        raise ServiceError(t("one_of", field="url, package"))
    cars = await _cars(ctx, body.ids())
    if body.url:
        payload = url_upgrade_payload(
            body.url,
            maker=body.maker,
            hardware_version=body.hardware_version,
            firmware_version=body.version,
            connect_timeout_min=body.connect_timeout_min,
        )
        return await _send(services, ctx, cars, "versionUpdate", TERMINAL_CONTROL, payload, body.wait)
    payload = {"type": body.upgrade_type, "maker": body.maker, "version": body.version, "package": body.package}
    return await _send(services, ctx, cars, "versionUpdate", UPGRADE_PACKAGE, payload, body.wait)


# --------------------------------------------------------------------------- /api/liftdesk/command


def _generic_names() -> list[str]:
    return [name for name in GENERIC_COMMANDS if name in COMMAND_NAMES]


class SendIn(CarsIn):
    name: Annotated[
        str,
        Field(
            min_length=1,
            max_length=64,
            description="the command type, see the summary",
            json_schema_extra={"enum": _generic_names()},
        ),
    ]
    payload: dict[str, Any] = Field(default_factory=dict)


@telemetry_res.COMMAND.action(
    "POST",
    f"{CMD}/send",
    summary="Send any other command: {carIds, name, payload, wait}. name: terminal_control {command: reset | "
    "factory_reset | close_data_link | ..., params?}, vehicle_control {lockLevel | doors | controls}, text {text, "
    "display?, tts?, urgent?, type?}, query_location {}, confirm_alarm (when supported), set_rectangle_areas {mode, "
    "areas: [{id, topLeft, bottomRight, ...}]}, delete_rectangle_areas {ids}, query_params {ids}, "
    "query_attributes {}",
    permission="command_log_send",
    body=SendIn,
    answer=list[CommandOut],
    tag="command",
)
async def send(ctx: crud.Ctx, body: SendIn, services: Services) -> list[dict[str, Any]]:
    names = _generic_names()
    if body.name not in names:
        raise ServiceError(t("validation", field="name", reason=" | ".join(names)))
    cars = await _cars(ctx, body.ids())
    return await _send(services, ctx, cars, body.name, COMMAND_NAMES[body.name], body.payload, body.wait)


class CommandIdQuery(Schema):
    id: Id


@telemetry_res.COMMAND.action(
    "GET",
    f"{CMD}/detail",
    summary="One command by id: status, attempts, who sent it, the answer or the error",
    kind="detail",
    query=CommandIdQuery,
    answer=CommandOut,
)
async def detail(ctx: crud.Ctx, query: CommandIdQuery) -> dict[str, Any]:
    return await command_log.detail(ctx, query.id)


async def _cancel(ctx: crud.Ctx, rows: Sequence[Any], services: Services) -> list[dict[str, Any]]:
    ids = [row.id for row in rows]
    if not await _service(services).cancel(ctx.scope.tenant_id, ids, ctx.principal.user_id):
        # one of them left "pending" meanwhile (sent to a terminal that just came back): none is cancelled
        raise ServiceError(t("command_not_pending", value=", ".join(str(i) for i in ids)))
    # The service cancelled them in its own transaction: end ours and forget the rows we had, to read them afresh.
    await ctx.session.commit()
    ctx.session.expire_all()
    return await command_log.read(ctx, ids)


declare_batch(
    telemetry_res.COMMAND,
    "POST",
    f"{CMD}/cancel",
    name="cancel",
    summary="Cancel pending (queued) commands by ids=1,2: every selected command must be pending; all or none",
    permission="command_log_cancel",
    rule=lambda command: command.status == PENDING,
    refusal="command_not_pending",
    name_of=lambda command: str(command.id),
    apply=_cancel,
    answer=list[CommandOut],
)


@telemetry_res.TERMINAL.action(
    "POST",
    "/api/liftdesk/terminal/release",
    summary="Let the next registration of a vehicle's terminal come from another unit (a replaced terminal); until "
    "then a registration from a terminal id other than the bound one is refused and raises a terminal_hijack alarm",
    permission="terminal_release",
    query=CarQuery,
    answer=bool,
    tag="command",
)
async def release_terminal(ctx: crud.Ctx, query: CarQuery, services: Services) -> bool:
    (car,) = await _cars(ctx, [query.car_id])
    terminals = services.get(TerminalService)
    return await terminals.release(car.device_number or "")
