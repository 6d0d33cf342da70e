"""Thresholds of the pipeline: defaults here, overridable per tenant (parameters) and per vehicle (its columns)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thresholds:
    move_kmh: float = 1.0  # moving at or above this speed
    load_kg: float = 50.0  # carrying a load at or above this weight
    gap_cap_s: float = 120.0  # a sample holds its state at most this long (2 × the report interval)
    speed_limit_kmh: float = 12.0
    overload_kg: float = 3000.0
    collision_g: float = 1.5
    battery_low_v: float = 44.0
    battery_high_v: float = 58.0
    battery_over_current_a: float = 450.0
    battery_over_temp_c: float = 60.0
    offline_days: int = 7


# Collision levels 1..5 start at these multiples of the vehicle's collision threshold.
COLLISION_LEVELS = (1.0, 1.5, 2.0, 3.0, 4.0)


def collision_level(impact_g: float, threshold_g: float) -> int:
    level = 0
    for i, factor in enumerate(COLLISION_LEVELS, start=1):
        if impact_g >= threshold_g * factor:
            level = i
    return level


# (kind, parameter key) of the tenant-tunable thresholds; values are read from blade_param when present.
PARAM_KEYS = {
    "move_kmh": "telemetry.moveKmh",
    "load_kg": "telemetry.loadKg",
    "gap_cap_s": "telemetry.gapCapSeconds",
    "speed_limit_kmh": "telemetry.speedLimitKmh",
    "overload_kg": "telemetry.overloadKg",
    "collision_g": "telemetry.collisionG",
    "battery_low_v": "telemetry.batteryLowV",
    "battery_high_v": "telemetry.batteryHighV",
    "battery_over_current_a": "telemetry.batteryOverCurrentA",
    "battery_over_temp_c": "telemetry.batteryOverTempC",
    "offline_days": "telemetry.offlineDays",
}
