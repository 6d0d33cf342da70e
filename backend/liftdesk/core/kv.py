"""Shared short-lived state with expiry (captcha codes, sign-in failures, revoked tokens).

One interface; the database adapter is the embedded default so that every process and every restart sees the
same state without Redis.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import String, Text, delete
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

    async def incr(self, key: str, ttl: timedelta) -> int:
        """Add one; the expiry is set when the key is created (a fixed window, like Redis INCR + EXPIRE)."""
        row = await self.session.get(KeyValue, key)
        now = utcnow()
        if row is None or row.expire_at <= now:
            if row is not None:
                await self.session.delete(row)
                await self.session.flush()
            self.session.add(KeyValue(key=key, value="1", expire_at=now + ttl))
            await self.session.flush()
            return 1
        row.value = str(int(row.value or "0") + 1)
        await self.session.flush()
        return int(row.value)

    async def delete(self, *keys: str) -> None:
        if keys:
            await self.session.execute(delete(KeyValue).where(KeyValue.key.in_(keys)))

    async def purge_expired(self) -> None:
        await self.session.execute(delete(KeyValue).where(KeyValue.expire_at <= utcnow()))
