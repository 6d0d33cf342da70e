"""Shared short-lived state with expiry (captcha codes, sign-in failures, revoked tokens).

One interface; the database adapter is the embedded default so that every process and every restart sees the
same state without Redis.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Integer, String, Text, case, cast, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from liftdesk.core.db import Base, utcnow


class KeyValue(Base):
    __tablename__ = "blade_kv"
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[str] = mapped_column(Text, default="")
    expire_at: Mapped[datetime] = mapped_column(index=True)


class KV:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, key: str) -> str | None:
        row = await self.session.get(KeyValue, key)
        if row is None or row.expire_at <= utcnow():
            return None
        return row.value

    async def set(self, key: str, value: str, ttl: timedelta) -> None:
        row = await self.session.get(KeyValue, key)
        expire = utcnow() + ttl
        if row is None:
            self.session.add(KeyValue(key=key, value=value, expire_at=expire))
        else:
            row.value, row.expire_at = value, expire
        await self.session.flush()

    def _insert(self) -> Any:
        dialect = self.session.get_bind().dialect.name
        return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(KeyValue)

    async def incr(self, key: str, ttl: timedelta) -> int:
        """Add one and return the new count, atomically (one INSERT ... ON CONFLICT DO UPDATE ... RETURNING, so that
        parallel requests each see their own count). The expiry is set when the key is (re)created: a fixed window,
        like Redis INCR + EXPIRE."""
        now = utcnow()
        table = KeyValue.__table__
        stmt = self._insert().values(key=key, value="1", expire_at=now + ttl)
        expired = table.c.expire_at <= now
        stmt = stmt.on_conflict_do_update(
            index_elements=[table.c.key],
            set_={
                "value": case((expired, "1"), else_=cast(cast(table.c.value, Integer) + 1, Text)),
                "expire_at": case((expired, stmt.excluded.expire_at), else_=table.c.expire_at),
            },
        ).returning(table.c.value)
        value = (await self.session.execute(stmt)).scalar_one()
        return int(value)

    async def claim(self, key: str, value: str, ttl: timedelta) -> bool:
        """Set ``key`` only if it is absent or expired, atomically; True when this call set it (a single-use mark:
        of many parallel claims exactly one wins)."""
        now = utcnow()
        table = KeyValue.__table__
        stmt = self._insert().values(key=key, value=value, expire_at=now + ttl)
        stmt = stmt.on_conflict_do_update(
            index_elements=[table.c.key],
            set_={"value": stmt.excluded.value, "expire_at": stmt.excluded.expire_at},
            where=table.c.expire_at <= now,
        ).returning(table.c.key)
        return (await self.session.execute(stmt)).first() is not None

    async def take(self, key: str) -> str | None:
        """The live value of ``key``, removed in the same statement (DELETE ... RETURNING): of many parallel takes
        of one key exactly one gets the value (a single-use ticket)."""
        stmt = (
            delete(KeyValue)
            .where(KeyValue.key == key, KeyValue.expire_at > utcnow())
            .returning(KeyValue.value)
            .execution_options(synchronize_session=False)
        )
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def get_many(self, *keys: str) -> dict[str, str]:
        """The live values of several keys in one query."""
        rows = await self.session.execute(
            select(KeyValue.key, KeyValue.value).where(KeyValue.key.in_(keys), KeyValue.expire_at > utcnow())
        )
        return {k: v for k, v in rows.all()}

    async def delete(self, *keys: str) -> None:
        if keys:
            await self.session.execute(delete(KeyValue).where(KeyValue.key.in_(keys)))

    async def delete_prefix(self, prefix: str) -> None:
        """Every key starting with ``prefix`` (compared as text, not as a LIKE pattern)."""
        await self.session.execute(delete(KeyValue).where(func.substr(KeyValue.key, 1, len(prefix)) == prefix))

    async def purge_expired(self) -> None:
        await self.session.execute(delete(KeyValue).where(KeyValue.expire_at <= utcnow()))
