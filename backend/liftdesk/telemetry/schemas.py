"""Telemetry schemas: commands as users follow them."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AliasChoices, Field

from liftdesk.core.schemas import Id, Schema, Time


class CommandOut(Schema):
    """A command to a vehicle's terminal as users follow it (the command log, and the answer of every call that
    sends commands). ``payload``/``result`` are the command's JSON; ``createUserName`` is who sent it (empty for
    commands the platform sent by itself)."""

    id: Id
    # = id; the settings screens read commandId
    command_id: Annotated[Id | None, Field(validation_alias=AliasChoices("command_id", "commandId", "id"))] = None
    tenant_id: str | None = None
    # the command's vehicle_id (the fleet API calls vehicles cars)
    car_id: Annotated[Id | None, Field(validation_alias=AliasChoices("car_id", "carId", "vehicle_id"))] = None
    car_no: str | None = None
    device_number: str
    name: str
    msg_id: int
    payload: Any = None
    status: Annotated[str, Field(description="pending, sent, acknowledged, failed, timeout or cancelled")]
    attempts: int = 0
    serial: int | None = None
    result: Any = None
    error: str | None = None
    create_user: Id | None = None
    create_user_name: str | None = None
    create_time: Time | None = None
    sent_time: Time | None = None
    done_time: Time | None = None
    expire_time: Time | None = None
