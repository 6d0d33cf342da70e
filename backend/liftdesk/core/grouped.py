"""Group commit: calls of one kind that arrive together are handled together, in one transaction.

``Grouped(handle)`` is awaited like the single call it stands for (``result = await grouped(item)``). One task
takes what has queued and hands it to ``handle(items)`` (at most ``max_items`` at a time), which does the work of
all of them in one transaction and returns one result per item, in order. A caller alone waits for no one: its
round starts at once; while a round runs, the calls arriving meanwhile queue for the next one. So under a storm
(10,000 terminals registering after a restart) the number of transactions is the number of rounds, not of calls:
on SQLite one writer instead of many contending connections that back off in the busy handler's sleeps, on
PostgreSQL one commit instead of hundreds.

When a round fails as a whole (``handle`` raised: a constraint met by one item, a lost connection), each of its
items is handled again alone, so that one bad item fails only its own caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")
log = logging.getLogger("liftdesk.grouped")


class Grouped(Generic[T, R]):
    def __init__(
        self, handle: Callable[[list[T]], Awaitable[Sequence[R]]], *, max_items: int = 500, name: str = ""
    ) -> None:
        if max_items < 1:
            raise ValueError("max_items must be at least 1")
        self.handle = handle
        self.max_items = max_items
        self.name = name or getattr(handle, "__name__", "grouped")
        self._queue: list[tuple[T, asyncio.Future[R]]] = []
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        #: Rounds run and items handled (for benchmarks and logs).
        self.rounds = 0
        self.items = 0

    async def __call__(self, item: T) -> R:
        loop = asyncio.get_running_loop()
        task = self._task
        if task is None or task.done() or task.get_loop() is not loop:  # first call, or a new event loop (tests)
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._run(), name=f"grouped-{self.name}")
            for _, old in self._queue:  # callers of a loop that is gone
                if not old.done() and old.get_loop() is not loop:
                    old.cancel()
            self._queue = [(i, f) for i, f in self._queue if not f.done()]
        fut: asyncio.Future[R] = loop.create_future()
        self._queue.append((item, fut))
        assert self._wake is not None
        self._wake.set()
        return await fut

    async def _run(self) -> None:
        assert self._wake is not None
        wake = self._wake
        while True:
            await wake.wait()
            wake.clear()
            while self._queue:
                batch, self._queue = self._queue[: self.max_items], self._queue[self.max_items :]
                batch = [(item, fut) for item, fut in batch if not fut.done()]  # callers gone (cancelled): skipped
                if batch:
                    await self._round(batch)

    async def _round(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        self.rounds += 1
        self.items += len(batch)
        try:
            results = await self.handle([item for item, _ in batch])
            if len(results) != len(batch):
                raise RuntimeError(f"{self.name}: {len(results)} results for {len(batch)} items")
        except asyncio.CancelledError:
            for _, fut in batch:
                if not fut.done():
                    fut.cancel()
            raise
        except Exception as exc:
            if len(batch) == 1:
                _, fut = batch[0]
                if not fut.done():
                    fut.set_exception(exc)
                return
            log.info("%s: a round of %d failed (%s); handling each alone", self.name, len(batch), exc)
            for one in batch:
                await self._round([one])
            return
        for (_, fut), result in zip(batch, results, strict=True):
            if not fut.done():
                fut.set_result(result)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


__all__ = ["Grouped"]
