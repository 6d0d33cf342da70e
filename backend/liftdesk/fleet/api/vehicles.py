"""The vehicle register's import and export, and the dictionaries of its fields (the register's own list, detail
and changes are generated from ``fleet.resources.VEHICLE``)."""

from __future__ import annotations

from pydantic import Field

from liftdesk.core import crud
from liftdesk.core.schemas import Schema
from liftdesk.core.transfer import Column, declare_exporter, declare_importer
from liftdesk.fleet import resources as res
from liftdesk.fleet.schemas import VehicleIn
from liftdesk.system.models import Dict

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
#: The import also takes the code the terminal had on the old platform (never exported: a credential).
_VEHICLE_IMPORT = (*_VEHICLE_COLUMNS, Column("terminal_auth_code", "原平台鉴权码", "Old platform auth code"))
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
    # the specification's name of the import's report (ours was importCarProgress): what the import did with the
    # vehicles of its file, by the jobId its answer gave
    "getCarByImport",
    _VEHICLE_IMPORT,
    key=("car_no",),
    filename="vehicles",
    summary="Register vehicles from an .xls / .xlsx file (multipart file, isCovered=1 updates vehicles of the same "
    "number); answers a report: created, updated, and the rows refused with their reasons",
)


# --------------------------------------------------------------------------- the dictionaries of the register


class DictItem(Schema):
    dict_key: str
    dict_value: str


class VehicleDicts(Schema):
    """The values of the register's coded fields, each by its field: what a vehicle form's selects and a list's
    labels show."""

    car_type: list[DictItem] = Field(description="vehicle types (dictionary car_type)")
    car_status: list[DictItem] = Field(description="vehicle statuses (dictionary car_status)")


def coded_fields() -> dict[str, str]:
    """The register's fields whose values are a dictionary's keys (their ``x-dict``), by field name."""
    out = {}
    for name, field in VehicleIn.model_fields.items():
        extra = field.json_schema_extra
        if isinstance(extra, dict) and isinstance(extra.get("x-dict"), str):
            out[name] = str(extra["x-dict"])
    return out


@res.VEHICLE.action(
    "GET",
    "getCarDictionariesList",
    summary="The dictionaries of the vehicle register's coded fields (carType, carStatus), each in its order",
    kind="read",
    answer=VehicleDicts,
)
async def car_dictionaries(ctx: crud.Ctx) -> VehicleDicts:
    fields = coded_fields()
    stmt = ctx.scope.select(Dict).where(Dict.code.in_(set(fields.values())), Dict.parent_id != 0)
    found: dict[str, list[DictItem]] = {code: [] for code in fields.values()}
    for d in (await ctx.session.scalars(stmt.order_by(Dict.code, Dict.sort, Dict.dict_key))).all():
        found[d.code].append(DictItem(dict_key=d.dict_key, dict_value=d.dict_value))
    return VehicleDicts.model_validate({name: found[code] for name, code in fields.items()})
