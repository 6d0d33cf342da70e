"""Commands left in flight (``sent``, no answer) by a gateway process that is gone.

* :func:`recover_sent`: at the start of the only process holding terminals (``liftdesk gateway``, ``serve``), or of
  the supervisor of several gateway processes before it starts them: every sent command goes back to pending (or to
  ``timeout`` when out of attempts); the process holding its terminal sends it again.
* :func:`stale_sent`: while several gateway processes share the port, one of them may end (killed, crashed) while
  the others run on: its sent commands keep their status with nobody's timer on them. A sent command whose reply
  timeout passed long ago (``grace``: the sweep period) is such a one, since the process that sent it would have
  sent it again or given up by then; the sweeper of every gateway process takes those back.

Both are conditional updates (the status, and for a stale command its ``sent_time``): a command another process
answered, re-sent or cancelled meanwhile is left alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from datetime import datetime, timedelta

from sqlalchemy import select, update

from liftdesk.core.db import Database, utcnow
from liftdesk.telemetry.commands.state import PENDING, SENT, TIMEOUT
from liftdesk.telemetry.models import Command

#: Sends of a command at most (the first and the retries), unless a service is told otherwise.
MAX_ATTEMPTS = 3


async def recover_sent(db: Database, max_attempts: int) -> None:
    """Every sent command back to pending (out of attempts: ``timeout``)."""
    async with db.sessionmaker() as s:
        await s.execute(
            update(Command)
            .where(Command.status == SENT, Command.attempts >= max_attempts)
            .values(status=TIMEOUT, error="no reply (gateway restarted)", done_time=utcnow())
        )
        await s.execute(update(Command).where(Command.status == SENT).values(status=PENDING))
        await s.commit()


def reply_timeout(base_s: float, attempt: int) -> float:
    """How long to wait for the answer to send number ``attempt`` (1-based): T·attempt!."""
    return base_s * math.factorial(max(1, attempt))


async def stale_sent(
    db: Database,
    wait_s: Callable[[int], float],
    max_attempts: int,
    grace_s: float,
    mine: Collection[int],
    now: datetime | None = None,
) -> list[tuple[int, str]]:
    """Take back sent commands not in ``mine`` (this process's own in flight) whose attempt's reply timeout
    (``wait_s(attempt)``) ended more than ``grace_s`` ago; returns (id, device) of those back to pending."""
    now = now or utcnow()
    oldest = now - timedelta(seconds=wait_s(1) + grace_s)
    async with db.sessionmaker() as s:
        rows = (
            await s.execute(
                select(Command.id, Command.device_number, Command.attempts, Command.sent_time).where(
                    Command.status == SENT, Command.sent_time.is_not(None), Command.sent_time < oldest
                )
            )
        ).all()
        back: list[tuple[int, str]] = []
        for command_id, device, attempts, sent_time in rows:
            if command_id in mine or sent_time is None:
                continue
            if sent_time + timedelta(seconds=wait_s(attempts) + grace_s) > now:
                continue
            out = attempts >= max_attempts
            values = (
                {"status": TIMEOUT, "error": "no reply (its gateway process ended)", "done_time": now}
                if out
                else {"status": PENDING}
            )
            done = await s.execute(
                update(Command)
                .where(Command.id == command_id, Command.status == SENT, Command.sent_time == sent_time)
                .values(**values)
            )
            if done.rowcount and not out:  # type: ignore[attr-defined]
                back.append((command_id, device))
        await s.commit()
    return back
