"""What the vehicle's terminal reports of it (:class:`ForkliftReports`): its speed as the sensors and
parameters shape it, the overspeed alarm, the battery, the controller's fault codes, the 0x0200 body of
the present moment (:meth:`ForkliftReports.location`) and a diesel's CAN upload (0x0705,
:meth:`ForkliftReports.can_data`).
"""

from __future__ import annotations

import math

from liftdesk.telemetry.codecs.jt808 import (
    AlarmFlag,
    BatteryInfo,
    CanData,
    ForkliftStatus,
    Forks,
    FunctionSwitch,
    Jt808Version,
    Location,
    LockLevel,
    SeatBelt,
    StatusFlag,
)

from ..schedule import LOCAL_TZ
from .state import _FAULT_CODES, _FAULT_EVERY_S, _FAULT_LASTS_S, ForkliftState


class ForkliftReports(ForkliftState):
    """What the terminal reports of a :class:`ForkliftState`."""

    # ------------------------------------------------------------------ reports

    @property
    def locked(self) -> bool:
        return self.lock_level >= 1

    @property
    def speed_kmh(self) -> float:
        return 0.0 if self.locked else self.speed_ms * 3.6 * self.params.speed_factor

    @property
    def alarm_active(self) -> bool:
        return self._overspeeding()

    def _overspeeding(self) -> bool:
        since = self.overspeed_since
        return since is not None and self.t - since >= self.params.overspeed_duration_s

    def battery_info(self) -> BatteryInfo | None:
        return None if self.battery is None else self.battery.info()

    def fault_codes(self) -> tuple[str, ...] | None:
        """The controller's active fault codes (item 0xE7) while it is on: its fault, or an empty list that says
        none is active (which ends the platform's fault episode); None while it is off (item left out)."""
        if self.fault is not None and self.t >= self.fault[1]:
            self.fault = None
        if self.acc_on and self.t >= self._next_fault:  # one that came due while parked shows at power-on
            if self.fault is None:
                self.fault = (self.fault_rng.choice(_FAULT_CODES), self.t + self.fault_rng.uniform(*_FAULT_LASTS_S))
                self.counts["faults"] += 1
            self._next_fault = self.t + self.fault_rng.expovariate(1.0 / _FAULT_EVERY_S)
        if self.fault is not None:
            return (self.fault[0],)
        return () if self.acc_on else None

    def can_data(self) -> CanData | None:
        """The 0x0705 body of this moment: a diesel's engine and after-treatment groups while its engine runs
        (ACC on); None otherwise."""
        if self.ecu is None or not self.acc_on:
            return None
        stamp = self._stamp().astimezone(LOCAL_TZ).time()
        return self.ecu.upload(self.t, stamp, self.fuel_lph, self.speed_kmh)

    def location(self, *, consume: bool = True) -> Location:
        """The 0x0200 body of this moment; ``consume`` clears a pending impact (it is reported once)."""
        spec = self.spec
        p = self.profile
        lat, lon = self.yard.to_latlon(self.pos)
        speed = round(self.speed_kmh, 1)
        status = StatusFlag.POSITIONED | StatusFlag.GPS | StatusFlag.BEIDOU
        if self.acc_on:
            status |= StatusFlag.ACC_ON
        if p.forks and self.load_kg > 0:
            frac = self.load_kg / spec.rated_load_kg
            status |= StatusFlag.LOAD_LOW_BIT | (StatusFlag.LOAD_HIGH_BIT if frac >= 0.75 else StatusFlag(0))
        lock = max(0, min(2, self.lock_level))
        if lock >= 2:
            status |= StatusFlag.ELECTRIC_CIRCUIT_CUT if spec.electric else StatusFlag.FUEL_CIRCUIT_CUT
        if spec.version is Jt808Version.V2019 and speed > 0:
            status |= StatusFlag.MOVING
        alarm = AlarmFlag(0)
        if self._overspeeding() and not self.locked:
            alarm |= AlarmFlag.OVERSPEED
        impact = self.pending_impact
        if impact is not None:
            alarm |= AlarmFlag.COLLISION
            if consume:
                self.pending_impact = None
        seat: SeatBelt | None = None
        if p.seat and self.acc_on and FunctionSwitch.SEAT_BELT_DETECTION in self.params.switches:
            seat = SeatBelt.FASTENED if self.fastened else SeatBelt.UNFASTENED
        forklift = ForkliftStatus(
            load_kg=min(0xFFFF, round(self.load_kg * self.params.weight_factor)) if p.forks else None,
            impact=impact,
            seat_belt=seat,
            forks=Forks(self.fork_state, round(self.fork_mm)) if p.forks else None,
            lock_level=LockLevel(lock),
            speed_limit_kmh=max(0, min(255, self.params.speed_limit_kmh)),
            battery=self.battery_info(),
            fault_codes=self.fault_codes(),
        )
        phase = self.t / 600.0 + (spec.seed % 97)
        return Location(
            alarm=int(alarm),
            status=int(status),
            latitude=round(lat, 6),
            longitude=round(lon, 6),
            altitude_m=self.altitude_m,
            speed_kmh=speed,
            direction=self.heading % 360,
            time=self._stamp(),
            mileage_km=round(self.mileage_km, 1),
            fuel_l=None if self.tank is None else round(self.tank.level_l, 1),
            signal_strength=int(22 + 6 * math.sin(phase)),
            satellites=int(14 + 5 * math.sin(phase / 1.7)),
            forklift=forklift,
        )
