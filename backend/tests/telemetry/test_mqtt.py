"""The MQTT adapter against the real Mosquitto on 127.0.0.1:1883, with the real pipeline and databases.

Every test uses its own topic prefix and client ids so that concurrent runs on the same broker do not mix.
Waits are on the adapter's progress condition (``MqttAdapter.until``) and on messages, each bounded.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import aiomqtt
import pytest
from sqlalchemy import select, update
from test_gateway import add_vehicle, positions, state, terminal_row

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.commands import ACKNOWLEDGED, FAILED, PENDING, CommandService
from liftdesk.telemetry.messages import Report
from liftdesk.telemetry.models import Event, FaceRecord, Terminal
from liftdesk.telemetry.mqtt import BrokerAddress, MqttAdapter
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import TerminalService
from tests.telemetry.driver_fixtures import add_driver

BROKER = os.environ.get("LIFTDESK_TEST_MQTT", "mqtt://127.0.0.1:1883")
T0 = (datetime.now(UTC) - timedelta(days=3)).replace(minute=0, second=0, microsecond=0)  # within retention
WAIT = 10.0


@dataclass
class Mqtt:
    db: Database
    pipeline: Pipeline
    terminals: TerminalService
    commands: CommandService
    adapter: MqttAdapter
    prefix: str
    client_id: str

    def topic(self, device: str, kind: str) -> str:
        return f"{self.prefix}/{device}/{kind}"

    def new_adapter(self, pipeline: Pipeline | None = None) -> MqttAdapter:
        return MqttAdapter(
            BROKER,
            pipeline or self.pipeline,
            self.terminals,
            self.commands,
            prefix=self.prefix,
            client_id=self.client_id,
            reconnect_s=0.05,
        )


async def forget_session(client_id: str) -> None:
    """Drop the persistent session a test left on the broker."""
    a = BrokerAddress.parse(BROKER)
    async with aiomqtt.Client(a.host, a.port, identifier=client_id, clean_session=True):
        pass


@pytest.fixture
async def mqtt(db: Database) -> AsyncIterator[Mqtt]:
    bus = LocalBus()
    pipeline = Pipeline(db, bus)
    terminals = TerminalService(db)
    commands = CommandService(db, bus, reply_timeout_s=5.0)
    await commands.start(recover=False)
    tag = uuid.uuid4().hex[:10]
    m = Mqtt(db, pipeline, terminals, commands, None, f"lt{tag}", f"liftdesk-test-{tag}")  # type: ignore[arg-type]
    m.adapter = m.new_adapter()
    await m.adapter.start()
    await asyncio.wait_for(m.adapter.connected.wait(), WAIT)
    yield m
    await m.adapter.stop()
    await commands.stop()
    await pipeline.stop()
    await forget_session(m.client_id)


@pytest.fixture
async def device_client() -> AsyncIterator[aiomqtt.Client]:
    a = BrokerAddress.parse(BROKER)
    async with aiomqtt.Client(a.host, a.port, identifier=f"terminal-{uuid.uuid4().hex[:10]}") as client:
        yield client


async def publish(client: aiomqtt.Client, topic: str, payload: Any) -> None:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload)
    await client.publish(topic, raw, qos=1)


def fix(seconds: int, **kw: Any) -> dict[str, Any]:
    return {"time": (T0 + timedelta(seconds=seconds)).isoformat(), "lat": 31.2, "lon": 121.5, **kw}


# --------------------------------------------------------------------------- telemetry


async def test_telemetry_in_its_three_forms(mqtt: Mqtt, device_client: aiomqtt.Client) -> None:
    vid, device = await add_vehicle(mqtt.db)
    one = fix(
        0,
        speed=7.5,
        direction=45,
        altitude=3,
        mileageKm=100.5,
        loadKg=900,
        impactG=1.2,
        impactDirection=90,
        seatBelt=True,
        forkHeightMm=300,
        lockLevel=0,
        speedLimitKmh=10,
        battery={"socPct": 77, "voltageV": 50.1, "currentA": -20, "chargeState": "discharging",
                 "temperaturesC": [30, 31.5], "cellVoltagesMv": [3300]},
        faultCodes=["E12"],
    )  # fmt: skip
    epoch_ms = int((T0 + timedelta(seconds=10)).timestamp() * 1000)
    await publish(device_client, mqtt.topic(device, "telemetry"), one)
    await publish(device_client, mqtt.topic(device, "telemetry"), [{"time": epoch_ms, "lat": 31.3, "lon": 121.6}])
    await publish(
        device_client,
        mqtt.topic(device, "telemetry"),
        {"fixes": [fix(-20), fix(-10, status=0)], "backfill": True},
    )
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 3, WAIT)
    rows = await positions(mqtt.db, vid)
    assert [r.device_time for r in rows] == [
        (T0 + timedelta(seconds=s)).replace(tzinfo=None) for s in (-20, -10, 0, 10)
    ]
    first = rows[2]
    assert (first.speed, first.direction, first.altitude, first.mileage_km, first.load_kg) == (7.5, 45, 3, 100.5, 900)
    extra = json.loads(first.extra or "{}")
    assert extra["impact_g"] == 1.2 and extra["seat_belt"] is True and extra["faults"] == ["E12"]
    assert extra["battery"]["soc"] == 77 and extra["battery"]["t"] == [30.0, 31.5]
    assert (rows[3].lat, rows[3].lon) == (31.3, 121.6)
    assert rows[1].status == 0
    assert mqtt.adapter.rejected == 0


async def test_unknown_terminals_and_bad_messages_are_dropped(mqtt: Mqtt, device_client: aiomqtt.Client) -> None:
    vid, device = await add_vehicle(mqtt.db)
    stranger = "999" + uuid.uuid4().hex[:9]
    await publish(device_client, mqtt.topic(stranger, "telemetry"), fix(0))
    await publish(device_client, mqtt.topic(device, "telemetry"), b"{not json")
    await publish(device_client, mqtt.topic(device, "telemetry"), fix(1, lat=123))
    await publish(device_client, mqtt.topic(device, "telemetry"), {"lat": 1, "lon": 2})
    await publish(device_client, mqtt.topic(device, "events"), {"no": "type"})
    await mqtt.adapter.until(lambda: mqtt.adapter.rejected >= 5, WAIT)
    assert await positions(mqtt.db, vid) == []
    await publish(device_client, mqtt.topic(device, "telemetry"), fix(2))  # the device is still served
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 6, WAIT)
    assert len(await positions(mqtt.db, vid)) == 1


async def test_telemetry_of_a_terminal_without_a_vehicle_is_dropped_and_counted(
    mqtt: Mqtt, device_client: aiomqtt.Client
) -> None:
    """The vehicle goes away (deleted by another process, unbound): the pipeline refuses the data (UnknownDevice);
    MQTT has no per-message failure, so the adapter logs, counts and acknowledges it instead of redelivering it."""
    vid, device = await add_vehicle(mqtt.db)
    await publish(device_client, mqtt.topic(device, "telemetry"), fix(0))
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 1, WAIT)
    async with mqtt.db.sessionmaker() as s:
        await s.execute(update(Vehicle).where(Vehicle.id == vid).values(is_deleted=1))
        await s.execute(update(Terminal).where(Terminal.device_number == device).values(vehicle_id=None))
        await s.commit()
    mqtt.pipeline.forget(device)
    await publish(device_client, mqtt.topic(device, "telemetry"), fix(1))
    await publish(device_client, mqtt.topic(device, "events"), {"type": "can", "frames": [{"id": 1, "data": "00"}]})
    await mqtt.adapter.until(lambda: mqtt.adapter.unknown_device >= 2, WAIT)
    assert mqtt.adapter.processed >= 3  # acknowledged: not redelivered for ever
    assert len(await positions(mqtt.db, vid)) == 1


async def test_a_failed_submit_is_not_acknowledged_and_comes_again(db: Database, device_client: aiomqtt.Client) -> None:
    calls = 0

    class FailingOnce(Pipeline):
        async def submit(self, report: Report | Sequence[Report]) -> None:
            nonlocal calls
            calls += 1
            if calls == 1:
                raise RuntimeError("database is down")
            await super().submit(report)

    bus = LocalBus()
    tag = uuid.uuid4().hex[:10]
    pipeline = FailingOnce(db, bus)
    adapter = MqttAdapter(
        BROKER, pipeline, TerminalService(db), prefix=f"lt{tag}", client_id=f"liftdesk-test-{tag}", reconnect_s=0.05
    )
    await adapter.start()
    try:
        await asyncio.wait_for(adapter.connected.wait(), WAIT)
        vid, device = await add_vehicle(db)
        await publish(device_client, f"lt{tag}/{device}/telemetry", fix(0))
        await adapter.until(lambda: adapter.processed >= 1, WAIT)  # after a reconnection, the broker re-sent it
        assert calls == 2
        assert len(await positions(db, vid)) == 1
    finally:
        await adapter.stop()
        await pipeline.stop()
        await forget_session(f"liftdesk-test-{tag}")


async def test_messages_sent_while_the_adapter_is_down_arrive_when_it_is_back(
    mqtt: Mqtt, device_client: aiomqtt.Client
) -> None:
    vid, device = await add_vehicle(mqtt.db)
    await mqtt.adapter.stop()
    await publish(device_client, mqtt.topic(device, "telemetry"), fix(0))
    await publish(device_client, mqtt.topic(device, "telemetry"), fix(1))
    mqtt.adapter = mqtt.new_adapter()
    await mqtt.adapter.start()
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 2, WAIT)
    assert len(await positions(mqtt.db, vid)) == 2


# --------------------------------------------------------------------------- events and commands


async def command_listener(mqtt: Mqtt, device: str) -> tuple[aiomqtt.Client, asyncio.Queue[dict[str, Any]]]:
    a = BrokerAddress.parse(BROKER)
    client = aiomqtt.Client(a.host, a.port, identifier=f"terminal-{uuid.uuid4().hex[:10]}")
    await client.__aenter__()
    await client.subscribe(mqtt.topic(device, "command"), qos=1)
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def listen() -> None:
        async for message in client.messages:
            assert isinstance(message.payload, bytes)
            inbox.put_nowait(json.loads(message.payload))

    task = asyncio.create_task(listen())
    client._listen_task = task  # type: ignore[attr-defined]
    return client, inbox


async def close_listener(client: aiomqtt.Client) -> None:
    client._listen_task.cancel()  # type: ignore[attr-defined]
    await asyncio.gather(client._listen_task, return_exceptions=True)  # type: ignore[attr-defined]
    await client.__aexit__(None, None, None)


async def test_commands_reach_the_terminal_and_its_replies_complete_them(mqtt: Mqtt) -> None:
    vid, device = await add_vehicle(mqtt.db)
    terminal, inbox = await command_listener(mqtt, device)
    try:
        await publish(terminal, mqtt.topic(device, "events"), {"type": "online"})
        await mqtt.adapter.until(lambda: mqtt.commands.attached(device), WAIT)
        cid = await mqtt.commands.create("000000", vid, device, "set_params", 0x8103, {"params": {"lock_level": 1}}, 7)
        got = await asyncio.wait_for(inbox.get(), WAIT)
        assert got == {
            "commandId": str(cid),
            "name": "set_params",
            "msgId": 0x8103,
            "payload": {"params": {"lock_level": 1}},
        }
        await publish(
            terminal, mqtt.topic(device, "reply"), {"commandId": got["commandId"], "result": 0, "data": {"ok": 1}}
        )
        view = await mqtt.commands.wait(cid, WAIT)
        assert view is not None and view.status == ACKNOWLEDGED and view.result == {"data": {"ok": 1}}

        cid = await mqtt.commands.create("000000", vid, device, "text", 0x8300, {"text": "hi"}, 7)
        got = await asyncio.wait_for(inbox.get(), WAIT)
        await publish(
            terminal, mqtt.topic(device, "reply"), {"commandId": got["commandId"], "result": 2, "data": "busy"}
        )
        view = await mqtt.commands.wait(cid, WAIT)
        assert view is not None and view.status == FAILED and view.error == "busy"
    finally:
        await close_listener(terminal)


async def test_a_reply_from_another_device_does_not_complete_a_command(mqtt: Mqtt) -> None:
    vid, device = await add_vehicle(mqtt.db)
    _, other = await add_vehicle(mqtt.db)
    terminal, inbox = await command_listener(mqtt, device)
    try:
        await publish(terminal, mqtt.topic(device, "events"), {"type": "online"})
        await mqtt.adapter.until(lambda: mqtt.commands.attached(device), WAIT)
        cid = await mqtt.commands.create("000000", vid, device, "text", 0x8300, {"text": "hi"}, 7)
        got = await asyncio.wait_for(inbox.get(), WAIT)
        before = mqtt.adapter.processed
        await publish(terminal, mqtt.topic(other, "reply"), {"commandId": got["commandId"], "result": 0})
        await mqtt.adapter.until(lambda: mqtt.adapter.processed > before, WAIT)
        view = await mqtt.commands.get(cid)
        assert view is not None and view.status != ACKNOWLEDGED
    finally:
        await close_listener(terminal)


async def test_offline_terminals_get_their_commands_when_back(mqtt: Mqtt) -> None:
    vid, device = await add_vehicle(mqtt.db)
    terminal, inbox = await command_listener(mqtt, device)
    try:
        await publish(terminal, mqtt.topic(device, "events"), {"type": "online"})
        await mqtt.adapter.until(lambda: mqtt.commands.attached(device), WAIT)
        await publish(terminal, mqtt.topic(device, "events"), {"type": "offline"})
        await mqtt.adapter.until(lambda: not mqtt.commands.attached(device), WAIT)
        cid = await mqtt.commands.create("000000", vid, device, "text", 0x8300, {"text": "later"}, 7)
        view = await mqtt.commands.wait(cid, 0)
        assert view is not None and view.status == PENDING and inbox.empty()
        await publish(terminal, mqtt.topic(device, "events"), {"type": "online"})
        got = await asyncio.wait_for(inbox.get(), WAIT)
        assert got["commandId"] == str(cid)
    finally:
        await close_listener(terminal)


async def test_an_mqtt_terminal_is_kept_like_a_jt808_one(mqtt: Mqtt, device_client: aiomqtt.Client) -> None:
    """An MQTT terminal never registers: it gets its terminal row (protocol, online, last seen) when first heard."""
    _, device = await add_vehicle(mqtt.db)
    assert await terminal_row(mqtt.db, device) is None
    await publish(device_client, mqtt.topic(device, "events"), {"type": "online"})
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 1, WAIT)
    term = await terminal_row(mqtt.db, device)
    assert term is not None and term.protocol == "mqtt" and term.online and term.last_seen is not None
    await publish(device_client, mqtt.topic(device, "events"), {"type": "offline"})
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 2, WAIT)
    term = await terminal_row(mqtt.db, device)
    assert term is not None and not term.online


async def test_can_event_keeps_the_latest_value_of_each_id(mqtt: Mqtt, device_client: aiomqtt.Client) -> None:
    vid, device = await add_vehicle(mqtt.db)
    await publish(device_client, mqtt.topic(device, "telemetry"), fix(0))
    frames = [{"id": "18FF50E5", "data": "0011223344556677"}, {"id": 0x0CF00400, "data": "ff", "channel": 1}]
    await publish(device_client, mqtt.topic(device, "events"), {"type": "can", "frames": frames})
    await publish(device_client, mqtt.topic(device, "events"), {"type": "can", "frames": [{"id": "zz", "data": "00"}]})
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 3, WAIT)
    st = await state(mqtt.db, vid)
    assert st is not None
    can = json.loads(st.extra or "{}")["can"]
    assert {k: (v["data"], v["channel"]) for k, v in can.items()} == {
        "18FF50E5": ("0011223344556677", 0),
        "0CF00400": ("FF", 1),
    }
    assert mqtt.adapter.rejected == 1  # the frame with a bad id


async def test_driver_event_sets_the_driver_on_duty(mqtt: Mqtt, device_client: aiomqtt.Client) -> None:
    vid, device = await add_vehicle(mqtt.db)
    driver = await add_driver(mqtt.db, vehicles=(vid,), name="李四")
    await publish(device_client, mqtt.topic(device, "telemetry"), fix(0))
    event = {"type": "driver", "name": "卡面", "card": driver["serial"]}
    await publish(device_client, mqtt.topic(device, "events"), event)
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 2, WAIT)
    st = await state(mqtt.db, vid)
    assert st is not None and (st.driver_name, st.driver_card, st.driver_id) == ("李四", driver["serial"], driver["id"])
    await publish(device_client, mqtt.topic(device, "events"), {"type": "driver", "status": "out"})
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 3, WAIT)
    st = await state(mqtt.db, vid)
    assert st is not None and st.driver_name is None


async def test_face_and_dms_events_reach_the_face_log_and_the_alarms(mqtt: Mqtt, device_client: aiomqtt.Client) -> None:
    vid, device = await add_vehicle(mqtt.db)
    driver = await add_driver(mqtt.db, vehicles=(vid,))
    topic = mqtt.topic(device, "events")
    at = "2026-03-02T09:00:00+08:00"
    face = {"type": "face", "result": "matched", "similarity": 96.5, "card": driver["serial"], "time": at}
    await publish(device_client, topic, face)
    await publish(device_client, topic, {"type": "dms", "alarm": "phone", "level": 2, "time": at, "photo": "p/1.jpg"})
    await publish(device_client, topic, {"type": "dms", "alarm": "juggling"})  # not a behaviour alarm: refused
    await mqtt.adapter.until(lambda: mqtt.adapter.processed >= 3, WAIT)
    async with mqtt.db.sessionmaker() as s:
        faces = (await s.execute(select(FaceRecord).where(FaceRecord.vehicle_id == vid))).scalars().all()
        alarms = (await s.execute(select(Event).where(Event.vehicle_id == vid))).scalars().all()
    assert [(f.result, f.similarity, f.driver_id) for f in faces] == [(0, 96.5, driver["id"])]
    assert faces[0].device_time == datetime(2026, 3, 2, 1, 0)
    assert [(e.kind, e.level, json.loads(e.detail or "{}")) for e in alarms] == [("dms_phone", 2, {"photo": "p/1.jpg"})]
    assert mqtt.adapter.rejected == 1


def test_broker_urls() -> None:
    assert BrokerAddress.parse("mqtt://127.0.0.1") == BrokerAddress("127.0.0.1", 1883)
    assert BrokerAddress.parse("mqtts://u%40x:p@broker:9999") == BrokerAddress("broker", 9999, "u@x", "p", True)
    with pytest.raises(ValueError, match="scheme"):
        BrokerAddress.parse("http://broker")


def test_fix_json_round_trips_through_the_contract() -> None:
    """The JSON form (docs/mqtt.md) carries every canonical field a terminal can report, both ways."""
    from liftdesk.telemetry.gateway.payloads import TelemetryIn, fix_json

    one = fix(0, lifting=True, forkHeightMm=800, battery={"socPct": 20, "voltageV": 47.5, "liquidLow": True},
              faultCodes=["E-217", "BMS-OVER_TEMPERATURE"])  # fmt: skip
    [parsed] = TelemetryIn.parse(one).to_fixes()
    assert parsed.lifting is True and parsed.battery is not None and parsed.battery.liquid_low
    assert parsed.fault_codes == ("E-217", "BMS-OVER_TEMPERATURE")
    [again] = TelemetryIn.parse(fix_json(parsed)).to_fixes()
    assert again == parsed
