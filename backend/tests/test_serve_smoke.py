"""``make run`` end to end: the real server process with its simulated fleet, seen through the API and the live feed.

The issue's first acceptance criterion: "With make run, the simulated fleet's positions, states and alarms appear
through the API and the live feed within seconds, and a parameter query to a simulated terminal comes back
answered." ``make run`` is ``liftdesk serve`` on a SQLite file; so is this, on a fresh file in a temporary
directory, with free ports and five simulated forklifts. Every wait polls what a client would poll, bounded so that
a failure fails instead of hanging; no sleep stands in for an assertion.

Alarms: the simulated drivers speed, overload and bump into racks now and then (``simulator/model.py``: per job
about 2 % speeding legs, 1.5 % overloads, 0.8 % impacts), but ``serve`` runs the fleet in real time (speedup 1)
and has no setting to hurry it, so none of these can be expected within a test's minute. Two alarms can:

* the simulator's own: a flooded lead-acid battery may start low on electrolyte (the BMS "liquid low" flag), which
  the first report carries; which trucks do follows from their device number and seed, so the test builds the same
  models and expects ``battery_liquid_level`` open on exactly those it finds low;
* one the pipeline raises from the simulated positions: an in-fence electronic fence (mode 1) drawn through the
  API around the vehicles opens ``fence_in`` at each vehicle's next report, on the live feed and in the API. A
  working vehicle reports every 10 s, a parked one once a minute (0x0027), so that wait is bounded at two minutes.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import websockets

from liftdesk.telemetry.simulator import SimulatedForklift, demo_specs
from tests.conftest import BASIC, live_url, md5

VEHICLES = 5
TZ = timezone(timedelta(hours=8))  # LIFTDESK_TZ_OFFSET_MINUTES below: how the API writes times
FICS = "/api/blade-fics-report/fics"
LIVE = "/api/liftdesk/live"
START_S = 90.0  # migrate, seed and start on a busy 2-core machine
WAIT_S = 30.0  # what the issue calls "within seconds", with room for a loaded machine
REPORT_WAIT_S = 120.0  # the next report of every vehicle: parked ones report once a minute
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def api_time(text: str) -> datetime:
    """``yyyy-MM-dd HH:mm:ss`` in the tenants' zone → aware UTC."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=TZ).astimezone(UTC)


def api_text(when: datetime) -> str:
    return when.astimezone(TZ).strftime("%Y-%m-%d %H:%M:%S")


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6_371_008.8 * math.asin(math.sqrt(a))


async def poll(what: str, probe: Callable[[], Awaitable[tuple[bool, T]]], wait_s: float = WAIT_S) -> T:
    """Call ``probe`` until it reports success; fail with ``what`` and the last thing seen after ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while True:
        done, seen = await probe()
        if done:
            return seen
        assert time.monotonic() < deadline, f"{what}: not within {wait_s:.0f} s; last seen: {seen}"
        await asyncio.sleep(0.25)


@dataclass
class Server:
    proc: asyncio.subprocess.Process
    base: str
    log: Path

    def log_tail(self, n: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-n:]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    """``liftdesk serve`` as ``make run`` starts it, on a fresh SQLite file; stopped with SIGTERM by the test (or
    killed here if the test failed first)."""
    port, gateway_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LIFTDESK_")}
    env.update(
        LIFTDESK_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'liftdesk.db'}",
        LIFTDESK_PORT=str(port),
        LIFTDESK_GATEWAY_PORT=str(gateway_port),
        LIFTDESK_GATEWAY_HOST="127.0.0.1",
        LIFTDESK_SIMULATOR_VEHICLES=str(VEHICLES),
        LIFTDESK_VAR_DIR=str(tmp_path / "var"),
        LIFTDESK_TZ_OFFSET_MINUTES="480",
    )
    liftdesk = Path(sys.executable).with_name("liftdesk")
    assert liftdesk.is_file(), f"{liftdesk}: the venv's liftdesk command is missing (pip install -e .)"
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            str(liftdesk), "serve", cwd=tmp_path, env=env, stdout=out, stderr=asyncio.subprocess.STDOUT
        )
    srv = Server(proc, f"http://127.0.0.1:{port}", log)
    try:
        yield srv
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def sign_in(client: httpx.AsyncClient, password: str = "admin") -> str:
    """Signs in as a newcomer does: admin / admin first, which asks for a new password before anything else."""
    params = {
        "tenantId": "000000",
        "username": "admin",
        "password": md5(password),
        "grant_type": "password",
        "scope": "all",
        "type": "account",
    }
    r = await client.post(
        "/api/blade-auth/oauth/token", params=params, headers={"Authorization": BASIC, "Tenant-Id": "000000"}
    )
    assert r.status_code == 200, r.text
    if r.json()["must_change_password"]:
        chosen = "Smoke-test#1"
        changed = await client.post(
            "/api/blade-user/update-password",
            params={"oldPassword": md5(password), "newPassword": md5(chosen), "newPassword1": md5(chosen)},
            headers={"Blade-Auth": f"bearer {r.json()['access_token']}", "Authorization": BASIC},
        )
        assert changed.json()["code"] == 200, changed.text
        return await sign_in(client, chosen)
    token: str = r.json()["access_token"]
    return token


async def test_make_run_serves_the_simulated_fleet(server: Server) -> None:
    specs = demo_specs(VEHICLES)
    devices = {spec.device for spec in specs}
    # What the server's simulator starts with (its models are deterministic: device number and seed)
    low_electrolyte = {
        spec.device
        for spec in specs
        if (battery := SimulatedForklift(spec, "127.0.0.1", 0).model.battery) is not None and battery.liquid_low
    }
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:

        async def answering() -> tuple[bool, str]:
            assert server.proc.returncode is None, f"serve exited ({server.proc.returncode}):\n{server.log_tail()}"
            try:
                r = await client.get("/api/health")
            except httpx.TransportError as exc:
                return False, repr(exc)
            return r.status_code == 200, r.text

        await poll("the server answers /api/health", answering, START_S)
        token = await sign_in(client)
        client.headers.update({"Blade-Auth": f"bearer {token}", "Authorization": BASIC})

        async def get(path: str, **params: Any) -> Any:
            r = await client.get(path, params=params)
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["code"] == 200, body
            return body["data"]

        async def post(path: str, payload: dict[str, Any]) -> Any:
            r = await client.post(path, json=payload)
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["code"] == 200, body
            return body["data"]

        async def fleet() -> list[dict[str, Any]]:
            return list(await post(f"{FICS}/carInfo/getCarLastGPSInfo", {}))

        # -- the five simulated terminals are online, and their positions are recent
        async def all_online() -> tuple[bool, Any]:
            cnt = await get(f"{FICS}/carStatus/getCnt")
            return cnt["total"] == VEHICLES and cnt["online"] == VEHICLES, cnt

        counts = await poll("getCnt counts the five simulated vehicles online", all_online)
        assert counts["offline"] == 0
        assert counts["off"] + counts["idle"] + counts["moving"] + counts["loaded"] == VEHICLES

        async def positioned() -> tuple[bool, Any]:
            cars = await fleet()
            return len(cars) == VEHICLES and all(c["gpsTime"] and c["lat"] is not None for c in cars), cars

        cars = await poll("getCarLastGPSInfo has a position of every vehicle", positioned)
        now = datetime.now(UTC)
        assert {c["deviceNumber"] for c in cars} == devices
        for car in cars:
            assert car["online"], car
            assert abs(api_time(car["gpsTime"]) - now) < timedelta(minutes=2), car  # simulated time is now
            assert car["state"] in ("off", "idle", "moving", "loaded") and (car["state"] == "off") != car["acc"], car
        # the simulator's own alarms: trucks whose flooded battery starts low on electrolyte report it at once
        for car in cars:
            if car["deviceNumber"] in low_electrolyte:
                assert "battery_liquid_level" in car["alarms"], car

        # -- the live feed: a snapshot of the fleet, then updates
        async with websockets.connect(await live_url(server.base, token)) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
            assert first["type"] == "snapshot", first
            assert {v["deviceNumber"] for v in first["data"]} == devices
            assert all(v["lat"] is not None and v["gpsTime"] for v in first["data"])
            for v in first["data"]:
                if v["deviceNumber"] in low_electrolyte:
                    assert "battery_liquid_level" in v["alarms"], v

            # -- a parameter query to one simulated terminal comes back answered
            car = cars[0]
            answer = await get(f"{FICS}/carSet/sendGetDeviceConfig/{car['carId']}", wait=10)
            assert answer["status"] == "acknowledged", answer
            params = {p["id"]: p["value"] for p in answer["result"]["params"]}
            assert params["0x0029"] == 10, answer  # the simulated terminal's report interval (s)
            assert params["0x0001"] > 0, answer  # its heartbeat interval

            # -- the track of that vehicle
            track = await get(
                f"{FICS}/positionTrailing/positionTrailing",
                carId=car["carId"],
                beginTime=api_text(now - timedelta(hours=1)),
                endTime=api_text(now + timedelta(hours=1)),
            )
            assert track["count"] >= 1 and len(track["points"]) == track["count"], track
            last = track["points"][-1]
            assert api_time(last["gpsTime"]) >= api_time(car["gpsTime"]), (last, car)
            assert distance_m(last["lat"], last["lon"], car["lat"], car["lon"]) < 2000, (last, car)

            # -- an alarm from the simulated positions: an in-fence fence around every vehicle
            lat = sum(c["lat"] for c in cars) / len(cars)
            lon = sum(c["lon"] for c in cars) / len(cars)
            radius = max(distance_m(lat, lon, c["lat"], c["lon"]) for c in cars) + 2000
            fence = await post(
                f"{FICS}/carInfo/v2/addCarElectronicsSet",
                {
                    "name": "smoke yard",
                    "fenceType": 1,
                    "alarmMode": 1,
                    "centerLon": lon,
                    "centerLat": lat,
                    "radius": round(radius),
                    "carIds": [c["carId"] for c in cars],
                },
            )
            assert fence["carCount"] == VEHICLES, fence

            updates: list[dict[str, Any]] = []

            async def alarm_on_the_feed() -> tuple[bool, Any]:
                try:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                except TimeoutError:
                    return False, updates[-3:]
                assert msg["type"] == "vehicles", msg
                updates.extend(msg["data"])
                return any("fence_in" in v["alarms"] for v in msg["data"]), updates[-3:]

            await poll("a fence_in alarm on the live feed", alarm_on_the_feed, REPORT_WAIT_S)
            assert all(v["deviceNumber"] in devices and v["gpsTime"] for v in updates)

        # The feed publishes a vehicle after its batch is committed: the API has the alarm by now.
        fenced = {v["carId"] for v in updates if "fence_in" in v["alarms"]}
        now_cars = {c["carId"]: c for c in await fleet()}
        assert all("fence_in" in now_cars[vid]["alarms"] for vid in fenced), [now_cars[vid] for vid in fenced]
        assert (await get(f"{FICS}/carStatus/getCnt"))["alarm"] >= len(fenced)

    # -- SIGTERM stops it cleanly (the simulator, gateway, pipeline and API with it)
    server.proc.send_signal(signal.SIGTERM)
    code = await asyncio.wait_for(server.proc.wait(), 60)
    log = server.log_tail(200_000)
    # uvicorn re-raises the signal it caught once its graceful shutdown is done, so "terminated by SIGTERM" is
    # how a clean stop ends; the log tells a clean stop from a crash.
    assert code in (0, -signal.SIGTERM), f"exit code {code}:\n{server.log_tail()}"
    assert "Application shutdown complete" in log, server.log_tail()
    assert "Traceback" not in log and " ERROR " not in log, server.log_tail()
    assert "WebSocket /api/" in log and "ticket=***" in log, "the live feed's connection is logged, its ticket cut"
    assert token not in log, "an access token in the log"
