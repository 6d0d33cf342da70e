"""Driver schemas (``personnel`` / ``driver``): the person, the licence, IC cards, the app account, applications.

Card passwords and the app password are written, never read back: answers carry the mask (cards) or whether one is
set (the app account). The rules the specification words itself (phone, card fields by kind) are checked by
``fleet.drivers`` with its messages; the limits a schema can say are said here.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from liftdesk.core.batch import IdsBody
from liftdesk.core.schemas import Id, Schema, Time, out_schema
from liftdesk.fleet import models as m
from liftdesk.system.schemas import MOBILE_PATTERN

S32 = Annotated[str | None, Field(default=None, max_length=32)]
#: What a card password or app password is read back as.
MASK = "******"
SERIAL_PATTERN = r"^[0-9]{10}$"
#: A card password: 4 to 16 digits, or the mask it is read back as (sent back unchanged: kept).
CARD_PASSWORD_PATTERN = r"^(?:[0-9]{4,16}|\*{6})$"
MAX_SUB_CARDS = 10


class CardIn(Schema):
    """An IC card: main (1) or sub (2). Main: number, serial and password; sub: number, serial and level."""

    id: Id | None = None
    card_kind: Annotated[int, Field(ge=1, le=2, description="1 main card, 2 sub card")] = 1
    card_level: Annotated[int | None, Field(default=None, ge=1, le=3, description="getIcLevelEnumList")] = None
    card_number: Annotated[str, Field(min_length=1, max_length=32)]
    serial_number: Annotated[str, Field(pattern=SERIAL_PATTERN, description="exactly 10 digits")]
    verify_mode: Annotated[int | None, Field(default=None, ge=1, le=4, description="getVerifyTypeList")] = None
    password: Annotated[
        str | None,
        Field(default=None, pattern=CARD_PASSWORD_PATTERN, description="numeric, at least 4 digits (never read back)"),
    ] = None


class CardOut(Schema):
    id: Id
    driver_id: Id | None = None
    driver_name: str | None = None
    card_kind: int
    card_level: int | None = None
    card_number: str
    serial_number: str
    verify_mode: int | None = None
    #: the mask when a password is set, else empty
    password: str = ""
    create_time: Time | None = None


class DriverBase(Schema):
    """The person and the licence (what a driver's list and detail show, and what is saved of them)."""

    name: Annotated[str, Field(min_length=1, max_length=32)]
    sex: Annotated[int, Field(ge=0, le=2, description="0 unknown, 1 male, 2 female")] = 0
    phone: Annotated[
        str,
        Field(max_length=20, description="an 11-digit mobile number", json_schema_extra={"pattern": MOBILE_PATTERN}),
    ]
    job_number: S32 = None
    position: S32 = None
    age: Annotated[int | None, Field(default=None, ge=14, le=100)] = None
    home_address: Annotated[str | None, Field(default=None, max_length=128)] = None
    hometown: Annotated[str | None, Field(default=None, max_length=64)] = None
    emergency_phone: Annotated[str | None, Field(default=None, pattern=r"^[0-9+\-]{3,20}$")] = None
    work_type: Annotated[int | None, Field(default=None, ge=1, le=8, description="getJobTypeList")] = None
    entry_date: Time | None = None
    medical_date: Time | None = None
    mechanism_id: Id | None = None
    license_number: S32 = None
    license_type: S32 = None
    license_issue_date: Time | None = None
    license_valid_until: Time | None = None
    app_account: Annotated[str | None, Field(default=None, min_length=4, max_length=32)] = None
    remark: Annotated[str | None, Field(default=None, max_length=255)] = None


class DriverIn(DriverBase):
    """A driver as /add/pilot saves it: the person, the licence, the cards and the app account at once (all or
    nothing). ``mainCard`` / ``subCards`` given replace the driver's cards (a card sent back with its id keeps its
    password when the mask is sent); left out, the cards stay as they are."""

    id: Id | None = None
    main_card: CardIn | None = None
    sub_cards: Annotated[list[CardIn] | None, Field(default=None, max_length=MAX_SUB_CARDS)] = None
    app_password: Annotated[
        str | None, Field(default=None, min_length=6, max_length=32, description="written, never read back")
    ] = None


DriverOut = out_schema(
    "DriverOut",
    DriverBase,
    m.Driver,
    mechanism_name=(str | None, None),
    work_type_name=(str | None, None),
    face_photo=(str | None, None),
    face_issued=(int, 0),
    blacklisted=(int, 0),
    blacklist_reason=(str | None, None),
    has_app_password=(bool, False),
    #: "valid", "expired" or "" (no validity given)
    license_state=(str, ""),
    main_card=(CardOut | None, None),
    sub_cards=(list[CardOut], []),
    car_count=(int, 0),
)


class DriverIdBody(Schema):
    driver_id: Id


class CardAdd(CardIn):
    """A card added on its own (``addIdicCard``): to a driver, or unbound (kept for binding later)."""

    driver_id: Id | None = None


class CardsOfDriver(Schema):
    driver_id: Id


class CardIds(Schema):
    ids: Annotated[list[Id], Field(min_length=1, max_length=100, description="the cards")]


class CardBind(Schema):
    driver_id: Id
    card_id: Id


class LicenseIn(Schema):
    driver_id: Id
    license_number: S32 = None
    license_type: S32 = None
    license_issue_date: Time | None = None
    license_valid_until: Time | None = None


class LicenseOut(Schema):
    driver_id: Id
    name: str
    license_number: str | None = None
    license_type: str | None = None
    license_issue_date: Time | None = None
    license_valid_until: Time | None = None
    license_state: str = ""


class AccountIn(Schema):
    driver_id: Id
    app_account: Annotated[str, Field(min_length=4, max_length=32)]
    app_password: Annotated[str | None, Field(default=None, min_length=6, max_length=32)] = None


class AccountOut(Schema):
    driver_id: Id
    app_account: str | None = None
    has_app_password: bool = False


class NewPassword(Schema):
    """A password made by the server, shown once to the caller."""

    driver_id: Id
    app_account: str | None = None
    password: str


class FaceOut(Schema):
    driver_id: Id
    face_photo: str | None = None
    face_issued: int = 0


class DriverIdQuery(Schema):
    driver_id: Id


class BlacklistIn(IdsBody):
    blacklisted: Annotated[int, Field(ge=0, le=1, description="1 blacklist, 0 take off the blacklist")] = 1
    reason: Annotated[str | None, Field(default=None, max_length=255)] = None


class AuditIn(IdsBody):
    apply_status: Annotated[int, Field(ge=1, le=2, description="1 approve, 2 reject")]
    audit_note: Annotated[str | None, Field(default=None, max_length=255)] = None


class DictItem(Schema):
    dict_key: str
    dict_value: str


class NameQuery(Schema):
    name: Annotated[str, Field(default="", max_length=32)] = ""


class DriverBrief(Schema):
    id: Id
    name: str
    phone: str | None = None
    job_number: str | None = None
    mechanism_id: Id | None = None


class DriverIdsBody(Schema):
    driver_ids: Annotated[list[Id], Field(min_length=1, max_length=1000)]


class DriverCars(Schema):
    driver_id: Id
    car_ids: list[Id]


class BatchAuthorization(Schema):
    car_ids: Annotated[list[Id], Field(min_length=1, max_length=200)]
    driver_ids: Annotated[list[Id], Field(min_length=1, max_length=1000)]


class AuthorizationRow(Schema):
    driver_id: Id
    driver_name: str
    phone: str | None = None
    car_id: Id
    car_no: str
    device_number: str | None = None
    car_type: int | None = None
    create_time: Time | None = None


class CarAuthorizationRow(Schema):
    """A vehicle, marked authorized for the driver or not (``queryCarAuthorization``)."""

    car_id: Id
    car_no: str
    device_number: str | None = None
    car_type: int | None = None
    mechanism_id: Id | None = None
    authorized: bool = False


class ApplyIn(Schema):
    id: Id | None = None
    name: Annotated[str, Field(min_length=1, max_length=32)]
    phone: Annotated[
        str,
        Field(max_length=20, description="an 11-digit mobile number", json_schema_extra={"pattern": MOBILE_PATTERN}),
    ]
    job_number: S32 = None
    mechanism_id: Id | None = None
    license_number: S32 = None


ApplyOut = out_schema(
    "ApplyOut",
    ApplyIn,
    m.DriverApply,
    apply_status=(int, 0),
    audit_note=(str | None, None),
    audit_user=(Id | None, None),
    audit_time=(Time | None, None),
    driver_id=(Id | None, None),
    mechanism_name=(str | None, None),
)
