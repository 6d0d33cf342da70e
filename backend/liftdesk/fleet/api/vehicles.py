"""The vehicle register's import and export (the register's own list, detail and changes are generated from
``fleet.resources.VEHICLE``)."""

from __future__ import annotations

from liftdesk.core.transfer import Column, declare_exporter, declare_importer
from liftdesk.fleet import resources as res

# --------------------------------------------------------------------------- import and export of the register

_VEHICLE_COLUMNS = (
    Column("car_no", "车辆编号", "Vehicle number"),
    Column("device_number", "终端设备号", "Device number"),
    Column("sim_number", "SIM卡号", "SIM number"),
    Column("car_type", "车辆类型", "Vehicle type"),
    Column("car_status", "车辆状态", "Vehicle status"),
    Column("mechanism_id", "所属机构ID", "Organisation id"),
    Column("frame_number", "车架号", "Frame number"),
    Column("brand", "品牌", "Brand"),
    Column("model_number", "型号", "Model"),
    Column("license_plate", "车牌号", "Licence plate"),
    Column("rated_load_kg", "额定载重(kg)", "Rated load (kg)"),
    Column("speed_limit_kmh", "限速(km/h)", "Speed limit (km/h)"),
)
#: The export adds the names a reader wants next to the keys the import takes back.
_VEHICLE_EXPORT = (
    *_VEHICLE_COLUMNS,
    Column("car_type_name", "车辆类型名称", "Vehicle type name"),
    Column("mechanism_name", "所属机构", "Organisation"),
    Column("online", "在线", "Online"),
    Column("gps_time", "定位时间", "Position time"),
)

declare_exporter(
    res.VEHICLE,
    "exportCar",
    _VEHICLE_EXPORT,
    "vehicles",
    "The vehicle register as .xlsx, with the list's filters (as page takes them)",
)
declare_importer(
    res.VEHICLE,
    "importCar",
    "exportCarTemplate",
    "importCarProgress",
    _VEHICLE_COLUMNS,
    key=("car_no",),
    filename="vehicles",
    summary="Register vehicles from an .xls / .xlsx file (multipart file, isCovered=1 updates vehicles of the same "
    "number); answers a report: created, updated, and the rows refused with their reasons",
)
