"""Vehicle schemas (``carInfo``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from liftdesk.core.schemas import Id, Schema, Time, out_schema
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
    car_type: Annotated[int, Field(ge=0, le=8)] = 3
    car_status: Annotated[int, Field(ge=0, le=2)] = 0
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
