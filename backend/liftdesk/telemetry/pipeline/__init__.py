"""The telemetry pipeline: one ordered list of stages every fix goes through, then one durable write per batch.

    plausible (per terminal, in arrival order) → order (by device time) → late / duplicate → odometer → durations →
    state machine → collision → speeding → overload → fences → battery → JT/T 808 alarm bits → faults →
    offline cleared → driver off → position → remember

and, where a report arrived among the positions, its driver identity check and what the driver camera saw
(:mod:`.drivers`).

``Pipeline.submit`` returns only when the report's batch is committed, so a terminal is acknowledged only after
its data is durable; it raises :class:`~liftdesk.telemetry.messages.UnknownDevice` for a submission with a terminal
bound to no vehicle (nothing of that terminal was stored). One writer task drains the queue in batches: that keeps
per-vehicle order and lets positions be written in bulk.

What each kind of fix does:

* **newer than the vehicle's last fix** (the usual case): every stage, on the vehicle's live context.
* **the time of the last fix**: a re-send (equal to a fix already seen at that time) is dropped; a fix that
  differs (an alarm frame in the same second as the regular report: other alarm bits, an impact, a fault code)
  goes through the state and alarm stages but stores no second position (the primary key is tenant, vehicle,
  device time: the first one stays) and adds no distance or time.
* **older than the last fix** (a blind-zone backfill, 0x0704 type 1, or a late re-send): fixes already stored are
  dropped; the others are replayed after the live ones on a *scratch* context (:func:`replay_late`): durations and
  alarm stages with their own times, stored positions, no distance, and the live state (``last``, ``state``,
  ``open``) does not move back.
* **dated beyond plausibility** - older than the tenant's retention window, or more than :data:`CLOCK_AHEAD` ahead
  of the server clock - in a live report: the terminal's clock is wrong (one that was never set is common among
  other makers' terminals). Kept out of the history: no position row (its month may be dropped already), no daily
  aggregate, no alarm by its device time, and the context's ``last`` does not move (the history's order stays
  that of the plausible fixes). But it is where the vehicle is now: its position and values become the live state
  (:class:`ClockFault`: ``VehicleState`` and the live feed, dated by the server time it arrived at, with
  ``clockFault`` and the time the terminal gave it) and a ``terminal_clock`` alarm is open (dated by the server,
  not counted in the daily aggregates) until a plausible live fix arrives, which clears both. Which of the two
  holds at the end of a batch follows the order in which the reports arrived (:func:`run_live`): dates from a
  wrong clock cannot be ordered against right ones. Counted as ``clock_faults``, acknowledged.
* **from a blind-zone backfill and dated beyond plausibility**: history by nature (a terminal out of coverage
  for longer than the retention), not the vehicle's present: not stored, counted as ``expired``, acknowledged all
  the same - a re-send would meet the same fate; no clock verdict either way.
* **without a GNSS fix** (status bit 1 clear): stored with their status (the track leaves them out), their time,
  speed, ACC, load and battery count, but the vehicle stays where its last valid fix put it (state, live view,
  event locations, distance, fences).

Modules: :mod:`.context` (:class:`VehicleCtx`, :class:`Batch`), :mod:`.stages` (the ordered stages),
:mod:`.clock` (live fixes and the terminal's clock), :mod:`.late` (replaying late fixes), :mod:`.live` (the live
view) and :mod:`.writer` (:class:`Pipeline`: queue, batches, commit). Every public name is re-exported here.
"""

from liftdesk.telemetry.pipeline.clock import CLOCK_AHEAD, TERMINAL_CLOCK, clock_right, clock_wrong, run_live
from liftdesk.telemetry.pipeline.context import (
    ALARM_COUNTERS,
    STATE_IDLE,
    STATE_LOADED,
    STATE_MOVING,
    STATE_OFF,
    Batch,
    ClockFault,
    OpenAlarm,
    PositionRow,
    VehicleCtx,
)
from liftdesk.telemetry.pipeline.drivers import CARD_REFUSED, DMS_KINDS, card_key, identity, refusal, vision
from liftdesk.telemetry.pipeline.late import replay_late
from liftdesk.telemetry.pipeline.live import live_view, remember_can
from liftdesk.telemetry.pipeline.stages import (
    JT808_ALARMS,
    JT808_MASK,
    JT808_OVERSPEED,
    ONE_DAY,
    STAGES,
    STATUS_LOAD,
    Stage,
    battery,
    collision,
    count_interval,
    driver_off,
    durations,
    faults,
    haversine_km,
    is_loaded,
    jt808_alarms,
    late_or_duplicate,
    odometer,
    offline_cleared,
    overload,
    position,
    position_row,
    remember,
    run_stages,
    speeding,
    state_machine,
    state_of,
)
from liftdesk.telemetry.pipeline.writer import Pipeline, TenantCfg
from liftdesk.telemetry.rules import TENANT_THRESHOLDS
from liftdesk.telemetry.view import LIVE_TOPIC

__all__ = [
    "ALARM_COUNTERS",
    "CARD_REFUSED",
    "CLOCK_AHEAD",
    "DMS_KINDS",
    "JT808_ALARMS",
    "JT808_MASK",
    "JT808_OVERSPEED",
    "LIVE_TOPIC",
    "ONE_DAY",
    "STAGES",
    "STATE_IDLE",
    "STATE_LOADED",
    "STATE_MOVING",
    "STATE_OFF",
    "STATUS_LOAD",
    "TENANT_THRESHOLDS",
    "TERMINAL_CLOCK",
    "Batch",
    "ClockFault",
    "OpenAlarm",
    "Pipeline",
    "PositionRow",
    "Stage",
    "TenantCfg",
    "VehicleCtx",
    "battery",
    "card_key",
    "clock_right",
    "clock_wrong",
    "collision",
    "count_interval",
    "driver_off",
    "durations",
    "faults",
    "haversine_km",
    "identity",
    "is_loaded",
    "jt808_alarms",
    "late_or_duplicate",
    "live_view",
    "odometer",
    "offline_cleared",
    "overload",
    "position",
    "position_row",
    "refusal",
    "remember",
    "remember_can",
    "replay_late",
    "run_live",
    "run_stages",
    "speeding",
    "state_machine",
    "state_of",
    "vision",
]
