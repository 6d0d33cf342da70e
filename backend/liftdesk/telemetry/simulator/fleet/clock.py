"""Simulated time (:class:`SimClock`: epoch seconds running ``speedup`` times faster than the wall clock) and a
wall-clock wait that ends early when the simulation stops.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime


class SimClock:
    """Simulated time (epoch seconds) running ``speedup`` times faster than the wall clock from ``start``."""

    def __init__(self, start: datetime | None = None, speedup: float = 1.0) -> None:
        if not speedup > 0:
            raise ValueError("speedup must be positive")
        if start is not None and start.tzinfo is None:
            raise ValueError("start must be timezone-aware")
        self.start = (start or datetime.now(UTC)).timestamp()
        self.speedup = float(speedup)
        self._t0 = time.monotonic()

    def now(self) -> float:
        return self.start + (time.monotonic() - self._t0) * self.speedup

    def wall(self, sim_seconds: float) -> float:
        """Wall-clock seconds that ``sim_seconds`` of simulated time take."""
        return max(0.0, sim_seconds / self.speedup)

    def wall_until(self, t: float) -> float:
        return self.wall(t - self.now())


async def _wait(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep ``seconds`` (wall) unless ``stop`` gets set first; True when it did."""
    if stop.is_set():
        return True
    if seconds <= 0:
        await asyncio.sleep(0)
        return stop.is_set()
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        return False
    return True
