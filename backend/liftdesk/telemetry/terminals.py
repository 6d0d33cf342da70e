"""Which terminals may connect, and what we know of them (registration, authentication, online state).

A terminal is known when a vehicle names its device number (``insertCarInfo``) or when it registered while
auto-registration was on for the tenant. Unknown terminals are refused.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from liftdesk.core.db import Database, utcnow
from liftdesk.fleet.models import Terminal, Vehicle
from liftdesk.telemetry.models import VehicleState

# 0x8100 results
REG_OK = 0
REG_VEHICLE_TAKEN = 1
REG_NO_VEHICLE = 2
REG_TERMINAL_TAKEN = 3
REG_NO_TERMINAL = 4


@dataclass(frozen=True)
class RegistrationInfo:
    maker: str = ""
    model: str = ""
    terminal_id: str = ""
    plate: str = ""
    protocol_version: str = ""


@dataclass(frozen=True)
class Known:
    device_number: str
    tenant_id: str
    vehicle_id: int | None


class TerminalService:
    def __init__(
        self, db: Database, auto_register_tenants: frozenset[str] = frozenset(), strict_auth: bool = False
    ) -> None:
        self.db = db
        self.auto_register_tenants = auto_register_tenants
        self.strict_auth = strict_auth

    async def lookup(self, device: str) -> Known | None:
        async with self.db.sessionmaker() as s:
            term = (await s.execute(select(Terminal).where(Terminal.device_number == device))).scalar_one_or_none()
            if term is not None:
                return Known(device, term.tenant_id, term.vehicle_id)
            car = (
                await s.execute(select(Vehicle).where(Vehicle.device_number == device, Vehicle.is_deleted == 0))
            ).scalar_one_or_none()
            if car is not None:
                return Known(device, car.tenant_id, car.id)
        return None

    async def ensure(self, known: Known, protocol: str) -> None:
        """Give a terminal known only through its vehicle (an MQTT or HTTP terminal never registers) its terminal
        row, so that its protocol, online state and last-seen time are kept like a JT/T 808 terminal's."""
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
                    registered_at=utcnow(),
                )
            )
            try:
                await s.commit()
            except IntegrityError:  # created meanwhile by another process: fine
                await s.rollback()

    async def register(self, device: str, info: RegistrationInfo) -> tuple[int, str]:
        """Return (0x8100 result, auth code). Known terminals get a fresh auth code; unknown ones are refused
        unless auto-registration is on for a tenant (then they join the first such tenant without a vehicle)."""
        known = await self.lookup(device)
        if known is None and not self.auto_register_tenants:
            return REG_NO_TERMINAL, ""
        code = secrets.token_hex(8)
        now = utcnow()
        async with self.db.sessionmaker() as s:
            term = (await s.execute(select(Terminal).where(Terminal.device_number == device))).scalar_one_or_none()
            if term is None:
                tenant = known.tenant_id if known else sorted(self.auto_register_tenants)[0]
                term = Terminal(device_number=device, tenant_id=tenant, vehicle_id=known.vehicle_id if known else None)
                s.add(term)
            term.maker, term.model, term.terminal_id = info.maker, info.model, info.terminal_id
            term.protocol_version = info.protocol_version or term.protocol_version
            term.auth_code, term.registered_at = code, now
            await s.commit()
        return REG_OK, code

    async def authenticate(self, device: str, auth_code: str) -> Known | None:
        """A code we issued passes. So does any code from a terminal bound to a vehicle unless strict
        authentication is on: terminals migrating from the old platform keep the code it gave them and
        authenticate without registering again."""
        async with self.db.sessionmaker() as s:
            term = (await s.execute(select(Terminal).where(Terminal.device_number == device))).scalar_one_or_none()
            if term is not None and term.auth_code and secrets.compare_digest(term.auth_code, auth_code):
                return Known(device, term.tenant_id, term.vehicle_id)
        known = await self.lookup(device)
        if known is None or known.vehicle_id is None or self.strict_auth:
            return None
        async with self.db.sessionmaker() as s:
            term = (await s.execute(select(Terminal).where(Terminal.device_number == device))).scalar_one_or_none()
            if term is None:
                s.add(
                    Terminal(
                        device_number=device,
                        tenant_id=known.tenant_id,
                        vehicle_id=known.vehicle_id,
                        auth_code=auth_code,
                        registered_at=utcnow(),
                    )
                )
                await s.commit()
        return known

    async def set_online(
        self, device: str, online: bool, when: datetime | None = None, protocol: str | None = None, **attributes: str
    ) -> None:
        when = when or utcnow()
        async with self.db.sessionmaker() as s:
            values: dict[str, object] = {"online": online, "last_seen": when, **attributes}
            if protocol:
                values["protocol"] = protocol
            await s.execute(update(Terminal).where(Terminal.device_number == device).values(**values))
            await s.execute(
                update(VehicleState).where(VehicleState.device_number == device).values(online=online, last_seen=when)
            )
            await s.commit()

    async def touch(self, devices: Sequence[str], when: datetime | None = None) -> None:
        """Terminals heard from (a heartbeat, a reply: not only positions) are seen now: one statement for all of
        them, so a parked terminal that only sends heartbeats is neither offline nor shown as silent."""
        if not devices:
            return
        when = when or utcnow()
        async with self.db.sessionmaker() as s:
            await s.execute(update(Terminal).where(Terminal.device_number.in_(devices)).values(last_seen=when))
            await s.execute(
                update(VehicleState)
                .where(VehicleState.device_number.in_(devices), VehicleState.online.is_(True))
                .values(last_seen=when)
            )
            await s.commit()
