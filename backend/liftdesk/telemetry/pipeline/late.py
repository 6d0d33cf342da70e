"""Late fixes (a blind-zone backfill, a late re-send): replayed among the stored positions around them on a
scratch context (:func:`replay_late`), durations counted exactly once, the live state left as it is.
"""

from __future__ import annotations

from datetime import datetime

from liftdesk.telemetry.fences import VehicleFences
from liftdesk.telemetry.messages import Fix
from liftdesk.telemetry.pipeline.context import Batch, OpenAlarm, VehicleCtx
from liftdesk.telemetry.pipeline.stages import count_interval, run_stages


def replay_late(v: VehicleCtx, late: list[Fix], stored: list[Fix], held: set[str], b: Batch) -> None:
    """Replay late fixes (oldest first, none of them stored yet) among the stored positions around them
    (``stored``: those within a gap cap of them, oldest first), on a scratch copy of ``v``: its limits and fences,
    the interval alarms other events already hold over that stretch (``held``: not opened again), its state from
    the first late fix. The live context is not touched.

    Durations, exactly once: each sample's flags hold until the next sample, capped at ``gap_cap_s``
    (:func:`durations`). When the blind zone began, the live stage counted the last sample before it (P) up to
    the first one after it (N) or the cap, whichever came first; the late fixes L1..Lk now sit between them. So
    P's interval is taken back (to N) and counted again (to L1, by the durations stage on the scratch context),
    each Li counts to the next one, and Lk to N (capped). A stored sample more than a cap before L1 is not
    looked at: its interval ended before L1 either way. The same holds between any two stored samples a backfill
    lands between.

    Events are written with their own times (and counted on their own days); an alarm still open after the last
    late fix ends at N (the sample that follows), as a live alarm ends at the first sample without it. Distance
    is not counted: the live stage measured P → N. Events take the driver on duty now.
    """
    scratch = VehicleCtx(
        v.vehicle_id,
        v.tenant_id,
        v.mechanism_id,
        v.device,
        v.limits,
        driver_name=v.driver_name,
        driver_id=v.driver_id,
        car_no=v.car_no,
        keep_from=v.keep_from,
        scratch=True,
    )
    if v.fences is not None and v.fences.fences:
        scratch.fences = VehicleFences(v.fences.fences)
    for key in held:
        scratch.open[key] = OpenAlarm(0, late[0].time, 0.0, 0.0)
    samples = sorted([(f, False) for f in stored] + [(f, True) for f in late], key=lambda s: s[0].time)
    next_stored: list[datetime] = [datetime.max] * len(samples)  # time of the next stored sample after each
    upcoming = datetime.max
    for i in range(len(samples) - 1, -1, -1):
        next_stored[i] = upcoming
        if not samples[i][1]:
            upcoming = samples[i][0].time
    after_late = False
    for i, (f, is_late) in enumerate(samples):
        if is_late:
            run_stages([f], scratch, b)  # counts the sample before it up to it, alarms, its row
            after_late = True
            continue
        if after_late and scratch.last is not None:
            count_interval(b, scratch, scratch.last, f.time)  # the late fix before this stored one ends here
        if i + 1 < len(samples) and samples[i + 1][1]:
            count_interval(b, scratch, f, next_stored[i], -1.0)  # ... and this one now ends at a late fix
        scratch.last = f
        if f.valid:
            scratch.located = f
            if scratch.fences is not None:
                scratch.fences.inside = {g.id: g.contains(f.lon, f.lat) for g in scratch.fences.fences}
        after_late = False
    if after_late and scratch.last is not None:
        count_interval(b, scratch, scratch.last, datetime.max)  # no stored sample within a cap: capped
    end = next((f.time for f in stored if f.time > late[-1].time), late[-1].time)
    for key in [k for k, a in scratch.open.items() if a.event_id]:
        b.close_alarm(scratch, key, end)
