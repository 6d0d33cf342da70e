"""The bus: in-process by default; through Redis pub/sub between processes (the live feed with several API
processes). The Redis test talks to the real server on localhost."""

from __future__ import annotations

import asyncio
from typing import Any

from liftdesk.core.bus import LocalBus, RedisBus

REDIS = "redis://127.0.0.1:6379/0"


async def test_local_bus_delivers_and_survives_a_failing_subscriber() -> None:
    bus = LocalBus()
    got: list[dict[str, Any]] = []

    async def broken(_: dict[str, Any]) -> None:
        raise RuntimeError("subscriber bug")

    async def keep(msg: dict[str, Any]) -> None:
        got.append(msg)

    bus.subscribe("t", broken)
    stop = bus.subscribe("t", keep)
    await bus.publish("t", {"n": 1})
    stop()
    await bus.publish("t", {"n": 2})
    assert got == [{"n": 1}]


async def test_redis_bus_carries_messages_between_processes() -> None:
    # two buses = two processes: what one publishes, the other's subscribers receive
    api, gateway = RedisBus(REDIS, prefix="liftdesk-test:"), RedisBus(REDIS, prefix="liftdesk-test:")
    await api.start()
    await gateway.start()
    received: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def on_live(msg: dict[str, Any]) -> None:
        await received.put(msg)

    api.subscribe("live.vehicle", on_live)
    try:
        for _ in range(50):  # the subscription is asynchronous: publish until it is in place
            await gateway.publish("live.vehicle", {"vehicleId": "1", "speed": 3.5})
            try:
                msg = await asyncio.wait_for(received.get(), 0.1)
                break
            except TimeoutError:
                continue
        else:
            raise AssertionError("no message crossed the Redis bus")
        assert msg == {"vehicleId": "1", "speed": 3.5}
    finally:
        await api.stop()
        await gateway.stop()


async def test_redis_bus_without_redis_keeps_this_process_going() -> None:
    """A process that starts while Redis cannot be reached runs anyway; publishing never raises, and this process's
    own subscribers still get the messages (other processes miss them: counted as dropped)."""
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bus = RedisBus(f"redis://127.0.0.1:{port}/0", prefix="liftdesk-test:")
    got: list[dict[str, Any]] = []

    async def keep(msg: dict[str, Any]) -> None:
        got.append(msg)

    bus.subscribe("live.vehicle", keep)
    try:
        await asyncio.wait_for(bus.start(), 10)
        assert not bus.connected
        await asyncio.wait_for(bus.publish("live.vehicle", {"n": 1}), 10)
        assert got == [{"n": 1}] and bus.dropped == 1
    finally:
        await bus.stop()
