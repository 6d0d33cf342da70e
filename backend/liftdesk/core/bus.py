"""The event bus port: live pushes and cache invalidation between parts of the system (and processes).

``LocalBus`` is the embedded default (one process); ``RedisBus`` carries the same messages between API and gateway
processes through Redis pub/sub. Messages are JSON-able dicts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

Handler = Callable[[dict[str, Any]], Awaitable[None]]
log = logging.getLogger("liftdesk.bus")


class Bus(Protocol):
    async def publish(self, topic: str, message: dict[str, Any]) -> None: ...

    def subscribe(self, topic: str, handler: Handler) -> Callable[[], None]: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class LocalBus:
    def __init__(self) -> None:
        self._subs: dict[str, list[Handler]] = {}

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        for handler in list(self._subs.get(topic, ())):
            try:
                await handler(message)
            except Exception:  # a subscriber's failure must not stop the publisher
                log.exception("bus handler failed on %s", topic)

    def subscribe(self, topic: str, handler: Handler) -> Callable[[], None]:
        self._subs.setdefault(topic, []).append(handler)

        def _unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subs[topic].remove(handler)

        return _unsubscribe

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None


class RedisBus(LocalBus):
    """Publishes to Redis; a listener task delivers every message (ours included) to local subscribers."""

    def __init__(self, url: str, prefix: str = "liftdesk:") -> None:
        super().__init__()
        import redis.asyncio as redis

        self.redis = redis.from_url(url)
        self.prefix = prefix
        self._task: asyncio.Task[None] | None = None

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        await self.redis.publish(self.prefix + topic, json.dumps(message, default=str))

    async def start(self) -> None:
        pubsub = self.redis.pubsub()
        await pubsub.psubscribe(self.prefix + "*")

        async def _listen() -> None:
            async for item in pubsub.listen():
                if item.get("type") != "pmessage":
                    continue
                topic = item["channel"].decode()[len(self.prefix) :]
                await LocalBus.publish(self, topic, json.loads(item["data"]))

        self._task = asyncio.create_task(_listen())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.redis.aclose()


def make_bus(redis_url: str | None) -> Bus:
    return RedisBus(redis_url) if redis_url else LocalBus()
