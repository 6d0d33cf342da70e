"""Writes under concurrency: group commit (``core.grouped``) and SQLite's one writer per process (``core.db``).

The SQLite tests use a file of their own (real SQLite through aiosqlite, as the application does)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from liftdesk.core.db import Database, _writer, conflicted, retrying
from liftdesk.core.grouped import Grouped


async def test_calls_arriving_together_share_rounds_and_keep_their_results() -> None:
    seen: list[list[int]] = []

    async def handle(items: list[int]) -> list[int]:
        seen.append(list(items))
        await asyncio.sleep(0.01)  # a transaction's round trip: calls arriving meanwhile queue for the next round
        return [i * 10 for i in items]

    grouped: Grouped[int, int] = Grouped(handle, max_items=50)
    results = await asyncio.gather(*(grouped(i) for i in range(200)))
    assert results == [i * 10 for i in range(200)], "each caller gets its own result"
    assert sorted(i for round_ in seen for i in round_) == list(range(200)), "each item handled once"
    assert len(seen) < 20 and max(len(r) for r in seen) == 50, "rounds of up to max_items, not one per call"
    assert await grouped(7) == 70, "a call alone waits for nobody"
    await grouped.stop()


async def test_a_failing_item_fails_only_its_own_caller() -> None:
    async def handle(items: list[int]) -> list[int]:
        if 13 in items:
            raise ValueError("13 is refused")
        return items

    grouped: Grouped[int, int] = Grouped(handle)
    outcome = await asyncio.gather(*(grouped(i) for i in range(20)), return_exceptions=True)
    assert [o for o in outcome if isinstance(o, Exception)] == [outcome[13]]
    assert isinstance(outcome[13], ValueError)
    assert [o for i, o in enumerate(outcome) if i != 13] == [i for i in range(20) if i != 13]
    await grouped.stop()


@pytest.fixture
async def sqlite(tmp_path: Path) -> Database:
    db = Database(url=f"sqlite+aiosqlite:///{tmp_path / 'w.db'}")
    async with db.sessionmaker() as s:
        await s.execute(text("CREATE TABLE t (n INTEGER PRIMARY KEY, by TEXT)"))
        await s.commit()
    return db


async def test_sqlite_writers_of_one_process_take_turns(sqlite: Database) -> None:
    """Twenty transactions that each write, wait and write again, all at once, on connections whose SQLite busy
    timeout is zero: a writer that met another one inside SQLite would fail at once with "database is locked". None
    does - they queue in the process (an ``asyncio.Lock``) instead of polling in SQLite's busy handler with sleeps -
    none sees another inside its transaction, and every row is there."""

    @event.listens_for(sqlite.engine.sync_engine, "connect")
    def _no_busy_wait(dbapi_conn: Any, _: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout = 0")
        cur.close()

    await sqlite.engine.dispose()  # connections from now on have it
    inside = 0
    most = 0

    async def write(n: int) -> None:
        nonlocal inside, most
        async with sqlite.sessionmaker() as s:
            await s.execute(text("INSERT INTO t (n, by) VALUES (:n, 'a')"), {"n": n})
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.01)
            await s.execute(text("UPDATE t SET by = 'b' WHERE n = :n"), {"n": n})
            inside -= 1
            await s.commit()

    await asyncio.wait_for(asyncio.gather(*(write(n) for n in range(20))), 20)
    assert most == 1, "one writing transaction at a time"
    async with sqlite.sessionmaker() as s:
        assert (await s.execute(text("SELECT count(*), min(by) FROM t"))).one() == (20, "b")
    await sqlite.dispose()


async def test_a_transaction_that_fails_or_is_dropped_gives_the_write_turn_back(sqlite: Database) -> None:
    async with sqlite.sessionmaker() as s:
        await s.execute(text("INSERT INTO t (n, by) VALUES (1, 'a')"))
        with pytest.raises(Exception, match="UNIQUE"):
            await s.execute(text("INSERT INTO t (n, by) VALUES (1, 'again')"))
        await s.rollback()
    async with sqlite.sessionmaker() as s:  # closed without commit or rollback: checked in, rolled back
        await s.execute(text("INSERT INTO t (n, by) VALUES (2, 'a')"))
    writer = _writer(sqlite.url)
    assert not writer.lock.locked() and writer.holder is None
    async with sqlite.sessionmaker() as s:  # the next writer goes at once (no 30 s wait for a lost turn)
        await asyncio.wait_for(s.execute(text("INSERT INTO t (n, by) VALUES (3, 'a')")), 5)
        await s.commit()
    async with sqlite.sessionmaker() as s:
        assert (await s.execute(text("SELECT n FROM t ORDER BY n"))).scalars().all() == [3]
    await sqlite.dispose()


async def test_a_transaction_that_loses_a_deadlock_is_done_again(db: Database) -> None:
    """PostgreSQL: two transactions take two rows in opposite orders; the server aborts one (deadlock detected).
    ``conflicted`` recognises that answer, and ``retrying`` does the loser again: both end committed."""
    if not db.url.startswith("postgresql"):
        pytest.skip("deadlocks between transactions are PostgreSQL's (SQLite lets one writer in at a time)")
    table = f"probe_{uuid.uuid4().hex[:8]}"
    async with db.sessionmaker() as s:
        await s.execute(text(f"CREATE TABLE {table} (n INTEGER PRIMARY KEY, v INTEGER)"))
        await s.execute(text(f"INSERT INTO {table} VALUES (1, 0), (2, 0)"))
        await s.commit()
    try:

        async def cross(first: int, second: int, holding: asyncio.Event, other: asyncio.Event) -> None:
            async with db.sessionmaker() as s:
                await s.execute(text(f"UPDATE {table} SET v = v + 1 WHERE n = :n"), {"n": first})
                holding.set()
                await other.wait()  # both hold one row: each now asks for the other's
                await s.execute(text(f"UPDATE {table} SET v = v + 1 WHERE n = :n"), {"n": second})
                await s.commit()

        a, b = asyncio.Event(), asyncio.Event()
        outcome = await asyncio.wait_for(
            asyncio.gather(cross(1, 2, a, b), cross(2, 1, b, a), return_exceptions=True), 30
        )
        lost = [o for o in outcome if isinstance(o, BaseException)]
        assert len(lost) == 1 and conflicted(lost[0]), outcome

        a, b = asyncio.Event(), asyncio.Event()
        attempts = 0

        async def counted(first: int, second: int, holding: asyncio.Event, other: asyncio.Event) -> None:
            nonlocal attempts
            attempts += 1
            await cross(first, second, holding, other)

        await asyncio.wait_for(
            asyncio.gather(
                retrying(lambda: counted(1, 2, a, b)),
                retrying(lambda: counted(2, 1, b, a)),
            ),
            30,
        )
        assert attempts == 3, "the loser did it once more"
        async with db.sessionmaker() as s:  # one round of the first try, two of the second
            assert (await s.execute(text(f"SELECT v FROM {table} ORDER BY n"))).scalars().all() == [3, 3]
    finally:
        async with db.sessionmaker() as s:
            await s.execute(text(f"DROP TABLE {table}"))
            await s.commit()
