"""Fleet resources."""

from __future__ import annotations

from liftdesk.core.registry import REGISTRY, Resource
from liftdesk.fleet import models as m
from liftdesk.fleet import schemas as s
from liftdesk.fleet import service as svc

FICS = "/api/blade-fics-report/fics"

VEHICLE = REGISTRY.register(
    Resource(
        name="vehicle",
        model=m.Vehicle,
        prefix=f"{FICS}/carInfo",
        schema_in=s.VehicleIn,
        schema_out=s.VehicleOut,
        code="vehicle",
        label="car_no",
        ops={
            "insertCarInfo": "create",
            "updateCarInfoById": "update",
            "deleteCarInfoById": "remove",
            "getCarInfo": "detail",
            "page": "page",
        },
        id_param="carId",
        hooks=svc.VehicleHooks(),
        default_order=("-create_time",),
        tag="carInfo",
    )
)
