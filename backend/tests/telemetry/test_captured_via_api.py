"""Issue 3's acceptance path: vehicles registered through insertCarInfo, terminals replaying frames captured from
real devices (2013 and 2019) over a real socket, and the values read back through the API as the frames say.

The captures carry the dates they were made on (2018 for the 2013 one), older than a tenant's default retention
period (the pipeline does not store what is older), so the vehicles belong to a tenant of their own whose retention
is as long as it gets."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from jt808_samples import sample
from sqlalchemy import delete, update

from liftdesk.fleet.models import Vehicle
from liftdesk.system.models import Tenant
from liftdesk.telemetry.codecs.jt808 import Jt808Version
from liftdesk.telemetry.gateway.client import Jt808Client
from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.models import Terminal
from tests.conftest import Api, parts, password_chosen

F = "/api/blade-fics-report/fics"
WAIT = 10.0
CAPTURED = ("123456789012", "866496077582164")


@pytest.fixture(scope="module")
async def tenant(api: Api) -> str:
    """A tenant that keeps positions for a century: created through the API (which offers up to 120 months),
    then lengthened in the database so that the 2018 capture stays within it whatever today is."""
    r = await api.post(
        "/api/blade-system/tenant/submit", json={"tenantName": api.unique("Captures "), "retentionMonths": 120}
    )
    assert r["code"] == 200, r
    tenant_id: str = r["data"]["tenantId"]
    await password_chosen(api, tenant_id)
    async with api.db.sessionmaker() as s:
        await s.execute(update(Tenant).where(Tenant.tenant_id == tenant_id).values(retention_months=1200))
        await s.commit()
    return tenant_id


@pytest.fixture
async def gateway(api: Api, tenant: str) -> AsyncIterator[Gateway]:
    state = parts(api)
    gw = Gateway(api.db, state.pipeline, state.terminals, state.commands, host="127.0.0.1", port=0)
    await gw.start()
    try:
        yield gw
    finally:
        await gw.stop()
        await state.pipeline.stop()
        # these device numbers are the captures' own and other tests use them too: leave nothing bound to them
        await _forget(api, *CAPTURED)
        state.pipeline.forget()


async def _forget(api: Api, *devices: str) -> None:
    """No vehicle (in any tenant) names these numbers and this platform has never seen their terminals."""
    async with api.db.sessionmaker() as s:
        await s.execute(update(Vehicle).where(Vehicle.device_number.in_(devices)).values(is_deleted=1))
        await s.execute(delete(Terminal).where(Terminal.device_number.in_(devices)))
        await s.commit()


async def _car(api: Api, tenant: str, device: str) -> str:
    """A vehicle naming ``device``, whose terminal this platform has never seen (other tests replay the same
    captures: a code they authenticated with would otherwise be the one remembered for it)."""
    await _forget(api, device)
    car = await api.post(
        f"{F}/carInfo/insertCarInfo",
        json={
            "carNo": api.unique("CAP-"),
            "deviceNumber": device,
            "terminalAuthCode": "code-from-the-old-platform",
        },
        tenant=tenant,
    )
    assert car["code"] == 200, car
    return str(car["data"]["id"])


async def test_2013_capture_read_back_through_the_api(api: Api, tenant: str, gateway: Gateway) -> None:
    car_id = await _car(api, tenant, "123456789012")
    async with Jt808Client("127.0.0.1", gateway.port, "123456789012", Jt808Version.V2013) as client:
        assert await client.authenticate("code-from-the-old-platform") == 0
        done = client.expect(126, 0x0200)
        await client.write(sample("smallchi_0200_escaped"))
        assert (await asyncio.wait_for(done, WAIT)).result == 0
    [last] = (await api.post(f"{F}/carInfo/getCarLastGPSInfo", json={"carIds": [car_id]}, tenant=tenant))["data"]
    # the frame: lat 12.222222, lon 132.444444, speed 6.0 km/h, 2018-10-15 10:10:10 (GMT+8), mileage 10 km
    assert (last["lat"], last["lon"], last["speed"], last["gpsTime"], last["mileage"]) == (
        12.222222,
        132.444444,
        6.0,
        "2018-10-15 10:10:10",
        10.0,
    )
    track = await api.get(
        f"{F}/positionTrailing/positionTrailing",
        params={"carId": car_id, "beginTime": "2018-10-15 00:00:00", "endTime": "2018-10-16 00:00:00"},
        tenant=tenant,
    )
    assert [(p["gpsTime"], p["lat"], p["lon"], p["speed"]) for p in track["data"]["points"]] == [
        ("2018-10-15 10:10:10", 12.222222, 132.444444, 6.0)
    ]


async def test_2019_capture_read_back_through_the_api(api: Api, tenant: str, gateway: Gateway) -> None:
    car_id = await _car(api, tenant, "866496077582164")
    async with Jt808Client("127.0.0.1", gateway.port, "00000866496077582164", Jt808Version.V2019) as client:
        reg = client.expect(21016, 0x0100)
        await client.write(sample("traccar_0100_2019"))
        reply = await asyncio.wait_for(reg, WAIT)
        assert reply.result == 0 and reply.auth_code
        assert await client.authenticate(reply.auth_code, imei="866496077582164", software="2.1") == 0
        done = client.expect(34845, 0x0704)
        await client.write(sample("traccar_0704_2019"))
        assert (await asyncio.wait_for(done, WAIT)).result == 0
    [last] = (await api.post(f"{F}/carInfo/getCarLastGPSInfo", json={"carIds": [car_id]}, tenant=tenant))["data"]
    assert last["gpsTime"] == "2026-05-09 16:42:27"
    track = await api.get(
        f"{F}/positionTrailing/positionTrailing",
        params={"carId": car_id, "beginTime": "2026-05-09 00:00:00", "endTime": "2026-05-10 00:00:00"},
        tenant=tenant,
    )
    [point] = track["data"]["points"]
    assert (point["lat"], point["lon"]) == (last["lat"], last["lon"]) and point["extra"]["satellites"] == 14
