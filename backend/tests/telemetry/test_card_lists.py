"""What a vehicle's card list holds and when it is (re)sent, and how the pipeline checks every identity report, on
both databases: the cards of the drivers authorized on it with their licence validity and PIN, never a blacklisted,
removed or expired driver's, a removed card or another tenant's; a newer list supersedes one still pending; the daily
re-check re-sends a renewed licence's list and leaves an expiry to the terminal; each refusal reason, an attack with
another tenant's card, and power-off ending the duty."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from sqlalchemy import select, update

from liftdesk.core.bus import LocalBus
from liftdesk.core.config import get_settings
from liftdesk.core.db import Database
from liftdesk.core.services import Services
from liftdesk.fleet.models import DriverCard
from liftdesk.fleet.papers import local_today
from liftdesk.telemetry.cards import day_start_utc, reconcile_card_lists
from liftdesk.telemetry.commands import CANCELLED, PENDING, CommandService
from liftdesk.telemetry.messages import DriverChange, Report
from liftdesk.telemetry.models import Command, Event, Position, VehicleState
from liftdesk.telemetry.pipeline import Pipeline
from tests.telemetry.driver_fixtures import add_driver, cards_changed, set_driver_fields
from tests.telemetry.test_pipeline import T0, fix, report, vehicle


def state_of(db: Database) -> Services:
    """What ``after_commit`` work is given (the app's services): a command service that is not sending (no terminal
    is attached), so the lists stay pending where the test reads them."""
    services = Services(get_settings(), db, LocalBus())
    services.add(CommandService(db, services.bus))
    return services


async def lists(db: Database, device: str) -> list[Command]:
    async with db.sessionmaker() as s:
        rows = await s.execute(
            select(Command).where(Command.device_number == device, Command.name == "card_list").order_by(Command.id)
        )
        return list(rows.scalars().all())


def cards_of(command: Command) -> list[tuple[str, str | None, str | None]]:
    return [(c["serial"], c["validUntil"], c["pin"]) for c in json.loads(command.payload)["cards"]]


async def test_a_list_holds_the_authorized_valid_cards_and_supersedes_a_pending_one(db: Database) -> None:
    state = state_of(db)
    vid, device = await vehicle(db)
    other_vid, _ = await vehicle(db)
    today = local_today()
    valid = await add_driver(db, vehicles=(vid,), pin="1234", valid_until=day_start_utc(today + timedelta(days=90)))
    tonight = await add_driver(db, vehicles=(vid,), valid_until=day_start_utc(today))
    await add_driver(db, vehicles=(vid,), valid_until=day_start_utc(today - timedelta(days=1)))  # expired yesterday
    await add_driver(db, vehicles=(vid,), blacklisted=True)
    await add_driver(db, vehicles=(other_vid,))  # another vehicle's driver
    removed_card = await add_driver(db, vehicles=(vid,))
    async with db.sessionmaker() as s:
        await s.execute(update(DriverCard).where(DriverCard.id == removed_card["card"]).values(is_deleted=1))
        await s.commit()

    await cards_changed(state, db, "000000", vid)
    [first] = await lists(db, device)
    assert first.status == PENDING and first.msg_id == 0x8F01 and first.vehicle_id == vid
    assert cards_of(first) == sorted(
        [
            (valid["serial"], (today + timedelta(days=90)).isoformat(), "1234"),
            (tonight["serial"], today.isoformat(), None),
        ]
    )
    assert json.loads(first.payload)["crc"] > 0

    # another tenant's administrator naming this vehicle queues nothing for it
    await cards_changed(state, db, "123456", vid)
    assert len(await lists(db, device)) == 1

    await set_driver_fields(db, valid["id"], blacklisted=1)
    await cards_changed(state, db, "000000", vid)
    first_again, second = await lists(db, device)
    assert (first_again.status, first_again.error) == (CANCELLED, "superseded"), "only the latest list is sent"
    assert second.status == PENDING and cards_of(second) == [(tonight["serial"], today.isoformat(), None)]


async def test_the_daily_re_check_resends_a_renewal_and_leaves_an_expiry_to_the_terminal(db: Database) -> None:
    state = state_of(db)
    vid, device = await vehicle(db)
    today = local_today()
    lapsing = await add_driver(db, vehicles=(vid,), valid_until=day_start_utc(today))
    steady = await add_driver(db, vehicles=(vid,))
    await cards_changed(state, db, "000000", vid)
    assert len(await lists(db, device)) == 1
    await reconcile_card_lists(db, state.get(CommandService), today)
    assert len(await lists(db, device)) == 1, "the terminal holds today's list already"

    # tomorrow the lapsed licence is out of the list, but the terminal enforces the date it holds: nothing is sent
    tomorrow = today + timedelta(days=1)
    await reconcile_card_lists(db, state.get(CommandService), tomorrow)
    assert len(await lists(db, device)) == 1

    # renewed (without the event): the terminal would refuse a valid driver, so the list goes again
    await set_driver_fields(db, lapsing["id"], license_valid_until=day_start_utc(today + timedelta(days=365)))
    await reconcile_card_lists(db, state.get(CommandService), tomorrow)
    renewed = (await lists(db, device))[-1]
    assert len(await lists(db, device)) == 2
    assert sorted(cards_of(renewed)) == sorted(
        [(lapsing["serial"], (today + timedelta(days=365)).isoformat(), None), (steady["serial"], None, None)]
    )
    await reconcile_card_lists(db, state.get(CommandService), tomorrow)
    assert len(await lists(db, device)) == 2, "nothing changed since"


async def events_of(db: Database, vid: int) -> list[Event]:
    async with db.sessionmaker() as s:
        rows = await s.execute(select(Event).where(Event.vehicle_id == vid).order_by(Event.begin_time, Event.id))
        return list(rows.scalars().all())


async def test_every_identity_report_is_checked_by_the_pipeline(db: Database) -> None:
    vid, dev = await vehicle(db)
    other_vid, _ = await vehicle(db)
    on_duty = await add_driver(db, vehicles=(vid,), name="在岗")
    elsewhere = await add_driver(db, vehicles=(other_vid,), name="别处")
    banned = await add_driver(db, vehicles=(vid,), blacklisted=True, name="黑名单")
    lapsed = await add_driver(db, vehicles=(vid,), valid_until=datetime(2026, 3, 1, 16, 0), name="过期")  # 3-2 local
    foreign = await add_driver(db, "654321", serial=None, name="外租户")  # another tenant's card
    unbound = await add_driver(db, vehicles=(vid,))
    async with db.sessionmaker() as s:
        await s.execute(update(DriverCard).where(DriverCard.id == unbound["card"]).values(driver_id=None))
        await s.commit()
    p = Pipeline(db, LocalBus())

    def card(serial: str | None, sec: int, **kw: object) -> Report:
        return Report(dev, (), T0, driver=DriverChange(serial, time=T0 + timedelta(seconds=sec), **kw))  # type: ignore[arg-type]

    await p.process([report(dev, fix(0))])
    await p.process(
        [
            card(elsewhere["serial"], 1),
            card(banned["serial"], 2),
            card(foreign["serial"], 3),
            card(unbound["serial"], 4),
            card("12345", 5),
            card(lapsed["serial"], 6),  # 2026-03-02 09:00 local: valid through 03-02
            card(lapsed["serial"], 86400 + 6),  # the next day: expired
        ]
    )
    refused = [e for e in await events_of(db, vid) if e.kind == "card_refused"]
    assert [(json.loads(e.detail or "{}")["reason"], e.driver_name) for e in refused] == [
        ("not_authorized", "别处"),
        ("blacklisted", "黑名单"),
        ("unknown_card", None),  # another tenant's card is unknown here, its driver not named
        ("unknown_card", None),
        ("unknown_card", None),
        ("licence_expired", "过期"),
    ]
    assert all(e.end_time == e.begin_time and e.level == 1 for e in refused), "instant alarms"
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
    assert st is not None and st.driver_id is None, "nobody is on duty after a refused card"

    # accepted: named until power-off; the fix that turns ACC off carries no driver
    await p.process([card(on_duty["serial"], 10), report(dev, fix(20), fix(30, status=0), fix(40, status=0))])
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
        rows = await s.execute(
            select(Position.device_time, Position.driver_id)
            .where(Position.vehicle_id == vid)
            .order_by(Position.device_time)
        )
        drivers = [d for _, d in rows.all()]
    assert drivers == [None, on_duty["id"], None, None]
    assert st is not None and (st.driver_id, st.driver_name) == (None, None), "power-off ended the duty"
    await p.stop()


async def test_a_card_presented_before_any_position_is_kept(db: Database) -> None:
    vid, dev = await vehicle(db)
    driver = await add_driver(db, vehicles=(vid,), name="先刷卡")
    p = Pipeline(db, LocalBus())
    await p.process([Report(dev, (), T0, driver=DriverChange(driver["serial"], time=T0))])
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
    assert st is not None and (st.driver_id, st.driver_name, st.driver_card) == (
        driver["id"],
        "先刷卡",
        driver["serial"],
    )
    await p.process([report(dev, fix(5))])
    async with db.sessionmaker() as s:
        st = await s.get(VehicleState, vid)
        [named] = (await s.execute(select(Position.driver_id).where(Position.vehicle_id == vid))).scalars().all()
    assert st is not None and st.driver_id == driver["id"] and named == driver["id"]
    await p.stop()
