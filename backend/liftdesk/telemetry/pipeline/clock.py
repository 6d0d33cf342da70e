"""Live fixes and the terminal's clock: which fixes of a live report are plausible (:func:`run_live`: from the
tenant's retention cut to :data:`CLOCK_AHEAD` past the server clock) and go through the stages, and what a fix
dated beyond plausibility does instead (:func:`clock_wrong`: the live state and a ``terminal_clock`` alarm)
until a plausible one clears it (:func:`clock_right`).
"""

from __future__ import annotations

from datetime import timedelta

from liftdesk.telemetry.messages import Fix
from liftdesk.telemetry.pipeline.context import Batch, ClockFault, VehicleCtx
from liftdesk.telemetry.pipeline.stages import run_stages, state_of

#: How far ahead of the server clock a report may be dated and still be believed (a terminal's clock drifts a little,
#: and GNSS time runs a little ahead of a server a few seconds slow): later than this, the terminal's clock is wrong.
CLOCK_AHEAD = timedelta(minutes=10)
#: The alarm open while a terminal's clock is wrong (its reports dated beyond plausibility); see :func:`run_live`.
TERMINAL_CLOCK = "terminal_clock"


def run_live(fixes: list[Fix], v: VehicleCtx, b: Batch) -> None:
    """A vehicle's fixes of one batch on its live context, in the order they arrived: those dated within
    plausibility (from the tenant's retention cut, ``v.keep_from``, to :data:`CLOCK_AHEAD` past the server clock)
    go through the stages (:func:`run_stages`, in device time order); the others are kept out of the history. A
    live one tells the terminal's clock is wrong (:func:`clock_wrong`); a backfilled one is dropped. The clock
    verdict follows the arrival order: the last live fix to arrive decides whether the fault holds at the end of
    the batch (a wrong clock's dates cannot be ordered against right ones)."""
    ahead = b.now + CLOCK_AHEAD
    plausible: list[Fix] = []
    backfilled = b.backfilled
    for fix in fixes:
        if v.keep_from <= fix.time <= ahead:
            plausible.append(fix)
            if not (backfilled and id(fix) in backfilled):
                clock_right(v, b)
        elif backfilled and id(fix) in backfilled:
            b.expired += 1
        else:
            clock_wrong(fix, v, b)
    run_stages(plausible, v, b)


def clock_wrong(fix: Fix, v: VehicleCtx, b: Batch) -> None:
    """A live fix dated beyond plausibility: the vehicle's live state (position, speed, state) and nothing else -
    no position row, no daily aggregate, ``v.last`` stays the last plausible fix. A ``terminal_clock`` alarm opens
    (dated by the server: the fix's time is not to be believed, and its month may be gone; not counted in the
    daily aggregates) unless open already; its value is the clock's offset in seconds (negative: behind), its
    ``max_value`` the largest offset seen. The terminal is heard from, so an ``offline`` alarm ends."""
    b.clock_faults += 1
    previous = v.clock
    where = fix if fix.valid else (previous.where if previous is not None else v.located)
    v.clock = ClockFault(fix, b.now, where)
    new = state_of(fix, v.limits)
    if new != v.state or v.state_since is None:
        v.state, v.state_since = new, b.now  # in server time: the fix's own is not to be believed
    offset = (fix.time - b.now).total_seconds()
    alarm = v.open.get(TERMINAL_CLOCK)
    if alarm is None:
        ahead = fix.time > b.now
        detail = {
            "deviceTime": fix.time.isoformat(),
            "serverTime": b.now.isoformat(),
            "reason": "ahead" if ahead else "before_retention",
            "limit": (b.now + CLOCK_AHEAD).isoformat() if ahead else v.keep_from.isoformat(),
        }
        b.open_alarm(v, TERMINAL_CLOCK, fix, offset, None, level=2, detail=detail, begin=b.now, count=False)
    elif abs(offset) > abs(alarm.max_value):
        alarm.max_value = offset
    b.close_alarm(v, "offline", b.now)
    b.states[v.vehicle_id] = v


def clock_right(v: VehicleCtx, b: Batch) -> None:
    """A plausible live fix: the terminal's clock is right (again). The fault's live state gives way to the
    history's (the stages that follow put the fix there) and the ``terminal_clock`` alarm ends now."""
    if v.clock is None and TERMINAL_CLOCK not in v.open:
        return
    v.clock = None
    b.close_alarm(v, TERMINAL_CLOCK, b.now)
    b.states[v.vehicle_id] = v
