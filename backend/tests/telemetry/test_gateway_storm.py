"""A registration storm: many terminals registering and authenticating at the same moment, as after a migration or a
gateway restart (issue 11, item 2). Not timed (``bench/terminals.py`` measures 10,000): what is checked is that
grouping the registrations into shared transactions (``core.grouped``) loses or mixes up nobody.

500 terminals connect at once over real sockets, half of them named by a vehicle already, half unknown (auto-
registration gives each a vehicle of its own). Every one gets an auth code, authenticates with it and is online;
each has exactly one terminal row holding its own code and one vehicle; a code of one terminal opens no other.
"""

from __future__ import annotations

import asyncio
import uuid

from sqlalchemy import func, select
from test_gateway import V2013, add_vehicle, close_stack, make_stack, terminal_number

from liftdesk.core.db import Database
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.models import Terminal, VehicleState
from liftdesk.telemetry.terminals import TerminalService

TERMINALS = 500
WAIT = 120.0  # the whole storm, on a busy 2-core machine


async def test_500_terminals_registering_at_once_all_get_their_codes(db: Database) -> None:
    tenant = f"st{uuid.uuid4().hex[:6]}"
    prefix = f"{uuid.uuid4().int % 10**4:04d}"
    known = [(await add_vehicle(db, f"{prefix}1{i:07d}", tenant=tenant))[1] for i in range(TERMINALS // 2)]
    unknown = [f"{prefix}2{i:07d}" for i in range(TERMINALS - len(known))]
    devices = known + unknown
    terminals = TerminalService(db, auto_register_tenants=frozenset({tenant}))
    stack = await make_stack(db, terminals=terminals, idle_timeout_s=300)
    clients = [stack.client(d) for d in devices]
    rounds_before = terminals._register.rounds
    try:

        async def join(n: int, client: Jt808Client) -> tuple[str, int]:
            await client.connect()
            reply = await client.register(registration(plate=f"S{n}", terminal_id=f"ST{n}"), WAIT)
            assert reply.result == 0 and reply.auth_code, (client.terminal, reply)
            return reply.auth_code, await client.authenticate(reply.auth_code, WAIT)

        joined = await asyncio.wait_for(asyncio.gather(*(join(n, c) for n, c in enumerate(clients))), WAIT)
        codes = [code for code, _ in joined]
        assert [result for _, result in joined] == [0] * TERMINALS, "every terminal authenticated"
        assert len(set(codes)) == TERMINALS, "each its own code"
        assert terminals._register.rounds - rounds_before < TERMINALS, "registrations shared transactions"

        async with db.sessionmaker() as s:
            rows = {
                t.device_number: t
                for t in (await s.execute(select(Terminal).where(Terminal.device_number.in_(devices)))).scalars()
            }
            cars = (await s.execute(select(Vehicle).where(Vehicle.tenant_id == tenant))).scalars().all()
            online = await s.scalar(
                select(func.count())
                .select_from(VehicleState)
                .where(VehicleState.device_number.in_(devices), VehicleState.online.is_(True))
            )
        assert {d: rows[d].auth_code for d in devices} == dict(zip(devices, codes, strict=True))
        assert sorted(c.device_number or "" for c in cars) == sorted(devices), "one vehicle per terminal"
        assert {rows[d].vehicle_id for d in devices} == {c.id for c in cars}
        assert sum(c.registrant == "auto-registration" for c in cars) == len(unknown)
        assert online == TERMINALS
        assert set(stack.gateway.sessions) == set(devices)

        # A code opens only its own terminal: another terminal's code is refused.
        other = Jt808Client("127.0.0.1", stack.gateway.port, terminal_number(devices[0], V2013), V2013)
        await other.connect()
        try:
            assert await other.authenticate(codes[1], 10) != 0
        finally:
            await other.close()
    finally:
        await asyncio.gather(*(c.close() for c in clients))
        await close_stack(stack)
