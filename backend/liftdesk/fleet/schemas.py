"""Vehicle and fence schemas (``carInfo``)."""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field

from liftdesk.core.schemas import Id, Schema, Time, dictionary, documented, out_schema
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
    terminal_auth_code: Annotated[
        str | None,
        Field(
            default=None,
            max_length=64,
            pattern=r"^[\x21-\x7e]*$",
            description="the terminal's authentication code on the old platform (a terminal that never registered "
            "here passes its first authentication with it only); written, never answered",
        ),
    ] = None


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
    # a credential: kept, never answered
    terminal_auth_code=(Annotated[str | None, Field(exclude=True)], None),
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


def _char_class(chars: list[str]) -> str:
    """A regular-expression character class of ``chars`` (in order), as ranges."""
    ranges: list[tuple[int, int]] = []
    for code in map(ord, chars):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return "[" + "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges) + "]"


@cache
def gbk_text_pattern() -> str:
    """Text a terminal takes (JT/T 808 encodes it in GBK) with a character that is not whitespace."""
    plane = "".join(chr(c) for c in range(1, 0x10000) if not 0xD800 <= c <= 0xDFFF)  # GBK has nothing beyond
    gbk = [c for c in plane if c.encode("gbk", "ignore")]
    text, visible = _char_class(gbk), _char_class([c for c in gbk if not c.isspace()])
    return f"^{text}*{visible}{text}*$"


def _gbk_name(schema: dict[str, Any]) -> None:
    schema["pattern"] = gbk_text_pattern()  # computed when the document is made, not at import


def _vertex(lon: dict[str, Any], lat: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "minItems": 2, "maxItems": 2, "prefixItems": [lon, lat]}


def _number(low: float, high: float) -> dict[str, Any]:
    return {"type": "number", "minimum": low, "maximum": high}


#: What ``service.check_fence`` asks of a new fence beyond its fields: a circle's centre and radius; a polygon's 3 to
#: 64 distinct vertices [lon, lat], all on one side of the equator and of the prime meridian (how JT/T 808 encodes an
#: area), whose edges do not cross (which no schema says); a speed limit for the speed alarms.
FENCE_RULES: tuple[dict[str, Any], ...] = (
    {
        "oneOf": [
            {
                "required": ["fenceType", "centerLon", "centerLat", "radius"],
                "properties": {
                    "fenceType": {"const": 1},
                    "centerLon": _number(-180, 180),
                    "centerLat": _number(-90, 90),
                    "radius": _number(10, 100_000),
                },
            },
            {
                "required": ["fenceType", "points"],
                "properties": {
                    "fenceType": {"const": 2},
                    "points": {
                        "type": "array",
                        "minItems": 3,
                        "maxItems": 64,
                        "uniqueItems": True,
                        "items": _vertex(_number(-180, 180), _number(-90, 90)),
                        "anyOf": [
                            {"items": _vertex({"minimum": 0}, {"minimum": 0})},
                            {"items": _vertex({"minimum": 0}, {"maximum": 0})},
                            {"items": _vertex({"maximum": 0}, {"minimum": 0})},
                            {"items": _vertex({"maximum": 0}, {"maximum": 0})},
                        ],
                    },
                },
            },
        ]
    },
    {
        "anyOf": [
            {"properties": {"alarmMode": {"enum": [1, 2, 3]}}},
            {"required": ["speedLimit"], "properties": {"alarmMode": {"enum": [4, 5]}, "speedLimit": _number(0, 30)}},
        ]
    },
)


class FenceIn(Schema):
    """An electronic fence as submitted. Field ranges are checked again (for updates too) by ``FenceHooks``."""

    model_config = ConfigDict(json_schema_extra=documented(rules=FENCE_RULES))

    id: Id | None = None
    # its terminals get it as the area's name: in GBK
    name: Annotated[str, Field(min_length=1, max_length=32, json_schema_extra=_gbk_name)]
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


class CarQuery(Schema):
    """One vehicle by its id (``carId``)."""

    car_id: Id


# --------------------------------------------------------------------------- driver papers and reminders (issue 14)

#: The most pictures one paper keeps (spec 001 §5, §9).
MAX_PAPER_PICTURES = 6
S255 = Annotated[str | None, Field(default=None, max_length=255)]


class PaperPictureIn(Schema):
    """A picture of a paper: an uploaded attachment (``POST /api/blade-fics/file/upload``: jpg or png, at most
    5 MB) and its side."""

    attach_id: Id
    side: Annotated[int, Field(ge=1, le=3, description="1 front, 2 back, 3 other")] = 3


class PaperPictureOut(PaperPictureIn):
    link: str | None = None
    original_name: str | None = None


class DriverPaperIn(Schema):
    """A certificate as saved or updated. Its states change only through submitTrial, audit and loan."""

    id: Id | None = None
    driver_id: Annotated[Id, Field(description="the holder: a driver of the caller's tenant and scope")]
    paper_number: Annotated[str, Field(min_length=1, max_length=32)]
    paper_type: Annotated[
        int,
        Field(
            ge=1,
            le=5,
            description="1 special equipment operator (N1), 2 driving licence, 3 vehicle licence in the works, "
            "4 health certificate, 5 other",
        ),
    ] = 1
    first_receive_date: Time | None = None
    valid_until: Time | None = None
    issuing_authority: S64 = None
    review_date: Time | None = None
    next_review_date: Time | None = None
    remark: S255 = None
    pictures: Annotated[
        list[PaperPictureIn] | None,
        Field(default=None, max_length=MAX_PAPER_PICTURES, description="at most 6; none sent: kept as they are"),
    ] = None


DriverPaperOut = out_schema(
    "DriverPaperOut",
    DriverPaperIn,
    m.DriverPaper,
    driver_name=(str | None, None),
    mechanism_id=(Id | None, None),
    mechanism_name=(str | None, None),
    pictures=(list[PaperPictureOut], []),
    audit_status=(int, 0),
    audit_note=(str | None, None),
    submit_time=(Time | None, None),
    first_audit_time=(Time | None, None),
    second_audit_time=(Time | None, None),
    loan_status=(int, 0),
    loan_org=(str | None, None),
    loan_purpose=(str | None, None),
    loan_time=(Time | None, None),
    loan_return_date=(Time | None, None),
    loan_cert_number=(str | None, None),
    loan_note=(str | None, None),
    archive_status=(int, 0),
    archive_place=(str | None, None),
    archive_note=(str | None, None),
    archive_time=(Time | None, None),
    days_left=(int | None, None),
)


class PaperLogOut(Schema):
    """One change of a paper: a loan or return (``loanRecord``), or any change (``paperView``'s history)."""

    id: Id
    paper_id: Id
    event: str
    from_state: int | None = None
    to_state: int | None = None
    note: str | None = None
    loan_org: str | None = None
    loan_purpose: str | None = None
    loan_return_date: Time | None = None
    loan_cert_number: str | None = None
    user_id: Id | None = None
    user_name: str | None = None
    create_time: Time | None = None


class DriverReminderIn(Schema):
    """A reminder's own fields (the list's fields for the web app): written by the daily job only
    (``fleet.reminders``), never submitted (the resource has no write operation)."""

    source: Annotated[int, Field(ge=1, le=2, description="1 the driver's licence, 2 a paper")] = 1
    source_id: Id
    driver_id: Id
    paper_id: Id | None = None
    mechanism_id: Id | None = None
    expire_date: Time
    threshold: Annotated[int, Field(description="30, 7 or 0 days before the expiry day")] = 30
    remind_type: Annotated[int, Field(ge=1, le=2, description="1 expiring soon, 2 expired")] = 1
    remind_state: Annotated[int, Field(ge=0, le=2, description="0 open, 1 ignored, 2 done")] = 0
    ignore_time: Time | None = None


DriverReminderOut = out_schema(
    "DriverReminderOut",
    DriverReminderIn,
    m.DriverReminder,
    driver_name=(str | None, None),
    paper_number=(str | None, None),
    paper_type=(int | None, None),
    license_number=(str | None, None),
    mechanism_name=(str | None, None),
    days_left=(int, 0),
)
