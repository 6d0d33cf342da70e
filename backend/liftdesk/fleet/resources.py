"""Fleet resources."""

from __future__ import annotations

from liftdesk.core.resource import Resource
from liftdesk.fleet import driver_schemas as ds
from liftdesk.fleet import drivers, papers, reminders
from liftdesk.fleet import models as m
from liftdesk.fleet import schemas as s
from liftdesk.fleet import service as svc

FICS = "/api/blade-fics-report/fics"

VEHICLE = Resource(
    name="vehicle",
    model=m.Vehicle,
    prefix=f"{FICS}/carInfo",
    schema_in=s.VehicleIn,
    schema_out=s.VehicleOut,
    code="vehicle",
    # the live map, the fence editor (binding vehicles) and the command log show vehicles too
    view_menus=("vehicle", "car_monitor", "fence", "command_log"),
    label="car_no",
    # a vehicle's number names it in the tenant (lists, imports that match on it, exports)
    unique=(("car_no",),),
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

#: Who may drive which vehicle, seen from the vehicle (``fleet/api/driver_auth.py``): a subject of its own over the
#: vehicles (their data rule), read on the vehicle register and the driver pages, changed with the drivers' ``auth``
#: button. (Seen from the driver, the same links are the driver's calls.)
VEHICLE_DRIVER = Resource(
    name="vehicle_driver",
    prefix=f"{FICS}/carSet",
    code="vehicle_driver",
    scope_via=m.Vehicle,
    ops={},
    view_menus=("vehicle", "driver"),
    tag="carSet",
)

FENCE = Resource(
    name="fence",
    model=m.Fence,
    prefix=f"{FICS}/carInfo",
    schema_in=s.FenceIn,
    schema_out=s.FenceOut,
    code="fence",
    ops={
        "v2/getElectronicFence": "page",
        "v2/addCarElectronicsSet": "create",
        "v2/updateCarElectronicsSet": "update",
        "v2/deleteElectronicsByIds": "remove",
        "V2/getCarElectronicsInfo": "detail",
    },
    post_ops=frozenset({"v2/getElectronicFence"}),
    hooks=svc.FenceHooks(),
    default_order=("-create_time",),
    tag="fence",
)


# --- driver papers and expiry reminders (issue 14; rules in fleet/papers.py and fleet/reminders.py) ---------------
B_FICS = "/api/blade-fics/fics"

DRIVER_PAPER = Resource(
    name="driver_paper",
    model=m.DriverPaper,
    prefix=f"{B_FICS}/driverInfoPaper",
    schema_in=s.DriverPaperIn,
    schema_out=s.DriverPaperOut,
    code="driver_paper",
    label="paper_number",
    ops={"save": "create", "update": "update", "view": "detail", "page": "page", "remove": "remove"},
    hooks=papers.PaperHooks(),
    default_order=("-create_time",),
    tag="driverInfoPaper",
)

DRIVER_REMINDER = Resource(
    name="driver_reminder",
    model=m.DriverReminder,
    prefix=f"{B_FICS}/driverExpirationReminder",
    schema_in=s.DriverReminderIn,
    schema_out=s.DriverReminderOut,
    code="driver_reminder",
    label="id",
    # ``detail`` is ours (the spec lists the page only): the list's view opens one reminder
    ops={"page": "page", "detail": "detail"},
    post_ops=frozenset({"page"}),
    hooks=reminders.ReminderHooks(),
    default_order=("remind_state", "expire_date"),
    tag="driverExpirationReminder",
)

# --- drivers (issue 14): one resource for both generations of the spec's driver screens (``personnel`` and
# ``driver``), their applications; cards are written through their driver (``fleet.drivers``).

DRIVER = Resource(
    name="driver",
    model=m.Driver,
    prefix=FICS,
    schema_in=ds.DriverIn,
    schema_out=ds.DriverOut,
    code="driver",
    label="name",
    # a mobile number names one live driver of the tenant (imports match on it)
    unique=(("phone",),),
    ops={
        "personnel/queryPersonnelList": "page",
        "driver/queryDriverList": "page",
        "personnel/detail": "detail",
        "personnel/addDriverInfo": "create",
        "personnel/updateDriverInfo": "update",
        "driver/updateDriverInfo": "update",
        "personnel/deleteDriverInfo": "remove",
    },
    hooks=drivers.DriverHooks(),
    default_order=("-create_time",),
    tag="driver",
)

DRIVER_APPLY = Resource(
    name="driver_apply",
    model=m.DriverApply,
    prefix=f"{FICS}/driverApply",
    schema_in=ds.ApplyIn,
    schema_out=ds.ApplyOut,
    code="driver_apply",
    label="name",
    ops={"page": "page", "detail": "detail", "submit": "submit", "remove": "remove"},
    hooks=drivers.ApplyHooks(),
    default_order=("apply_status", "-create_time"),
    tag="driverApply",
)

RESOURCES = (VEHICLE, VEHICLE_DRIVER, FENCE, DRIVER_PAPER, DRIVER_REMINDER, DRIVER, DRIVER_APPLY)
