"""A simulated vehicle's state (:class:`ForkliftState`, the base of
:class:`~liftdesk.telemetry.simulator.model.driving.ForkliftModel`): what it is and where it starts, its
drivers and their IC card (0x0702 events), and its energy - parked on the charger or not, what idling and
working draw from the battery or the tank.
"""

from __future__ import annotations

import math
import random
import zlib
from collections import deque
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from liftdesk.telemetry.codecs.jt808 import (
    BehaviorAlarm,
    Body,
    CardList,
    CardReadResult,
    CardStatus,
    ChargeState,
    DmsAlarm,
    DriverIdentity,
    FaceComparison,
    FaceResult,
    FaceTrigger,
    ForkState,
    Impact,
    Jt808Version,
    PassThrough,
)

from ..energy import Battery, FuelTank
from ..params import TerminalParams
from ..schedule import LOCAL_TZ, Schedule, Window
from ..specs import Chemistry, DeviceSpec, Fuel, VehicleType
from ..yard import Point, Yard
from .ecu import EngineEcu
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
    #: The 10-digit serial of the driver's IC card: what the reader reports (0x0702, certificate number field).
    card_serial: str = "0000000000"


def card_serial(device: str, index: int) -> str:
    """The card serial of a simulated vehicle's ``index``-th driver (stable: the demo fleet registers them)."""
    return f"{zlib.crc32(f'{device}:{index}'.encode()) % 10**10:010d}"


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
        self.drivers = tuple(self._make_driver(rng, region, start, i) for i in range(3))

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
        #: A diesel's engine and after-treatment controllers on the CAN bus (0x0705 uploads); None: no such bus.
        self.ecu = EngineEcu(f"{spec.device}:{spec.seed}", p.power_factor) if p.fuel is Fuel.DIESEL else None
        self.fuel_lph = 0.0  # the fuel rate of the latest step (combustion)

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
        self.events: list[Body] = []
        #: The card list the platform sent (0x8F01, docs/protocol.md §4.6); None: never provisioned, any card works.
        self.card_list: CardList | None = None
        #: The serial the scenario makes drivers present instead of their own (``present``); None: their own.
        self.presented: str | None = None
        #: The card in the slot (its serial) and whether the terminal accepted it.
        self.card_in: str | None = None
        self.card_ok = True
        self.powered_at: float | None = None  # when the present working window powered on
        #: Faces and behaviour alarms of the driver camera draw from their own generator.
        self.vision_rng = random.Random(f"vision:{spec.device}:{spec.seed}")
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

    def _make_driver(self, rng: random.Random, region: str, start: float, index: int) -> Driver:
        name = rng.choice(_SURNAMES) + rng.choice(_GIVEN)
        number = _id_number(rng, region)
        today = datetime.fromtimestamp(start, UTC).astimezone(LOCAL_TZ).date()
        days = -rng.randint(1, 40) if rng.random() < 0.08 else rng.randint(20, 4 * 365)
        risk = rng.choice((0.3, 0.6, 1.0, 1.0, 1.5, 2.5))
        expiry = today + timedelta(days=days)
        serial = card_serial(self.spec.device, index)
        return Driver(name, number, self.spec.certificate_issuer, expiry, number, risk, serial)

    def _stamp(self) -> datetime:
        return datetime.fromtimestamp(math.floor(self.t), UTC)

    # ------------------------------------------------------------------ the card reader (docs/protocol.md §4.6)

    @property
    def enforcing(self) -> bool:
        """A terminal checks cards once the platform has sent it a list."""
        return self.card_list is not None

    @property
    def card_lock(self) -> bool:
        """Held still for want of an accepted card (a list held, and no card or a refused one in the slot)."""
        return self.enforcing and not (self.card_in is not None and self.card_ok)

    @property
    def lock_level(self) -> int:
        """The lock in force: the platform's (parameter 0xF001) or, for want of an accepted card, full."""
        return max(self.params.lock_level, 2 if self.card_lock else 0)

    def accepts(self, serial: str, when: datetime) -> bool:
        """The terminal's own check: the serial is in its list and its validity has not passed by its clock."""
        held = self.card_list
        if held is None:
            return True
        today = when.astimezone(LOCAL_TZ).date()
        return any(c.serial == serial and (c.valid_until is None or today <= c.valid_until) for c in held.cards)

    def take_card_list(self, cards: CardList) -> bool:
        """Keep a card list unless it is older than the one held; the card in the slot is checked again, and read
        again (0x0702) when the new list accepts it where the old one did not."""
        if self.card_list is not None and cards.issued < self.card_list.issued:
            return False
        self.card_list = cards
        if self.card_in is not None:
            was = self.card_ok
            self.card_ok = self.accepts(self.card_in, self._stamp())
            if self.card_ok and not was:
                self.events.append(self._identity(self.card_in, self._stamp()))
        return True

    def _driver_of(self, serial: str) -> Driver:
        return next((d for d in self.drivers if d.card_serial == serial), self.driver or self.drivers[0])

    def _identity(self, serial: str, when: datetime) -> DriverIdentity:
        d = self._driver_of(serial)
        return DriverIdentity(
            CardStatus.INSERTED,
            when,
            CardReadResult.SUCCESS,
            d.name,
            serial,
            d.issuer,
            d.certificate_expiry,
            d.id_card_no if self.spec.version is Jt808Version.V2019 else None,
        )

    def _insert(self, serial: str, when: datetime) -> None:
        """A card into the slot: checked against the list, reported either way (the platform checks it too)."""
        self.card_in = serial
        self.card_ok = self.accepts(serial, when)
        self.events.append(self._identity(serial, when))
        own = self.driver is not None and self.driver.card_serial == serial
        r = self.vision_rng
        self.events.append(
            PassThrough.of(
                FaceComparison(
                    when,
                    FaceResult.MATCHED if own else FaceResult.NO_MATCH,
                    r.randint(86, 99) if own else r.randint(20, 60),
                    serial if own else None,
                    FaceTrigger.CARD_INSERTED,
                    f"face/{self.spec.device}/{int(when.timestamp())}.jpg",
                )
            )
        )

    def _card_in(self, window: Window) -> None:
        driver = self.drivers[window.shift_index % len(self.drivers)]
        self.driver = driver
        self.card_shift = window.shift_key
        self._insert(self.presented or driver.card_serial, self._stamp())

    def _card_again(self) -> None:
        """Power-on with the card still in the slot: the reader reports it again (power-off ended the duty)."""
        if self.card_in is not None:
            self.card_ok = self.accepts(self.card_in, self._stamp())
            self.events.append(self._identity(self.card_in, self._stamp()))

    def present(self, serial: str, when: datetime | None = None) -> bool:
        """The scenario's driver presents card ``serial`` now (dated ``when``, the report's time, if given): any
        card in the slot comes out first; later shifts present it too. True when the terminal accepted it."""
        self.presented = serial
        if self.card_in is not None:
            self.events.append(DriverIdentity(CardStatus.REMOVED, when or self._stamp()))
        self.driver = self._driver_of(serial)
        self._insert(serial, when or self._stamp())
        return self.card_ok

    def _card_out(self) -> None:
        if self.card_shift is None:
            return
        self.card_shift = None
        self.driver = None
        self.card_in = None
        self.events.append(DriverIdentity(CardStatus.REMOVED, self._stamp()))

    def behaviour_alarm(self, since: float) -> None:
        """Now and then (more often for a reckless driver) the DMS camera caught something since ``since``."""
        d = self.driver
        r = self.vision_rng
        if d is None or self.t <= since or r.random() > min(0.9, 0.25 * d.risk):
            return
        when = datetime.fromtimestamp(math.floor(r.uniform(since, self.t)), UTC)
        alarm = r.choice((DmsAlarm.FATIGUE, DmsAlarm.PHONE, DmsAlarm.SMOKING, DmsAlarm.DISTRACTION, DmsAlarm.NO_FACE))
        self.events.append(PassThrough.of(BehaviorAlarm(when, alarm, r.choice((1, 1, 2)))))

    def card_identity(self) -> DriverIdentity:
        """The present card state as 0x0702 (answer to 0x8702)."""
        if self.card_in is None:
            return DriverIdentity(CardStatus.REMOVED, self._stamp())
        return self._identity(self.card_in, self._stamp())

    def take_events(self) -> list[Body]:
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
            self.fuel_lph = litres_per_hour
