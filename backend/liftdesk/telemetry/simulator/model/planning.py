"""How the vehicle's work is planned (:class:`ForkliftPlanner`): the next job by its kind of work (picks and
drops at docks, staging, racks, trucks; towing rounds), refuelling, the operator's habits (speeding legs, no
seat belt, impacts, overloads), and winding down at the end of a working window.
"""

from __future__ import annotations

import math

from liftdesk.telemetry.codecs.jt808 import Impact

from ..specs import Chemistry, Job
from ..yard import Point
from .reports import ForkliftReports
from .steps import Kind, Step

_RACK_LEVELS_MM = (0, 1500, 3000, 4500, 6000, 7500, 9000)


class ForkliftPlanner(ForkliftReports):
    """Plans the steps of a :class:`ForkliftReports`' jobs."""

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
        if self.lock_level >= 1:
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
