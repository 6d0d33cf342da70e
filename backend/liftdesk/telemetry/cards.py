"""The card list of each vehicle (the IC cards its terminal must accept) and how it reaches the terminal.

A vehicle's list: the cards (serial, PIN) of the drivers authorized on it (``DriverCar``), with each driver's licence
validity (the local day of ``Driver.license_valid_until``: valid through that day; none: no end), leaving out
blacklisted and removed drivers, removed cards, drivers whose licence has expired (before today) and cards whose
serial or PIN a terminal could not hold (logged). It travels as the Liftdesk vendor message 0x8F01
(``codecs/jt808/drivers.py``, ``docs/protocol.md`` §4.6) through the command service: pending → sent →
acknowledged, queued while the terminal is offline, retried; a new list supersedes a list still pending for the
same terminal, so a terminal coming back gets the latest one only.

When lists are sent:

* **on every change** (``fleet.events.DriverCardsChanged``, subscribed in ``telemetry.subscriptions``): once the
  change's transaction has committed, the lists of the vehicles it names are computed from the committed rows and
  queued (:func:`queue_card_lists`). Lists of one process are computed one at a time, so a later change is never
  overtaken by an earlier one's list.
* **the daily re-check** (:func:`reconcile_card_lists`, run with the hourly jobs, so within an hour after midnight):
  a licence that expires is enforced by the terminal itself with the date it was given (and by the platform on
  every identity report), so expiry alone never re-sends a list. The job compares each vehicle's list of today with
  what its terminal holds *today*: the last list queued (pending, sent or acknowledged) less its entries whose
  validity has passed. They differ when a licence was renewed (the terminal holds the old date), a driver whose
  licence had lapsed is valid again, or anything changed without the event (another process's list raced, a list
  expired unsent): then the list is queued again. Vehicles that never had a list and have no authorized driver are
  left alone (their terminals do not enforce).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.config import get_settings
from liftdesk.core.db import Database, utcnow
from liftdesk.fleet.models import Driver, DriverCar, DriverCard, Vehicle
from liftdesk.fleet.papers import local_day, local_today
from liftdesk.telemetry.codecs.jt808 import CARD_LIST_MSG, CardEntry, EncodeError
from liftdesk.telemetry.commands import ACKNOWLEDGED, CARD_LIST, PENDING, SENT, card_list_payload, entries_of
from liftdesk.telemetry.models import Command

log = logging.getLogger("liftdesk.cards")

#: A card list waits this long for its terminal before it expires (the daily re-check queues it again).
CARD_LIST_EXPIRY = timedelta(days=7)
_LOCK = asyncio.Lock()


def day_start_utc(day: date) -> datetime:
    """The UTC time the tenants' local ``day`` begins at (naive, as stored)."""
    return datetime.combine(day, time()) - timedelta(minutes=get_settings().tz_offset_minutes)


def valid_through(valid_until: datetime | None) -> date | None:
    """A licence validity as the terminal gets it: its last valid local day (None: no end)."""
    return local_day(valid_until) if valid_until is not None else None


async def vehicle_cards(
    s: AsyncSession, tenant_id: str, vehicle_ids: Collection[int], today: date
) -> dict[int, list[CardEntry]]:
    """The card list of each vehicle (every id given gets one, possibly empty)."""
    out: dict[int, list[CardEntry]] = {vid: [] for vid in vehicle_ids}
    if not out:
        return out
    rows = await s.execute(
        select(DriverCar.vehicle_id, DriverCard.serial_number, DriverCard.password, Driver.license_valid_until)
        .join(Driver, and_(Driver.id == DriverCar.driver_id, Driver.tenant_id == DriverCar.tenant_id))
        .join(DriverCard, and_(DriverCard.driver_id == Driver.id, DriverCard.tenant_id == Driver.tenant_id))
        .where(
            DriverCar.tenant_id == tenant_id,
            DriverCar.vehicle_id.in_(list(out)),
            Driver.is_deleted == 0,
            Driver.blacklisted == 0,
            DriverCard.is_deleted == 0,
            (Driver.license_valid_until.is_(None)) | (Driver.license_valid_until >= day_start_utc(today)),
        )
        .order_by(DriverCar.vehicle_id, DriverCard.serial_number)
    )
    for vid, serial, pin, valid in rows.all():
        entry = CardEntry(str(serial or ""), valid_through(valid), pin or None)
        try:
            entry.encode()
        except EncodeError as exc:  # a terminal could not hold it: refused on the vehicle rather than sent wrong
            log.warning("card %s left out of vehicle %s's list: %s", serial, vid, exc)
            continue
        if not any(e.serial == entry.serial for e in out[vid]):
            out[vid].append(entry)
    return out


def issued_now() -> int:
    return int(utcnow().replace(tzinfo=UTC).timestamp())


async def _targets(s: AsyncSession, tenant_id: str, vehicle_ids: Collection[int]) -> dict[int, str]:
    """Vehicle id → device number of the tenant's vehicles (not removed) that name a terminal."""
    rows = await s.execute(
        select(Vehicle.id, Vehicle.device_number).where(
            Vehicle.tenant_id == tenant_id,
            Vehicle.is_deleted == 0,
            Vehicle.id.in_(list(vehicle_ids)),
            Vehicle.device_number.is_not(None),
            Vehicle.device_number != "",
        )
    )
    return {int(vid): str(device) for vid, device in rows.all()}


async def queue_card_lists(
    db: Database, commands: Any, tenant_id: str, vehicle_ids: Collection[int], user_id: int | None = None
) -> int:
    """Compute the lists of these vehicles of ``tenant_id`` from the committed rows and queue one command each
    (superseding a list still pending). Returns how many were queued."""
    if not vehicle_ids:
        return 0
    async with _LOCK:
        async with db.sessionmaker() as s:
            targets = await _targets(s, tenant_id, set(vehicle_ids))
            lists = await vehicle_cards(s, tenant_id, list(targets), local_today())
        return await _queue(commands, tenant_id, targets, lists, user_id)


async def _queue(
    commands: Any, tenant_id: str, targets: dict[int, str], lists: dict[int, list[CardEntry]], user_id: int | None
) -> int:
    issued = issued_now()
    queued = 0
    for vid, device in targets.items():
        payload = card_list_payload(issued, lists.get(vid, []))
        try:
            await commands.create(
                tenant_id,
                vid,
                device,
                CARD_LIST,
                CARD_LIST_MSG,
                payload,
                user_id,
                expire_time=utcnow() + CARD_LIST_EXPIRY,
                supersede=True,
            )
        except ValueError:  # built from validated entries: a bug, logged rather than failing the others
            log.exception("card list for %s not queued", device)
            continue
        queued += 1
    return queued


def held_today(payload: dict[str, Any], today: date) -> set[tuple[str, date | None, str | None]]:
    """What a terminal holding this list accepts today: its entries whose validity has not passed."""
    try:
        entries = entries_of(payload)
    except ValueError:
        return set()
    return {(e.serial, e.valid_until, e.pin) for e in entries if e.valid_until is None or e.valid_until >= today}


async def _last_lists(s: AsyncSession, devices: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Device → payload of the last card list queued for it that was not cancelled or failed."""
    live = (PENDING, SENT, ACKNOWLEDGED)
    latest = (
        select(Command.device_number, func.max(Command.create_time).label("at"))
        .where(Command.name == CARD_LIST, Command.status.in_(live), Command.device_number.in_(list(devices)))
        .group_by(Command.device_number)
        .subquery()
    )
    rows = await s.execute(
        select(Command.device_number, Command.payload)
        .join(latest, and_(Command.device_number == latest.c.device_number, Command.create_time == latest.c.at))
        .where(Command.name == CARD_LIST, Command.status.in_(live))
    )
    return {str(device): json.loads(raw or "{}") for device, raw in rows.all()}


async def reconcile_card_lists(db: Database, commands: Any, today: date | None = None) -> int:
    """The daily re-check (see the module docstring): queue the lists that differ from what their terminals hold
    today. Returns how many were queued."""
    today = today or local_today()
    queued = 0
    async with _LOCK:
        async with db.sessionmaker() as s:
            authorized = select(DriverCar.vehicle_id).where(DriverCar.tenant_id == Vehicle.tenant_id)
            listed = select(Command.vehicle_id).where(Command.name == CARD_LIST, Command.vehicle_id.is_not(None))
            rows = (
                await s.execute(
                    select(Vehicle.tenant_id, Vehicle.id, Vehicle.device_number).where(
                        Vehicle.is_deleted == 0,
                        Vehicle.device_number.is_not(None),
                        Vehicle.device_number != "",
                        Vehicle.id.in_(authorized) | Vehicle.id.in_(listed),
                    )
                )
            ).all()
            by_tenant: dict[str, dict[int, str]] = {}
            for tenant, vid, device in rows:
                by_tenant.setdefault(str(tenant), {})[int(vid)] = str(device)
            plans: list[tuple[str, dict[int, str], dict[int, list[CardEntry]]]] = []
            for tenant, targets in by_tenant.items():
                lists = await vehicle_cards(s, tenant, list(targets), today)
                held = await _last_lists(s, list(targets.values()))
                stale = {
                    vid: device
                    for vid, device in targets.items()
                    if {(e.serial, e.valid_until, e.pin) for e in lists[vid]} != held_today(held.get(device, {}), today)
                    or device not in held
                }
                if stale:
                    plans.append((tenant, stale, lists))
        for tenant, stale, lists in plans:
            queued += await _queue(commands, tenant, stale, lists, None)
    if queued:
        log.info("card lists: %d re-sent by the daily re-check", queued)
    return queued


# ------------------------------------------------------------------------------------------------ identity reports


@dataclass(frozen=True, slots=True)
class CardHolder:
    """A card of a tenant as an identity report is checked against it (``pipeline.drivers``): the driver it is bound
    to (None: unbound, or the driver removed), their name, blacklist, licence validity and authorized vehicles."""

    serial: str
    driver_id: int | None
    name: str | None = None
    blacklisted: bool = False
    valid_until: datetime | None = None
    vehicles: frozenset[int] = frozenset()


def is_serial(text: str | None) -> bool:
    return bool(text) and len(text or "") == SERIAL_LENGTH and (text or "").isascii() and (text or "").isdigit()


SERIAL_LENGTH = 10


async def card_holders(db: Database, keys: Collection[tuple[str, str]]) -> dict[tuple[str, str], CardHolder]:
    """(tenant, serial) → the card's holder, for the cards that exist (not removed); two queries whatever the
    number of cards."""
    wanted = {(t, c) for t, c in keys if is_serial(c)}
    if not wanted:
        return {}
    by_tenant: dict[str, set[str]] = {}
    for tenant, serial in wanted:
        by_tenant.setdefault(tenant, set()).add(serial)
    out: dict[tuple[str, str], CardHolder] = {}
    async with db.sessionmaker() as s:
        for tenant, serials in by_tenant.items():
            rows = await s.execute(
                select(
                    DriverCard.serial_number,
                    Driver.id,
                    Driver.name,
                    Driver.blacklisted,
                    Driver.license_valid_until,
                )
                .outerjoin(
                    Driver,
                    and_(
                        Driver.id == DriverCard.driver_id,
                        Driver.tenant_id == DriverCard.tenant_id,
                        Driver.is_deleted == 0,
                    ),
                )
                .where(
                    DriverCard.tenant_id == tenant, DriverCard.is_deleted == 0, DriverCard.serial_number.in_(serials)
                )
            )
            found = rows.all()
            drivers = [int(d) for _, d, *_ in found if d is not None]
            authorized: dict[int, set[int]] = {}
            if drivers:
                links = await s.execute(
                    select(DriverCar.driver_id, DriverCar.vehicle_id).where(
                        DriverCar.tenant_id == tenant, DriverCar.driver_id.in_(drivers)
                    )
                )
                for did, vid in links.all():
                    authorized.setdefault(int(did), set()).add(int(vid))
            for serial, did, name, black, valid in found:
                out[(tenant, str(serial))] = CardHolder(
                    str(serial),
                    int(did) if did is not None else None,
                    name,
                    bool(black),
                    valid,
                    frozenset(authorized.get(int(did), ())) if did is not None else frozenset(),
                )
    return out
