"""Vehicle and fence schemas (``carInfo``)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import AliasChoices, BeforeValidator, Field

from liftdesk.core.schemas import Id, Schema, Time, dictionary, out_schema
from liftdesk.fleet import models as m

S32 = Annotated[str | None, Field(default=None, max_length=32)]
S64 = Annotated[str | None, Field(default=None, max_length=64)]
DeviceNo = Annotated[str | None, Field(default=None, pattern=r"^[0-9]{1,20}$")]


class VehicleIn(Schema):
    id: Id | None = None
    car_no: Annotated[str, Field(min_length=1, max_length=64)]
    frame_number: S64 = None
    zjh: S64 = None
    device_number: DeviceNo = None
    sim_number: Annotated[str | None, Field(default=None, max_length=20)] = None
    video_device: S64 = None
    brand: S64 = None
    model_number: S64 = None
    factory_date: Time | None = None
    register_date: Time | None = None
    registrant: S64 = None
    license_plate: S32 = None
    engine_number: S64 = None
    engine_brand: S32 = None
    battery_number: S32 = None
    battery_brand: S32 = None
    battery_type: S32 = None
    emission_type: S32 = None
    environmental_code: S64 = None
    mechanism_id: Id | None = None
    car_type: Annotated[int, Field(ge=0, le=8), dictionary("car_type")] = 3
    car_status: Annotated[int, Field(ge=0, le=2), dictionary("car_status")] = 0
    warranty_expiry: Time | None = None
    rated_load_kg: Annotated[float | None, Field(default=None, ge=0, le=100_000)] = None
    speed_limit_kmh: Annotated[float | None, Field(default=None, ge=0, le=30)] = None
    collision_threshold_g: Annotated[float | None, Field(default=None, ge=0, le=20)] = None
    overload_threshold_kg: Annotated[float | None, Field(default=None, ge=0, le=100_000)] = None


VehicleOut = out_schema(
    "VehicleOut",
    VehicleIn,
    m.Vehicle,
    car_id=(Id | None, None),
    mechanism_name=(str | None, None),
    car_type_name=(str | None, None),
    car_status_name=(str | None, None),
    online=(bool, False),
    power_on=(bool, False),
    locked=(bool, False),
    mileage=(float | None, None),
    speed=(float | None, None),
    working_hours=(float | None, None),
    lat=(float | None, None),
    lon=(float | None, None),
    gps_time=(Time | None, None),
    state=(str | None, None),
)


def _points_in(value: Any) -> Any:
    """Polygon vertices arrive as ``[[lon, lat], ...]``; stored as that JSON text, which is read back here."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ValueError("expected [[lon, lat], ...]") from exc
    return value


Points = Annotated[list[list[float]] | None, BeforeValidator(_points_in)]


class FenceIn(Schema):
    """An electronic fence as submitted. Field ranges are checked again (for updates too) by ``FenceHooks``."""

    id: Id | None = None
    name: Annotated[str, Field(min_length=1, max_length=32)]
    fence_type: Annotated[int, Field(ge=1, le=2, description="1 circle, 2 polygon")]
    alarm_mode: Annotated[
        int,
        Field(ge=1, le=5, description="1 in-fence, 2 out-of-fence, 3 boundary, 4 speed limit, 5 speed + boundary"),
    ]
    enable_status: Annotated[int, Field(ge=0, le=1, description="1 enabled, 0 disabled")] = 1
    speed_limit: Annotated[float | None, Field(default=None, ge=0, le=30, description="km/h, modes 4 and 5")] = None
    center_lon: float | None = None
    center_lat: float | None = None
    radius: Annotated[float | None, Field(default=None, description="metres, 10–100000 (circle)")] = None
    points: Annotated[Points, Field(description="polygon vertices [[lon, lat], ...], 3–64, WGS-84")] = None
    mechanism_id: Id | None = None
    remark: Annotated[str | None, Field(default=None, max_length=255)] = None
    car_ids: list[Id] | None = None


FenceOut = out_schema(
    "FenceOut",
    FenceIn,
    m.Fence,
    car_ids=(list[Id], []),
    car_count=(int, 0),
    mechanism_name=(str | None, None),
    area_id=(int | None, None),
)


class FenceCarOut(Schema):
    """A vehicle in the fence's transfer/select widget."""

    car_id: Id
    car_no: str
    device_number: str | None = None
    mechanism_id: Id | None = None
    bound: bool = False


class FenceSettingOut(Schema):
    """A vehicle with the fences bound to it (``getCarFenceSettingList``)."""

    car_id: Id
    car_no: str
    device_number: str | None = None
    mechanism_id: Id | None = None
    fence_count: int = 0
    fence_names: list[str] = Field(default_factory=list)


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
