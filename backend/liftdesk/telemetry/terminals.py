"""Which terminals may connect, and what we know of them (registration, authentication, online state).

A terminal is known when a vehicle names its device number (``insertCarInfo``) or when it registered while
auto-registration was on for a tenant (it then gets a vehicle of its own). A terminal without a vehicle is refused:
its data would have nowhere to go.

Authentication codes (``fics_terminal.auth_code``):

* a terminal that registered here (0x0100) was given a code (``registered_at`` set): only that code passes;
* a terminal that never registered here (moved from the old platform, it knows only that platform's code) is let in
  with the code imported with its vehicle (``fics_car_info.terminal_auth_code``) and no other, unless ``strict_auth``
  is on; that code becomes its code (``registered_at`` stays empty). A terminal whose vehicle holds no imported code
  must register (0x0100): a device number alone, with whatever code, is not enough. With ``strict_auth`` on, imported
  and remembered codes are refused too (only codes this platform issued pass);
* a terminal that deregistered (0x0003) has the empty code: refused until it registers again.
"""

from __future__ import annotations

import json
import logging
import secrets
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Boolean, Table, bindparam, case, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, retrying, utcnow
from liftdesk.core.grouped import Grouped
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.models import Command, Event, Terminal, VehicleState
from liftdesk.telemetry.store import PartitionKeeper, month_start
from liftdesk.telemetry.terminal_rows import Rows, each_device_once, lock_states, once_more_alone, root_organisation
from liftdesk.telemetry.view import EVENT_TOPIC, ONLINE_TOPIC, event_message, online_message

log = logging.getLogger("liftdesk.terminals")

# 0x8100 results
REG_OK = 0
REG_VEHICLE_TAKEN = 1
REG_NO_VEHICLE = 2
REG_TERMINAL_TAKEN = 3
REG_NO_TERMINAL = 4

#: The code of a terminal that deregistered: no code matches it, and it is not "no code yet" either.
DEREGISTERED = ""
MSG_QUERY_ATTRIBUTES = 0x8107


@dataclass(frozen=True)
class RegistrationInfo:
    maker: str = ""
    model: str = ""
    terminal_id: str = ""
    plate: str = ""
    protocol_version: str = ""
    #: 0x0100 plate colour: 0 means ``plate`` holds the vehicle's VIN rather than a licence plate.
    plate_color: int = 0


@dataclass(frozen=True)
class Known:
    device_number: str
    tenant_id: str
    vehicle_id: int | None
    #: The maker id the terminal registered with (0x0100) or reported (0x0107); None when never told.
    maker: str | None = None


#: Event kind of a registration refused because the device number belongs to another terminal (a hijack attempt).
HIJACK = "terminal_hijack"


def _claimed_by_another(term: Terminal, info: RegistrationInfo) -> bool:
    """A registration for a device number whose terminal has registered and been online, from a terminal of another
    id: refused (0x8100 result 3), or anyone who knows a device number would take its session over. An
    administrator's release (``TerminalService.release``) forgets the stored id, so a replaced unit can register."""
    if not term.terminal_id or term.last_seen is None or term.auth_code in (None, "", DEREGISTERED):
        return False
    return clean(info.terminal_id, 64) != term.terminal_id


def _hijack_event(term: Terminal, car: Vehicle, info: RegistrationInfo, now: datetime) -> dict[str, Any]:
    return {
        "id": next_id(),
        "tenant_id": car.tenant_id,
        "vehicle_id": car.id,
        "mechanism_id": car.mechanism_id,
        "kind": HIJACK,
        "level": 3,
        "begin_time": now,
        "end_time": now,
        "detail": json.dumps(
            {"terminalId": clean(info.terminal_id, 64), "boundTerminalId": term.terminal_id, "maker": info.maker},
            ensure_ascii=False,
        ),
    }


def clean(value: str | None, limit: int) -> str | None:
    """Text from a terminal, fit for a column: no control characters (PostgreSQL refuses NUL), trimmed, cut to the
    column's width; None when nothing is left."""
    if value is None:
        return None
    text = "".join(c for c in value if unicodedata.category(c)[0] != "C").strip()
    return text[:limit] or None


async def _vehicle_of(s: AsyncSession, device: str, term: Terminal | None) -> Vehicle | None:
    """The vehicle a terminal's data goes to, as the pipeline finds it: the one its row is bound to, else the one
    that names its device number (never a deleted one)."""
    return (await Rows.read(s, [device])).car(device, term)


async def _terminal(s: AsyncSession, device: str) -> Terminal | None:
    return (await s.execute(select(Terminal).where(Terminal.device_number == device))).scalar_one_or_none()


@dataclass(frozen=True)
class _Auth:
    device: str
    code: str
    imei: str | None
    software: str | None


@dataclass(frozen=True)
class _Online:
    device: str
    online: bool
    when: datetime
    values: tuple[tuple[str, str], ...]  # protocol and other attributes for the terminal row
    #: Going offline: only while the terminal row still names this gateway process (or none) as its holder.
    owner: str | None = None


class TerminalService:
    """Registrations, authentications, device look-ups and online marks are group-committed (:class:`Grouped`):
    a storm of terminals (10,000 after a restart) costs one transaction per round of up to ``max_group``, not
    one per terminal; one terminal alone waits for nobody."""

    def __init__(
        self,
        db: Database,
        auto_register_tenants: frozenset[str] = frozenset(),
        strict_auth: bool = False,
        bus: Bus | None = None,
        *,
        max_group: int = 500,
    ) -> None:
        self.db = db
        self.auto_register_tenants = auto_register_tenants
        self.strict_auth = strict_auth
        self.bus = bus  # online/offline changes go to the live feed (set_online)
        self._events = PartitionKeeper("fics_event")
        self._pick = Grouped(self._pick_round, max_items=max_group, name="terminal-lookup")
        self._register: Grouped[tuple[str, RegistrationInfo], tuple[int, str]] = Grouped(
            self._register_round, max_items=max_group, name="terminal-registration"
        )
        self._authenticate: Grouped[_Auth, Known | None] = Grouped(
            self._authenticate_round, max_items=max_group, name="terminal-authentication"
        )
        self._online: Grouped[_Online, None] = Grouped(self._online_round, max_items=max_group, name="terminal-online")

    async def lookup(self, device: str) -> Known | None:
        async with self.db.sessionmaker() as s:
            term = await _terminal(s, device)
            if term is not None:
                return Known(device, term.tenant_id, term.vehicle_id, term.maker)
            car = await _vehicle_of(s, device, None)
            if car is not None:
                return Known(device, car.tenant_id, car.id)
        return None

    async def pick(self, candidates: tuple[str, ...]) -> str:
        """The first of a terminal's candidate device numbers (``gateway.mapping.device_candidates``) that a
        terminal row or a vehicle knows, else the first one (grouped: one round of queries for many terminals)."""
        return await self._pick(candidates)

    async def _pick_round(self, items: list[tuple[str, ...]]) -> list[str]:
        devices = sorted({d for candidates in items for d in candidates})
        async with self.db.sessionmaker() as s:
            known: set[str | None] = set(
                (await s.execute(select(Terminal.device_number).where(Terminal.device_number.in_(devices)))).scalars()
            )
            known.update(
                (
                    await s.execute(
                        select(Vehicle.device_number).where(Vehicle.device_number.in_(devices), Vehicle.is_deleted == 0)
                    )
                ).scalars()
            )
        return [next((d for d in candidates if d in known), candidates[0]) for candidates in items]

    async def resolve(self, device: str) -> Known | None:
        """The terminal and the vehicle its data goes to now; None when no vehicle takes it (deleted, renumbered,
        never bound). Reads only."""
        async with self.db.sessionmaker() as s:
            term = await _terminal(s, device)
            car = await _vehicle_of(s, device, term)
            if car is None:
                return None
            return Known(device, car.tenant_id, car.id, term.maker if term is not None else None)

    async def ensure(self, known: Known, protocol: str) -> None:
        """Give a terminal known only through its vehicle (an MQTT or HTTP terminal never registers) its terminal
        row, so that its protocol, online state and last-seen time are kept like a JT/T 808 terminal's. It never
        registered, so ``registered_at`` stays empty."""
        async with self.db.sessionmaker() as s:
            exists = await s.execute(select(Terminal.id).where(Terminal.device_number == known.device_number))
            if exists.first() is not None:
                return
            s.add(
                Terminal(
                    device_number=known.device_number,
                    tenant_id=known.tenant_id,
                    vehicle_id=known.vehicle_id,
                    protocol=protocol,
                )
            )
            try:
                await s.commit()
            except IntegrityError:  # created meanwhile by another process: fine
                await s.rollback()

    async def register(self, device: str, info: RegistrationInfo) -> tuple[int, str]:
        """Return (0x8100 result, auth code). A terminal a vehicle names gets a fresh code. A terminal nobody knows
        is refused (4, terminal unknown), unless auto-registration names a tenant: then it joins that tenant with a
        vehicle of its own, created in the same transaction (car number = the plate, else the device number; in
        the tenant's root organisation, so data scopes find it). A terminal whose row is left without a vehicle
        (the vehicle was deleted) is refused (2, vehicle unknown) until a vehicle names it again: deleting the
        vehicle of an auto-registered terminal must not bring it straight back."""
        return await self._register((device, info))

    async def _register_round(self, items: list[tuple[str, RegistrationInfo]]) -> list[tuple[int, str]]:
        return await each_device_once(items, lambda i: i[0], lambda round_: once_more_alone(round_, self._register_tx))

    async def _register_tx(self, items: list[tuple[str, RegistrationInfo]]) -> list[tuple[int, str]]:
        now = utcnow()
        results: list[tuple[int, str]] = []
        hijacks: list[dict[str, Any]] = []
        roots: dict[str, int | None] = {}
        async with self.db.sessionmaker() as s:
            rows = await Rows.read(s, [device for device, _ in items])
            for device, info in items:
                term = rows.terms.get(device)
                car = rows.car(device, term)
                if car is None:
                    if term is not None:
                        results.append((REG_NO_VEHICLE, ""))
                        continue
                    if not self.auto_register_tenants:
                        results.append((REG_NO_TERMINAL, ""))
                        continue
                    tenant = sorted(self.auto_register_tenants)[0]
                    if tenant not in roots:
                        roots[tenant] = await root_organisation(s, tenant)
                    car = rows.by_device[device] = _new_vehicle(s, tenant, roots[tenant], device, info)
                if term is not None and _claimed_by_another(term, info):
                    event = _hijack_event(term, car, info, now)
                    if s.get_bind().dialect.name == "postgresql":
                        await self._events.ensure(s, car.tenant_id, month_start(now))
                    s.add(Event(**event))
                    hijacks.append(event)
                    log.warning(
                        "terminal %s: registration from terminal id %r refused: it is bound to %r",
                        device,
                        clean(info.terminal_id, 64),
                        term.terminal_id,
                    )
                    results.append((REG_TERMINAL_TAKEN, ""))
                    continue
                if term is None:
                    term = rows.terms[device] = Terminal(device_number=device, tenant_id=car.tenant_id)
                    s.add(term)
                code = secrets.token_hex(8)
                term.tenant_id, term.vehicle_id, term.sim_number = car.tenant_id, car.id, car.sim_number
                term.maker = clean(info.maker, 32)
                term.model = clean(info.model, 64)
                term.terminal_id = clean(info.terminal_id, 64)
                term.protocol_version = info.protocol_version or term.protocol_version
                term.auth_code, term.registered_at = code, now
                results.append((REG_OK, code))
            try:
                await s.commit()
            except Exception:
                self._events.forget()  # a partition created in the rolled-back transaction is not there
                raise
        if self.bus is not None:
            for event in hijacks:
                await self.bus.publish(EVENT_TOPIC, event_message(event))
        return results

    async def release(self, device: str) -> bool:
        """An administrator lets the next registration of ``device`` come from any terminal (a replaced unit): the
        stored terminal id is forgotten; the current code keeps working until a new registration replaces it."""
        async with self.db.sessionmaker() as s:
            done = await s.execute(
                update(Terminal).where(Terminal.device_number == device).values(terminal_id=None).returning(Terminal.id)
            )
            found = done.first() is not None
            await s.commit()
        return found

    async def authenticate(
        self, device: str, auth_code: str, *, imei: str | None = None, software_version: str | None = None
    ) -> Known | None:
        """The terminal, when ``auth_code`` passes (module docstring) and a vehicle takes its data; else None.

        On success the terminal row is bound to that vehicle, and a 2019 terminal's IMEI and software version are
        kept (the software version as the firmware version, which a 0x0107 answer may later refine)."""
        return await self._authenticate(_Auth(device, auth_code, imei, software_version))

    async def _authenticate_round(self, items: list[_Auth]) -> list[Known | None]:
        return await each_device_once(
            items, lambda i: i.device, lambda round_: once_more_alone(round_, self._authenticate_tx)
        )

    async def _authenticate_tx(self, items: list[_Auth]) -> list[Known | None]:
        results: list[Known | None] = []
        async with self.db.sessionmaker() as s:
            rows = await Rows.read(s, [item.device for item in items])
            for item in items:
                device, auth_code = item.device, item.code
                term = rows.terms.get(device)
                car = rows.car(device, term)
                if car is None:
                    results.append(None)
                    continue
                if term is not None and term.auth_code is not None:
                    if not term.auth_code or not secrets.compare_digest(term.auth_code.encode(), auth_code.encode()):
                        results.append(None)  # deregistered, or not the code it has
                        continue
                    if self.strict_auth and term.registered_at is None:
                        results.append(None)  # a code remembered from the old platform, not one we issued
                        continue
                else:
                    imported = car.terminal_auth_code
                    if (
                        self.strict_auth
                        or not imported
                        or not secrets.compare_digest(imported.encode(), auth_code.encode())
                    ):
                        results.append(None)  # strict, or not the code imported with its vehicle (or none was)
                        continue
                    if term is None:
                        term = rows.terms[device] = Terminal(device_number=device, tenant_id=car.tenant_id)
                        s.add(term)
                    term.auth_code, term.registered_at = auth_code, None  # from now on its code
                    log.info(
                        "terminal %s authenticated with its old platform's code, imported with its vehicle", device
                    )
                term.tenant_id, term.vehicle_id, term.sim_number = car.tenant_id, car.id, car.sim_number
                if clean(item.imei, 32):
                    term.imei = clean(item.imei, 32)
                if clean(item.software, 64):
                    term.firmware_version = clean(item.software, 64)
                results.append(Known(device, car.tenant_id, car.id, term.maker))
            await s.commit()
        return results

    async def deregister(self, device: str) -> None:
        """0x0003 (2011: 0x0101): the terminal gives up its code; it must register again to connect."""
        async with self.db.sessionmaker() as s:
            await s.execute(update(Terminal).where(Terminal.device_number == device).values(auth_code=DEREGISTERED))
            await s.commit()

    async def set_online(
        self,
        device: str,
        online: bool,
        when: datetime | None = None,
        protocol: str | None = None,
        *,
        owner: str | None = None,
        **attributes: str,
    ) -> None:
        """The terminal connected or went away; its vehicle's live state says so, and browsers watching the vehicle
        hear of it (``view.ONLINE_TOPIC``, after the commit).

        Online follows the connection, not the reports: a terminal that connects is online (and seen) whatever
        it reports, even nothing at all - its vehicle gets a live state row now when it has none yet (it never
        sent a position, or only positions its clock dated beyond plausibility).

        ``owner`` (going offline): the gateway process whose session ended. When the terminal row names another
        process (``gateway``, written when it came online there: it reconnected to a sibling process on the same
        port meanwhile) nothing changes - it is online over there."""
        values = dict(attributes)
        if protocol:
            values["protocol"] = protocol
        await self._online(_Online(device, online, when or utcnow(), tuple(sorted(values.items())), owner))

    async def _online_round(self, items: list[_Online]) -> list[None]:
        return await each_device_once(
            items, lambda i: i.device, lambda round_: retrying(lambda: self._online_tx(round_))
        )

    async def _online_tx(self, items: list[_Online]) -> list[None]:
        """One transaction for the round: the terminal rows (one statement per shape of values, executed for each
        terminal), the live state rows of those coming online (one insert-or-update), every live state row of
        their device numbers; then one bus message per vehicle. An offline mark of a session whose terminal came
        online on another gateway process since is left out (:meth:`_still_held`)."""
        terminals, states = cast(Table, Terminal.__table__), cast(Table, VehicleState.__table__)
        async with self.db.sessionmaker() as s:
            await lock_states(s, sorted({item.device for item in items}))
            marks = await self._still_held(s, items)
            when = {item.device: item for item in marks}
            shapes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
            for item in marks:
                keys = tuple(k for k, _ in item.values)
                row = {"dev": item.device, "online": item.online, "last_seen": item.when, **dict(item.values)}
                shapes.setdefault(keys, []).append(row)
            for keys, rows in shapes.items():
                stmt = update(terminals).where(terminals.c.device_number == bindparam("dev"))
                cols = ("online", "last_seen", *keys)
                await s.execute(stmt.values({c: bindparam(c) for c in cols}), rows)
            coming = [item.device for item in marks if item.online]
            if coming:
                await self._state_rows(s, coming, when)
            changed: list[Any] = []
            if marks:
                await s.execute(
                    update(states)
                    .where(states.c.device_number == bindparam("dev"))
                    .values(
                        online=bindparam("on"),
                        last_seen=bindparam("seen"),
                        # null once offline; coming online it was set above (``_state_rows``)
                        online_since=case(
                            (bindparam("on", type_=Boolean), func.coalesce(states.c.online_since, bindparam("seen")))
                        ),
                    ),
                    [{"dev": item.device, "on": item.online, "seen": item.when} for item in marks],
                )
                changed = list(
                    (
                        await s.execute(
                            select(
                                VehicleState.device_number,
                                VehicleState.vehicle_id,
                                VehicleState.tenant_id,
                                VehicleState.mechanism_id,
                            ).where(VehicleState.device_number.in_(list(when)))
                        )
                    ).all()
                )
            await s.commit()
        if self.bus is not None:
            for device, vehicle_id, tenant_id, mechanism_id in changed:
                item = when[str(device)]
                message = online_message(
                    vehicle_id=vehicle_id,
                    tenant_id=tenant_id,
                    mechanism_id=mechanism_id,
                    online=item.online,
                    time=item.when,
                )
                await self.bus.publish(ONLINE_TOPIC, message)
        return [None] * len(items)

    @staticmethod
    async def _still_held(s: AsyncSession, items: list[_Online]) -> list[_Online]:
        """``items`` without the offline marks of sessions whose terminal came online on another gateway process
        since (the terminal rows read locked: that process's online mark writes them in the same order)."""
        owned = {item.device: item.owner for item in items if not item.online and item.owner is not None}
        if not owned:
            return items
        found = await s.execute(
            select(Terminal.device_number, Terminal.gateway)
            .where(Terminal.device_number.in_(sorted(owned)))
            .order_by(Terminal.device_number)
            .with_for_update()  # PostgreSQL: waits for an online mark of the same terminal in progress
        )
        holders: dict[str, str | None] = {device: gateway for device, gateway in found.all()}
        moved = {d for d, owner in owned.items() if holders.get(d) is not None and holders[d] != owner}
        if moved:
            log.info("%d terminals stay online: another gateway process holds them now", len(moved))
        return [item for item in items if item.online or item.device not in moved]

    @staticmethod
    async def _state_rows(s: AsyncSession, devices: list[str], when: Mapping[str, _Online]) -> None:
        """The live state rows of the vehicles these terminals' data goes to, online and seen: created when missing,
        else taken over by the terminal (inserted or updated in one statement: the pipeline may be writing the
        same rows)."""
        rows = await Rows.read(s, devices)
        values: dict[int, dict[str, Any]] = {}
        for device in devices:
            car = rows.car(device, rows.terms.get(device))
            if car is not None:  # one row per vehicle (two numbers naming one vehicle: the last one's)
                values[car.id] = {
                    "vehicle_id": car.id,
                    "tenant_id": car.tenant_id,
                    "mechanism_id": car.mechanism_id,
                    "device_number": device,
                    "online": True,
                    "last_seen": when[device].when,
                    "online_since": when[device].when,
                }
        if not values:
            return
        insert = pg_insert if s.get_bind().dialect.name == "postgresql" else sqlite_insert
        stmt = insert(VehicleState).values([values[vid] for vid in sorted(values)])
        await s.execute(
            stmt.on_conflict_do_update(
                index_elements=["vehicle_id"],
                set_={
                    "online": True,
                    "last_seen": stmt.excluded.last_seen,
                    "device_number": stmt.excluded.device_number,
                    # connected since: kept while it stays online (a second session replacing the first)
                    "online_since": case(
                        (
                            VehicleState.online.is_(True),
                            func.coalesce(VehicleState.online_since, stmt.excluded.online_since),
                        ),
                        else_=stmt.excluded.online_since,
                    ),
                },
            )
        )

    async def touch(self, heard: Mapping[str, datetime]) -> None:
        """Terminals heard from (any frame: a heartbeat, a reply, not only positions), each with the server time it
        was last heard at: their terminal rows and their vehicles' live states are seen then, so a parked terminal
        that only sends heartbeats is neither offline nor shown as silent. One transaction for all of them (one
        statement per table, executed for each terminal): the gateway calls it once per ``touch_interval_s``.

        Only states that are online move: a session that ended while this was on its way has written its
        vehicle offline, and must not look seen after that."""
        if not heard:
            return
        rows = [{"dev": device, "seen": when} for device, when in sorted(heard.items())]
        # Core tables, not the entities: an ORM update with a list of rows would be a bulk update by primary key.
        terminals, states = cast(Table, Terminal.__table__), cast(Table, VehicleState.__table__)
        await retrying(lambda: self._touch(rows, terminals, states))

    async def _touch(self, rows: list[dict[str, Any]], terminals: Table, states: Table) -> None:
        async with self.db.sessionmaker() as s:
            await lock_states(s, [r["dev"] for r in rows])
            await s.execute(
                update(terminals)
                .where(terminals.c.device_number == bindparam("dev"))
                .values(last_seen=bindparam("seen")),
                rows,
            )
            await s.execute(
                update(states)
                .where(states.c.device_number == bindparam("dev"), states.c.online.is_(True))
                .values(last_seen=bindparam("seen")),
                rows,
            )
            await s.commit()

    async def update_attributes(self, device: str, **values: str | None) -> None:
        """What a 0x0107 answer says about the terminal (maker, model, ICCID, versions), cleaned for the columns.
        The terminal id is not taken from it: the id of the registration is what binds the device number to this
        unit (``_claimed_by_another``), and an answer formatting it differently must not lock the unit out."""
        values.pop("terminal_id", None)
        widths = {"maker": 32, "model": 64, "iccid": 32, "hardware_version": 64}
        widths["firmware_version"] = 64
        cleaned = {k: clean(v, widths[k]) for k, v in values.items() if k in widths}
        cleaned = {k: v for k, v in cleaned.items() if v is not None}
        if not cleaned:
            return
        async with self.db.sessionmaker() as s:
            await s.execute(update(Terminal).where(Terminal.device_number == device).values(**cleaned))
            await s.commit()

    async def attributes_due(self, device: str, max_age_s: float) -> bool:
        """Whether to ask the terminal for its attributes (0x8107): not when one was asked within ``max_age_s``
        (whatever became of it: a terminal that does not answer, or does not support it, is not asked again at
        every reconnection), which also covers attributes not older than that."""
        return device in await self.attributes_due_many([device], max_age_s)

    async def attributes_due_many(self, devices: Sequence[str], max_age_s: float) -> set[str]:
        """Those of ``devices`` due for an attribute query (:meth:`attributes_due`), with one query."""
        since = utcnow() - timedelta(seconds=max_age_s)
        async with self.db.sessionmaker() as s:
            recent = await s.execute(
                select(Command.device_number)
                .where(
                    Command.device_number.in_(list(devices)),
                    Command.msg_id == MSG_QUERY_ATTRIBUTES,
                    Command.create_time >= since,
                )
                .distinct()
            )
            return set(devices) - set(recent.scalars())


def _new_vehicle(s: AsyncSession, tenant_id: str, root: int | None, device: str, info: RegistrationInfo) -> Vehicle:
    """The vehicle of a terminal that registered itself (auto-registration), added to the session."""
    plate = clean(info.plate, 64)
    car = Vehicle(
        id=next_id(),
        tenant_id=tenant_id,
        car_no=plate or device,
        device_number=device,
        mechanism_id=root,
        create_dept=root,
        registrant="auto-registration",
    )
    if plate and info.plate_color == 0:
        car.frame_number = plate  # colour 0: the "plate" is the VIN
    elif plate:
        car.license_plate = plate[:32]
    s.add(car)
    log.info("terminal %s registered itself: vehicle %s created in tenant %s", device, car.id, tenant_id)
    return car
