"""Drivers enforced on the vehicle, through the real gateway with a simulated terminal (both databases): the card
list reaches the terminal through the command service and is acknowledged; a card not on it is refused by the
terminal (the vehicle stays locked) and by the platform (a ``card_refused`` alarm, an in-site message); once the
authorization's list is acknowledged the same card is accepted and names the driver on the live state and on the
positions; a licence that expires tonight stops the card tomorrow (by the report's time)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import pytest
from sqlalchemy import select

from liftdesk.fleet.papers import local_today
from liftdesk.system.models import SiteMessage
from liftdesk.telemetry.cards import day_start_utc
from liftdesk.telemetry.commands import ACKNOWLEDGED
from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.models import Command, Event, Position, VehicleState
from liftdesk.telemetry.simulator import SimulatedForklift, demo_specs
from tests.conftest import Api, Parts, parts
from tests.telemetry.driver_fixtures import add_driver, authorize, cards_changed

F = "/api/blade-fics-report/fics"
WAIT = 15.0
T = TypeVar("T")


def app_state(api: Api) -> Parts:
    return parts(api)


async def until(probe: Callable[[], Awaitable[T | None]], what: str) -> T:
    """Poll ``probe`` until it answers something truthy (at most ``WAIT`` seconds)."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while True:
        got = await probe()
        if got:
            return got
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


@pytest.fixture
async def truck(api: Api) -> AsyncIterator[tuple[int, SimulatedForklift]]:
    state = app_state(api)
    spec = demo_specs(1, seed=11, first=700 + api.counter)[0]
    car = await api.post(
        f"{F}/carInfo/insertCarInfo",
        json={"carNo": api.unique("DRV-"), "deviceNumber": spec.device, "carType": int(spec.vehicle_type)},
    )
    assert car["code"] == 200, car
    await state.commands.start()
    gateway = Gateway(api.db, state.pipeline, state.terminals, state.commands, host="127.0.0.1", port=0)
    await gateway.start()
    sim = SimulatedForklift(spec, "127.0.0.1", gateway.port, speedup=20.0, report_interval_s=10.0)
    stop = asyncio.Event()
    task = asyncio.create_task(sim.run(stop))
    try:
        await until(lambda: asyncio.sleep(0, sim.online), "the simulated terminal online")
        yield int(car["data"]["id"]), sim
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await gateway.stop()
        await state.commands.stop()
        await state.pipeline.stop()


async def card_lists(api: Api, device: str) -> list[Command]:
    async with api.db.sessionmaker() as s:
        rows = await s.execute(
            select(Command).where(Command.device_number == device, Command.name == "card_list").order_by(Command.id)
        )
        return list(rows.scalars().all())


async def acknowledged_list(api: Api, device: str, count: int) -> Command:
    """The ``count``-th card list of the device, once the terminal acknowledged it."""

    async def probe() -> Command | None:
        rows = await card_lists(api, device)
        return rows[count - 1] if len(rows) >= count and rows[count - 1].status == ACKNOWLEDGED else None

    return await until(probe, f"card list {count} acknowledged")


async def vehicle_state(api: Api, vid: int) -> VehicleState | None:
    async with api.db.sessionmaker() as s:
        return await s.get(VehicleState, vid)


async def refusals(api: Api, vid: int, serial: str) -> list[Event]:
    """The refusals of one card (the simulated drivers present their own cards too, which the platform does not
    know: those are refused as ``unknown_card``)."""
    async with api.db.sessionmaker() as s:
        rows = await s.execute(
            select(Event).where(Event.vehicle_id == vid, Event.kind == "card_refused").order_by(Event.create_time)
        )
        return [e for e in rows.scalars().all() if json.loads(e.detail or "{}").get("card") == serial]


async def test_a_card_is_refused_then_accepted_once_its_authorization_reaches_the_terminal(
    api: Api, truck: tuple[int, SimulatedForklift]
) -> None:
    vid, sim = truck
    state = app_state(api)
    colleague = await add_driver(api.db, vehicles=(vid,), pin="2468")
    newcomer = await add_driver(api.db, name="新司机")

    # the list (the colleague's card only) reaches the terminal through the command service
    await cards_changed(state.services, api.db, "000000", vid)
    first = await acknowledged_list(api, sim.device, 1)
    assert sim.model.card_list is not None
    assert [(c.serial, c.pin) for c in sim.model.card_list.cards] == [(colleague["serial"], "2468")]
    assert json.loads(first.payload)["crc"] == sim.model.card_list.crc, "the terminal holds what was sent"

    # a card not on the list: the terminal keeps the vehicle locked, the platform refuses it and raises an alarm
    assert not await sim.present_card(newcomer["serial"])
    [refused] = await until(lambda: refusals(api, vid, newcomer["serial"]), "a card_refused alarm")
    assert json.loads(refused.detail or "{}") == {
        "reason": "not_authorized",
        "card": newcomer["serial"],
        "driverId": str(newcomer["id"]),
    }
    assert (refused.driver_id, refused.driver_name) == (newcomer["id"], "新司机"), "it names whose card it was"

    async def locked() -> VehicleState | None:
        st = await vehicle_state(api, vid)
        return st if st is not None and st.lock_level == 2 and st.driver_id is None else None

    await until(locked, "the vehicle reported locked, nobody on duty")
    alarms = await api.post(f"{F}/carInfo/getCarWarningList", json={"carId": str(vid), "kind": "card_refused"})
    assert alarms["code"] == 200, alarms
    infos = {(r["kindName"], r["info"]) for r in alarms["data"]["records"]}
    assert ("刷卡被拒", f"未授权本车 ({newcomer['serial']})") in infos, "the alarm center's other alarms list it"
    async with api.db.sessionmaker() as s:
        found = await s.execute(select(SiteMessage.content).where(SiteMessage.business_id == vid))
        messages = found.scalars().all()
    assert any("刷卡被拒" in m and "未授权本车" in m and newcomer["serial"] in m for m in messages), messages

    # authorized: the new list is acknowledged, the terminal reads the card in its slot again, the platform accepts
    await authorize(api.db, "000000", newcomer["id"], vid)
    await cards_changed(state.services, api.db, "000000", vid)
    await acknowledged_list(api, sim.device, 2)
    assert {c.serial for c in sim.model.card_list.cards} == {colleague["serial"], newcomer["serial"]}

    async def on_duty() -> VehicleState | None:
        st = await vehicle_state(api, vid)
        ok = st is not None and st.driver_id == newcomer["id"] and st.lock_level == 0
        return st if ok else None

    st = await until(on_duty, "the newcomer on duty, the vehicle unlocked")
    assert (st.driver_name, st.driver_card) == ("新司机", newcomer["serial"])
    [shown] = (await api.post(f"{F}/carInfo/getCarLastGPSInfo", json={"carIds": [str(vid)]}))["data"]
    assert (shown["driverName"], shown["driverId"]) == ("新司机", str(newcomer["id"]))

    async def named_positions() -> list[int] | None:
        async with api.db.sessionmaker() as s:
            found = await s.execute(
                select(Position.driver_id).where(Position.vehicle_id == vid, Position.driver_id == newcomer["id"])
            )
            return list(found.scalars().all()) or None

    await until(named_positions, "positions naming the driver")
    assert len(await refusals(api, vid, newcomer["serial"])) == 1, "the accepted card raised nothing"


async def test_a_licence_that_expires_tonight_stops_the_card_tomorrow(
    api: Api, truck: tuple[int, SimulatedForklift]
) -> None:
    vid, sim = truck
    state = app_state(api)
    today = local_today()
    driver = await add_driver(api.db, vehicles=(vid,), valid_until=day_start_utc(today))
    await cards_changed(state.services, api.db, "000000", vid)
    await acknowledged_list(api, sim.device, 1)
    [entry] = sim.model.card_list.cards  # type: ignore[union-attr]
    assert entry.valid_until == today, "the terminal is given the licence's last valid day"

    assert await sim.present_card(driver["serial"]), "valid through today"

    async def on_duty() -> VehicleState | None:
        st = await vehicle_state(api, vid)
        return st if st is not None and st.driver_id == driver["id"] else None

    await until(on_duty, "the driver on duty today")

    # tomorrow morning (the report's clock, not the machine's): the terminal and the platform both refuse it
    tomorrow = datetime.combine(today + timedelta(days=1), datetime.min.time()).replace(tzinfo=UTC) + timedelta(
        hours=1
    )  # 09:00 in UTC+8
    assert not await sim.present_card(driver["serial"], at=tomorrow)
    assert sim.model.lock_level == 2
    [refused] = await until(lambda: refusals(api, vid, driver["serial"]), "the card refused tomorrow")
    assert json.loads(refused.detail or "{}")["reason"] == "licence_expired"
    assert refused.begin_time == tomorrow.replace(tzinfo=None)

    async def nobody() -> VehicleState | None:
        st = await vehicle_state(api, vid)
        return st if st is not None and st.driver_id is None else None

    await until(nobody, "nobody on duty after the refusal")
    assert len(await card_lists(api, sim.device)) == 1, "expiry is enforced with the date given: no list re-sent"
