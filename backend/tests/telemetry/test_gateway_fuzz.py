"""Hostile input through a real gateway socket: arbitrary bytes, frames with random bodies for every message id the
codec knows (the gateway handles each of them, if only to refuse it), and well-formed reports with random values,
sent by an authenticated terminal, must never break the gateway.

Each example is one connection of a registered, authenticated terminal that then sends the drawn chunks and one
frame with a corrupt checksum. After each: the gateway still listens, it counted the frames (and the corrupt one as a
bad frame), no handler raised (``handler_errors``), and another terminal connected all along still gets its
heartbeats and positions answered. The codec alone is fuzzed much harder in ``test_jt808_properties``; here the
examples are few (CI time) but go through the sessions, the database and the pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_gateway import T0, WAIT, Stack, ack, add_vehicle, close_stack, loc, make_stack, online, positions
from test_jt808_properties import forklift, locations

from liftdesk.core.db import Database
from liftdesk.telemetry.codecs.jt808 import (
    PARSERS,
    BatchType,
    Body,
    ForkliftStatus,
    Jt808Version,
    LiftdeskBatteryReport,
    LiftdeskSnapshot,
    LocationBatch,
    PassThrough,
    Subpackage,
    checksum,
    encode_frame,
    escape,
    unescape,
)
from liftdesk.telemetry.gateway.client import Jt808Client, registration

V2013, V2019 = Jt808Version.V2013, Jt808Version.V2019
#: Every message id the codec parses (terminal and platform ones: a terminal may send either), 2011's 0x0101
#: deregistration, and ids nobody defines.
MESSAGE_IDS = sorted(set(PARSERS) | {0x0101, 0x0F00, 0xE001, 0xFFFF})


@dataclass
class Fuzz:
    stack: Stack
    device: str
    good: Jt808Client
    good_vehicle: int
    seconds: itertools.count[int] = field(default_factory=lambda: itertools.count(1))


@pytest.fixture
async def fuzz(db: Database) -> AsyncIterator[Fuzz]:
    stack = await make_stack(db, idle_timeout_s=60, subpackage_timeout_s=0.5, touch_interval_s=0.2)
    good_vehicle, good_device = await add_vehicle(db)
    _, device = await add_vehicle(db)
    good = await online(stack, good_device)
    yield Fuzz(stack, device, good, good_vehicle)
    await good.close()
    await close_stack(stack)


@st.composite
def frames(draw: st.DrawFn, terminal: str) -> bytes:
    """A correctly framed message (escapes, checksum) whose id, version, sub-package item and body are drawn."""
    version = draw(st.sampled_from([V2013, V2019]))
    msg_id = draw(st.sampled_from(MESSAGE_IDS))
    body = draw(st.binary(max_size=300))
    sub = draw(st.none() | st.tuples(st.integers(1, 4), st.integers(1, 4)).map(lambda t: Subpackage(max(t), min(t))))
    number = draw(st.sampled_from([terminal, "013800138000"]))  # now and then another terminal's number
    return encode_frame(msg_id, body, terminal=number, serial=draw(st.integers(0, 0xFFFF)), version=version,
                        subpackage=sub)  # fmt: skip


def snapshot(status: ForkliftStatus, seconds: int) -> PassThrough:
    return PassThrough.of(LiftdeskSnapshot(T0 + timedelta(seconds=seconds), status))


@st.composite
def reports(draw: st.DrawFn, terminal: str) -> bytes:
    """Well-formed position reports, batches and Liftdesk pass-through with random values: they reach the pipeline."""
    version = draw(st.sampled_from([V2013, V2019]))
    body: Body = draw(
        st.one_of(
            locations(),
            st.builds(LocationBatch, st.sampled_from(list(BatchType)), st.lists(locations(), max_size=3).map(tuple)),
            st.builds(snapshot, forklift, st.integers(0, 10**6)),
            forklift.filter(lambda f: f.battery is not None).map(
                lambda f: PassThrough.of(LiftdeskBatteryReport(None, f.battery))  # type: ignore[arg-type]
            ),
        )
    )  # fmt: skip
    raw = body.encode(version)
    if len(raw) > 1023:
        raw = raw[:1023]  # still framed correctly; the body is then malformed, which is fine too
    return encode_frame(body.msg_id, raw, terminal=terminal, serial=draw(st.integers(0, 0xFFFF)), version=version)


@st.composite
def chunks(draw: st.DrawFn, terminal: str) -> list[bytes]:
    """What one connection sends: frames with random bodies, well-formed reports and garbage, in a random order."""
    parts = draw(st.lists(frames(terminal), min_size=1, max_size=5))
    parts += draw(st.lists(reports(terminal), min_size=1, max_size=3))
    garbage = st.binary(max_size=400) | st.binary(max_size=200).map(lambda b: b"\x7e" + b + b"\x7e")
    parts += draw(st.lists(garbage, max_size=2))
    return list(draw(st.permutations(parts)))


def corrupt(frame: bytes) -> bytes:
    raw = bytearray(unescape(frame[1:-1]))
    raw[-1] ^= 0x5A
    assert checksum(bytes(raw[:-1])) != raw[-1]
    return b"\x7e" + escape(bytes(raw)) + b"\x7e"


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
async def test_hostile_input_never_breaks_the_gateway(fuzz: Fuzz, data: st.DataObject) -> None:
    stack, stats = fuzz.stack, fuzz.stack.gateway.stats
    client = await Jt808Client("127.0.0.1", stack.gateway.port, fuzz.device).connect()
    try:
        reply = await client.register(registration())
        assert reply.auth_code and await client.authenticate(reply.auth_code, WAIT) == 0
        sent = data.draw(chunks(client.terminal))
        bad_frames, frames_seen = stats.bad_frames, stats.frames
        _, [valid] = client.frames(loc(0))
        for chunk in [*sent, b"\x7e", corrupt(valid)]:  # the lone flag ends whatever run the garbage left open
            with contextlib.suppress(ConnectionError, OSError):
                await client.write(chunk)
        # Everything sent has been read once the gateway answers a heartbeat after it, or closed the connection
        # (a drawn deregistration or a refused authentication closes it).
        with contextlib.suppress(ConnectionError, OSError):
            beat = asyncio.ensure_future(client.heartbeat(WAIT))
            await asyncio.wait([beat, asyncio.ensure_future(client.closed.wait())], timeout=WAIT,
                               return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
            if not beat.done():
                beat.cancel()
            with contextlib.suppress(BaseException):
                await beat
        answered = beat.done() and not beat.cancelled() and beat.exception() is None
        assert answered or client.closed.is_set(), "the gateway neither answered nor closed the connection"
        session = stack.gateway.sessions.get(fuzz.device)
        if session is not None:  # let its data handlers finish (closing the connection would cancel them)
            await asyncio.wait_for(session._drain(), WAIT)
    finally:
        await client.close()
    assert stack.gateway.listening
    assert stats.frames > frames_seen  # it read the input
    if answered:  # the connection lived to the end: the corrupt frame was read and counted
        assert stats.bad_frames > bad_frames
    assert stats.handler_errors == 0, "a handler raised: see the log"
    # the other terminal is served as before
    assert await fuzz.good.heartbeat(WAIT) == 0
    second = next(fuzz.seconds)
    assert await ack(fuzz.good, loc(second)) == 0
    assert T0.replace(tzinfo=None) + timedelta(seconds=second) in {
        p.device_time for p in await positions(stack.db, fuzz.good_vehicle)
    }
