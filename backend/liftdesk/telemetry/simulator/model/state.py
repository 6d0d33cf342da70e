"""A simulated vehicle's state (:class:`ForkliftState`, the base of
:class:`~liftdesk.telemetry.simulator.model.driving.ForkliftModel`): what it is and where it starts, its
drivers and their IC card (0x0702 events), and its energy - parked on the charger or not, what idling and
working draw from the battery or the tank.
"""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from liftdesk.telemetry.codecs.jt808 import (
    CardReadResult,
    CardStatus,
    ChargeState,
    DriverIdentity,
    ForkState,
    Impact,
    Jt808Version,
)

from ..energy import Battery, FuelTank
from ..params import TerminalParams
from ..schedule import LOCAL_TZ, Schedule, Window
from ..specs import Chemistry, DeviceSpec, VehicleType
from ..yard import Point, Yard
from .steps import Step

_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐"
_GIVEN = ("伟", "芳", "磊", "军", "洋", "勇", "杰", "涛", "明", "超", "建国", "志强", "海燕", "俊杰", "秀英", "晓东")
#: Controller fault codes a truck may show (traction/pump controller style): traction motor over-temperature,
#: pump motor over-temperature, brake switch, accelerator out of range, contactor welded.
_FAULT_CODES = ("E-217", "E-305", "F-41", "H-12", "C-07")
#: Mean seconds between two controller faults (one falling due while parked shows at power-on), and how long one
#: lasts.
_FAULT_EVERY_S = 4 * 86400.0
_FAULT_LASTS_S = (600.0, 3600.0)


@dataclass(frozen=True, slots=True)
class Driver:
    name: str
    certificate_no: str
    issuer: str
    certificate_expiry: date
    id_card_no: str
    #: Habit multiplier of the risky events (speeding, no seat belt, impacts): careful 0.3 … reckless 2.5.
    risk: float = 1.0


def _id_number(rng: random.Random, region: str) -> str:
    """An 18-digit resident ID number with a valid ISO 7064 MOD 11-2 check digit."""
    birth = date(1968, 1, 1) + timedelta(days=rng.randrange(365 * 32))
    body = f"{region}{birth:%Y%m%d}{rng.randrange(1000):03d}"
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    total = sum(int(c) * w for c, w in zip(body, weights, strict=True))
    return body + "10X98765432"[total % 11]


class ForkliftState:
    """The state of one simulated vehicle, its drivers' cards and its energy."""

    def __init__(self, spec: DeviceSpec, params: TerminalParams, start: float) -> None:
        self.spec = spec
        self.profile = spec.profile
        self.params = params
        self.rng = random.Random(f"model:{spec.device}:{spec.seed}")
        self.yard = Yard.around(spec.base_lat, spec.base_lon, spec.yard_radius_m)
        self.schedule = Schedule(spec.shift_pattern, spec.seed)
        self.t = start
        rng = self.rng
        p = self.profile

        slot = int(spec.device[-6:]) % 24
        self.home: Point = self.yard.chargers[slot] if spec.electric else self.yard.parking[slot]
        self.max_lift_mm = rng.randint(*p.max_lift_mm) if p.forks else 0
        self.carry_mm = p.max_lift_mm[0] if spec.vehicle_type is VehicleType.PALLET_TRUCK else rng.randint(150, 300)
        self.mileage_km = round(rng.uniform(150.0, 6000.0), 1)
        self.altitude_m = rng.randint(3, 8)
        #: Slow walkie trucks work one area of the yard; riders range over all of it.
        self.zone: Point = rng.choice(self.yard.staging)
        self.zone_radius_m: float | None = 0.4 * spec.yard_radius_m if p.cruise_kmh[1] < 6.0 else None
        region = f"{spec.province_id:02d}{spec.city_id:04d}"
        self.drivers = tuple(self._make_driver(rng, region, start) for _ in range(3))

        working = self.schedule.window_at(start) is not None
        level = rng.uniform(0.45, 0.9) if working else rng.uniform(0.6, 1.0)
        chemistry = spec.battery_chemistry
        # Faults and electrolyte draw from their own generator, so they leave every other random choice as it was.
        self.fault_rng = random.Random(f"faults:{spec.device}:{spec.seed}")
        frng = self.fault_rng
        self.battery: Battery | None = None
        self.tank: FuelTank | None = None
        if chemistry is not None:
            water = frng.uniform(0.2, 0.34) if frng.random() < 0.25 else frng.uniform(0.45, 1.0)
            self.battery = Battery(chemistry, rng.randint(*p.capacity_ah), level, rng, start, electrolyte=water)
        else:
            self.tank = FuelTank(rng.randint(*p.tank_l), level)

        self.pos: Point = rng.choice(self.yard.staging) if working else self.home
        self.heading = rng.randrange(360)
        self.speed_ms = 0.0
        self.acc_on = False
        self.window: Window | None = None
        self.winding_down = False
        self.forced_charge = False
        self.on_charger = False
        self._done_window: float | None = None
        self.plan: deque[Step] = deque()
        self._cursor: Point = self.pos
        self.load_kg = 0
        self.fork_mm = 0.0
        self.fork_state = ForkState.LOWERED
        self.fastened = True
        self.driver: Driver | None = None
        self.card_shift: tuple[date, int] | None = None
        self.pending_impact: Impact | None = None
        self.overspeed_since: float | None = None
        self.events: list[DriverIdentity] = []
        #: The controller fault shown now and until when (simulated time).
        self.fault: tuple[str, float] | None = None
        if frng.random() < 0.15:
            self.fault = (frng.choice(_FAULT_CODES), start + frng.uniform(*_FAULT_LASTS_S))
        self._next_fault = start + frng.expovariate(1.0 / _FAULT_EVERY_S)
        #: Counters of what happened (for logs and tests).
        self.counts: dict[str, int] = {
            "jobs": 0,
            "impacts": 0,
            "overloads": 0,
            "speeding_legs": 0,
            "unbelted_jobs": 0,
            "charges": 0,
            "swaps": 0,
            "refuels": 0,
            "power_on": 0,
            "faults": 1 if self.fault is not None else 0,
            "waterings": 0,
        }
        if not working:
            self._park()

    # ------------------------------------------------------------------ people

    def _make_driver(self, rng: random.Random, region: str, start: float) -> Driver:
        name = rng.choice(_SURNAMES) + rng.choice(_GIVEN)
        number = _id_number(rng, region)
        today = datetime.fromtimestamp(start, UTC).astimezone(LOCAL_TZ).date()
        days = -rng.randint(1, 40) if rng.random() < 0.08 else rng.randint(20, 4 * 365)
        risk = rng.choice((0.3, 0.6, 1.0, 1.0, 1.5, 2.5))
        return Driver(name, number, self.spec.certificate_issuer, today + timedelta(days=days), number, risk)

    def _stamp(self) -> datetime:
        return datetime.fromtimestamp(math.floor(self.t), UTC)

    def _card_in(self, window: Window) -> None:
        driver = self.drivers[window.shift_index % len(self.drivers)]
        self.driver = driver
        self.card_shift = window.shift_key
        self.events.append(
            DriverIdentity(
                CardStatus.INSERTED,
                self._stamp(),
                CardReadResult.SUCCESS,
                driver.name,
                driver.certificate_no,
                driver.issuer,
                driver.certificate_expiry,
                driver.id_card_no if self.spec.version is Jt808Version.V2019 else None,
            )
        )

    def _card_out(self) -> None:
        if self.card_shift is None:
            return
        self.card_shift = None
        self.driver = None
        self.events.append(DriverIdentity(CardStatus.REMOVED, self._stamp()))

    def card_identity(self) -> DriverIdentity:
        """The present card state as 0x0702 (answer to 0x8702)."""
        d = self.driver
        if d is None:
            return DriverIdentity(CardStatus.REMOVED, self._stamp())
        return DriverIdentity(
            CardStatus.INSERTED,
            self._stamp(),
            CardReadResult.SUCCESS,
            d.name,
            d.certificate_no,
            d.issuer,
            d.certificate_expiry,
            d.id_card_no if self.spec.version is Jt808Version.V2019 else None,
        )

    def take_events(self) -> list[DriverIdentity]:
        events, self.events = self.events, []
        return events

    # ------------------------------------------------------------------ energy

    def _park(self) -> None:
        """Parked with ACC off: on the charger (electric, at home, when the driver would plug in) or not."""
        at_home = math.dist(self.pos, self.home) < 3.0
        b = self.battery
        self.on_charger = False
        if b is not None and at_home:
            gap = self.schedule.next_window(self.t).start - self.t
            if b.chemistry is Chemistry.LITHIUM:
                charge = b.soc < 0.97
            else:
                charge = gap >= 7200 or b.soc < 0.5 or self.spec.opportunity_charger or self.forced_charge
                if not charge and b.soc < 0.35:
                    b.soc = 0.98  # battery swap at the shift change
                    self.counts["swaps"] += 1
            charge = charge or self.forced_charge
            if b.liquid_low and self.fault_rng.random() < 0.25:
                b.water()  # the maintenance round waters the trucks it finds on their chargers
                self.counts["waterings"] += 1
            self.on_charger = charge and b.soc < 0.995
            if self.on_charger:
                self.counts["charges"] += 1
        if b is not None:
            b.step(
                b.charge_current() if self.on_charger else 0.0,
                0.0,
                self.t,
                ChargeState.CHARGING if self.on_charger else ChargeState.IDLE,
            )

    def _parked(self, dt: float) -> None:
        self.speed_ms = 0.0
        b = self.battery
        if b is None or dt <= 0:
            return
        if self.on_charger:
            b.charge(dt, self.t)
        else:
            b.step(-0.4, dt, self.t, ChargeState.IDLE)

    def _idle_amps(self) -> float:
        return 4.0 + 3.0 * self.profile.power_factor

    def _idle_lph(self) -> float:
        return 0.9 * self.profile.power_factor

    def _consume(self, amps: float, litres_per_hour: float, dt: float) -> None:
        if self.battery is not None:
            self.battery.step(-amps, dt, self.t, ChargeState.DISCHARGING)
        elif self.tank is not None:
            self.tank.burn(litres_per_hour, dt)
