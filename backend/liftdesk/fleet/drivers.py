"""Rules of drivers: the person and the licence, IC cards, the app account, the face photo, vehicle authorizations,
the blacklist and applications.

Whatever changes the cards a vehicle must accept (an authorization added or removed, a card added, bound, unbound or
deleted, a licence's validity, the blacklist, a driver removed or unbound from its organisation) emits
``fleet.events.DriverCardsChanged`` with the vehicles concerned, in the request's transaction; telemetry
subscribes and sends each vehicle's card list to its terminal once committed.

Cards are not a resource of their own: they are read and written through their driver (the driver resource's scope
and buttons); an unbound card belongs to the tenant.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.exc import IntegrityError

from liftdesk.core.context import Ctx
from liftdesk.core.db import lock_rows, utcnow
from liftdesk.core.envelope import ServiceError
from liftdesk.core.events import emit
from liftdesk.core.i18n import current_language, t
from liftdesk.core.resource import Hooks
from liftdesk.core.schemas import tenant_zone
from liftdesk.core.scope import organisation_branch
from liftdesk.core.security import hash_password, md5_hex
from liftdesk.fleet.driver_schemas import MASK
from liftdesk.fleet.events import DriverCardsChanged, VehiclesRemoving
from liftdesk.fleet.models import Driver, DriverApply, DriverCar, DriverCard, Vehicle
from liftdesk.fleet.service import organisation_names, place_in_organisation
from liftdesk.system.api.users import check_mobile

#: The most vehicles one driver is authorized for (spec 001 §9).
MAX_VEHICLES = 200
MAIN, SUB = 1, 2
PENDING, APPROVED, REJECTED = 0, 1, 2

# --------------------------------------------------------------------------- dictionaries (zh, en)

WORK_TYPES: dict[int, tuple[str, str]] = {
    1: ("电工", "Electrician"),
    2: ("焊工", "Welder"),
    3: ("装载机司机", "Loader driver"),
    4: ("起重工", "Crane staff"),
    5: ("流动式起重机司机", "Mobile crane driver"),
    6: ("起重机司机", "Crane driver"),
    7: ("起重指挥", "Crane signaller"),
    8: ("维修工", "Repairer"),
}
IC_LEVELS: dict[int, tuple[str, str]] = {
    1: ("司机卡", "Driver card"),
    2: ("维修卡", "Maintenance card"),
    3: ("管理卡", "Supervisor card"),
}
VERIFY_MODES: dict[int, tuple[str, str]] = {
    1: ("刷卡", "Card"),
    2: ("刷卡+密码", "Card and password"),
    3: ("人脸", "Face"),
    4: ("刷卡+人脸", "Card and face"),
}


def labels(table: dict[int, tuple[str, str]]) -> dict[int, str]:
    """A dictionary's labels in the caller's language."""
    en = current_language() == "en"
    return {key: (pair[1] if en else pair[0]) for key, pair in table.items()}


def dict_items(table: dict[int, tuple[str, str]]) -> list[dict[str, str]]:
    return [{"dict_key": str(k), "dict_value": v} for k, v in labels(table).items()]


# --------------------------------------------------------------------------- the licence


def license_state(valid_until: datetime | None, now: datetime | None = None) -> str:
    """``valid`` through the last day of its validity (in the tenants' zone), ``expired`` from the next day on, ``""``
    without a validity."""
    if valid_until is None:
        return ""
    zone = tenant_zone()
    last_day = valid_until.replace(tzinfo=UTC).astimezone(zone).date()
    today = (now or utcnow()).replace(tzinfo=UTC).astimezone(zone).date()
    return "valid" if today <= last_day else "expired"


# --------------------------------------------------------------------------- the event


async def authorized_vehicles(ctx: Ctx, driver_ids: Collection[int]) -> set[int]:
    """The vehicles the drivers are authorized for, in the tenant (whoever may see them: their terminals must hear)."""
    if not driver_ids:
        return set()
    stmt = ctx.scope.apply(select(DriverCar.vehicle_id).where(DriverCar.driver_id.in_(list(driver_ids))), DriverCar)
    return set((await ctx.session.execute(stmt)).scalars().all())


async def cards_changed(ctx: Ctx, *, drivers: Collection[int] = (), vehicles: Iterable[int] = ()) -> None:
    """Tell the listeners which vehicles' card lists changed (those of ``drivers`` and ``vehicles``)."""
    ids = set(vehicles) | await authorized_vehicles(ctx, drivers)
    if ids:
        await emit(ctx, DriverCardsChanged(vehicle_ids=sorted(ids)))


async def vehicle_removing(ctx: Ctx, event: VehiclesRemoving) -> None:
    """A removed vehicle is nobody's to drive any more."""
    ids = [v.id for v in event.vehicles]
    await ctx.session.execute(delete(DriverCar).where(*ctx.scope.where(DriverCar), DriverCar.vehicle_id.in_(ids)))


# --------------------------------------------------------------------------- cards


def check_card(card: dict[str, Any], kind: int, field: str) -> None:
    """The specification's card rules: main card: number, serial and password; sub card: number, serial, level."""
    for name in ("card_number", "serial_number"):
        if not card.get(name):
            raise ServiceError(t("field_required", field=f"{field}.{_camel(name)}"))
    if kind == MAIN and not card.get("password"):
        raise ServiceError(t("field_required", field=f"{field}.password"))
    if kind == SUB and card.get("card_level") is None:
        raise ServiceError(t("field_required", field=f"{field}.cardLevel"))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


async def _serial_free(ctx: Ctx, serial: str, field: str, keep: Collection[int] = ()) -> None:
    """A serial is unique among the tenant's live cards (whatever the caller's scope shows)."""
    stmt = ctx.scope.select(DriverCard, data=False).where(DriverCard.serial_number == serial)
    if keep:
        stmt = stmt.where(DriverCard.id.not_in(list(keep)))
    if (await ctx.session.execute(stmt.limit(1))).first() is not None:
        raise ServiceError(t("card_serial_taken", field=field, value=serial))


async def flush_cards(ctx: Ctx, serials: Collection[str]) -> None:
    """Flush written cards; two requests writing one serial at once meet the partial unique index: a 400, as the
    check before would have said (nothing of the request is kept)."""
    try:
        await ctx.session.flush()
    except IntegrityError:
        await ctx.session.rollback()
        raise ServiceError(t("card_serial_taken", field="serialNumber", value=", ".join(sorted(serials)))) from None


async def cards_of(ctx: Ctx, driver_ids: Collection[int]) -> list[DriverCard]:
    if not driver_ids:
        return []
    stmt = ctx.scope.select(DriverCard).where(DriverCard.driver_id.in_(list(driver_ids)))
    return list((await ctx.session.execute(stmt.order_by(DriverCard.card_kind, DriverCard.id))).scalars().all())


def card_out(card: DriverCard, driver_name: str | None = None) -> dict[str, Any]:
    return {
        "id": card.id,
        "driver_id": card.driver_id,
        "driver_name": driver_name,
        "card_kind": card.card_kind,
        "card_level": card.card_level,
        "card_number": card.card_number,
        "serial_number": card.serial_number,
        "verify_mode": card.verify_mode,
        "password": MASK if card.password else "",
        "create_time": card.create_time,
    }


async def add_card(ctx: Ctx, driver: Driver | None, card: dict[str, Any], field: str = "card") -> DriverCard:
    """A new card, of ``driver`` (or unbound); a driver has one main card."""
    kind = int(card.get("card_kind") or MAIN)
    check_card(card, kind, field)
    if card.get("password") == MASK:
        raise ServiceError(t("field_invalid", field=f"{field}.password"))
    await _serial_free(ctx, card["serial_number"], f"{field}.serialNumber")
    if driver is not None and kind == MAIN:
        mains = [c for c in await cards_of(ctx, [driver.id]) if c.card_kind == MAIN]
        if mains:
            raise ServiceError(t("card_main_exists", field=f"{field}.cardKind", value=driver.name))
    row = DriverCard(
        driver_id=driver.id if driver is not None else None,
        card_kind=kind,
        card_level=card.get("card_level"),
        card_number=card["card_number"],
        serial_number=card["serial_number"],
        verify_mode=card.get("verify_mode"),
        password=card.get("password"),
    )
    ctx.scope.stamp(row, creating=True)
    ctx.session.add(row)
    await flush_cards(ctx, [row.serial_number])
    if driver is not None:
        await cards_changed(ctx, drivers=[driver.id])
    return row


async def replace_cards(ctx: Ctx, driver: Driver, main: dict[str, Any] | None, subs: list[dict[str, Any]]) -> bool:
    """The driver's cards become ``main`` and ``subs``: a card sent with its id (one of the driver's) is updated (the
    mask keeps its password), one without is added, the driver's others are deleted. True when anything changed."""
    wanted = [(MAIN, "mainCard", main)] if main is not None else []
    wanted += [(SUB, f"subCards[{i}]", c) for i, c in enumerate(subs)]
    have = {c.id: c for c in await cards_of(ctx, [driver.id])}
    serials: dict[str, str] = {}
    kept: set[int] = set()
    changed = False
    for kind, field, card in wanted:
        check_card({**card, "password": card.get("password") or _stored_password(have, card)}, kind, field)
        serial = card["serial_number"]
        if serial in serials:
            raise ServiceError(t("card_serial_taken", field=f"{field}.serialNumber", value=serial))
        serials[serial] = field
        ident = card.get("id")
        if ident is not None and ident not in have:
            raise ServiceError(t("field_invalid", field=f"{field}.id"))
        if ident is None and card.get("password") == MASK:
            raise ServiceError(t("field_invalid", field=f"{field}.password"))
        if ident is not None:
            kept.add(ident)
    # deleted first, so that a serial moved from one card of the driver to another is free again
    gone = [c for ident, c in have.items() if ident not in kept]
    for c in gone:
        c.is_deleted = 1
        ctx.scope.stamp(c, creating=False)
        changed = True
    if gone:
        await ctx.session.flush()
    for kind, field, card in wanted:
        await _serial_free(ctx, card["serial_number"], f"{field}.serialNumber", keep=kept)
        ident = card.get("id")
        password = card.get("password")
        if ident is None:
            row = DriverCard(driver_id=driver.id, card_kind=kind, password=password)
            ctx.scope.stamp(row, creating=True)
            ctx.session.add(row)
            changed = True
        else:
            row = have[ident]
            before = _card_state(row)
            if password not in (None, MASK):
                row.password = password
        row.card_kind = kind
        row.card_level = card.get("card_level")
        row.card_number = card["card_number"]
        row.serial_number = card["serial_number"]
        row.verify_mode = card.get("verify_mode")
        if ident is not None and _card_state(row) != before:
            ctx.scope.stamp(row, creating=False)
            changed = True
    await flush_cards(ctx, serials)
    return changed


def _card_state(card: DriverCard) -> tuple[Any, ...]:
    return (card.card_kind, card.card_level, card.card_number, card.serial_number, card.verify_mode, card.password)


def _masked(card: DriverCard) -> dict[str, Any]:
    """A stored card as it is sent back unchanged."""
    return {**card_out(card), "password": MASK if card.password else None}


def _stored_password(have: dict[int, DriverCard], card: dict[str, Any]) -> str | None:
    """The password a card sent back with the mask keeps."""
    if card.get("password") not in (None, MASK):
        return None
    stored = have.get(card.get("id") or 0)
    return stored.password if stored is not None else None


async def unbind_cards(ctx: Ctx, cards: Sequence[DriverCard]) -> int:
    drivers = {c.driver_id for c in cards if c.driver_id is not None}
    vehicles = await authorized_vehicles(ctx, drivers)
    for c in cards:
        c.driver_id = None
        ctx.scope.stamp(c, creating=False)
    await ctx.session.flush()
    await cards_changed(ctx, vehicles=vehicles)
    return len(cards)


# --------------------------------------------------------------------------- the app account


def random_password(length: int = 10) -> str:
    """A password that follows the app's rule (at least 6 characters): letters and digits, at least one of each."""
    alphabet = string.ascii_letters + string.digits
    while True:
        candidate = "".join(secrets.choice(alphabet) for _ in range(length))
        if any(c.isdigit() for c in candidate) and any(c.isalpha() for c in candidate):
            return candidate


def hash_app_password(plain: str) -> str:
    """Stored as the users' passwords are (argon2id of the md5 the app sends)."""
    return hash_password(md5_hex(plain))


async def check_app_account(ctx: Ctx, driver: Driver, account: str | None, field: str = "appAccount") -> None:
    """An app account names one live driver of the tenant."""
    if not account:
        return
    stmt = ctx.scope.select(Driver, data=False).where(Driver.app_account == account)
    if driver.id is not None:
        stmt = stmt.where(Driver.id != driver.id)
    if (await ctx.session.execute(stmt.limit(1))).first() is not None:
        raise ServiceError(t("duplicate", field=field, value=account))


# --------------------------------------------------------------------------- drivers


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


_BEFORE = "__driver_before"


class DriverHooks(Hooks):
    """The person's rules (phone, app account and password, organisation), the cards given with them, and what the
    terminals must hear of a changed licence."""

    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        driver: Driver = obj
        old_valid = None
        if not creating:
            history = sa_inspect(driver).attrs.license_valid_until.history
            old_valid = history.deleted[0] if history.deleted else driver.license_valid_until
        data[_BEFORE] = old_valid
        driver.phone = check_mobile(driver.phone or "", "phone")
        if "app_password" in data:  # written as given by the generic save: hashed now, before anything is flushed
            plain = data["app_password"]
            before = sa_inspect(driver).attrs.app_password.history.deleted
            if plain:
                driver.app_password = hash_app_password(plain)
            else:
                driver.app_password = before[0] if before else None
        if driver.app_account and not driver.app_password:
            raise ServiceError(t("field_required", field="appPassword"))
        if not driver.app_account:
            driver.app_account = None
        await check_app_account(ctx, driver, driver.app_account)
        await place_in_organisation(ctx, driver, creating)

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        driver: Driver = obj
        changed = False
        if "main_card" in data or "sub_cards" in data:
            have = await cards_of(ctx, [driver.id])
            kept_main = [_masked(c) for c in have if c.card_kind == MAIN][:1]
            main = data["main_card"] if "main_card" in data else (kept_main[0] if kept_main else None)
            subs = data["sub_cards"] if "sub_cards" in data else [_masked(c) for c in have if c.card_kind == SUB]
            changed = await replace_cards(ctx, driver, main, list(subs or []))
        if not creating and data.get(_BEFORE) != driver.license_valid_until:
            changed = True
        if changed:
            await cards_changed(ctx, drivers=[driver.id])

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        ids = [r.id for r in rows]
        vehicles = await authorized_vehicles(ctx, ids)
        await ctx.session.execute(
            update(DriverCard)
            .where(*ctx.scope.where(DriverCard), DriverCard.driver_id.in_(ids))
            .values(is_deleted=1, update_time=utcnow(), update_user=ctx.principal.user_id)
        )
        await ctx.session.execute(delete(DriverCar).where(*ctx.scope.where(DriverCar), DriverCar.driver_id.in_(ids)))
        await cards_changed(ctx, vehicles=vehicles)

    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        params = ctx.params
        dept = params.get("deptId", "")
        if dept:
            if not dept.isdigit():
                raise ServiceError(t("field_invalid", field="deptId"))
            stmt = stmt.where(Driver.mechanism_id.in_(organisation_branch(ctx.scope.tenant_id, int(dept))))
        card = params.get("cardNo", "").strip()
        if card:
            pattern = f"%{escape_like(card)}%"
            holders = ctx.scope.apply(
                select(DriverCard.driver_id).where(
                    or_(
                        DriverCard.card_number.like(pattern, escape="\\"),
                        DriverCard.serial_number.like(pattern, escape="\\"),
                    )
                ),
                DriverCard,
            )
            stmt = stmt.where(Driver.id.in_(holders))
        return stmt

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ids = [r["id"] for r in rows]
        if not ids:
            return rows
        names = await organisation_names(ctx, {r["mechanism_id"] for r in rows if r["mechanism_id"]})
        cards: dict[int, list[DriverCard]] = {}
        for c in await cards_of(ctx, ids):
            cards.setdefault(int(c.driver_id or 0), []).append(c)
        counts = dict(
            (
                await ctx.session.execute(
                    ctx.scope.apply(
                        select(DriverCar.driver_id, func.count())
                        .join(Vehicle, Vehicle.id == DriverCar.vehicle_id)
                        .where(DriverCar.driver_id.in_(ids))
                        .group_by(DriverCar.driver_id),
                        DriverCar,
                        Vehicle,
                    )
                )
            ).all()
        )
        stored = dict(
            (
                await ctx.session.execute(
                    ctx.scope.apply(
                        select(Driver.id, Driver.app_password).where(Driver.id.in_(ids)), Driver, data=False
                    )
                )
            ).all()
        )
        work = labels(WORK_TYPES)
        for r in rows:
            mine = cards.get(r["id"], [])
            mains = [card_out(c, r["name"]) for c in mine if c.card_kind == MAIN]
            r.update(
                mechanism_name=names.get(r["mechanism_id"], "") if r["mechanism_id"] else "",
                work_type_name=work.get(r["work_type"], "") if r["work_type"] else "",
                has_app_password=bool(stored.get(r["id"])),
                license_state=license_state(r["license_valid_until"]),
                main_card=mains[0] if mains else None,
                sub_cards=[card_out(c, r["name"]) for c in mine if c.card_kind == SUB],
                car_count=int(counts.get(r["id"], 0)),
            )
        return rows


# --------------------------------------------------------------------------- applications


class ApplyHooks(Hooks):
    """An application is changed only while pending; approval and rejection are the audit's (``audit``)."""

    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        apply: DriverApply = obj
        if not creating and apply.apply_status != PENDING:
            raise ServiceError(t("apply_not_pending", value=apply.name))
        apply.phone = check_mobile(apply.phone or "", "phone")
        await place_in_organisation(ctx, apply, creating)

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        names = await organisation_names(ctx, {r["mechanism_id"] for r in rows if r["mechanism_id"]})
        for r in rows:
            r["mechanism_name"] = names.get(r["mechanism_id"], "") if r["mechanism_id"] else ""
        return rows


async def audit(ctx: Ctx, rows: Sequence[DriverApply], status: int, note: str | None) -> int:
    """Approve (1) or reject (2) pending applications, with the note. An approved application makes its driver, or
    updates the tenant's live driver of the same phone number."""
    for apply in rows:
        apply.apply_status = status
        apply.audit_note = note
        apply.audit_user = ctx.principal.user_id
        apply.audit_time = utcnow()
        ctx.scope.stamp(apply, creating=False)
        if status != APPROVED:
            continue
        # the tenant's driver of this phone (phones are unique among live drivers), if the caller may change it
        stmt = ctx.scope.select(Driver, data=False).where(Driver.phone == apply.phone)
        driver = (await ctx.session.execute(stmt.limit(1))).scalar_one_or_none()
        if driver is not None:
            mine = ctx.scope.select(Driver).where(Driver.id == driver.id)
            if (await ctx.session.execute(mine)).first() is None:
                raise ServiceError(t("duplicate", field="phone", value=apply.phone))
        if driver is None:
            driver = Driver(name=apply.name, phone=apply.phone)
            ctx.scope.stamp(driver, creating=True)
            driver.create_dept = apply.mechanism_id or apply.create_dept
            ctx.session.add(driver)
        else:
            driver.name = apply.name
            ctx.scope.stamp(driver, creating=False)
        driver.job_number = apply.job_number or driver.job_number
        driver.mechanism_id = apply.mechanism_id or driver.mechanism_id
        driver.license_number = apply.license_number or driver.license_number
        await ctx.session.flush()
        apply.driver_id = driver.id
    await ctx.session.flush()
    return len(rows)


# --------------------------------------------------------------------------- blacklist and organisation


async def blacklist(ctx: Ctx, rows: Sequence[Driver], on_list: bool, reason: str | None) -> int:
    changed = [d.id for d in rows if bool(d.blacklisted) != on_list]
    for d in rows:
        d.blacklisted = 1 if on_list else 0
        d.blacklist_reason = reason if on_list else None
        ctx.scope.stamp(d, creating=False)
    await ctx.session.flush()
    await cards_changed(ctx, drivers=changed)
    return len(rows)


async def unbind_organisation(ctx: Ctx, rows: Sequence[Driver]) -> int:
    """The drivers leave their organisation: they belong to none, and drive none of its vehicles any more (their
    authorizations go; their cards stay, for a new organisation)."""
    ids = [d.id for d in rows]
    vehicles = await authorized_vehicles(ctx, ids)
    for d in rows:
        d.mechanism_id = None
        ctx.scope.stamp(d, creating=False)
    await ctx.session.execute(delete(DriverCar).where(*ctx.scope.where(DriverCar), DriverCar.driver_id.in_(ids)))
    await ctx.session.flush()
    await cards_changed(ctx, vehicles=vehicles)
    return len(rows)


# --------------------------------------------------------------------------- authorizations


def one_vehicle_type(rows: Sequence[Any]) -> str | None:
    """Vehicles authorized together share a type (spec 001 §5)."""
    return "driver_car_types" if len({r.car_type for r in rows}) > 1 else None


async def authorize(ctx: Ctx, driver_ids: Sequence[int], vehicle_ids: Sequence[int]) -> int:
    """Link each driver to each vehicle (both already read through the caller's scope), within each driver's 200;
    answers how many links were added."""
    await lock_rows(ctx.session, Driver, driver_ids)  # counted after any other authorization of them has committed
    have = set(
        (
            await ctx.session.execute(
                ctx.scope.apply(
                    select(DriverCar.driver_id, DriverCar.vehicle_id).where(DriverCar.driver_id.in_(list(driver_ids))),
                    DriverCar,
                )
            )
        ).all()
    )
    per_driver: dict[int, int] = {}
    for driver_id, _ in have:
        per_driver[driver_id] = per_driver.get(driver_id, 0) + 1
    rows: list[dict[str, Any]] = []
    added: set[int] = set()
    for driver_id in driver_ids:
        new = [v for v in vehicle_ids if (driver_id, v) not in have]
        if per_driver.get(driver_id, 0) + len(new) > MAX_VEHICLES:
            raise ServiceError(
                t("driver_car_limit", field="carIds", limit=MAX_VEHICLES, have=per_driver.get(driver_id, 0))
            )
        rows += [{"driver_id": driver_id, "vehicle_id": v, "tenant_id": ctx.scope.tenant_id} for v in new]
        added.update(new)
    if rows:
        await ctx.session.execute(insert(DriverCar), rows)
        await cards_changed(ctx, vehicles=added)
    return len(rows)


async def deauthorize(ctx: Ctx, driver_ids: Sequence[int], vehicle_ids: Sequence[int]) -> int:
    result = await ctx.session.execute(
        delete(DriverCar).where(
            *ctx.scope.where(DriverCar),
            DriverCar.driver_id.in_(list(driver_ids)),
            DriverCar.vehicle_id.in_(list(vehicle_ids)),
        )
    )
    removed = int(result.rowcount)  # type: ignore[attr-defined]
    if removed:
        await cards_changed(ctx, vehicles=vehicle_ids)
    return removed
