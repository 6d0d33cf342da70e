"""Working windows of a vehicle: when it is powered on, per shift pattern, with reproducible daily jitter.

Times are epoch seconds.  Shifts are laid out in China local time (GMT+8); a window may run past
midnight (night shift).  Between two windows the vehicle is parked with ACC off (breaks, shift
changes, nights).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone

from .specs import ShiftPattern

#: Terminals and shifts live in China time.
LOCAL_TZ = timezone(timedelta(hours=8), "GMT+8")

#: Per pattern: shifts, each a tuple of (start, end) minutes after local midnight of the shift's day.
PATTERNS: dict[ShiftPattern, tuple[tuple[tuple[int, int], ...], ...]] = {
    ShiftPattern.DAY: (((480, 600), (615, 720), (780, 900), (915, 1020)),),
    ShiftPattern.TWO: (
        ((360, 510), (525, 660), (690, 840)),
        ((855, 990), (1005, 1140), (1170, 1320)),
    ),
    ShiftPattern.THREE: (
        ((360, 570), (585, 660), (690, 840)),
        ((855, 1080), (1110, 1320)),
        ((1335, 1560), (1590, 1790)),
    ),
}


@dataclass(frozen=True, slots=True)
class Window:
    """A stretch of work with ACC on."""

    start: float
    end: float
    shift_day: date  #: local date the shift started
    shift_index: int
    last_of_shift: bool  #: the driver leaves (card out) at its end

    @property
    def shift_key(self) -> tuple[date, int]:
        return (self.shift_day, self.shift_index)


class Schedule:
    """The windows of one vehicle; ``days_off`` is the chance of a day without work (maintenance, no orders)."""

    def __init__(self, pattern: ShiftPattern, seed: int, days_off: float = 0.03) -> None:
        self.pattern = pattern
        self.seed = seed
        self.days_off = days_off
        self._days: dict[date, tuple[Window, ...]] = {}

    def day(self, d: date) -> tuple[Window, ...]:
        """Windows of the shifts starting on local date ``d``."""
        cached = self._days.get(d)
        if cached is not None:
            return cached
        rng = random.Random(f"schedule:{self.seed}:{d.isoformat()}")
        windows: list[Window] = []
        if rng.random() >= self.days_off:
            midnight = datetime(d.year, d.month, d.day, tzinfo=LOCAL_TZ).timestamp()
            for index, shift in enumerate(PATTERNS[self.pattern]):
                for n, (start, end) in enumerate(shift):
                    s = midnight + 60 * (start + rng.uniform(0.0, 6.0))
                    e = midnight + 60 * (end + rng.uniform(-4.0, 4.0))
                    windows.append(Window(s, e, d, index, n == len(shift) - 1))
        result = tuple(windows)
        if len(self._days) > 64:
            self._days.clear()
        self._days[d] = result
        return result

    def _around(self, t: float, after: int = 1) -> list[Window]:
        d = datetime.fromtimestamp(t, UTC).astimezone(LOCAL_TZ).date()
        out: list[Window] = []
        for offset in range(-1, after + 1):
            out.extend(self.day(d + timedelta(days=offset)))
        return out

    def window_at(self, t: float) -> Window | None:
        """The window containing ``t`` (start inclusive, end exclusive)."""
        for w in self._around(t, 0):
            if w.start <= t < w.end:
                return w
        return None

    def next_window(self, t: float) -> Window:
        """The first window starting after ``t``."""
        for after in (1, 7, 60):
            upcoming = [w for w in self._around(t, after) if w.start > t]
            if upcoming:
                return min(upcoming, key=lambda w: w.start)
        raise RuntimeError("no working window within 60 days")  # only with days_off close to 1
