"""The engine and exhaust after-treatment controllers of a diesel truck, as its terminal's CAN adapter passes them on
(JT/T 808 0x0705): the SAE J1939 groups the platform decodes (``telemetry.can``), built from what the truck is
doing: the fuel rate the model burns (``ForkliftState._consume``), its speed and load.

A small engine (about 2.5 L, 750 rpm idle, 2,400 rpm rated): the load follows the fuel rate against the
engine's most (6 L/h × the profile's power factor), the speed and pedal follow the load, the inlet air the speed.
The DPF fills with soot as fuel burns (full after about 30 L) and regenerates at 80 % (down to about 10 % in
20 minutes of work); its differential pressure is the exhaust flow times a resistance that grows with the soot.
The DEF (urea) tank of 10 L goes down at 4 % of the fuel burnt and is filled up below 12 %.
"""

from __future__ import annotations

import random
from datetime import time

from liftdesk.telemetry.can import encode
from liftdesk.telemetry.codecs.jt808 import CanData, CanItem
from liftdesk.telemetry.messages import CanFrame

IDLE_RPM = 750.0
RATED_RPM = 2400.0
SOOT_PCT_PER_L = 3.3
REGEN_AT_PCT, REGEN_TO_PCT, REGEN_PCT_PER_S = 80.0, 10.0, 0.06
DEF_TANK_L, DEF_PER_FUEL, DEF_REFILL_PCT = 10.0, 0.04, 12.0
ENGINE, AFTERTREATMENT = 0x00, 0x55  # source addresses: engine #1, aftertreatment #1 (J1939 table B2)


class EngineEcu:
    def __init__(self, seed: str, power_factor: float) -> None:
        self.rng = random.Random(f"ecu:{seed}")  # its own generator: every other random choice stays as it was
        self.max_lph = 6.0 * power_factor
        self.soot_pct = self.rng.uniform(10.0, 70.0)
        self.def_l = self.rng.uniform(0.3, 1.0) * DEF_TANK_L
        self.regenerating = False
        self._last: float | None = None

    def step(self, t: float, fuel_lph: float) -> None:
        """Soot and DEF from the last upload to ``t`` (at most 2 minutes: a longer gap was with the engine off)."""
        dt = 0.0 if self._last is None else max(0.0, min(120.0, t - self._last))
        self._last = t
        litres = fuel_lph * dt / 3600.0
        if self.regenerating:
            self.soot_pct = max(REGEN_TO_PCT, self.soot_pct - REGEN_PCT_PER_S * dt)
            self.regenerating = self.soot_pct > REGEN_TO_PCT
        else:
            self.soot_pct = min(100.0, self.soot_pct + SOOT_PCT_PER_L * litres)
            self.regenerating = self.soot_pct >= REGEN_AT_PCT
        self.def_l = max(0.0, self.def_l - DEF_PER_FUEL * litres)
        if 100.0 * self.def_l / DEF_TANK_L < DEF_REFILL_PCT:
            self.def_l = DEF_TANK_L

    def frames(self, t: float, fuel_lph: float, speed_kmh: float) -> tuple[CanFrame, ...]:
        self.step(t, fuel_lph)
        jitter = self.rng.uniform(-1.0, 1.0)
        load = max(0.0, min(100.0, 100.0 * fuel_lph / self.max_lph + 2.0 * jitter))
        rpm = IDLE_RPM + (RATED_RPM - IDLE_RPM) * min(1.0, load / 100.0 + speed_kmh / 60.0) + 15.0 * jitter
        pedal = 0.0 if load < 20.0 else min(100.0, 1.1 * load + 1.5 * jitter)
        air = 0.081 * rpm * (1.0 + load / 250.0)  # kg/h: 2.5 L × rpm / 2 × 60 × 1.2 g/L × 0.9, boosted under load
        flow_t_h = (air + 0.835 * fuel_lph) / 1000.0
        resistance = 8.0 + 0.15 * self.soot_pct  # kPa per t/h
        return (
            encode("EEC1", {"EngSpeed": rpm, "ActualEngPercentTorque": 0.9 * load}, ENGINE),
            encode("EEC2", {"AccelPedalPos1": pedal, "EngPercentLoadAtCurSpeed": load}, ENGINE),
            encode("LFE1", {"EngFuelRate": fuel_lph}, ENGINE),
            encode(
                "EGF1", {"EngInletAirMassFlowRate": air, "EngExhaustGasRecirculationMassFlowRate": 0.1 * air}, ENGINE
            ),
            encode("AT1IMG", {"Aftertreatment1DPFDiffPressure": flow_t_h * resistance}, AFTERTREATMENT),
            encode(
                "AT1S",
                {"Aftertreatment1DPFSootLoadPercent": self.soot_pct, "Aftertreatment1DPFAshLoadPercent": 3.0},
                AFTERTREATMENT,
            ),
            encode("AT1T1I", {"Aftertreatment1DEFTankVolume": 100.0 * self.def_l / DEF_TANK_L}, AFTERTREATMENT),
        )

    def upload(self, t: float, stamp: time, fuel_lph: float, speed_kmh: float) -> CanData:
        """The 0x0705 body of this moment (``stamp``: the local time of day the frames were read)."""
        frames = self.frames(t, fuel_lph, speed_kmh)
        return CanData(stamp, tuple(CanItem(0, True, False, f.can_id, f.data) for f in frames))
