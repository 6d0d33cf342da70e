"""The live feed over a real WebSocket: scoped per tenant, vehicle states coalesced per vehicle, events and online
changes pushed (events bounded per connection), closed for bad tokens."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

from liftdesk.app import create_app
from liftdesk.core.config import Settings
from liftdesk.telemetry.codecs.jt808 import RegistrationResult
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.live import LiveHub
from liftdesk.telemetry.messages import Fix, Report
from liftdesk.telemetry.pipeline import OpenAlarm, Pipeline, VehicleCtx, live_view
from liftdesk.telemetry.rules import Thresholds, collision_level
from liftdesk.telemetry.terminals import TerminalService
from tests.conftest import Api, Tenants, live_url, md5
from tests.security.test_signin import new_user

F = "/api/blade-fics-report/fics"


@pytest.fixture
async def server(api: Api, request: pytest.FixtureRequest) -> AsyncIterator[tuple[Any, int]]:
    """The whole server (API, gateway, pipeline, live hub) on a free port; settings overrides by indirect
    parametrisation."""
    overrides: dict[str, Any] = dict(getattr(request, "param", {}))
    if overrides.get("gateway_port") == "free":
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            overrides["gateway_port"] = probe.getsockname()[1]
        overrides["gateway_host"] = "127.0.0.1"
    settings = Settings(
        **{"database_url": api.db.url, "env": "test", "gateway_port": 0, "simulator_vehicles": 0, **overrides}
    )
    app = create_app(settings, db=api.db, services=True)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    srv = uvicorn.Server(config)
    task = asyncio.create_task(srv.serve())
    for _ in range(200):
        if srv.started:
            break
        await asyncio.sleep(0.02)
    port = srv.servers[0].sockets[0].getsockname()[1]
    try:
        yield app, port
    finally:
        srv.should_exit = True
        await asyncio.wait_for(task, 10)


async def _recv(ws: Any, kind: str, wait_s: float = 5.0) -> list[dict[str, Any]]:
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), wait_s))
        if msg["type"] == kind:
            return list(msg["data"])


async def _fleet(ws: Any, car_id: str, wait_s: float = 5.0) -> list[dict[str, Any]]:
    """The fleet the socket sends as it connects, read until ``car_id`` is in it: a ``snapshot`` with the first
    piece, then ``vehicles`` with the rest."""
    fleet = await _recv(ws, "snapshot", wait_s)
    while all(m["carId"] != car_id for m in fleet):
        fleet += await _recv(ws, "vehicles", wait_s)
    return fleet


async def test_live_feed_is_scoped_and_coalesced(api: Api, tenants: Tenants, server: tuple[Any, int]) -> None:
    app, port = server
    device = f"7{abs(hash(api.unique())) % 10**11:011d}"
    car = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": api.unique("LIVE-"), "deviceNumber": device})
    car_id = car["data"]["id"]
    token_a = await api.token("admin", "admin")
    token_b = await api.token("admin", "admin", tenants.b)
    base = f"http://127.0.0.1:{port}"
    url_a, url_b = await live_url(base, token_a), await live_url(base, token_b)
    async with websockets.connect(url_a) as a, websockets.connect(url_b) as b:
        await _recv(a, "snapshot")
        await _recv(b, "snapshot")
        t0 = datetime(2026, 6, 1, 1, 0, 0)
        for i in range(5):  # five reports within one flush interval
            fix = Fix(time=t0 + timedelta(seconds=i), lat=31.2, lon=121.5 + i * 1e-4, speed_kmh=float(i))
            await app.state.services.get(Pipeline).process([Report(device=device, fixes=(fix,), received_at=t0)])
        updates: list[dict[str, Any]] = []
        while not updates or updates[-1]["speed"] != 4.0:
            got = await _recv(a, "vehicles")
            mine = [m for m in got if m["carId"] == car_id]
            assert len(mine) <= 1, "one entry per vehicle per flush"
            updates += mine
        assert len(updates) < 5, "five reports within a second coalesce (at most one per flush interval)"
        with pytest.raises(TimeoutError):
            while True:  # tenant B must not hear of tenant A's vehicle
                other = await _recv(b, "vehicles", wait_s=1.5)
                assert all(m["carId"] != car_id for m in other)
    async with websockets.connect(await live_url(base, token_a)) as again:
        snap = await _fleet(again, car_id)
        mine = [m for m in snap if m["carId"] == car_id]
        assert len(mine) == 1
        # the snapshot and the pushed updates are one shape, with the same values for the same state
        assert set(mine[0]) == set(updates[-1]) and mine[0]["carNo"] == updates[-1]["carNo"] == car["data"]["carNo"]
        assert mine[0]["gpsTime"] == updates[-1]["gpsTime"] == "2026-06-01 09:00:04" and mine[0]["speed"] == 4.0
        # ... and so is the REST answer, value for value where the state is the same
        [rest] = (await api.post(f"{F}/carInfo/getCarLastGPSInfo", json={"carIds": [car_id]}))["data"]
        assert set(rest) - {"_status"} == set(mine[0])
        same = ("carId", "carNo", "gpsTime", "speed", "lat", "lon", "state", "alarms", "lastSeen", "online")
        assert {k: rest[k] for k in same} == {k: mine[0][k] for k in same}
    for bad in ("not-a-ticket", url_a.rsplit("=", 1)[1], token_a):  # made up, already used, a token instead
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            async with websockets.connect(f"ws://127.0.0.1:{port}/api/liftdesk/live?ticket={bad}") as ws:
                await ws.recv()
        assert refused.value.response.status_code == 403, "the handshake is refused without a valid ticket"
    with pytest.raises(websockets.exceptions.InvalidStatus):
        async with websockets.connect(f"ws://127.0.0.1:{port}/api/liftdesk/live?blade-auth={token_a}") as ws:
            await ws.recv()  # the token in the URL is no longer a way in


def test_open_alarms_are_listed_by_kind_once() -> None:
    """A vehicle holds one open fence alarm per fence (``fence_in:<fenceId>``); the live state lists kinds."""
    ctx = VehicleCtx(1, "000000", None, "013800000001", Thresholds(), car_no="FL-1")
    for key in ("fence_in:11", "fence_in:12", "speeding", "fence_speeding:11"):
        ctx.open[key] = OpenAlarm(1, datetime(2026, 6, 1), 1.0, 1.0)
    assert live_view(ctx, datetime(2026, 6, 1))["alarms"] == ["fence_in", "fence_speeding", "speeding"]


WIRED = {"auto_register_tenant": "000000", "gateway_idle_timeout_s": 0.5, "gateway_port": "free"}


@pytest.mark.parametrize("server", [WIRED], indirect=True)
async def test_server_settings_reach_the_gateway(server: tuple[Any, int]) -> None:
    """LIFTDESK_AUTO_REGISTER_TENANT lets a terminal no vehicle names register (into that tenant, with a vehicle
    of its own); LIFTDESK_GATEWAY_IDLE_TIMEOUT_S closes a silent connection."""
    app, _ = server
    device = f"6{abs(hash(datetime.now())) % 10**11:011d}"
    client = await Jt808Client("127.0.0.1", app.state.services.get(Gateway).port, device).connect()
    try:
        reply = await client.register(registration())
        assert reply.result == RegistrationResult.SUCCESS and reply.auth_code
        assert await client.authenticate(reply.auth_code) == 0
        known = await app.state.services.get(TerminalService).lookup(device)
        assert known is not None and known.tenant_id == "000000" and known.vehicle_id is not None
        await asyncio.wait_for(client.closed.wait(), 5)  # idle for longer than 0.5 s
    finally:
        await client.close()


async def test_the_fleet_at_connection_comes_in_pieces(
    api: Api, server: tuple[Any, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large fleet is sent as one ``snapshot`` piece and then ``vehicles`` pieces (a browser parses each in a task
    of its own), each at most SNAPSHOT_PIECE long: together the same fleet as one whole snapshot, each vehicle once."""
    from liftdesk.telemetry import live

    app, port = server
    t0 = datetime(2026, 6, 3, 1, 0, 0)
    for i in range(3):
        device = f"6{abs(hash(api.unique())) % 10**11:011d}"
        await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": api.unique("PIECE-"), "deviceNumber": device})
        fix = Fix(time=t0, lat=31.2, lon=121.5 + i * 1e-3, speed_kmh=1.0)
        await app.state.services.get(Pipeline).process([Report(device=device, fixes=(fix,), received_at=t0)])
    token = await api.token("admin", "admin")

    async def first_messages(piece: int, count: int) -> list[tuple[str, list[str]]]:
        monkeypatch.setattr(live, "SNAPSHOT_PIECE", piece)
        async with websockets.connect(await live_url(f"http://127.0.0.1:{port}", token)) as ws:
            got = [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(count)]
        return [(m["type"], [v["carId"] for v in m["data"]]) for m in got]

    [(kind, whole)] = await first_messages(10**6, 1)
    assert kind == "snapshot" and len(whole) >= 3
    pieces = await first_messages(2, -(-len(whole) // 2))
    assert [kind for kind, _ in pieces] == ["snapshot"] + ["vehicles"] * (len(pieces) - 1)
    assert all(len(ids) == 2 for _, ids in pieces[:-1]) and 1 <= len(pieces[-1][1]) <= 2
    sent = [i for _, ids in pieces for i in ids]
    assert len(set(sent)) == len(sent) and sorted(sent) == sorted(whole), "the same vehicles, each once"


async def test_events_and_online_changes_reach_their_tenant_bounded(
    api: Api, tenants: Tenants, server: tuple[Any, int]
) -> None:
    """Instant alarms (a collision never shows in a vehicle's open alarms) and online changes are pushed as they
    happen: each event (up to the hub's bound per interval, the rest summarised by kind), to the vehicle's tenant
    only."""
    app, port = server
    app.state.services.get(LiveHub).max_events = 3
    device = f"5{abs(hash(api.unique())) % 10**11:011d}"
    car = await api.post(f"{F}/carInfo/insertCarInfo", json={"carNo": api.unique("EVT-"), "deviceNumber": device})
    car_id = car["data"]["id"]
    base = f"http://127.0.0.1:{port}"
    token_a = await api.token("admin", "admin")
    token_b = await api.token("admin", "admin", tenants.b)
    url_a, url_b = await live_url(base, token_a), await live_url(base, token_b)
    async with websockets.connect(url_a) as a, websockets.connect(url_b) as b:
        await _recv(a, "snapshot")
        await _recv(b, "snapshot")
        t0 = datetime(2026, 6, 2, 1, 0, 0)
        knocks = tuple(
            Fix(time=t0 + timedelta(seconds=i), lat=31.2, lon=121.5, impact_g=3.0 + i, impact_direction=90)
            for i in range(5)
        )
        await app.state.services.get(Pipeline).process([Report(device=device, fixes=knocks, received_at=t0)])
        await app.state.services.get(TerminalService).set_online(device, False)
        got: dict[str, Any] = {}
        while not {"event", "eventSummary", "online"} <= set(got):
            msg = json.loads(await asyncio.wait_for(a.recv(), 5))
            if msg["type"] in ("event", "eventSummary", "online"):
                assert msg["type"] not in got, "one message of each per flush"
                got[msg["type"]] = msg["data"]
        events = [e for e in got["event"] if e["carId"] == car_id]
        assert [(e["kind"], e["level"], e["time"]) for e in events] == [
            ("collision", collision_level(3.0 + i, 1.5), f"2026-06-02 09:00:0{i}") for i in range(3)
        ], "the first three, each with its own time and level"
        assert set(events[0]) == {"id", "carId", "tenantId", "mechanismId", "kind", "level", "time", "value"} | {
            "limit",
            "lat",
            "lon",
        }
        assert got["eventSummary"] == {"dropped": 2, "kinds": {"collision": 2}}
        [online] = [m for m in got["online"] if m["carId"] == car_id]
        assert online["online"] is False and online["tenantId"] == "000000"
        with pytest.raises(TimeoutError):
            while True:  # tenant B hears of none of it
                other = json.loads(await asyncio.wait_for(b.recv(), 1.5))
                data = other["data"] if isinstance(other["data"], list) else []
                assert other["type"] != "eventSummary" and all(m.get("carId") != car_id for m in data)


async def test_revoked_tokens_close_their_live_sockets(api: Api, server: tuple[Any, int]) -> None:
    """Finding 8 of the security probe: after logout (or a password change) an open live socket kept receiving."""
    _, port = server
    account, _ = await new_user(api)
    base = f"http://127.0.0.1:{port}"

    async def token() -> str:
        r = await api.login(account, "Secret-pw1")
        return str(r.json()["access_token"])

    first, second = await token(), await token()
    url_first, url_second = await live_url(base, first), await live_url(base, second)
    async with websockets.connect(url_first) as by_logout, websockets.connect(url_second) as by_change:
        await _recv(by_logout, "snapshot")
        await _recv(by_change, "snapshot")
        async with httpx.AsyncClient(base_url=base) as http:  # through the real server, whose bus the hub hears
            await http.get("/api/blade-auth/oauth/logout", headers={"Blade-Auth": f"bearer {first}"})
            await _closed(by_logout)
            await asyncio.sleep(0.2)
            assert by_change.state == websockets.protocol.State.OPEN, "another token of the same user stays"
            new = {
                "oldPassword": md5("Secret-pw1"),
                "newPassword": md5("Changed-pw2"),
                "newPassword1": md5("Changed-pw2"),
            }
            changed = await http.post(
                "/api/blade-user/update-password", params=new, headers={"Blade-Auth": f"bearer {second}"}
            )
            assert changed.json()["code"] == 200, changed.text
            await _closed(by_change)


async def _closed(ws: Any) -> None:
    """The server closes the socket (messages already on their way are read past); a timeout fails the test."""
    with pytest.raises(websockets.exceptions.ConnectionClosed):
        while True:
            await asyncio.wait_for(ws.recv(), 5)


async def test_a_ticket_opens_one_socket_for_a_caller_who_may_read_the_live_state(
    api: Api, driver: str, server: tuple[Any, int]
) -> None:
    """The live socket takes a single-use ticket asked with the token (no token in a URL, where proxies and browser
    histories keep it), valid 30 s, and asks for the right to read the live state (the monitor's menu) like every
    other read: a user without it gets no ticket, and a ticket issued to them anyway opens no socket."""
    from liftdesk.core.kv import KV
    from liftdesk.telemetry.live import issue_ticket, ticket_key

    _, port = server
    base = f"http://127.0.0.1:{port}"
    token = await api.token(driver, "driver-1")  # a user granted no menu
    async with httpx.AsyncClient(base_url=base) as http:
        asked = (await http.post("/api/liftdesk/live/ticket", headers={"Blade-Auth": f"bearer {token}"})).json()
        assert asked["code"] == 403, asked
        anonymous = (await http.post("/api/liftdesk/live/ticket")).json()
        assert anonymous["code"] == 401, anonymous
    async with api.db.sessionmaker() as s:
        forged = await issue_ticket(KV(s), token)  # as if the grant was taken away after the ticket was given
        expired = "expired-ticket"
        await KV(s).set(ticket_key(expired), await api.token("admin", "admin"), timedelta(seconds=-1))
        await s.commit()
    for ticket in (forged, expired):
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            async with websockets.connect(f"ws://127.0.0.1:{port}/api/liftdesk/live?ticket={ticket}") as ws:
                await ws.recv()
        assert refused.value.response.status_code == 403
    # the administrator's ticket opens one socket, once; two sockets at once with one ticket: one only
    url = await live_url(base, await api.token("admin", "admin"))
    results = await asyncio.gather(*(_try(url) for _ in range(3)))
    assert sorted(results) == [False, False, True], results


async def _try(url: str) -> bool:
    try:
        async with websockets.connect(url) as ws:
            await _recv(ws, "snapshot")
            return True
    except websockets.exceptions.InvalidStatus:
        return False
