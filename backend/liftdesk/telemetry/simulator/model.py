"""What one vehicle does, shift by shift: a deterministic model in simulated time (no I/O).

The vehicle powers on when a working window starts (driver card in at the start of a shift), works job
after job in the yard (travel, lift, carry, drop, wait for the next order), drives to its charger or
parking spot and powers off at breaks, and charges (electric) or refuels (combustion).  Now and then an
operator speeds, overloads, forgets the seat belt or bumps into a rack.  Terminal parameters act on it:
a lock level ≥ 1 holds it still, the vendor speed limit caps its speed, calibration factors scale what
the sensors report, the collision threshold filters impacts.

Now and then the truck's controller also reports a fault code (item 0xE7) for a while, and a flooded lead-acid
battery runs low on electrolyte until it is watered (the BMS "liquid low" flag); a few trucks start that way, so
a fresh demo shows battery and fault alarms at once.

Time is epoch seconds (float).  :meth:`ForkliftModel.advance` moves the model forward and stops early at
events worth an immediate report (ACC on/off, an impact); :meth:`ForkliftModel.location` is the 0x0200
body of the present moment.
"""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from enum import Enum

from liftdesk.telemetry.codecs.jt808 import (
    AlarmFlag,
    BatteryInfo,
    CardReadResult,
    CardStatus,
    ChargeState,
    DriverIdentity,
    ForkliftStatus,
    Forks,
    ForkState,
    FunctionSwitch,
    Impact,
    Jt808Version,
    Location,
    LockLevel,
    SeatBelt,
    StatusFlag,
)

from .energy import Battery, FuelTank
from .params import TerminalParams
from .schedule import LOCAL_TZ, Schedule, Window
from .specs import Chemistry, DeviceSpec, Job, VehicleType
from .yard import Point, Yard, heading

_EPS = 1e-6
_TURN_SPEED_MS = 1.5
_CREEP_MS = 0.3
_RACK_LEVELS_MM = (0, 1500, 3000, 4500, 6000, 7500, 9000)
_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐"
_GIVEN = ("伟", "芳", "磊", "军", "洋", "勇", "杰", "涛", "明", "超", "建国", "志强", "海燕", "俊杰", "秀英", "晓东")
#: Controller fault codes a truck may show (traction/pump controller style): traction motor over-temperature,
#: pump motor over-temperature, brake switch, accelerator out of range, contactor welded.
_FAULT_CODES = ("E-217", "E-305", "F-41", "H-12", "C-07")
#: Mean seconds between two controller faults (one falling due while parked shows at power-on), and how long one
#: lasts.
_FAULT_EVERY_S = 4 * 86400.0
_FAULT_LASTS_S = (600.0, 3600.0)


class Kind(Enum):
    TRAVEL = "travel"
    FORKS = "forks"
    WAIT = "wait"
    LOAD = "load"
    UNLOAD = "unload"
    IMPACT = "impact"
    SEAT_BELT = "seat_belt"
    REFUEL = "refuel"
    POWER_OFF = "power_off"


@dataclass
class Step:
    kind: Kind
    path: list[Point] = field(default_factory=list)
    cruise_kmh: float = 0.0
    height_mm: int = 0
    seconds: float = 0.0
    load_kg: int = 0
    handling: bool = False
    impact: Impact | None = None
    fastened: bool = True


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


class ForkliftModel:
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

    # ------------------------------------------------------------------ time

    def advance(self, to: float) -> bool:
        """Run until ``to``; stop early (returning True) right after an ACC change or an impact."""
        while True:
            if not self.acc_on:
                start = self._next_power_on()
                if start <= self.t + _EPS:
                    if self._try_power_on():
                        return True
                    continue
                if self.t >= to - _EPS:
                    return False
                end = min(to, start)
                self._parked(end - self.t)
                self.t = end
                continue
            if self.t >= to - _EPS:
                return False
            window = self.window
            if not self.winding_down and (window is None or self.t >= window.end - _EPS):
                self._wind_down()
            limit = to if self.winding_down or window is None else min(to, window.end)
            if self._work(limit):
                return True

    def sync(self, to: float) -> None:
        """Catch up to ``to`` through any events (used before a command changes the terminal)."""
        while self.t < to - _EPS:
            self.advance(to)

    def _next_power_on(self) -> float:
        w = self.schedule.window_at(self.t)
        if w is not None and w.start != self._done_window and w.end - self.t > 120:
            return self.t
        return self.schedule.next_window(self.t).start

    def _try_power_on(self) -> bool:
        w = self.schedule.window_at(self.t)
        if w is None:
            return False
        if self.forced_charge and self.battery is not None and self.battery.soc < 0.8:
            self._done_window = w.start  # still charging: skip this window
            return False
        self.forced_charge = False
        self.window = w
        self.winding_down = False
        self.on_charger = False
        if FunctionSwitch.CARD in self.params.switches and self.card_shift != w.shift_key:
            self._card_out()
            self._card_in(w)
        self.acc_on = True
        self.fastened = True
        self.counts["power_on"] += 1
        if self.battery is not None:
            self.battery.step(-self._idle_amps(), 0.0, self.t, ChargeState.DISCHARGING)
        return True

    def _power_off(self) -> None:
        w = self.window
        self.acc_on = False
        self.speed_ms = 0.0
        self.overspeed_since = None
        self.winding_down = False
        self.plan.clear()
        self.window = None
        if w is not None:
            self._done_window = w.start
        if w is None or w.last_of_shift:
            self._card_out()
        self._park()

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

    # ------------------------------------------------------------------ work

    def _work(self, limit: float) -> bool:
        while self.t < limit - _EPS:
            if self.params.lock_level >= 1:
                self.speed_ms = 0.0
                self.overspeed_since = None
                if self.winding_down:
                    self._power_off()  # the operator turns the key off where the truck stands
                    return True
                self._consume(self._idle_amps(), self._idle_lph(), limit - self.t)
                self.t = limit
                return False
            if not self.plan:
                if self.winding_down:
                    self._power_off()
                    return True
                self._plan_job()
                continue
            step = self.plan[0]
            used, done, event = self._run(step, limit - self.t)
            self.t += used
            if done and self.plan and self.plan[0] is step:
                self.plan.popleft()
            if event:
                return True
        return False

    def _run(self, step: Step, dt: float) -> tuple[float, bool, bool]:
        """Run ``step`` for at most ``dt`` seconds: (time used, finished, report-worthy event)."""
        kind = step.kind
        if kind is Kind.TRAVEL:
            used = self._travel(step, dt)
            return used, not step.path, False
        if kind is Kind.FORKS:
            return self._forks(step, dt)
        if kind in (Kind.WAIT, Kind.REFUEL):
            used = min(dt, step.seconds)
            step.seconds -= used
            self.speed_ms = 0.0
            if step.handling:
                self._consume(15.0 * self.profile.power_factor, 1.5 * self.profile.power_factor, used)
            else:
                self._consume(self._idle_amps(), self._idle_lph(), used)
            done = step.seconds <= _EPS
            if done and kind is Kind.REFUEL and self.tank is not None:
                self.tank.refill()
                self.counts["refuels"] += 1
            return used, done, False
        if kind is Kind.LOAD:
            self.load_kg = step.load_kg
        elif kind is Kind.UNLOAD:
            self.load_kg = 0
        elif kind is Kind.SEAT_BELT:
            self.fastened = step.fastened
        elif kind is Kind.IMPACT:
            if step.impact is not None and step.impact.accel_g >= max(0.1, self.params.collision_threshold_g):
                self.pending_impact = step.impact
                self.counts["impacts"] += 1
                return 0.0, True, True
        elif kind is Kind.POWER_OFF:
            self._power_off()
            return 0.0, True, True
        return 0.0, True, False

    def _cap_kmh(self, cruise: float) -> float:
        cap = min(cruise, self.profile.top_kmh)
        limit = self.params.speed_limit_kmh
        if limit > 0:
            cap = min(cap, float(limit))
        return cap

    def _travel(self, step: Step, dt: float) -> float:
        used = 0.0
        a = self.profile.accel_ms2
        vmax = self._cap_kmh(step.cruise_kmh) / 3.6
        pf = self.profile.power_factor
        over_ms = self.params.max_speed_kmh / 3.6 / self.params.speed_factor
        while used < dt - _EPS and step.path:
            target = step.path[0]
            h = min(1.0, dt - used)
            d = math.dist(self.pos, target)
            end_speed = 0.0 if len(step.path) == 1 else _TURN_SPEED_MS
            v_target = min(vmax, math.sqrt(end_speed**2 + 2 * a * d))
            v = self.speed_ms
            v = min(v_target, v + a * h) if v < v_target else max(v_target, v - 2 * a * h)
            v_eff = max(v, _CREEP_MS)
            ds = v_eff * h
            if ds >= d:
                h = d / v_eff if v_eff > 0 else 0.0
                ds = d
                self.pos = target
                step.path.pop(0)
            else:
                f = ds / d
                self.pos = (self.pos[0] + (target[0] - self.pos[0]) * f, self.pos[1] + (target[1] - self.pos[1]) * f)
            if d > 0.5:
                self.heading = heading(self.pos, target) if self.pos != target else self.heading
            self.speed_ms = v if step.path else 0.0
            self.mileage_km += ds / 1000.0
            kmh = v * 3.6
            frac = self.load_kg / self.spec.rated_load_kg
            self._consume(pf * (18.0 + 6.0 * kmh) * (1 + 0.5 * frac), pf * (1.6 + 0.12 * kmh + 1.2 * frac), h)
            if self.speed_ms > over_ms:
                if self.overspeed_since is None:
                    self.overspeed_since = self.t + used + h
            else:
                self.overspeed_since = None
            used += h
        if not step.path:
            self.speed_ms = 0.0
            self.overspeed_since = None
        return used

    def _forks(self, step: Step, dt: float) -> tuple[float, bool, bool]:
        self.speed_ms = 0.0
        target = float(min(step.height_mm, self.max_lift_mm))
        gap = target - self.fork_mm
        if abs(gap) < 0.5:
            self.fork_mm = target
            self.fork_state = ForkState.RAISED if target > 400 else ForkState.LOWERED
            return 0.0, True, False
        frac = self.load_kg / self.spec.rated_load_kg
        pf = self.profile.power_factor
        if gap > 0:
            rate = 400.0 - 120.0 * min(1.0, frac)
            amps, lph = pf * (80.0 + 160.0 * min(1.3, frac)), pf * (3.0 + 2.0 * frac)
            self.fork_state = ForkState.LIFTING
        else:
            rate = 450.0
            amps, lph = 10.0, self._idle_lph()
            self.fork_state = ForkState.LOWERING
        needed = abs(gap) / rate
        used = min(dt, needed)
        self.fork_mm += math.copysign(rate * used, gap)
        self._consume(amps, lph, used)
        if used >= needed - _EPS:
            self.fork_mm = target
            self.fork_state = ForkState.RAISED if target > 400 else ForkState.LOWERED
            return used, True, False
        return used, False, False

    def _idle_amps(self) -> float:
        return 4.0 + 3.0 * self.profile.power_factor

    def _idle_lph(self) -> float:
        return 0.9 * self.profile.power_factor

    def _consume(self, amps: float, litres_per_hour: float, dt: float) -> None:
        if self.battery is not None:
            self.battery.step(-amps, dt, self.t, ChargeState.DISCHARGING)
        elif self.tank is not None:
            self.tank.burn(litres_per_hour, dt)

    # ------------------------------------------------------------------ planning

    def _cruise(self, loaded: bool) -> tuple[float, bool]:
        lo, hi = self.profile.cruise_kmh
        if self.profile.top_kmh > 12.5 and self.rng.random() < 0.02 * self._risk:
            return self.rng.uniform(13.0, min(17.0, self.profile.top_kmh)), True
        speed = self.rng.uniform(lo, hi)
        return (speed * 0.8 if loaded else speed), False

    def _go(self, target: Point, loaded: bool = False) -> list[Step]:
        """Travel from where the plan so far ends to ``target``."""
        start = self._cursor
        path = self.yard.route(start, target)
        if not path:
            return []
        cruise, speeding = self._cruise(loaded)
        if speeding and math.dist(start, target) < 60:
            cruise = self.rng.uniform(*self.profile.cruise_kmh)  # too short to get up to speed
        elif speeding:
            self.counts["speeding_legs"] += 1
        self._cursor = target
        return [Step(Kind.TRAVEL, path=path, cruise_kmh=cruise)]

    @property
    def _risk(self) -> float:
        return 1.0 if self.driver is None else self.driver.risk

    def _level(self) -> int:
        levels = [h for h in _RACK_LEVELS_MM if h <= self.max_lift_mm - 300] or [0]
        return self.rng.choice(levels)

    def _near(self, points: tuple[Point, ...]) -> Point:
        """A random point of ``points``, within the vehicle's working zone when it has one."""
        if self.zone_radius_m is not None:
            close = [p for p in points if math.dist(p, self.zone) <= self.zone_radius_m]
            if close:
                return self.rng.choice(close)
        return self.rng.choice(points)

    def _pick_drop(self) -> tuple[Point, int, Point, int]:
        y = self.yard
        r = self.rng
        job = self.profile.job
        near = self._near
        if job is Job.TRUCK_LOADING:
            bed = r.randint(1100, 1300)
            if r.random() < 0.5:
                return near(y.outdoor), r.choice((0, bed)), near(y.docks), 0
            return near(y.docks), 0, near(y.outdoor), r.choice((0, bed))
        if job is Job.DOCK_TO_STOCK:
            choice = r.random()
            if choice < 0.35:
                return near(y.docks), 0, near(y.staging), 0
            if choice < 0.7:
                return near(y.staging), 0, near(y.racks), self._level()
            return near(y.racks), self._level(), near(y.docks), 0
        if job is Job.PUTAWAY:
            if r.random() < 0.5:
                return near(y.staging), 0, near(y.racks), self._level()
            return near(y.racks), self._level(), near(y.staging), 0
        return near(y.docks), 0, near(y.staging), 0  # SHUTTLE

    def _impact(self) -> Impact:
        r = self.rng
        roll = r.random()
        if roll < 0.6:
            direction = r.randint(-30, 30) % 360
        elif roll < 0.85:
            direction = r.randint(150, 210)
        else:
            direction = r.choice((r.randint(60, 120), r.randint(240, 300)))
        return Impact(round(r.uniform(1.5, 4.0), 2), direction)

    def _plan_job(self) -> None:
        r = self.rng
        p = self.profile
        self._cursor = self.pos
        b = self.battery
        if b is not None and b.soc < (0.2 if b.chemistry is Chemistry.LEAD_ACID else 0.12):
            self.forced_charge = True
            self._wind_down()
            return
        if self.tank is not None and self.tank.fraction < 0.15:
            self.plan.extend(self._go(self.yard.fuel_point))
            self.plan.append(Step(Kind.REFUEL, seconds=r.uniform(180, 360)))
            return
        self.counts["jobs"] += 1
        steps: list[Step] = []
        if p.seat:
            fastened = r.random() >= 0.03 * self._risk
            if not fastened:
                self.counts["unbelted_jobs"] += 1
            steps.append(Step(Kind.SEAT_BELT, fastened=fastened))
        impact_at = r.randrange(3) if r.random() < 0.008 * self._risk else -1
        if p.job is Job.TOWING:
            stops = r.randint(2, 4)
            for n in range(stops):
                target = r.choice(self.yard.docks + self.yard.staging)
                steps += self._go(target)
                if n == impact_at:
                    steps += [Step(Kind.IMPACT, impact=self._impact()), Step(Kind.WAIT, seconds=r.uniform(15, 40))]
                steps.append(Step(Kind.WAIT, seconds=r.uniform(40, 120)))
        else:
            pick, pick_h, drop, drop_h = self._pick_drop()
            if r.random() < 0.015:
                load = min(65000, round(self.spec.rated_load_kg * r.uniform(1.05, 1.3)))
                self.counts["overloads"] += 1
            else:
                load = 5 * round(r.uniform(200, min(2500, 0.9 * self.spec.rated_load_kg)) / 5)
            carry = self.carry_mm
            steps += self._go(pick)
            steps += [
                Step(Kind.FORKS, height_mm=pick_h),
                Step(Kind.WAIT, seconds=r.uniform(6, 20), handling=True),
                Step(Kind.LOAD, load_kg=load),
                Step(Kind.FORKS, height_mm=carry),
            ]
            if impact_at == 0:
                steps += [Step(Kind.IMPACT, impact=self._impact()), Step(Kind.WAIT, seconds=r.uniform(15, 40))]
            steps += self._go(drop, loaded=True)
            if impact_at == 1:
                steps += [Step(Kind.IMPACT, impact=self._impact()), Step(Kind.WAIT, seconds=r.uniform(15, 40))]
            steps += [
                Step(Kind.FORKS, height_mm=drop_h),
                Step(Kind.WAIT, seconds=r.uniform(5, 15), handling=True),
                Step(Kind.UNLOAD),
                Step(Kind.FORKS, height_mm=0),
            ]
            if impact_at == 2:
                steps += [Step(Kind.IMPACT, impact=self._impact()), Step(Kind.WAIT, seconds=r.uniform(15, 40))]
        roll = r.random()
        if roll < 0.25:
            steps.append(Step(Kind.WAIT, seconds=r.uniform(150, 600)))  # waiting for orders
        elif roll < 0.85:
            steps.append(Step(Kind.WAIT, seconds=r.uniform(20, 120)))
        self.plan.extend(steps)

    def _wind_down(self) -> None:
        """End of a window (or a flat battery): put the load down, go home, power off."""
        self.winding_down = True
        self.plan.clear()
        self._cursor = self.pos
        if self.params.lock_level >= 1:
            self.plan.append(Step(Kind.POWER_OFF))
            return
        steps: list[Step] = []
        if self.load_kg:
            steps += self._go(min(self.yard.staging, key=lambda s: math.dist(s, self.pos)), loaded=True)
            steps += [Step(Kind.FORKS, height_mm=0), Step(Kind.UNLOAD)]
        if self.tank is not None and self.tank.fraction < 0.3:
            steps += self._go(self.yard.fuel_point)
            steps.append(Step(Kind.REFUEL, seconds=self.rng.uniform(180, 360)))
        steps += self._go(self.home)
        steps += [Step(Kind.FORKS, height_mm=0), Step(Kind.WAIT, seconds=5.0), Step(Kind.POWER_OFF)]
        self.plan.extend(steps)

    # ------------------------------------------------------------------ reports

    @property
    def locked(self) -> bool:
        return self.params.lock_level >= 1

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
        """The controller's active fault codes (item 0xE7) while a fault shows; None otherwise (item left out)."""
        if self.fault is not None and self.t >= self.fault[1]:
            self.fault = None
        if self.acc_on and self.t >= self._next_fault:  # one that came due while parked shows at power-on
            if self.fault is None:
                self.fault = (self.fault_rng.choice(_FAULT_CODES), self.t + self.fault_rng.uniform(*_FAULT_LASTS_S))
                self.counts["faults"] += 1
            self._next_fault = self.t + self.fault_rng.expovariate(1.0 / _FAULT_EVERY_S)
        return (self.fault[0],) if self.fault is not None else None

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
        lock = max(0, min(2, self.params.lock_level))
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


class ReportSchedule:
    """When a terminal reports: every 0x0029 seconds while working, 0x0027 with ACC off, 0x0028 during an
    alarm, and at once after ACC changes and impacts, at most once per (BCD) second."""

    def __init__(self, model: ForkliftModel) -> None:
        self.model = model
        self.last: float | None = None
        self._soon = False

    def interval(self) -> float:
        m, p = self.model, self.model.params
        if not m.acc_on:
            return p.sleep_interval_s
        if m.alarm_active:
            return min(p.report_interval_s, p.emergency_interval_s)
        return p.report_interval_s

    def due(self) -> float:
        """Simulated time of the next report."""
        if self.last is None:
            return self.model.t
        if self._soon:
            return math.floor(self.last) + 1.0
        return self.last + self.interval()

    def idle_to(self, t: float) -> bool:
        """Advance without reporting (for a message between reports); an event on the way (ACC on) makes the
        next report due at once.  Returns True when that happened."""
        if self.model.advance(max(t, self.model.t)):
            self._soon = True
            return True
        return False

    def run_to(self, due: float) -> Location | None:
        """Advance the model to ``due`` (or to an event before it) and return the report to send, if any."""
        m = self.model
        m.advance(max(due, m.t))
        if self.last is not None and math.floor(m.t) <= math.floor(self.last):
            self._soon = True  # an event within the second of the last report: report it next second
            return None
        self._soon = False
        self.last = m.t
        return m.location()
