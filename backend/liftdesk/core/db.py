"""Engine, sessions, the declarative Base and the capability mixins every model is built from.

Generic machinery (the resource layer, the scope choke point, the generic tests) asks a model what it can do
with ``issubclass(model, TenantMixin)`` and friends; there are no per-entity flags.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

from sqlalchemy import BigInteger, DateTime, Integer, MetaData, String, event, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.util import await_only

from liftdesk.core.config import Settings, get_settings
from liftdesk.core.ids import next_id

T = TypeVar("T")

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


#: PostgreSQL's answers to transactions that met each other: deadlock detected, serialization failure. The
#: transaction was rolled back whole; doing it again is the cure.
RETRYABLE_SQLSTATES = frozenset({"40P01", "40001"})


def conflicted(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) says the transaction lost a deadlock or a serialization conflict."""
    seen: BaseException | None = exc
    for _ in range(4):
        if seen is None:
            return False
        if getattr(seen, "sqlstate", None) in RETRYABLE_SQLSTATES:
            return True
        seen = getattr(seen, "orig", None) or seen.__cause__
    return False


async def retrying(work: Callable[[], Awaitable[T]], attempts: int = 3) -> T:
    """``await work()``, again (up to ``attempts`` in all) when its transaction lost a deadlock (:func:`conflicted`).
    ``work`` must run a whole transaction of its own."""
    for attempt in range(1, attempts + 1):
        try:
            return await work()
        except Exception as exc:
            if attempt == attempts or not conflicted(exc):
                raise
            await asyncio.sleep(0.01 * attempt)  # let the winner finish
    raise AssertionError("unreachable")  # pragma: no cover


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {int: Integer, str: String(255), datetime: DateTime()}


class IdMixin:
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False, default=next_id)


class AuditMixin:
    create_user: Mapped[int | None] = mapped_column(BigInteger, default=None)
    create_dept: Mapped[int | None] = mapped_column(BigInteger, default=None, index=True)
    create_time: Mapped[datetime] = mapped_column(default=utcnow)
    update_user: Mapped[int | None] = mapped_column(BigInteger, default=None)
    update_time: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class StatusMixin:
    status: Mapped[int] = mapped_column(default=1)


class SoftDeleteMixin:
    is_deleted: Mapped[int] = mapped_column(default=0, index=True)


class TenantMixin:
    tenant_id: Mapped[str] = mapped_column(String(12), default="000000", index=True)


class TreeMixin:
    parent_id: Mapped[int] = mapped_column(BigInteger, default=0, index=True)
    sort: Mapped[int] = mapped_column(default=0)


class BaseEntity(IdMixin, AuditMixin, StatusMixin, SoftDeleteMixin):
    """BladeX's BaseEntity columns."""


def table_columns(model: type[Base]) -> dict[str, Any]:
    """Column name → column of a mapped class."""
    return dict(model.__table__.columns.items())


def column_names(model: type[Base]) -> set[str]:
    return set(table_columns(model))


class Database:
    """Owns the engine and the session factory for one process."""

    def __init__(self, settings: Settings | None = None, url: str | None = None) -> None:
        self.settings = settings or get_settings()
        self.url = url or self.settings.database_url
        kwargs: dict[str, Any] = {"echo": self.settings.sql_echo, "pool_pre_ping": True}
        if self.url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": 30}
        else:
            kwargs.update(pool_size=10, max_overflow=20)
        self.engine: AsyncEngine = create_async_engine(self.url, **kwargs)
        if self.url.startswith("sqlite"):
            _sqlite_pragmas(self.engine)
            _one_writer(self.engine, self.url)
        self.sessionmaker = async_sessionmaker(self.engine, expire_on_commit=False)

    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self.sessionmaker() as s:
            yield s

    async def dispose(self) -> None:
        await self.engine.dispose()


def _sqlite_pragmas(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_conn: Any, _: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()


#: SQLite: seconds a write waits for this process's writer of the same file before it fails (SQLite's own busy
#: timeout, ``connect_args["timeout"]``, is as long).
SQLITE_WRITE_WAIT_S = 30.0
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER")


class SqliteWriter:
    """One writing transaction at a time on an SQLite file in this process, the others queued in order.

    SQLite lets one connection write at a time; a second one that wants to write polls in SQLite's busy handler,
    sleeping 1, 2, 5 ... up to 100 ms between tries. With several pooled connections writing at once (the pipeline,
    registrations, commands) the writers spent their time in those sleeps, and a short transaction could wait for
    seconds behind sleepers. So a transaction takes this process's lock of the file before its first write
    statement - the moment SQLite would take its write lock - and gives it back when it commits or rolls back, or
    its connection goes back to the pool: the same exclusion, without the sleeps (``asyncio.Lock`` is fair)."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.holder: object | None = None  # the DBAPI connection whose transaction writes

    async def _acquire(self) -> None:
        async with asyncio.timeout(SQLITE_WRITE_WAIT_S):
            await self.lock.acquire()

    def writing(self, dbapi_connection: object) -> None:
        """Called (in SQLAlchemy's greenlet) before a write statement on ``dbapi_connection``."""
        if self.holder is not dbapi_connection:
            await_only(self._acquire())
            self.holder = dbapi_connection

    def done(self, dbapi_connection: object) -> None:
        if self.holder is not None and self.holder is dbapi_connection:
            self.holder = None
            self.lock.release()


_writers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, SqliteWriter]] = weakref.WeakKeyDictionary()
_HELD = "liftdesk.sqlite_writer"  # key in a pooled connection's info: the writer whose turn it holds


def _writer(url: str) -> SqliteWriter:
    """The writer of a file for the running event loop (a lock belongs to one loop)."""
    per_loop = _writers.setdefault(asyncio.get_running_loop(), {})
    writer = per_loop.get(url)
    if writer is None:
        writer = per_loop[url] = SqliteWriter()
    return writer


def _one_writer(engine: AsyncEngine, url: str) -> None:
    """Wire :class:`SqliteWriter` into an SQLite engine: before each write statement, and after each commit or
    rollback (the dialect's own, so that the turn is given back once SQLite has released its lock), and when a
    connection is checked in, invalidated or closed with a transaction left open."""
    sync = engine.sync_engine

    @event.listens_for(sync, "before_cursor_execute")
    def _before(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip()[:7].upper().startswith(_WRITES):
            fairy = conn.connection
            writer = _writer(url)
            writer.writing(fairy.dbapi_connection)
            fairy.info[_HELD] = writer

    def release(holder: Any, dbapi_connection: object) -> None:
        try:  # a pooled connection or its record; a record of no connection has no info
            info = holder.info
        except (AttributeError, NotImplementedError):
            return
        writer = info.pop(_HELD, None)
        if writer is not None:
            writer.done(dbapi_connection)

    dialect = sync.dialect
    commit, rollback = dialect.do_commit, dialect.do_rollback

    def do_commit(fairy: Any) -> None:
        try:
            commit(fairy)
        finally:
            release(fairy, getattr(fairy, "dbapi_connection", fairy))

    def do_rollback(fairy: Any) -> None:
        try:
            rollback(fairy)
        finally:
            release(fairy, getattr(fairy, "dbapi_connection", fairy))

    dialect.do_commit = do_commit  # type: ignore[method-assign,assignment]
    dialect.do_rollback = do_rollback  # type: ignore[method-assign,assignment]
    for name in ("checkin", "invalidate", "close"):
        event.listen(sync.pool, name, lambda dbapi_connection, record, *_: release(record, dbapi_connection))


async def lock_rows(session: AsyncSession, model: Any, ids: Any) -> None:
    """Hold these rows of ``model`` until the transaction ends, so that a change that counts and then writes (a limit
    of links per owner) is not run by two requests at once on the same owner: each counts after the other's commit.

    PostgreSQL: ``SELECT ... FOR UPDATE``, in id order (two such transactions never take them in opposite orders).
    SQLite locks the whole file, not rows: a write that matches nothing takes the file's writer turn
    (:class:`SqliteWriter`) and SQLite's write lock, and the reads after it see every transaction that wrote before
    (pysqlite starts the transaction at the first write, not at a read); no row changes, no ``update_time`` moves."""
    wanted = sorted(set(ids))
    if not wanted:
        return
    if session.get_bind().dialect.name == "postgresql":
        await session.execute(select(model.id).where(model.id.in_(wanted)).order_by(model.id).with_for_update())
    else:
        await session.execute(text(f'UPDATE "{model.__tablename__}" SET id = id WHERE 0 = 1'))


async def lock_key(session: AsyncSession, key: str) -> None:
    """Hold a lock named ``key`` until the transaction ends, for a count-then-write on something that is not a row
    yet (the codes sent to one phone number): parallel transactions on the same key run one after the other.

    PostgreSQL: a transaction advisory lock on the key's hash (a collision only makes two keys wait for each other).
    SQLite: the file's write lock, taken as :func:`lock_rows` takes it."""
    if session.get_bind().dialect.name == "postgresql":
        await session.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})
    else:
        await session.execute(text('UPDATE "blade_kv" SET "key" = "key" WHERE 0 = 1'))
