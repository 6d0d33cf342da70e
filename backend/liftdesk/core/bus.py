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
    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        """Deliver ``message`` to the topic's subscribers; never raises (a subscriber's failure, or the transport's,
        is logged): publishers have committed their work already."""
        ...

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


#: Delivered to this process's subscribers (never through Redis) when the Redis bus is back after an outage:
#: messages of other processes were missed meanwhile, so whoever keeps state from the bus reads it again (the
#: live hub sends its browsers a fresh snapshot).
BUS_RECONNECTED = "bus.reconnected"
#: Seconds before the first attempt to reach Redis again after it was lost, and the most between two attempts.
RETRY_FIRST_S = 0.1
RETRY_MAX_S = 5.0
#: Seconds a connection attempt to Redis may take (a host that does not answer must not hold a publisher).
CONNECT_TIMEOUT_S = 2.0


class RedisBus(LocalBus):
    """Publishes to Redis; a listener task delivers every message (ours included) to local subscribers.

    Redis going away stops nothing but the messages between processes: :meth:`publish` never raises (a publisher
    is the pipeline after its commit, or a request after its transaction). While the listener is not subscribed,
    or for ``RETRY_MAX_S`` after a publish failed, a message goes to this process's subscribers only; the listener
    tries again (``RETRY_FIRST_S`` doubling to ``RETRY_MAX_S``), and once it is subscribed again
    :data:`BUS_RECONNECTED` tells this process's subscribers."""

    def __init__(self, url: str, prefix: str = "liftdesk:") -> None:
        super().__init__()
        import redis.asyncio as redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # One more attempt on a fresh connection (a pooled one may have died with the server), none after that:
        # the listener, not each publish, waits for Redis to come back; a Redis that does not answer holds a
        # publisher for at most the timeouts.
        self.redis = redis.from_url(
            url,
            socket_connect_timeout=CONNECT_TIMEOUT_S,
            socket_timeout=CONNECT_TIMEOUT_S,
            retry=Retry(NoBackoff(), 1),
        )
        self.prefix = prefix
        #: The listener is subscribed: publishing goes through Redis.
        self.connected = False
        #: Messages that could not go through Redis (other processes missed them), and outages seen.
        self.dropped = 0
        self.outages = 0
        self._task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._local_until = 0.0  # after a failed publish: this process only, until then (loop time)

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        loop = asyncio.get_running_loop()
        if self.connected and loop.time() >= self._local_until:
            try:
                await self.redis.publish(self.prefix + topic, json.dumps(message, default=str))
                return
            except Exception as exc:  # redis' errors, OSError: Redis is gone, or going
                if self._local_until == 0.0 or loop.time() - self._local_until > RETRY_MAX_S:
                    log.warning("Redis bus: publishing failed (%s): messages stay in this process for now", exc)
                self._local_until = loop.time() + RETRY_MAX_S
        self.dropped += 1
        await LocalBus.publish(self, topic, message)

    def _lost(self, exc: BaseException) -> None:
        if self.connected:
            self.connected = False
            self.outages += 1
            log.warning("Redis bus lost (%s): messages stay in this process until it is back", exc)

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="redis-bus")
            # Wait for the first subscription (bounded): a process that starts while Redis is down runs anyway.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CONNECT_TIMEOUT_S + 1.0):
                    await self._subscribed.wait()

    async def _listen(self) -> None:
        delay = RETRY_FIRST_S
        first = True
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.psubscribe(self.prefix + "*")
                async for item in pubsub.listen():
                    kind = item.get("type")
                    if kind == "psubscribe":  # also after redis-py re-subscribed on its own
                        self.connected, delay, self._local_until = True, RETRY_FIRST_S, 0.0
                        self._subscribed.set()
                        if not first:
                            log.info("Redis bus back (%d messages stayed in this process)", self.dropped)
                            await LocalBus.publish(self, BUS_RECONNECTED, {"outages": self.outages})
                        first = False
                    elif kind == "pmessage":
                        try:
                            topic, data = item["channel"].decode()[len(self.prefix) :], json.loads(item["data"])
                        except (ValueError, UnicodeDecodeError):
                            log.warning("malformed bus message on %r", item.get("channel"))
                            continue
                        await LocalBus.publish(self, topic, data)
                raise ConnectionError("the subscription ended")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._lost(exc)
                if first and not self._subscribed.is_set():
                    log.warning("Redis bus not reachable (%s): trying again", exc)
                    first = False
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_S)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.connected = False
        with contextlib.suppress(Exception):
            await self.redis.aclose()


def make_bus(redis_url: str | None) -> Bus:
    return RedisBus(redis_url) if redis_url else LocalBus()
