"""The pipeline itself (:class:`Pipeline`): the queue of submitted reports, one writer task staging a batch
while the previous one is written, the commit and what it publishes, the bus notices that change cached
state (offline alarms, retention, settings), and the vehicle contexts and tenant settings it caches.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from sqlalchemy import select

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.fleet.models import Vehicle
from liftdesk.system.messages import alarm_messages
from liftdesk.system.models import Tenant
from liftdesk.telemetry.cards import CardHolder, card_holders
from liftdesk.telemetry.fences import attach_fences, load_fences
from liftdesk.telemetry.messages import STATUS_FIX, DriverChange, FaceSeen, Fix, Report, UnknownDevice
from liftdesk.telemetry.models import Terminal, VehicleState
from liftdesk.telemetry.pipeline.clock import run_live
from liftdesk.telemetry.pipeline.context import Batch, ClockFault, OpenAlarm, VehicleCtx
from liftdesk.telemetry.pipeline.drivers import card_key, identity, vision
from liftdesk.telemetry.pipeline.late import replay_late
from liftdesk.telemetry.pipeline.live import live_view, remember_can
from liftdesk.telemetry.rules import PARAM_PREFIX, TENANT_THRESHOLDS, Thresholds, load_threshold_kg, tenant_thresholds
from liftdesk.telemetry.store import retention_cut
from liftdesk.telemetry.view import EVENT_TOPIC, LIVE_TOPIC, event_message

log = logging.getLogger("liftdesk.pipeline")


@dataclass(frozen=True)
class TenantCfg:
    """What the pipeline keeps of a tenant: its thresholds and how many months of data it keeps (None: unknown
    tenant, nothing expires)."""

    limits: Thresholds
    retention_months: int | None


class Pipeline:
    def __init__(
        self, db: Database, bus: Bus, tz_minutes: int = 480, max_batch: int = 4000, max_wait_s: float = 0.02
    ) -> None:
        from liftdesk.telemetry.store import TelemetryStore

        self.db = db
        self.bus = bus
        self.store = TelemetryStore(db)
        self.tz = timezone(timedelta(minutes=tz_minutes))
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self._queue: asyncio.Queue[tuple[list[Report], asyncio.Future[None]]] = asyncio.Queue()
        self._ctx: dict[str, VehicleCtx | None] = {}
        self._task: asyncio.Task[None] | None = None
        self._writing: asyncio.Task[bool] | None = None  # the write of the batch before the one being staged
        self._tenants: dict[str, TenantCfg] = {}
        self._cuts: dict[str, tuple[date, datetime]] = {}  # tenant → (the day it was worked out on, retention cut)
        self._floors: dict[str, date] = {}  # tenant → first day kept, as the last retention run announced it
        self._offline: dict[str, dict[str, Any]] = {}  # device → offline notice not yet applied to its context
        self.written = 0
        self.batches = 0

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="telemetry-pipeline")

    async def stop(self) -> None:
        for task in (self._task, self._writing):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._writing = None

    def forget(self, device: str | None = None) -> None:
        """Drop cached vehicle contexts (after a vehicle or its thresholds changed)."""
        if device is None:
            self._ctx.clear()
            self._tenants.clear()
            self._cuts.clear()
        else:
            self._ctx.pop(device, None)

    # ------------------------------------------------------------------ bus notices (wired in app.wire_telemetry)

    async def on_offline(self, msg: dict[str, Any]) -> None:
        """``jobs.OFFLINE_TOPIC``: the offline job opened an ``offline`` alarm and wrote it into the vehicle's stored
        state. A cached context does not know it: without this, the next report would write ``open_events`` back
        without it and the alarm would never end. Applied when the next batch is staged (see
        :meth:`_apply_offline`), so that it takes its place among the batches."""
        device = str(msg.get("deviceNumber") or "")
        if device:
            self._offline[device] = msg

    async def on_retention(self, msg: dict[str, Any]) -> None:
        """``jobs.RETENTION_TOPIC``: a retention run (in this process or another) dropped months of a tenant. The
        keepers forget those partitions and nothing older than the first day kept is stored from now on, even
        while this process still holds a longer retention period."""
        tenant = str(msg.get("tenantId") or "")
        with contextlib.suppress(TypeError, ValueError):
            keep = date.fromisoformat(str(msg.get("keepFrom")))
            if tenant and keep > self._floors.get(tenant, date.min):
                self._floors[tenant] = keep
                self._cuts.pop(tenant, None)
        dropped = msg.get("dropped")
        self.store.forget_partitions(str(n) for n in (dropped if isinstance(dropped, list) else ()))

    async def on_settings_changed(self, msg: dict[str, Any]) -> None:
        """``system.service.SETTINGS_CHANGED``: a parameter, a business dictionary entry or a tenant was saved or
        removed. Thresholds (``telemetry.*`` parameters: every tenant; a tenant's ``telemetry_threshold``
        dictionary: that tenant) are read again, and the contexts built on them rebuilt; a tenant's retention is
        read again."""
        kind, code, tenant = msg.get("kind"), str(msg.get("code") or ""), str(msg.get("tenantId") or "")
        if kind == "tenant":
            if tenant:
                self._tenants.pop(tenant, None)
                self._cuts.pop(tenant, None)
                self._floors.pop(tenant, None)
            return
        if kind == "param" and code.startswith(PARAM_PREFIX):
            self._drop_thresholds(None)
        elif kind == "dict_biz" and code == TENANT_THRESHOLDS and tenant:
            self._drop_thresholds(tenant)

    def _drop_thresholds(self, tenant: str | None) -> None:
        if tenant is None:
            self._tenants.clear()
            self._cuts.clear()
        else:
            self._tenants.pop(tenant, None)
            self._cuts.pop(tenant, None)
        # A context dropped now is loaded again by the next batch of its vehicle, after the write in flight.
        for device in [d for d, c in self._ctx.items() if c is not None and tenant in (None, c.tenant_id)]:
            del self._ctx[device]

    def _apply_offline(self, batch: Batch) -> None:
        """Put the offline alarms announced since the last batch into the cached contexts. A context not cached
        will be read from the database, which has the alarm. When the vehicle reported after the job looked
        (its fix was in a batch being written then), it is not offline: the alarm ends at once."""
        notices, self._offline = self._offline, {}
        for device, msg in notices.items():
            ctx = self._ctx.get(device)
            if ctx is None or "offline" in ctx.open:
                continue
            try:
                event_id = int(msg["eventId"])
                begin = datetime.fromisoformat(str(msg["begin"]))
                days = float(msg.get("days") or 0.0)
                seen = datetime.fromisoformat(str(msg["deviceTime"])) if msg.get("deviceTime") else None
            except (KeyError, TypeError, ValueError):
                log.warning("malformed offline notice for %s: %r", device, msg)
                continue
            ctx.open["offline"] = OpenAlarm(event_id, begin, days, days)
            if ctx.last is not None and seen is not None and ctx.last.time > seen:
                batch.close_alarm(ctx, "offline", max(begin, ctx.last.time))
            batch.open_only[ctx.vehicle_id] = ctx

    # ------------------------------------------------------------------ the queue and the writer

    async def set_driver(self, device: str, change: DriverChange) -> None:
        """A driver identity report: through the queue like positions, so that a batch in flight cannot write the
        previous driver back, and the positions before the change keep the previous driver. Raises
        :class:`UnknownDevice` when the terminal has no vehicle."""
        await self.submit(Report(device, (), utcnow(), driver=change))

    async def submit(self, report: Report | Sequence[Report]) -> None:
        """Queue a report (or several, e.g. every position one read from a socket brought); return once they are
        committed (raise if the write failed). Several reports cost one queue entry and one future.

        Raises :class:`UnknownDevice` when a report's terminal is bound to no vehicle: that terminal's data was not
        stored (the other terminals' data of the submission was), so it must not be acknowledged. Only this
        submission fails; the others of the same batch are unaffected."""
        if self._task is None:
            await self.start()
        reports = [report] if isinstance(report, Report) else list(report)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((reports, fut))
        await fut

    async def _collect(self) -> list[tuple[list[Report], asyncio.Future[None]]]:
        """The next batch's queue entries: what is queued, waiting up to ``max_wait_s`` for up to ``max_batch``."""
        loop = asyncio.get_running_loop()
        first = await self._queue.get()
        items = [first]
        count = sum(len(r.fixes) for r in first[0])
        deadline = loop.time() + self.max_wait_s
        while count < self.max_batch:
            if self._queue.empty():
                timeout = deadline - loop.time()
                if timeout <= 0:
                    break
                try:
                    # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation when the item
                    # arrives at the same moment, and stop() would then wait forever.
                    async with asyncio.timeout(timeout):
                        item = await self._queue.get()
                except TimeoutError:
                    break
            else:
                item = self._queue.get_nowait()
            items.append(item)
            count += sum(len(r.fixes) for r in item[0])
        return items

    async def _run(self) -> None:
        """Batches are staged while the previous one is being written (the stages are CPU, the write mostly waits
        for the database), and written one after the other. A batch counts on the previous one's write: when that
        fails, it fails too, and the contexts both touched are dropped (the database is the truth)."""
        while True:
            items = await self._collect()
            reports = [r for rs, _ in items for r in rs]
            if self._writing is not None and any(r.device not in self._ctx for r in reports):
                await self._writing  # a context read from the database now must see the write in flight
                self._writing = None
            try:
                batch = await self.stage(reports)
            except Exception as exc:
                log.exception("telemetry batch of %d reports failed; not acknowledged", len(items))
                self._fail(items, exc)
                continue
            if self._writing is not None:
                written = await self._writing
                self._writing = None
                if not written:
                    self._fail(items, RuntimeError("the batch before this one was not written"))
                    continue
            self._writing = asyncio.create_task(self._commit_items(batch, items))

    async def _commit_items(self, batch: Batch, items: list[tuple[list[Report], asyncio.Future[None]]]) -> bool:
        try:
            await self.commit(batch)
        except Exception as exc:
            log.exception("telemetry batch of %d reports failed; not acknowledged", len(items))
            self._fail(items, exc)
            return False
        for reports, fut in items:
            if fut.done():
                continue
            unknown = frozenset(r.device for r in reports if r.device in batch.unknown) if batch.unknown else None
            if unknown:
                fut.set_exception(UnknownDevice(unknown))
            else:
                fut.set_result(None)
        return True

    def _fail(self, items: list[tuple[list[Report], asyncio.Future[None]]], exc: BaseException) -> None:
        for reports, fut in items:
            for report in reports:
                self._ctx.pop(report.device, None)  # the cached state may be ahead of the database
            if not fut.done():
                fut.set_exception(exc)

    async def process(self, reports: list[Report]) -> Batch:
        """Run the stages over reports and write the result in one transaction (raising :class:`UnknownDevice`,
        once the rest is written, when a terminal is bound to no vehicle)."""
        batch = await self.stage(reports)
        await self.commit(batch)
        if batch.unknown:
            raise UnknownDevice(frozenset(batch.unknown))
        return batch

    async def stage(self, reports: list[Report]) -> Batch:
        """Run the stages over reports (loading the contexts they need): the batch to write."""
        batch = Batch(tz=self.tz)
        by_device: dict[str, list[Fix]] = {}
        await self._load_contexts(list({r.device for r in reports if r.device not in self._ctx}))
        if self._offline:
            self._apply_offline(batch)
        holders = await self._holders(reports)
        for report in reports:
            if report.backfill and report.fixes:
                batch.backfilled.update(id(f) for f in report.fixes)
            if report.driver is not None or report.vision:
                ctx = await self._context(report.device)
                if ctx is not None:  # the positions before the change are the previous driver's
                    await self._run_live(by_device.pop(report.device, []), ctx, batch)
                    for item in report.vision:
                        key = card_key(ctx, item.card) if isinstance(item, FaceSeen) else None
                        vision(item, report.received_at, ctx, batch, holders.get(key) if key else None)
                    if report.driver is not None:
                        key = card_key(ctx, report.driver.card)
                        identity(report.driver, report.received_at, ctx, batch, holders.get(key) if key else None)
                        batch.states[ctx.vehicle_id] = ctx
            if report.can:
                ctx = await self._context(report.device)
                if ctx is not None:
                    remember_can(ctx, report, batch)
                    batch.states[ctx.vehicle_id] = ctx
            by_device.setdefault(report.device, []).extend(report.fixes)
        for device, fixes in by_device.items():
            ctx = await self._context(device)
            if ctx is None:
                batch.unknown.add(device)
                continue
            await self._run_live(fixes, ctx, batch)
        if batch.late_fixes:
            await self._backfill(batch)
        if batch.expired:
            log.debug("%d backfilled fixes dated beyond plausibility: not stored", batch.expired)
        if batch.clock_faults:
            log.debug("%d fixes from terminals whose clock is wrong: live state only", batch.clock_faults)
        batch.states = {vid: v.snapshot() for vid, v in batch.states.items()}
        batch.open_only = {vid: v.snapshot() for vid, v in batch.open_only.items()}
        return batch

    async def _holders(self, reports: list[Report]) -> dict[tuple[str, str], CardHolder]:
        """The cards the batch's identity reports and face comparisons name, looked up once for the batch."""
        keys: set[tuple[str, str]] = set()
        for report in reports:
            cards = [report.driver.card] if report.driver is not None else []
            cards += [item.card for item in report.vision if isinstance(item, FaceSeen)]
            ctx = self._ctx.get(report.device)
            if ctx is None:
                continue
            keys.update(k for k in (card_key(ctx, c) for c in cards) if k is not None)
        return await card_holders(self.db, keys) if keys else {}

    async def _run_live(self, fixes: list[Fix], ctx: VehicleCtx, batch: Batch) -> None:
        if fixes:
            ctx.keep_from = await self._keep_from(ctx.tenant_id, batch.now.date())
            run_live(fixes, ctx, batch)

    async def _backfill(self, batch: Batch) -> None:
        """The late fixes of a batch: those not stored yet are replayed (:func:`replay_late`). Two look-ups per
        batch whatever the number of fixes (the stored positions around them, the alarms over their stretch), one
        per ``store.QUERY_CHUNK`` vehicles."""
        if self._writing is not None:
            await self._writing  # the write in flight may hold positions these fixes land among
        late: dict[int, tuple[VehicleCtx, list[Fix]]] = {}
        for v, fix in batch.late_fixes:  # in time order per vehicle: run_stages sorted them
            late.setdefault(v.vehicle_id, (v, []))[1].append(fix)
        stored = await self.store.stored_around(
            [(v.tenant_id, v.vehicle_id, fixes[0].time - v.gap, fixes[-1].time + v.gap) for v, fixes in late.values()]
        )
        fresh: dict[int, tuple[VehicleCtx, list[Fix]]] = {}
        for vid, (v, fixes) in late.items():
            seen = {f.time for f in stored.get(vid, ())}
            new: list[Fix] = []
            for f in fixes:
                if f.time in seen:  # stored already (a re-sent backfill), or a second fix with its time
                    batch.duplicates += 1
                    continue
                seen.add(f.time)
                new.append(f)
            if new:
                fresh[vid] = (v, new)
                batch.late += len(new)
        if not fresh:
            return
        held = await self.store.alarms_over(
            [(v.tenant_id, v.vehicle_id, fixes[0].time, fixes[-1].time) for v, fixes in fresh.values()]
        )
        for vid, (v, fixes) in fresh.items():
            replay_late(v, fixes, stored.get(vid, []), held.get(vid, set()), batch)

    async def commit(self, batch: Batch) -> None:
        """Write a staged batch in one transaction, then publish the vehicles' new live states and every new
        event (not coalesced: the live hub bounds them per browser)."""
        await self.store.write(batch)
        self.written += len(batch.positions) + len(batch.late_positions)
        self.batches += 1
        for v in batch.states.values():
            await self.bus.publish(LIVE_TOPIC, live_view(v, batch.now))
        for event in batch.new_events:
            await self.bus.publish(EVENT_TOPIC, event_message(event))
        if batch.new_events:  # in-site messages to their receivers: one transaction per batch, never failing it
            await alarm_messages(self.db, batch.new_events, {vid: v.car_no or "" for vid, v in batch.states.items()})

    # ------------------------------------------------------------------ contexts and tenants

    async def _tenant(self, tenant_id: str) -> TenantCfg:
        """A tenant's thresholds (``rules.tenant_thresholds``) and retention, cached until a bus notice says they
        changed (:meth:`on_settings_changed`)."""
        cached = self._tenants.get(tenant_id)
        if cached is None:
            async with self.db.sessionmaker() as s:
                limits = (await tenant_thresholds(s, [tenant_id]))[tenant_id]
                months = (
                    await s.execute(select(Tenant.retention_months).where(Tenant.tenant_id == tenant_id))
                ).scalar_one_or_none()
            cached = self._tenants[tenant_id] = TenantCfg(limits, months)
        return cached

    async def _limits(self, tenant_id: str) -> Thresholds:
        return (await self._tenant(tenant_id)).limits

    async def _keep_from(self, tenant_id: str, today: date) -> datetime:
        """The tenant's retention cut on ``today`` (``store.retention_start``, the rule retention drops by), or the
        first day the last retention run kept if that is later."""
        cached = self._cuts.get(tenant_id)
        if cached is not None and cached[0] == today:
            return cached[1]
        months = (await self._tenant(tenant_id)).retention_months
        cut = retention_cut(today, months) if months else datetime.min
        floor = self._floors.get(tenant_id)
        if floor is not None:
            cut = max(cut, datetime.combine(floor, time()))
        self._cuts[tenant_id] = (today, cut)
        return cut

    async def _load_contexts(self, devices: list[str]) -> None:
        """Load the contexts of many devices with four queries (a gateway restart brings them all at once)."""
        if not devices:
            return
        async with self.db.sessionmaker() as s:
            terms = (await s.execute(select(Terminal).where(Terminal.device_number.in_(devices)))).scalars().all()
            bound = {t.device_number: t.vehicle_id for t in terms if t.vehicle_id}
            cars = (
                (
                    await s.execute(
                        select(Vehicle).where(
                            Vehicle.is_deleted == 0,
                            (Vehicle.id.in_(list(bound.values()))) | (Vehicle.device_number.in_(devices)),
                        )
                    )
                )
                .scalars()
                .all()
            )
            by_id = {c.id: c for c in cars}
            by_device = {c.device_number: c for c in cars if c.device_number}
            states = {
                st.vehicle_id: st
                for st in (await s.execute(select(VehicleState).where(VehicleState.vehicle_id.in_(list(by_id)))))
                .scalars()
                .all()
            }
            fenced = await load_fences(s, by_id)
        for device in devices:
            car = by_id.get(bound[device]) if device in bound else by_device.get(device)
            ctx = None if car is None else await self._build(device, car, states.get(car.id))
            if ctx is not None:
                attach_fences(ctx, fenced.get(ctx.vehicle_id, ()))
            self._ctx[device] = ctx

    async def _context(self, device: str) -> VehicleCtx | None:
        if device not in self._ctx:
            await self._load_contexts([device])
        return self._ctx[device]

    async def _build(self, device: str, car: Vehicle, state: VehicleState | None) -> VehicleCtx:
        limits = await self._limits(car.tenant_id)
        vehicle_limits: dict[str, Any] = {
            "speed_limit_kmh": car.speed_limit_kmh,
            "overload_kg": car.overload_threshold_kg or car.rated_load_kg,
            "collision_g": car.collision_threshold_g,
        }
        limits = replace(limits, **{k: val for k, val in vehicle_limits.items() if val})
        limits = replace(limits, load_kg=load_threshold_kg(limits, car.rated_load_kg))
        ctx = VehicleCtx(
            car.id, car.tenant_id, car.mechanism_id, device, limits, car_no=car.car_no, car_type=car.car_type
        )
        if state is not None:
            ctx.state, ctx.state_since, ctx.mileage_km = state.state, state.state_since, state.mileage_km
            ctx.driver_name, ctx.driver_id, ctx.driver_card = state.driver_name, state.driver_id, state.driver_card
            extra = json.loads(state.extra or "{}")
            ctx.can = dict(extra.get("can", {}))
            ctx.sigs = frozenset(int(s) for s in extra["sigs"]) if "sigs" in extra else None
            # The history's last fix: the columns, unless they show a clock fault's report (then it was kept beside
            # them, in ``extra["plain"]``, or there was none).
            plain: dict[str, Any] | None = {
                "time": state.device_time.isoformat() if state.device_time is not None else None,
                "lat": state.lat,
                "lon": state.lon,
                "speed": state.speed,
                "direction": state.direction,
                "alarm": state.alarm,
                "status": state.status,
                "load": state.load_kg,
            }
            if state.clock_fault_time is not None:
                shown = Fix(
                    time=state.clock_fault_time,
                    lat=state.lat if state.lat is not None else 0.0,
                    lon=state.lon if state.lon is not None else 0.0,
                    speed_kmh=state.speed,
                    direction=state.direction,
                    alarm=state.alarm,
                    status=state.status,
                    load_kg=state.load_kg,
                )
                where = None
                if state.lat is not None and state.lon is not None:
                    where = shown if shown.valid else replace(shown, status=shown.status | STATUS_FIX)
                ctx.clock = ClockFault(shown, state.device_time or state.server_time or utcnow(), where)
                plain = extra.get("plain")
            if plain is not None and plain.get("time"):
                known = plain.get("lat") is not None and plain.get("lon") is not None
                ctx.last = Fix(
                    time=datetime.fromisoformat(plain["time"]),
                    lat=float(plain["lat"]) if known else 0.0,
                    lon=float(plain["lon"]) if known else 0.0,
                    speed_kmh=float(plain.get("speed") or 0.0),
                    direction=int(plain.get("direction") or 0),
                    alarm=int(plain.get("alarm") or 0),
                    status=int(plain.get("status") or 0),
                    mileage_km=state.mileage_km,
                    load_kg=plain.get("load"),
                    lifting=extra.get("lifting"),
                    fault_codes=tuple(extra.get("faults", ())),
                )
                if known:  # the stored position is the last valid one, whatever the last fix's status says
                    ctx.located = ctx.last if ctx.last.valid else replace(ctx.last, status=ctx.last.status | STATUS_FIX)
            for kind, raw in json.loads(state.open_events or "{}").items():
                ctx.open[kind] = OpenAlarm(
                    int(raw["id"]), datetime.fromisoformat(raw["begin"]), float(raw["value"]), float(raw["max"])
                )
        return ctx
