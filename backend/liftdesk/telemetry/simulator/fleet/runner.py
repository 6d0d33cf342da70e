"""Many simulated forklifts sharing one simulated clock (:class:`Fleet`), and :func:`run_fleet`, which runs them
against a gateway until stopped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime

from ..schedule import LOCAL_TZ
from ..specs import DeviceSpec
from .clock import SimClock, _wait
from .forklift import SimulatedForklift

log = logging.getLogger("liftdesk.simulator")


class Fleet:
    """Many forklifts sharing one simulated clock."""

    def __init__(
        self,
        host: str,
        port: int,
        devices: Sequence[DeviceSpec],
        speedup: float = 1.0,
        report_interval_s: float = 10.0,
        *,
        start: datetime | None = None,
        backoff_s: tuple[float, float] = (1.0, 60.0),
        connect_timeout_s: float = 10.0,
        outbox_size: int = 500,
        stagger_s: float | None = None,
    ) -> None:
        if len({d.device for d in devices}) != len(devices):
            raise ValueError("device numbers must be unique")
        self.clock = SimClock(start, speedup)
        self.stagger_s = min(2.0, 0.02 * len(devices)) if stagger_s is None else stagger_s
        self.forklifts = [
            SimulatedForklift(
                spec,
                host,
                port,
                clock=self.clock,
                report_interval_s=report_interval_s,
                backoff_s=backoff_s,
                connect_timeout_s=connect_timeout_s,
                outbox_size=outbox_size,
            )
            for spec in devices
        ]

    def by_device(self, device: str) -> SimulatedForklift:
        for f in self.forklifts:
            if f.device == device:
                return f
        raise KeyError(device)

    def summary(self) -> str:
        fs = self.forklifts
        online = sum(f.online for f in fs)
        working = sum(f.model.acc_on for f in fs)
        sent = sum(f.stats.sent_live + f.stats.sent_backfill for f in fs)
        acked = sum(f.stats.acked for f in fs)
        backlog = sum(f.unacked for f in fs)
        sim = datetime.fromtimestamp(self.clock.now(), LOCAL_TZ).strftime("%Y-%m-%d %H:%M:%S")
        return (
            f"sim {sim}: {online}/{len(fs)} online, {working} powered on, "
            f"{sent} positions sent, {acked} acknowledged, {backlog} waiting"
        )

    async def run(self, stop_event: asyncio.Event | None = None, *, status_interval_s: float = 60.0) -> None:
        stop = stop_event or asyncio.Event()
        n = len(self.forklifts)

        async def one(i: int, forklift: SimulatedForklift) -> None:
            if n > 1 and self.stagger_s > 0 and await _wait(stop, self.stagger_s * i / n):
                return
            try:
                await forklift.run(stop)
            except Exception:
                log.exception("%s: simulator crashed", forklift.spec.label)

        async def status() -> None:
            while not await _wait(stop, status_interval_s):
                log.info("%s", self.summary())

        reporter = asyncio.create_task(status())
        try:
            await asyncio.gather(*(one(i, f) for i, f in enumerate(self.forklifts)))
        finally:
            reporter.cancel()
            await asyncio.gather(reporter, return_exceptions=True)


async def run_fleet(
    host: str,
    port: int,
    devices: Sequence[DeviceSpec],
    speedup: float = 1.0,
    report_interval_s: float = 10.0,
    stop_event: asyncio.Event | None = None,
    *,
    start: datetime | None = None,
    backoff_s: tuple[float, float] = (1.0, 60.0),
    status_interval_s: float = 60.0,
) -> list[SimulatedForklift]:
    """Run one simulated terminal per spec against the gateway at host:port until ``stop_event`` is set.

    Reports go out every ``report_interval_s`` simulated seconds, i.e. ``report_interval_s / speedup``
    wall seconds (the interval is the terminal parameter 0x0029, whole seconds, at least 1).  Returns
    the forklifts (with their stats) once stopped.
    """
    fleet = Fleet(host, port, devices, speedup, report_interval_s, start=start, backoff_s=backoff_s)
    await fleet.run(stop_event, status_interval_s=status_interval_s)
    return fleet.forklifts
