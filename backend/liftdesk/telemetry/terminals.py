"""Which terminals may connect, and what we know of them (registration, authentication, online state).

A terminal is known when a vehicle names its device number (``insertCarInfo``) or when it registered while
auto-registration was on for a tenant (it then gets a vehicle of its own). A terminal without a vehicle is refused:
its data would have nowhere to go.

Authentication codes (``fics_terminal.auth_code``):

* a terminal that registered here (0x0100) was given a code (``registered_at`` set): only that code passes;
* a terminal that never registered here (moved from the old platform, it knows only that platform's code) is let in
  when a vehicle names it, unless ``strict_auth`` is on; the first code it authenticates with is remembered
  (``registered_at`` stays empty) and from then on only that code passes, so a device number alone is not enough;
  with ``strict_auth`` on, such a remembered code is refused too (only codes this platform issued pass);
* a terminal that deregistered (0x0003) has the empty code: refused until it registers again.
"""

from __future__ import annotations

import json
import logging
import secrets
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.system.models import Dept
from liftdesk.telemetry.models import Command, Event, Terminal, VehicleState
from liftdesk.telemetry.store import PartitionKeeper, month_start
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
    if term is not None and term.vehicle_id is not None:
        car = (
            await s.execute(select(Vehicle).where(Vehicle.id == term.vehicle_id, Vehicle.is_deleted == 0))
        ).scalar_one_or_none()
        if car is not None:
            return car
    return (
        (await s.execute(select(Vehicle).where(Vehicle.device_number == device, Vehicle.is_deleted == 0).limit(1)))
        .scalars()
        .first()
    )


async def _terminal(s: AsyncSession, device: str) -> Terminal | None:
    return (await s.execute(select(Terminal).where(Terminal.device_number == device))).scalar_one_or_none()


class TerminalService:
    def __init__(
        self,
        db: Database,
        auto_register_tenants: frozenset[str] = frozenset(),
        strict_auth: bool = False,
        bus: Bus | None = None,
    ) -> None:
        self.db = db
        self.auto_register_tenants = auto_register_tenants
        self.strict_auth = strict_auth
        self.bus = bus  # online/offline changes go to the live feed (set_online)

    async def lookup(self, device: str) -> Known | None:
        async with self.db.sessionmaker() as s:
            term = await _terminal(s, device)
            if term is not None:
                return Known(device, term.tenant_id, term.vehicle_id, term.maker)
            car = await _vehicle_of(s, device, None)
            if car is not None:
                return Known(device, car.tenant_id, car.id)
        return None

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
        for attempt in (1, 2):
            code = secrets.token_hex(8)
            now = utcnow()
            async with self.db.sessionmaker() as s:
                term = await _terminal(s, device)
                car = await _vehicle_of(s, device, term)
                if car is None:
                    if term is not None:
                        return REG_NO_VEHICLE, ""
                    if not self.auto_register_tenants:
                        return REG_NO_TERMINAL, ""
                    car = await self._new_vehicle(s, sorted(self.auto_register_tenants)[0], device, info)
                if term is not None and _claimed_by_another(term, info):
                    event = _hijack_event(term, car, info, now)
                    if s.get_bind().dialect.name == "postgresql":
                        await PartitionKeeper("fics_event").ensure(s, car.tenant_id, month_start(now))
                    s.add(Event(**event))
                    await s.commit()
                    if self.bus is not None:
                        await self.bus.publish(EVENT_TOPIC, event_message(event))
                    log.warning(
                        "terminal %s: registration from terminal id %r refused: it is bound to %r",
                        device,
                        clean(info.terminal_id, 64),
                        term.terminal_id,
                    )
                    return REG_TERMINAL_TAKEN, ""
                if term is None:
                    term = Terminal(device_number=device, tenant_id=car.tenant_id)
                    s.add(term)
                term.tenant_id, term.vehicle_id, term.sim_number = car.tenant_id, car.id, car.sim_number
                term.maker = clean(info.maker, 32)
                term.model = clean(info.model, 64)
                term.terminal_id = clean(info.terminal_id, 64)
                term.protocol_version = info.protocol_version or term.protocol_version
                term.auth_code, term.registered_at = code, now
                try:
                    await s.commit()
                except IntegrityError:  # registered at the same moment over another connection: once more
                    await s.rollback()
                    if attempt == 2:
                        raise
                    continue
            return REG_OK, code
        raise AssertionError("unreachable")  # pragma: no cover

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

    async def _new_vehicle(self, s: AsyncSession, tenant_id: str, device: str, info: RegistrationInfo) -> Vehicle:
        root = (
            (
                await s.execute(
                    select(Dept.id)
                    .where(Dept.tenant_id == tenant_id, Dept.parent_id == 0, Dept.is_deleted == 0)
                    .order_by(Dept.sort, Dept.id)
                    .limit(1)
                )
            )
            .scalars()
            .first()
        )
        plate = clean(info.plate, 64)
        car = Vehicle(
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
        await s.flush()
        log.info("terminal %s registered itself: vehicle %s created in tenant %s", device, car.id, tenant_id)
        return car

    async def authenticate(
        self, device: str, auth_code: str, *, imei: str | None = None, software_version: str | None = None
    ) -> Known | None:
        """The terminal, when ``auth_code`` passes (module docstring) and a vehicle takes its data; else None.

        On success the terminal row is bound to that vehicle, and a 2019 terminal's IMEI and software version are
        kept (the software version as the firmware version, which a 0x0107 answer may later refine)."""
        for attempt in (1, 2):
            async with self.db.sessionmaker() as s:
                term = await _terminal(s, device)
                car = await _vehicle_of(s, device, term)
                if car is None:
                    return None
                if term is not None and term.auth_code is not None:
                    if not term.auth_code or not secrets.compare_digest(term.auth_code.encode(), auth_code.encode()):
                        return None  # deregistered, or not the code it has
                    if self.strict_auth and term.registered_at is None:
                        return None  # a code remembered from the old platform, not one we issued
                else:
                    if self.strict_auth or not auth_code or len(auth_code) > 64 or clean(auth_code, 64) != auth_code:
                        return None  # strict, or a code that could not be kept as it is
                    if term is None:
                        term = Terminal(device_number=device, tenant_id=car.tenant_id)
                        s.add(term)
                    term.auth_code, term.registered_at = auth_code, None  # remembered: its first code
                    log.info("terminal %s authenticated with its old platform's code; it is kept", device)
                term.tenant_id, term.vehicle_id, term.sim_number = car.tenant_id, car.id, car.sim_number
                if clean(imei, 32):
                    term.imei = clean(imei, 32)
                if clean(software_version, 64):
                    term.firmware_version = clean(software_version, 64)
                known = Known(device, car.tenant_id, car.id, term.maker)
                try:
                    await s.commit()
                except IntegrityError:  # the row was created meanwhile by another connection: read it again
                    await s.rollback()
                    if attempt == 2:
                        raise
                    continue
            return known
        raise AssertionError("unreachable")  # pragma: no cover

    async def deregister(self, device: str) -> None:
        """0x0003 (2011: 0x0101): the terminal gives up its code; it must register again to connect."""
        async with self.db.sessionmaker() as s:
            await s.execute(update(Terminal).where(Terminal.device_number == device).values(auth_code=DEREGISTERED))
            await s.commit()

    async def set_online(
        self, device: str, online: bool, when: datetime | None = None, protocol: str | None = None, **attributes: str
    ) -> None:
        """The terminal connected or went away; its vehicle's live state says so, and browsers watching the vehicle
        hear of it (``view.ONLINE_TOPIC``, after the commit).

        Online follows the connection, not the reports: a terminal that connects is online (and seen) whatever
        it reports, even nothing at all - its vehicle gets a live state row now when it has none yet (it never
        sent a position, or only positions its clock dated beyond plausibility)."""
        when = when or utcnow()
        async with self.db.sessionmaker() as s:
            values: dict[str, object] = {"online": online, "last_seen": when, **attributes}
            if protocol:
                values["protocol"] = protocol
            await s.execute(update(Terminal).where(Terminal.device_number == device).values(**values))
            if online:
                await self._state_row(s, device, when)
            changed = await s.execute(
                update(VehicleState)
                .where(VehicleState.device_number == device)
                .values(online=online, last_seen=when)
                .returning(VehicleState.vehicle_id, VehicleState.tenant_id, VehicleState.mechanism_id)
            )
            vehicles = changed.all()
            await s.commit()
        if self.bus is not None:
            for vehicle_id, tenant_id, mechanism_id in vehicles:
                message = online_message(
                    vehicle_id=vehicle_id, tenant_id=tenant_id, mechanism_id=mechanism_id, online=online, time=when
                )
                await self.bus.publish(ONLINE_TOPIC, message)

    @staticmethod
    async def _state_row(s: AsyncSession, device: str, when: datetime) -> None:
        """The live state row of the vehicle the terminal's data goes to, online and seen at ``when``: created
        when missing, else taken over by this terminal (inserted or updated in one statement: the pipeline may be
        writing the same row)."""
        car = await _vehicle_of(s, device, await _terminal(s, device))
        if car is None:
            return
        insert = pg_insert if s.get_bind().dialect.name == "postgresql" else sqlite_insert
        stmt = insert(VehicleState).values(
            vehicle_id=car.id,
            tenant_id=car.tenant_id,
            mechanism_id=car.mechanism_id,
            device_number=device,
            online=True,
            last_seen=when,
        )
        await s.execute(
            stmt.on_conflict_do_update(
                index_elements=["vehicle_id"], set_={"online": True, "last_seen": when, "device_number": device}
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
        rows = [{"dev": device, "seen": when} for device, when in heard.items()]
        # Core tables, not the entities: an ORM update with a list of rows would be a bulk update by primary key.
        terminals, states = cast(Table, Terminal.__table__), cast(Table, VehicleState.__table__)
        async with self.db.sessionmaker() as s:
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
        since = utcnow() - timedelta(seconds=max_age_s)
        async with self.db.sessionmaker() as s:
            recent = await s.execute(
                select(Command.id)
                .where(
                    Command.device_number == device,
                    Command.msg_id == MSG_QUERY_ATTRIBUTES,
                    Command.create_time >= since,
                )
                .limit(1)
            )
            return recent.first() is None
