"""When the terminal reports (:class:`ReportSchedule`): its report intervals by ACC and alarm, and at once after
events.
"""

from __future__ import annotations

import math

from liftdesk.telemetry.codecs.jt808 import Location

from .driving import ForkliftModel


class ReportSchedule:
    """When a terminal reports: every 0x0029 seconds while working, 0x0027 with ACC off, 0x0028 during an
    alarm, and at once after ACC changes and impacts, at most once per (BCD) second."""

    def __init__(self, model: ForkliftModel) -> None:
        self.model = model
        self.last: float | None = None
        self._soon = False

    def interval(self) -> float:
        m, p = self.model, self.model.params
        if not m.acc_on:
            return p.sleep_interval_s
        if m.alarm_active:
            return min(p.report_interval_s, p.emergency_interval_s)
        return p.report_interval_s

    def due(self) -> float:
        """Simulated time of the next report."""
        if self.last is None:
            return self.model.t
        if self._soon:
            return math.floor(self.last) + 1.0
        return self.last + self.interval()

    def idle_to(self, t: float) -> bool:
        """Advance without reporting (for a message between reports); an event on the way (ACC on) makes the
        next report due at once.  Returns True when that happened."""
        if self.model.advance(max(t, self.model.t)):
            self._soon = True
            return True
        return False

    def run_to(self, due: float) -> Location | None:
        """Advance the model to ``due`` (or to an event before it) and return the report to send, if any."""
        m = self.model
        m.advance(max(due, m.t))
        if self.last is not None and math.floor(m.t) <= math.floor(self.last):
            self._soon = True  # an event within the second of the last report: report it next second
            return None
        self._soon = False
        self.last = m.t
        return m.location()
