"""What people do with alarms (报警记录): the work on an alarm (acknowledged, handled, closed: by whom, when, with
which note, cause and assignee) and its log, one row per step.

The alarm itself stays the pipeline's (``telemetry.models.Event``, partitioned on PostgreSQL and written in bulk):
its work is a row of its own keyed by the event's id, written only when someone acts, so that the ingest path never
waits for a person and an alarm nobody touched costs nothing. Ids are unique across partitions (``next_id``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from liftdesk.core.db import Base, IdMixin, TenantMixin, utcnow

#: ``AlarmWork.status``: an alarm without a work row is unacknowledged (0).
UNACKNOWLEDGED, ACKNOWLEDGED, HANDLED, CLOSED = 0, 1, 2, 3
STATUSES = (UNACKNOWLEDGED, ACKNOWLEDGED, HANDLED, CLOSED)


class AlarmWork(TenantMixin, Base):
    """The state of the work on one alarm (``fics_event.id``)."""

    __tablename__ = "fics_alarm_work"
    event_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    vehicle_id: Mapped[int] = mapped_column(BigInteger, index=True)
    #: the alarm's begin: with the tenant and the id, where PostgreSQL finds the event (its partition keys)
    begin_time: Mapped[datetime]
    status: Mapped[int] = mapped_column(default=ACKNOWLEDGED)
    ack_user_id: Mapped[int | None] = mapped_column(BigInteger)
    ack_user_name: Mapped[str | None] = mapped_column(String(64))
    ack_time: Mapped[datetime | None]
    #: a key of the tenant's business dictionary ``alarm_cause``
    cause: Mapped[str | None] = mapped_column(String(64))
    note: Mapped[str | None] = mapped_column(Text)
    assignee_id: Mapped[int | None] = mapped_column(BigInteger)
    assignee_name: Mapped[str | None] = mapped_column(String(64))
    handle_user_name: Mapped[str | None] = mapped_column(String(64))
    handle_time: Mapped[datetime | None]
    close_user_name: Mapped[str | None] = mapped_column(String(64))
    close_time: Mapped[datetime | None]


class AlarmLog(IdMixin, TenantMixin, Base):
    """One step of the work on an alarm: who did what when, with the note, cause and assignee of that step."""

    __tablename__ = "fics_alarm_log"
    __table_args__ = (Index("ix_fics_alarm_log_event", "tenant_id", "event_id"),)
    event_id: Mapped[int] = mapped_column(BigInteger)
    action: Mapped[str] = mapped_column(String(16))  # ack, handle, close
    user_id: Mapped[int | None] = mapped_column(BigInteger)
    user_name: Mapped[str | None] = mapped_column(String(64))
    time: Mapped[datetime] = mapped_column(default=utcnow)
    cause: Mapped[str | None] = mapped_column(String(64))
    note: Mapped[str | None] = mapped_column(Text)
    assignee_name: Mapped[str | None] = mapped_column(String(64))
