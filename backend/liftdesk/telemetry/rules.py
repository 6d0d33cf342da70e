"""Thresholds of the pipeline: defaults here, overridable per tenant (parameters) and per vehicle (its columns).

Precedence: the defaults below ← platform parameters (``telemetry.*`` in blade_param) ← the tenant's business
dictionary ``telemetry_threshold`` (entry key = the parameter key, value = the number) ← the vehicle's own columns
(speed limit, overload threshold, collision threshold, rated load), applied when its pipeline context is built.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.system.models import DictBiz, Param

TENANT_THRESHOLDS = "telemetry_threshold"  # business dictionary code of a tenant's thresholds
PARAM_PREFIX = "telemetry."  # every parameter key below starts with it


@dataclass(frozen=True)
class Thresholds:
    move_kmh: float = 1.0  # moving at or above this speed
    load_kg: float = 50.0  # carrying a load at or above max(this, load_pct % of the vehicle's rated load)
    load_pct: float = 5.0  # fleet-domain §4: w_min = max(50 kg, 5 % of the rated capacity)
    gap_cap_s: float = 120.0  # a sample holds its state at most this long (2 × the report interval)
    speed_limit_kmh: float = 12.0
    overload_kg: float = 3000.0
    collision_g: float = 1.5
    battery_low_v: float = 44.0
    battery_high_v: float = 58.0
    battery_over_current_a: float = 450.0
    battery_over_temp_c: float = 60.0
    offline_days: int = 7  # silent this long (no position, no heartbeat): one open ``offline`` alarm
    # connected but no position this long (heartbeats only): abnormal ``no_position`` (0 switches it off); 10 min is
    # 20 report intervals of 30 s, and a parked vehicle with ACC off still reports every few minutes (0x0020)
    silent_minutes: int = 10


def load_threshold_kg(limits: Thresholds, rated_load_kg: float | None) -> float:
    """The weight from which a vehicle counts as loaded (fleet-domain §4: ``max(50 kg, 5 % of rated load)``, both
    numbers tunable per tenant). A vehicle without a rated load uses the floor alone."""
    rated = rated_load_kg or 0.0
    return max(limits.load_kg, rated * limits.load_pct / 100.0)


# Collision severity. ``Event.level`` of a ``collision`` grades the measured peak against the vehicle's collision
# threshold (``Vehicle.collision_threshold_g``, the same number sent to the terminal as vendor parameter 0xF003,
# 0-20 g): level n starts at COLLISION_LEVELS[n-1] × threshold.
#
#   level  peak / threshold   meaning
#   1      ≥ 1.0              at the threshold: a knock
#   2      ≥ 1.5
#   3      ≥ 2.0              e.g. a rack hit at speed
#   4      ≥ 3.0
#   5      ≥ 4.0              severe: inspect the vehicle and the load
#
# Level 1 is the mildest and 5 the most severe. This is the same 1-5 scale as the vendor parameter 0xF004
# (``collision_level``, docs/protocol.md §4.3) but not the same thing: 0xF004 is the terminal's *sensitivity*
# (how readily it raises an impact; how it maps to g is the firmware's), while the event level grades the impact
# that was actually measured, so that events of terminals with different sensitivities compare. An impact known
# only from alarm bit 29 (no measured peak) is level 1.
COLLISION_LEVELS = (1.0, 1.5, 2.0, 3.0, 4.0)


def collision_level(impact_g: float, threshold_g: float) -> int:
    """The severity 1-5 of an impact at or above the threshold; 0 below it (not a collision)."""
    if threshold_g <= 0:  # no usable threshold: grade against the default so that the scale keeps its meaning
        threshold_g = Thresholds().collision_g
    level = 0
    for i, factor in enumerate(COLLISION_LEVELS, start=1):
        if impact_g >= threshold_g * factor:
            level = i
    return level


# (kind, parameter key) of the tenant-tunable thresholds; values are read from blade_param when present.
PARAM_KEYS = {
    "move_kmh": "telemetry.moveKmh",
    "load_kg": "telemetry.loadKg",
    "load_pct": "telemetry.loadPercent",
    "gap_cap_s": "telemetry.gapCapSeconds",
    "speed_limit_kmh": "telemetry.speedLimitKmh",
    "overload_kg": "telemetry.overloadKg",
    "collision_g": "telemetry.collisionG",
    "battery_low_v": "telemetry.batteryLowV",
    "battery_high_v": "telemetry.batteryHighV",
    "battery_over_current_a": "telemetry.batteryOverCurrentA",
    "battery_over_temp_c": "telemetry.batteryOverTempC",
    "offline_days": "telemetry.offlineDays",
    "silent_minutes": "telemetry.silentMinutes",
}


def _thresholds(values: dict[str, Any]) -> Thresholds:
    defaults = Thresholds()
    overrides: dict[str, Any] = {}
    for name, key in PARAM_KEYS.items():
        if key in values:
            with contextlib.suppress(ValueError, TypeError):  # a hand-typed value that is no number is ignored
                overrides[name] = type(getattr(defaults, name))(values[key])
    return replace(defaults, **overrides)


async def tenant_thresholds(session: AsyncSession, tenant_ids: Collection[str]) -> dict[str, Thresholds]:
    """The thresholds of several tenants in two queries (the platform parameters, then every tenant's
    dictionary entries). System work (the pipeline, scheduled jobs) reads them for all tenants, so this goes
    around the data scope, like the pipeline's other reads."""
    rows = await session.execute(
        select(Param.param_key, Param.param_value).where(
            Param.param_key.in_(PARAM_KEYS.values()), Param.is_deleted == 0
        )
    )
    platform = dict(rows.all())
    own: dict[str, dict[str, Any]] = {t: {} for t in tenant_ids}
    if own:
        entries = await session.execute(
            select(DictBiz.tenant_id, DictBiz.dict_key, DictBiz.dict_value).where(
                DictBiz.tenant_id.in_(list(own)),
                DictBiz.code == TENANT_THRESHOLDS,
                DictBiz.parent_id != 0,
                DictBiz.is_deleted == 0,
            )
        )
        for tenant_id, key, value in entries.all():
            own[tenant_id][key] = value
    return {t: _thresholds({**platform, **values}) for t, values in own.items()}
