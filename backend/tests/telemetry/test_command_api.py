"""From the settings API to a simulated terminal over a real socket and back: query, lock, speed limit."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.simulator import SimulatedForklift, demo_specs
from tests.conftest import Api, Tenants

F = "/api/blade-fics-report/fics"


@pytest.fixture
async def forklift(api: Api) -> AsyncIterator[tuple[str, SimulatedForklift]]:
    state: Any = api.client._transport.app.state  # type: ignore[attr-defined]
    spec = demo_specs(1, seed=7, first=900 + api.counter)[0]
    car = await api.post(
        f"{F}/carInfo/insertCarInfo",
        json={"carNo": api.unique("CMD-"), "deviceNumber": spec.device, "carType": int(spec.vehicle_type)},
    )
    assert car["code"] == 200, car
    await state.commands.start()
    gateway = Gateway(api.db, state.pipeline, state.terminals, state.commands, host="127.0.0.1", port=0)
    await gateway.start()
    sim = SimulatedForklift(spec, "127.0.0.1", gateway.port, speedup=20.0, report_interval_s=10.0)
    stop = asyncio.Event()
    task = asyncio.create_task(sim.run(stop))
    for _ in range(500):
        if sim.online:
            break
        await asyncio.sleep(0.02)
    assert sim.online, "the simulated terminal registered and authenticated"
    try:
        yield car["data"]["id"], sim
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await gateway.stop()
        await state.commands.stop()
        await state.pipeline.stop()


async def test_parameter_query_lock_and_limit(api: Api, tenants: Tenants, forklift: tuple[str, Any]) -> None:
    car_id, sim = forklift
    q = await api.get(f"{F}/carSet/sendGetDeviceConfig/{car_id}", params={"wait": 10})
    assert q["code"] == 200 and q["data"]["status"] == "acknowledged", q
    params = {p["name"]: p["value"] for p in q["data"]["result"]["params"]}
    assert params["heartbeat_interval"] == sim.params.values.get(0x0001) and "lock_level" in params

    lock = await api.post(f"{F}/carSet/lockCar", json={"carIds": [car_id], "lockLevel": 1, "wait": 10})
    assert lock["data"][0]["status"] == "acknowledged", lock
    assert sim.params.values.get(0xF001) == 1, "the terminal holds the new lock level"

    limit = await api.post(f"{F}/carSet/rateLimiting", json={"carId": car_id, "speedLimit": 8, "wait": 10})
    assert limit["data"][0]["status"] == "acknowledged" and sim.params.values.get(0xF002) == 8

    bad = await api.post(f"{F}/carSet/rateLimiting", json={"carIds": [car_id], "speedLimit": 45})
    assert bad["code"] == 400 and "speedLimit" in bad["msg"]
    wrong = await api.post(f"{F}/carSet/sendDeviceConfig", json={"carIds": [car_id], "params": {"lock_level": 9}})
    assert wrong["code"] == 400 and "lock_level" in wrong["msg"], "the parameter table validates before sending"
    other = await api.get(f"{F}/carSet/sendGetDeviceConfig/{car_id}", tenant=tenants.b)
    assert other["code"] == 400, "another tenant cannot command this vehicle"
