"""Issue 28, point 4: a terminal that has never connected accepts no code but its own.

Before, a vehicle naming a device number was enough: the first 0x0102 of a terminal that had never registered here
passed with any code (and that code was remembered), so whoever knew a device number took the vehicle's data feed.
Now its first authentication passes only with the code this platform issued at registration (0x8100) or the old
platform's code imported with its vehicle; ``strict_terminal_auth`` refuses the imported one too. Real sockets
(``Jt808Client``) against a real gateway, as in ``tests/telemetry``.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.telemetry.codecs.jt808 import RegistrationResult
from liftdesk.telemetry.gateway.client import Jt808Client, registration
from liftdesk.telemetry.terminals import TerminalService
from tests.conftest import Api, Tenants

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "telemetry"))
from test_gateway import WAIT, Stack, ack, add_vehicle, close_stack, loc, make_stack, positions


@pytest.fixture
async def stack(db: Database) -> AsyncIterator[Stack]:
    s = await make_stack(db, idle_timeout_s=60)
    yield s
    await close_stack(s)


async def answer(client: Jt808Client, code: str) -> tuple[int, bool]:
    """The 0x8001 result of authenticating with ``code``, and whether the gateway then closed the connection."""
    result = await client.authenticate(code, WAIT)
    try:
        await asyncio.wait_for(client.closed.wait(), 1.0 if result == 0 else WAIT)
    except TimeoutError:
        return result, False
    return result, True


async def test_a_terminal_that_never_connected_needs_its_own_code(stack: Stack) -> None:
    """No imported code: any guess is refused, and the way in is registering. An imported code: that one passes,
    no other."""
    vid, device = await add_vehicle(stack.db)
    for guess in ("123456", device, "anything"):
        async with stack.client(device) as thief:
            assert await answer(thief, guess) == (1, True), guess
    vid2, migrated = await add_vehicle(stack.db, auth_code="from-the-old-platform")
    async with stack.client(migrated) as thief:
        assert await answer(thief, "from-the-old-platform-2") == (1, True)
    async with stack.client(migrated) as client:
        assert await client.authenticate("from-the-old-platform", WAIT) == 0
        assert await ack(client, loc(0)) == 0
    async with stack.client(device) as client:
        reply = await client.register(registration())
        assert reply.result == RegistrationResult.SUCCESS and reply.auth_code
        assert await client.authenticate(reply.auth_code, WAIT) == 0
        assert await ack(client, loc(0)) == 0
    assert len(await positions(stack.db, vid)) == 1 and len(await positions(stack.db, vid2)) == 1


async def test_strict_mode_refuses_the_imported_code(db: Database) -> None:
    stack = await make_stack(db, terminals=TerminalService(db, strict_auth=True), idle_timeout_s=60)
    try:
        _, migrated = await add_vehicle(db, auth_code="from-the-old-platform")
        async with stack.client(migrated) as client:
            assert await answer(client, "from-the-old-platform") == (1, True)
    finally:
        await close_stack(stack)


async def test_a_device_of_another_tenant_is_answered_as_an_unknown_one(
    stack: Stack, api: Api, tenants: Tenants
) -> None:
    """A device number bound to a vehicle of another tenant, never connected, and one nobody has: the same answer
    (0x8001 result 1, the connection closed) for any code."""
    _, bound = await add_vehicle(stack.db, tenant=tenants.b)
    unknown = f"{next_id() % 10**12:012d}"
    for code in ("123456", "from-the-old-platform"):
        answers = []
        for device in (bound, unknown):
            async with stack.client(device) as client:
                answers.append(await answer(client, code))
        assert answers[0] == answers[1] == (1, True), answers
