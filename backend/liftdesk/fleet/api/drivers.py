"""Drivers beyond their generated list / detail / add / update / delete (``fleet.resources.DRIVER``): the details of
both generations of the spec's screens, IC cards, the licence, the app account, the face photo, the dictionaries,
the blacklist, leaving the organisation, import and export. Rules are in ``fleet.drivers``.

Every call reads its driver through the driver resource's scope (tenant, data rule by organisation); a card is read
through its driver (an unbound card: the tenant's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import UploadFile
from pydantic import Field
from sqlalchemy import select, update

from liftdesk.core import crud
from liftdesk.core.batch import declare_batch
from liftdesk.core.envelope import NotFound, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.ids import id_of
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.services import Services
from liftdesk.core.transfer import Column, declare_exporter, declare_importer
from liftdesk.fleet import driver_schemas as ds
from liftdesk.fleet import drivers as svc
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import Driver, DriverCar, DriverCard, Vehicle
from liftdesk.fleet.schemas import VehicleOut
from liftdesk.system import files
from liftdesk.system import models as sm

D = res.DRIVER
P = f"{res.FICS}/personnel"
DR = f"{res.FICS}/driver"
#: The largest face photo (spec 001 §5).
FACE_MAX_BYTES = 5 * 1024 * 1024
FACE_KINDS = ("jpg", "png")


async def driver_of(ctx: crud.Ctx, ident: int) -> Driver:
    row = await crud.get_scoped(ctx, ident)
    assert isinstance(row, Driver)
    return row


async def card_of(ctx: crud.Ctx, ident: int) -> DriverCard:
    """A card of the tenant: an unbound one, or one of a driver the caller sees."""
    card = (await ctx.session.execute(ctx.scope.select(DriverCard).where(DriverCard.id == ident))).scalar_one_or_none()
    if card is None:
        raise NotFound(t("not_found"))
    if card.driver_id is not None:
        await driver_of(ctx, card.driver_id)
    return card


async def _detail(ctx: crud.Ctx, ident: int) -> dict[str, Any]:
    return await crud.detail(ctx, ident)


# --------------------------------------------------------------------------- details


@D.action("GET", f"{P}/getDriverInfoDetail/{{id}}", kind="detail", answer=ds.DriverOut, summary="One driver")
async def personnel_info_detail(ctx: crud.Ctx, ident: int) -> dict[str, Any]:
    return await _detail(ctx, ident)


@D.action("GET", f"{DR}/getDriverInfoDetail/{{id}}", kind="detail", answer=ds.DriverOut, summary="One driver")
async def driver_info_detail(ctx: crud.Ctx, ident: int) -> dict[str, Any]:
    return await _detail(ctx, ident)


class DriverFullOut(ds.DriverOut):  # type: ignore[misc,valid-type]  # a schema built at run time (out_schema)
    cars: list[VehicleOut] = Field(default_factory=list)  # type: ignore[valid-type]


@D.action(
    "GET",
    f"{DR}/getDriverDetail/{{id}}",
    kind="detail",
    answer=DriverFullOut,
    summary="One driver with cards, licence, face, account and the vehicles authorized (those the caller sees)",
)
async def driver_full(ctx: crud.Ctx, ident: int) -> dict[str, Any]:
    row = await _detail(ctx, ident)
    linked = ctx.scope.apply(select(DriverCar.vehicle_id).where(DriverCar.driver_id == ident), DriverCar)
    cars = (
        (await ctx.session.execute(ctx.scope.select(Vehicle).where(Vehicle.id.in_(linked)).order_by(Vehicle.car_no)))
        .scalars()
        .all()
    )
    vctx = await crud.Ctx.build(ctx.session, ctx.principal, res.VEHICLE, {})
    row["cars"] = await res.VEHICLE.hooks.enrich(vctx, crud.serialise(res.VEHICLE, cars))
    return row


@D.action(
    "GET",
    f"{DR}/queryDriverListByName",
    kind="read",
    query=ds.NameQuery,
    answer=list[ds.DriverBrief],
    summary="Drivers whose name holds the text (at most 50; a picker)",
)
async def by_name(ctx: crud.Ctx, query: ds.NameQuery) -> list[Driver]:
    stmt = ctx.scope.select(Driver)
    if query.name:
        stmt = stmt.where(Driver.name.like(f"%{svc.escape_like(query.name)}%", escape="\\"))
    return list((await ctx.session.execute(stmt.order_by(Driver.name, Driver.id).limit(50))).scalars().all())


# --------------------------------------------------------------------------- dictionaries


def _dictionary(path: str, table: dict[int, tuple[str, str]], noun: str) -> None:
    async def items(ctx: crud.Ctx) -> list[dict[str, str]]:
        return svc.dict_items(table)

    items.__name__ = f"dictionary_{noun.replace(' ', '_')}"
    D.action("GET", path, permission=SIGNED_IN, kind="read", answer=list[ds.DictItem], summary=f"The {noun}s")(items)


_dictionary(f"{P}/getJobTypeList", svc.WORK_TYPES, "work type")
_dictionary(f"{P}/getIcLevelEnumList", svc.IC_LEVELS, "card level")
_dictionary(f"{P}/getVerifyTypeList", svc.VERIFY_MODES, "verification mode")


# --------------------------------------------------------------------------- cards


async def _cards(ctx: crud.Ctx, driver_id: int) -> list[dict[str, Any]]:
    driver = await driver_of(ctx, driver_id)
    return [svc.card_out(c, driver.name) for c in await svc.cards_of(ctx, [driver.id])]


@D.action(
    "POST",
    f"{P}/getDriverIdicCard",
    kind="sub",
    body=ds.CardsOfDriver,
    answer=list[ds.CardOut],
    summary="A driver's IC cards (passwords masked)",
)
async def cards_by_body(ctx: crud.Ctx, body: ds.CardsOfDriver) -> list[dict[str, Any]]:
    return await _cards(ctx, body.driver_id)


@D.action(
    "GET",
    f"{DR}/getDriverIdicCard/{{id}}",
    kind="sub",
    answer=list[ds.CardOut],
    summary="A driver's IC cards (passwords masked)",
)
async def cards_by_path(ctx: crud.Ctx, ident: int) -> list[dict[str, Any]]:
    return await _cards(ctx, ident)


async def _add_card(ctx: crud.Ctx, body: ds.CardAdd) -> dict[str, Any]:
    driver = await driver_of(ctx, body.driver_id) if body.driver_id is not None else None
    card = await svc.add_card(ctx, driver, body.model_dump(exclude={"driver_id", "id"}, by_alias=False))
    return svc.card_out(card, driver.name if driver else None)


for _path, _name in ((f"{P}/addIdicCard", "personnel_add_card"), (f"{DR}/addIdicCard", "driver_add_card")):

    async def _adding(ctx: crud.Ctx, body: ds.CardAdd) -> dict[str, Any]:
        return await _add_card(ctx, body)

    _adding.__name__ = _name
    D.action(
        "POST",
        _path,
        permission="edit",
        body=ds.CardAdd,
        answer=ds.CardOut,
        summary="Add an IC card to a driver (driverId), or unbound (main: number, serial, password; sub: number, "
        "serial, level; the serial unique among the tenant's cards)",
    )(_adding)


@D.action(
    "POST",
    f"{P}/driverUnbindIdicCard",
    permission="edit",
    kind="unbind",
    body=ds.CardIds,
    answer=int,
    summary="Unbind cards from their drivers (kept, unbound, for binding again)",
)
async def unbind_cards(ctx: crud.Ctx, body: ds.CardIds) -> int:
    return await svc.unbind_cards(ctx, [await card_of(ctx, i) for i in dict.fromkeys(body.ids)])


@D.action(
    "POST",
    f"{DR}/idicCardUnbindDriver/{{id}}",
    permission="edit",
    kind="unbind",
    answer=int,
    summary="Unbind one card from its driver (kept, unbound)",
)
async def unbind_card(ctx: crud.Ctx, ident: int) -> int:
    return await svc.unbind_cards(ctx, [await card_of(ctx, ident)])


@D.action(
    "POST",
    f"{DR}/idicCardBindDriver",
    permission="edit",
    kind="bind",
    body=ds.CardBind,
    answer=ds.CardOut,
    summary="Bind an unbound card to a driver (a driver has one main card)",
)
async def bind_card(ctx: crud.Ctx, body: ds.CardBind) -> dict[str, Any]:
    driver = await driver_of(ctx, body.driver_id)
    card = await card_of(ctx, body.card_id)
    if card.driver_id is not None:
        raise ServiceError(t("card_bound", field="cardId", value=card.card_number))
    if card.card_kind == svc.MAIN and any(c.card_kind == svc.MAIN for c in await svc.cards_of(ctx, [driver.id])):
        raise ServiceError(t("card_main_exists", field="cardId", value=driver.name))
    card.driver_id = driver.id
    ctx.scope.stamp(card, creating=False)
    await ctx.session.flush()
    await svc.cards_changed(ctx, drivers=[driver.id])
    return svc.card_out(card, driver.name)


@D.action(
    "POST",
    f"{DR}/deleteIdic",
    permission="edit",
    kind="batch",
    body=ds.CardIds,
    answer=int,
    summary="Delete cards (their serials are free again)",
)
async def delete_cards(ctx: crud.Ctx, body: ds.CardIds) -> int:
    cards = [await card_of(ctx, i) for i in dict.fromkeys(body.ids)]
    vehicles = await svc.authorized_vehicles(ctx, {c.driver_id for c in cards if c.driver_id is not None})
    for c in cards:
        c.is_deleted = 1
        ctx.scope.stamp(c, creating=False)
    await ctx.session.flush()
    await svc.cards_changed(ctx, vehicles=vehicles)
    return len(cards)


# --------------------------------------------------------------------------- licence and app account


def _license(driver: Driver) -> ds.LicenseOut:
    return ds.LicenseOut(
        driver_id=driver.id,
        name=driver.name,
        license_number=driver.license_number,
        license_type=driver.license_type,
        license_issue_date=driver.license_issue_date,
        license_valid_until=driver.license_valid_until,
        license_state=svc.license_state(driver.license_valid_until),
    )


@D.action("GET", f"{DR}/getDriverLicense/{{id}}", kind="sub", answer=ds.LicenseOut, summary="A driver's licence")
async def get_license(ctx: crud.Ctx, ident: int) -> ds.LicenseOut:
    return _license(await driver_of(ctx, ident))


@D.action(
    "POST",
    f"{DR}/addDriverLicense",
    permission="edit",
    body=ds.LicenseIn,
    answer=ds.LicenseOut,
    summary="Save a driver's licence (the vehicles hear of a changed validity)",
)
async def save_license(ctx: crud.Ctx, body: ds.LicenseIn) -> ds.LicenseOut:
    driver = await driver_of(ctx, body.driver_id)
    before = driver.license_valid_until
    for name in ("license_number", "license_type", "license_issue_date", "license_valid_until"):
        setattr(driver, name, getattr(body, name))
    ctx.scope.stamp(driver, creating=False)
    await ctx.session.flush()
    if before != driver.license_valid_until:
        await svc.cards_changed(ctx, drivers=[driver.id])
    return _license(driver)


def _account(driver: Driver) -> ds.AccountOut:
    return ds.AccountOut(
        driver_id=driver.id, app_account=driver.app_account, has_app_password=bool(driver.app_password)
    )


@D.action("GET", f"{DR}/getDriverAppAccount/{{id}}", kind="sub", answer=ds.AccountOut, summary="A driver's app account")
async def get_account(ctx: crud.Ctx, ident: int) -> ds.AccountOut:
    return _account(await driver_of(ctx, ident))


@D.action(
    "POST",
    f"{DR}/addDriverAccount",
    permission="edit",
    body=ds.AccountIn,
    answer=ds.AccountOut,
    summary="Set a driver's app account (at least 4 characters) and password (at least 6; kept if left out)",
)
async def save_account(ctx: crud.Ctx, body: ds.AccountIn) -> ds.AccountOut:
    driver = await driver_of(ctx, body.driver_id)
    await svc.check_app_account(ctx, driver, body.app_account)
    if body.app_password:
        driver.app_password = svc.hash_app_password(body.app_password)
    elif not driver.app_password:
        raise ServiceError(t("field_required", field="appPassword"))
    driver.app_account = body.app_account
    ctx.scope.stamp(driver, creating=False)
    await ctx.session.flush()
    return _account(driver)


@D.action(
    "GET",
    f"{P}/revertPassword/{{id}}",
    permission="edit",
    answer=ds.NewPassword,
    summary="Reset a driver's app password to a random one, shown once in the answer",
)
async def revert_password(ctx: crud.Ctx, ident: int) -> ds.NewPassword:
    driver = await driver_of(ctx, ident)
    if not driver.app_account:
        raise ServiceError(t("field_required", field="appAccount"))
    plain = svc.random_password()
    driver.app_password = svc.hash_app_password(plain)
    ctx.scope.stamp(driver, creating=False)
    await ctx.session.flush()
    return ds.NewPassword(driver_id=driver.id, app_account=driver.app_account, password=plain)


# --------------------------------------------------------------------------- the face photo


def _face(driver: Driver) -> ds.FaceOut:
    return ds.FaceOut(driver_id=driver.id, face_photo=driver.face_photo, face_issued=driver.face_issued)


@D.action("GET", f"{DR}/getDriverFacePhoto/{{id}}", kind="sub", answer=ds.FaceOut, summary="A driver's face photo")
async def get_face(ctx: crud.Ctx, ident: int) -> ds.FaceOut:
    return _face(await driver_of(ctx, ident))


async def _drop_face_file(ctx: crud.Ctx, link: str | None) -> None:
    """The attachment of a replaced or removed face photo goes, with its file (after the commit)."""
    if not link or "?id=" not in link:
        return
    ident = id_of(link.rsplit("?id=", 1)[1])
    if ident is None:
        return
    from liftdesk.system.resources import ATTACH

    actx = await crud.Ctx.build(ctx.session, ctx.principal, ATTACH, {})
    rows = (
        (await ctx.session.execute(actx.scope.select(sm.Attach, data=False).where(sm.Attach.id == ident)))
        .scalars()
        .all()
    )
    if not rows:
        return
    await ATTACH.hooks.before_remove(actx, rows)
    await ctx.session.execute(
        update(sm.Attach).where(*actx.scope.where(sm.Attach, data=False), sm.Attach.id == ident).values(is_deleted=1)
    )
    ctx.after_commit.extend(actx.after_commit)


@D.action(
    "POST",
    f"{DR}/updateDriverFacePhoto",
    permission="edit",
    query=ds.DriverIdQuery,
    answer=ds.FaceOut,
    openapi={"requestBody": {"content": {"multipart/form-data": {"encoding": {"file": {"contentType": "image/*"}}}}}},
    summary="Upload a driver's face photo (multipart 'file', driverId in the query): a JPG or PNG of at most 5 MB, "
    "judged by its content; kept in the tenant's file store; not issued to the devices until they get it",
)
async def upload_face(ctx: crud.Ctx, query: ds.DriverIdQuery, upload: UploadFile, services: Services) -> ds.FaceOut:
    driver = await driver_of(ctx, query.driver_id)
    data = await upload.read(FACE_MAX_BYTES + 1)
    if not data:
        raise ServiceError(t("file_empty", field="file"))
    if len(data) > FACE_MAX_BYTES:
        raise ServiceError(t("file_too_large", field="file", limit=FACE_MAX_BYTES // (1024 * 1024)))
    kind = files.sniff(data, upload.filename or "")
    if kind is None or kind.extension not in FACE_KINDS:
        raise ServiceError(t("file_type", field="file", types=", ".join(FACE_KINDS)))
    old = driver.face_photo
    row = await files.store_attachment(ctx, services.settings, data, kind, upload.filename)
    driver.face_photo = row.link
    driver.face_issued = 0
    ctx.scope.stamp(driver, creating=False)
    await ctx.session.flush()
    await _drop_face_file(ctx, old)
    return _face(driver)


@D.action(
    "DELETE",
    f"{DR}/deleteFacePhoto/{{id}}",
    permission="edit",
    answer=ds.FaceOut,
    summary="Remove a driver's face photo (and its file)",
)
async def delete_face(ctx: crud.Ctx, ident: int) -> ds.FaceOut:
    driver = await driver_of(ctx, ident)
    old = driver.face_photo
    driver.face_photo = None
    driver.face_issued = 0
    ctx.scope.stamp(driver, creating=False)
    await ctx.session.flush()
    await _drop_face_file(ctx, old)
    return _face(driver)


# --------------------------------------------------------------------------- blacklist, organisation


async def _blacklist(ctx: crud.Ctx, rows: Sequence[Driver], services: Services, body: ds.BlacklistIn) -> int:
    if body.blacklisted and not body.reason:
        raise ServiceError(t("field_required", field="reason"))
    return await svc.blacklist(ctx, rows, bool(body.blacklisted), body.reason)


async def _leave(ctx: crud.Ctx, rows: Sequence[Driver], services: Services) -> int:
    return await svc.unbind_organisation(ctx, rows)


declare_batch(
    D,
    "POST",
    "/api/liftdesk/driver/blacklist",
    name="blacklist_drivers",
    summary="Put the selected drivers on the blacklist with a reason (blacklisted 1), or take them off (0): a "
    "blacklisted driver's cards are refused on every vehicle",
    permission="driver_blacklist",
    apply=_blacklist,
    body=ds.BlacklistIn,
    answer=int,
)
declare_batch(
    D,
    "POST",
    "/api/liftdesk/driver/unbindOrganisation",
    name="unbind_organisation",
    summary="The selected drivers (ids=1,2) leave their organisation (and lose their vehicle authorizations)",
    permission="driver_unbind",
    apply=_leave,
    answer=int,
)


# --------------------------------------------------------------------------- import and export

_COLUMNS = (
    Column("name", "姓名", "Name"),
    Column("phone", "手机号", "Phone"),
    Column("sex", "性别", "Sex"),
    Column("job_number", "工号", "Job number"),
    Column("position", "职位", "Position"),
    Column("work_type", "工种", "Work type"),
    Column("mechanism_id", "所属机构ID", "Organisation id"),
    Column("entry_date", "入职日期", "Entry date"),
    Column("license_number", "驾驶证号", "Licence number"),
    Column("license_type", "准驾类型", "Licence type"),
    Column("license_valid_until", "证件有效期", "Licence valid until"),
    Column("emergency_phone", "紧急联系电话", "Emergency phone"),
    Column("remark", "备注", "Remark"),
)
_EXPORT = (
    *_COLUMNS,
    Column("mechanism_name", "所属机构", "Organisation"),
    Column("work_type_name", "工种名称", "Work type name"),
    Column("blacklisted", "黑名单", "Blacklisted"),
)

declare_exporter(
    D,
    "personnel/exportDriver",
    _EXPORT,
    "drivers",
    "The drivers as .xlsx, with the list's filters (as queryPersonnelList takes them)",
)
declare_importer(
    D,
    "personnel/importDriver",
    "personnel/exportDriverTemplate",
    "personnel/importDriverProgress",
    _COLUMNS,
    key=("phone",),
    filename="drivers",
    summary="Add drivers from an .xls / .xlsx file (multipart file; isCovered=1 updates the driver of the same "
    "phone); answers a report: created, updated, and the rows refused with row and reason",
)
