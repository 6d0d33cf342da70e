"""Engine, sessions, the declarative Base and the capability mixins every model is built from.

Generic machinery (the resource layer, the scope choke point, the generic tests) asks a model what it can do
with ``issubclass(model, TenantMixin)`` and friends; there are no per-entity flags.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import BigInteger, DateTime, Integer, MetaData, String, event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from liftdesk.core.config import Settings, get_settings
from liftdesk.core.ids import next_id

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


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
