"""The vehicle moving through simulated time (:class:`ForkliftModel`): powering on when a working window starts
and off at its end, and running the planned steps - travel with acceleration and speed caps, the forks, waits,
loads - stopping early at events worth an immediate report.
"""

from __future__ import annotations

import math

from liftdesk.telemetry.codecs.jt808 import ChargeState, ForkState, FunctionSwitch

from ..yard import heading
from .planning import ForkliftPlanner
from .steps import Kind, Step

_EPS = 1e-6
_TURN_SPEED_MS = 1.5
_CREEP_MS = 0.3


class ForkliftModel(ForkliftPlanner):
    """One simulated vehicle (see the package docstring)."""

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
        elif FunctionSwitch.CARD in self.params.switches:
            self._card_again()
        self.acc_on = True
        self.powered_at = self.t
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
        self.behaviour_alarm(self.powered_at if self.powered_at is not None else self.t)
        if w is None or w.last_of_shift:
            self._card_out()
        self._park()

    # ------------------------------------------------------------------ work

    def _work(self, limit: float) -> bool:
        while self.t < limit - _EPS:
            if self.lock_level >= 1:
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
