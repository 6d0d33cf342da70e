"""Simulated JT/T 808 terminals on forklifts, talking TCP to the Liftdesk gateway.

Each :class:`SimulatedForklift` runs two loops:

* the *producer* moves its :class:`~.model.ForkliftModel` through simulated time and stores a position
  every report interval (0x0029 while working, 0x0027 with ACC off, 0x0028 during an alarm) and at
  once on ACC changes and impacts; positions go to a small outbox until the platform acknowledges them
  (0x8001 whose reply-serial matches);
* the *connection* connects, registers (0x0100, only while it has no auth code), authenticates (0x0102),
  re-sends what the outbox still holds as 0x0704 blind-zone backfill, sends heartbeats when idle, and
  answers platform commands.  Refusals and dropped links are retried with exponential backoff.  When it
  stops it deregisters (0x0003) and forgets its code, as a terminal being switched off for good does.

Simulated time runs ``speedup`` times faster than the wall clock and starts at ``start`` (default: now),
so report times are simulated times.  Network timeouts and backoff are wall-clock seconds.

Modules: :mod:`.clock` (simulated time), :mod:`.outbox` (a terminal's state, producer and outbox),
:mod:`.answers` (answering the platform's commands), :mod:`.forklift` (:class:`SimulatedForklift`: connection and
read loop) and :mod:`.runner` (:class:`Fleet`, :func:`run_fleet`).
"""

from .answers import (
    HARDWARE_VERSION,
    MAKER_ID,
    MSG_DRIVER_REQUEST,
    MSG_QUERY_ATTRIBUTES,
    MSG_QUERY_LOCATION,
    SOFTWARE_VERSION,
    CommandAnswers,
    DeleteAreas,
)
from .clock import SimClock
from .forklift import SimulatedForklift
from .outbox import MSG_AUTH, MSG_BATCH, MSG_LOCATION, ForkliftStats, TerminalOutbox
from .runner import Fleet, run_fleet

__all__ = [
    "HARDWARE_VERSION",
    "MAKER_ID",
    "MSG_AUTH",
    "MSG_BATCH",
    "MSG_DRIVER_REQUEST",
    "MSG_LOCATION",
    "MSG_QUERY_ATTRIBUTES",
    "MSG_QUERY_LOCATION",
    "SOFTWARE_VERSION",
    "CommandAnswers",
    "DeleteAreas",
    "Fleet",
    "ForkliftStats",
    "SimClock",
    "SimulatedForklift",
    "TerminalOutbox",
    "run_fleet",
]
