"""Traction batteries (48 V lead-acid or LiFePO4) and fuel tanks.

The battery is a state of charge, a pack resistance and a first-order thermal model: good enough for
believable voltage sag under load, charge curves, warming while working or charging, and a slightly
weak cell on some packs.  Current sign follows the Liftdesk battery item: positive = charging.

A flooded lead-acid pack also has an electrolyte level: charging boils water off (mostly at the end of a
charge), and the BMS raises "liquid low" (:class:`BmsFlag`) below :data:`ELECTROLYTE_LOW` until someone
waters the battery.  A pack hotter than :data:`OVER_TEMPERATURE_C` raises "over temperature".
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from datetime import UTC, datetime
from functools import lru_cache

from liftdesk.telemetry.codecs.jt808 import BatteryInfo, BmsFlag, ChargeState

from .schedule import LOCAL_TZ
from .specs import Chemistry

# LiFePO4 open-circuit voltage per cell by state of charge.
_LFP_SOC = (0.0, 0.05, 0.10, 0.20, 0.30, 0.50, 0.70, 0.90, 0.95, 1.0)
_LFP_OCV = (2.80, 3.05, 3.18, 3.24, 3.27, 3.30, 3.32, 3.34, 3.38, 3.45)
#: Electrolyte level (1.0 = just watered) below which the BMS reports "liquid low".
ELECTROLYTE_LOW = 0.35
#: Electrolyte lost per hour of charging (gassing; watering is due about weekly on a one-shift truck).
_WATER_LOSS_PER_CHARGE_H = 0.012
OVER_TEMPERATURE_C = 55.0


def ambient_c(t: float) -> float:
    """Warehouse air temperature in the Yangtze delta: seasonal plus daily swing (10-minute steps)."""
    return _ambient(int(t // 600))


@lru_cache(maxsize=4096)
def _ambient(slot: int) -> float:
    t = slot * 600.0
    local = datetime.fromtimestamp(t, UTC).astimezone(LOCAL_TZ)
    doy = local.timetuple().tm_yday
    hour = local.hour + local.minute / 60
    season = 17.5 - 11.0 * math.cos(2 * math.pi * (doy - 20) / 365)
    return season + 3.5 * math.sin(2 * math.pi * (hour - 9) / 24)


class Battery:
    def __init__(
        self,
        chemistry: Chemistry,
        capacity_ah: float,
        soc: float,
        rng: random.Random,
        t: float,
        electrolyte: float = 1.0,
    ) -> None:
        self.chemistry = chemistry
        self.capacity_ah = capacity_ah
        self.soc = min(1.0, max(0.0, soc))
        lead = chemistry is Chemistry.LEAD_ACID
        self.cells = 24 if lead else 16
        self.cell_r = 0.000625 if lead else 0.0008  #: ohms per cell
        self.temp_c = ambient_c(t) + rng.uniform(0.0, 2.0)
        offsets = [rng.randint(-6, 6) for _ in range(self.cells)]
        if rng.random() < 0.25:  # a weak cell: lower and sagging more under load
            offsets[rng.randrange(self.cells)] -= rng.randint(15, 35)
        self.cell_offsets_mv = tuple(offsets)
        self.weak_cell = min(range(self.cells), key=lambda i: offsets[i])
        self.sensor_offsets = tuple(rng.uniform(-1.2, 1.2) for _ in range(2 if lead else 4))
        self.current_a = 0.0
        self.state = ChargeState.IDLE
        #: Flooded lead-acid only (None for sealed lithium packs).
        self.electrolyte: float | None = electrolyte if chemistry is Chemistry.LEAD_ACID else None

    # ------------------------------------------------------------------ physics

    def ocv_cell(self) -> float:
        if self.chemistry is Chemistry.LEAD_ACID:
            return 1.96 + 0.16 * self.soc
        i = min(len(_LFP_SOC) - 2, max(0, bisect_right(_LFP_SOC, self.soc) - 1))
        s0, s1 = _LFP_SOC[i], _LFP_SOC[i + 1]
        v0, v1 = _LFP_OCV[i], _LFP_OCV[i + 1]
        return v0 + (v1 - v0) * (self.soc - s0) / (s1 - s0)

    def charge_current(self) -> float:
        """What the charger delivers at the present state of charge (tapering near full)."""
        c = self.capacity_ah
        if self.chemistry is Chemistry.LEAD_ACID:
            bulk = 0.14 * c
            return bulk if self.soc < 0.8 else max(0.02 * c, bulk * (1.0 - self.soc) / 0.2)
        bulk = 0.45 * c
        return bulk if self.soc < 0.9 else max(0.03 * c, bulk * (1.0 - self.soc) / 0.1)

    def step(self, current_a: float, dt: float, t: float, state: ChargeState) -> None:
        """Run ``dt`` seconds at ``current_a`` (negative = discharge)."""
        self.current_a = current_a
        self.state = state
        if dt <= 0:
            return
        efficiency = 0.85 if self.chemistry is Chemistry.LEAD_ACID else 0.97
        delta = current_a * dt / 3600.0 / self.capacity_ah
        if current_a > 0:
            delta *= efficiency
        self.soc = min(1.0, max(0.0, self.soc + delta))
        heat = 0.035 * abs(current_a) + (
            6.0 if state is ChargeState.CHARGING and self.chemistry is Chemistry.LEAD_ACID else 0.0
        )
        target = ambient_c(t) + heat
        self.temp_c += (target - self.temp_c) * (1.0 - math.exp(-dt / 2400.0))

    def charge(self, dt: float, t: float) -> None:
        """Sit on the charger for ``dt`` seconds."""
        left = dt
        while left > 0:
            h = min(left, 300.0)
            if self.soc >= 0.995:
                self.soc = 1.0
                self.step(0.0, h, t, ChargeState.FULL)
            else:
                self.step(self.charge_current(), h, t, ChargeState.CHARGING)
                if self.electrolyte is not None:
                    gassing = 1.0 if self.soc > 0.8 else 0.3
                    self.electrolyte = max(0.0, self.electrolyte - _WATER_LOSS_PER_CHARGE_H * gassing * h / 3600)
            left -= h
            t += h

    @property
    def liquid_low(self) -> bool:
        return self.electrolyte is not None and self.electrolyte < ELECTROLYTE_LOW

    def water(self) -> None:
        """Top the electrolyte up (maintenance)."""
        if self.electrolyte is not None:
            self.electrolyte = 1.0

    def bms_flags(self) -> int:
        flags = BmsFlag(0)
        if self.liquid_low:
            flags |= BmsFlag.LIQUID_LOW
        if self.temp_c > OVER_TEMPERATURE_C:
            flags |= BmsFlag.OVER_TEMPERATURE
        return int(flags)

    # ------------------------------------------------------------------ reports

    def cell_voltages_mv(self) -> tuple[int, ...]:
        i = self.current_a
        ocv = self.ocv_cell()
        if self.state is ChargeState.CHARGING:
            if self.chemistry is Chemistry.LEAD_ACID:
                base = min(2.40, 2.12 + 0.26 * self.soc + i * self.cell_r)
            else:
                base = min(3.55, ocv + 0.05 + i * self.cell_r)
        elif self.state is ChargeState.FULL:
            base = 2.25 if self.chemistry is Chemistry.LEAD_ACID else 3.40
        else:
            base = ocv + i * self.cell_r  # i <= 0: sag under load
        sag = 0.15 * i * self.cell_r if i < 0 else 0.0
        return tuple(
            max(0, round(1000 * (base + (sag if n == self.weak_cell else 0.0)) + off))
            for n, off in enumerate(self.cell_offsets_mv)
        )

    def info(self) -> BatteryInfo:
        cells = self.cell_voltages_mv()
        temps = tuple(max(-40, min(120, round(self.temp_c + o))) for o in self.sensor_offsets)
        soc = round(100 * self.soc)
        return BatteryInfo(
            soc_pct=max(0, min(100, soc)),
            voltage_v=round(sum(cells) / 1000, 1),
            current_a=round(self.current_a, 1),
            charge_state=self.state,
            temperatures_c=temps,
            cell_voltages_mv=cells,
            bms_flags=self.bms_flags(),
        )


class FuelTank:
    def __init__(self, capacity_l: float, level: float) -> None:
        self.capacity_l = capacity_l
        self.level_l = capacity_l * min(1.0, max(0.0, level))

    def burn(self, litres_per_hour: float, dt: float) -> None:
        self.level_l = max(0.0, self.level_l - litres_per_hour * dt / 3600.0)

    def refill(self) -> None:
        self.level_l = self.capacity_l

    @property
    def fraction(self) -> float:
        return self.level_l / self.capacity_l
