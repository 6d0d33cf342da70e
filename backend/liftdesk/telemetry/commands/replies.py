"""Completing commands from the terminal's answers: the general reply (0x0001), parameters (0x0104), attributes
(0x0107), the upgrade result (0x0108), the position replies (0x0500, 0x0201) and MQTT replies, each matched to
the command it answers (in flight in this process, or sent before a restart and found in the database).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import Any

from sqlalchemy import and_, select, update

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.telemetry.codecs.jt808 import ParamValue, ReplyResult
from liftdesk.telemetry.commands.params import params_json
from liftdesk.telemetry.commands.settings import _record_settings
from liftdesk.telemetry.commands.state import ACKNOWLEDGED, DONE_TOPIC, FAILED, SENT, _Inflight
from liftdesk.telemetry.models import Command

log = logging.getLogger("liftdesk.commands")

_REPLY_REASONS: dict[int, str] = {
    ReplyResult.FAILURE: "terminal reported failure",
    ReplyResult.BAD_MESSAGE: "terminal reported a malformed message",
    ReplyResult.UNSUPPORTED: "terminal does not support the command",
}
_UPGRADE_OUTCOMES = {0: "success", 1: "failure", 2: "cancelled"}


class CommandReplies:
    """The answering half of :class:`~liftdesk.telemetry.commands.service.CommandService` (its base class):
    every answer finishes the command it answers (status, result, completion message on the bus)."""

    db: Database
    bus: Bus
    _inflight: dict[int, _Inflight]

    # ------------------------------------------------------------------ completion

    async def _finish(
        self,
        command_id: int,
        status: str,
        *,
        result: Any = None,
        error: str | None = None,
        from_statuses: tuple[str, ...] = (SENT,),
    ) -> bool:
        inflight = self._inflight.pop(command_id, None)
        if inflight is not None and inflight.timer is not None and inflight.timer is not asyncio.current_task():
            inflight.timer.cancel()
        values: dict[str, Any] = {"status": status, "done_time": utcnow(), "error": error}
        if inflight is not None and inflight.cmd.serial is not None:
            # The answer can arrive before ``_send`` has stored the serial of this attempt: store it here too.
            values["serial"] = inflight.cmd.serial
        if result is not None:
            values["result"] = json.dumps(result, ensure_ascii=False, default=str)
        changed: dict[str, Any] | None = None
        async with self.db.sessionmaker() as s:
            res = await s.execute(
                update(Command).where(Command.id == command_id, Command.status.in_(from_statuses)).values(**values)
            )
            if not res.rowcount:  # type: ignore[attr-defined]
                await s.rollback()
                return False
            if status == ACKNOWLEDGED and (inflight is None or inflight.cmd.msg_id == 0x8103):
                changed = await _record_settings(s, command_id)
            await s.commit()
        log.info("command %s %s%s", command_id, status, f" ({error})" if error else "")
        await self.bus.publish(DONE_TOPIC, {"id": str(command_id), "status": status})
        if changed is not None:
            from liftdesk.fleet.service import VEHICLE_CHANGED  # the fleet context imports this module

            await self.bus.publish(VEHICLE_CHANGED, changed)
        return True

    def _match(self, device: str, msg_ids: tuple[int, ...], serial: int | None) -> _Inflight | None:
        """The oldest in-flight command to ``device`` with one of ``msg_ids`` (and sent with ``serial``)."""
        best: _Inflight | None = None
        for inflight in self._inflight.values():
            cmd = inflight.cmd
            if cmd.device != device or cmd.msg_id not in msg_ids:
                continue
            if serial is not None and serial not in (cmd.serials or ((cmd.serial,) if cmd.serial is not None else ())):
                continue
            if best is None or cmd.id < best.cmd.id:
                best = inflight
        return best

    async def _match_db(self, device: str, msg_ids: tuple[int, ...], serial: int | None) -> int | None:
        """Fallback for an answer to a command this process did not send (e.g. sent before a restart)."""
        conds = [Command.device_number == device, Command.msg_id.in_(msg_ids), Command.status == SENT]
        if serial is not None:
            conds.append(Command.serial == serial)
        async with self.db.sessionmaker() as s:
            found = (
                await s.execute(select(Command.id).where(and_(*conds)).order_by(Command.sent_time.desc()).limit(1))
            ).scalar_one_or_none()
        return found

    async def _resolve(self, device: str, msg_ids: tuple[int, ...], serial: int | None) -> tuple[int, _Inflight | None]:
        inflight = self._match(device, msg_ids, serial)
        if inflight is not None:
            return inflight.cmd.id, inflight
        return (await self._match_db(device, msg_ids, serial) or 0), None

    async def on_general_reply(self, device: str, reply_serial: int, reply_msg_id: int, result: int) -> int | None:
        """0x0001 from the terminal: result 0 → acknowledged, else failed with the reason. Returns the command id."""
        command_id, inflight = await self._resolve(device, (reply_msg_id,), reply_serial)
        if not command_id:
            return None
        if (
            inflight is not None
            and len(inflight.cmd.serials) > 1
            and result == ReplyResult.SUCCESS
            and reply_serial != inflight.cmd.serials[-1]
        ):
            return command_id  # one sub-package (of an upgrade, a card list) arrived; the reply to the last decides
        if result == ReplyResult.SUCCESS:
            payload: dict[str, Any] = {"reply": 0}
            if reply_msg_id == 0x8108:
                payload["received"] = True  # the 0x0108 upgrade result comes later and is recorded too
            await self._finish(command_id, ACKNOWLEDGED, result=payload)
        else:
            reason = _REPLY_REASONS.get(int(result), f"terminal result {result}")
            await self._finish(command_id, FAILED, result={"reply": int(result)}, error=reason)
        return command_id

    async def on_param_reply(self, device: str, reply_serial: int, params: Mapping[int, ParamValue]) -> int | None:
        """0x0104 answering 0x8104/0x8106: acknowledged with the parameters as JSON."""
        command_id, _ = await self._resolve(device, (0x8104, 0x8106), reply_serial)
        if not command_id:
            return None
        await self._finish(command_id, ACKNOWLEDGED, result={"params": params_json(params)})
        return command_id

    async def on_attributes(self, device: str, attributes: dict[str, Any]) -> int | None:
        """0x0107 answering 0x8107 (the reply carries no serial: the oldest query in flight)."""
        command_id, _ = await self._resolve(device, (0x8107,), None)
        if not command_id:
            return None
        await self._finish(command_id, ACKNOWLEDGED, result={"attributes": attributes})
        return command_id

    async def on_upgrade_result(self, device: str, upgrade_type: int, outcome: int) -> int | None:
        """0x0108: the final outcome of an upgrade (acknowledged, or failed when the terminal failed/cancelled).

        The command was usually acknowledged already by the 0x0001 for its package; this records the outcome.
        """
        result = {"upgradeType": int(upgrade_type), "outcome": _UPGRADE_OUTCOMES.get(int(outcome), str(outcome))}
        status, error = (ACKNOWLEDGED, None) if outcome == 0 else (FAILED, f"upgrade {result['outcome']}")
        command_id, _ = await self._resolve(device, (0x8108,), None)
        if command_id:
            await self._finish(command_id, status, result=result, error=error)
            return command_id
        async with self.db.sessionmaker() as s:
            found = (
                await s.execute(
                    select(Command.id)
                    .where(Command.device_number == device, Command.msg_id == 0x8108, Command.status == ACKNOWLEDGED)
                    .order_by(Command.done_time.desc())
                    .limit(1)
                )
            ).scalar_one_or_none()
        if found is None:
            return None
        await self._finish(found, status, result=result, error=error, from_statuses=(ACKNOWLEDGED,))
        return found

    async def on_position_reply(
        self, device: str, command_msg_id: int, reply_serial: int, data: dict[str, Any]
    ) -> int | None:
        """A reply that carries the terminal's position: 0x0500 answering 0x8500 (vehicle control, the position
        after it) or 0x0201 answering 0x8201 (location query). ``data`` is the position (``fix_json``)."""
        command_id, _ = await self._resolve(device, (command_msg_id,), reply_serial)
        if not command_id:
            return None
        await self._finish(command_id, ACKNOWLEDGED, result=data)
        return command_id

    async def on_reply(self, device: str, command_id: int, result: int, data: Any = None) -> bool:
        """An MQTT reply ``{commandId, result, data}``: result 0 → acknowledged with ``data``, else failed.
        Only the command's own device can answer it."""
        inflight = self._inflight.get(command_id)
        if inflight is not None and inflight.cmd.device != device:
            return False
        if inflight is None:
            async with self.db.sessionmaker() as s:
                row = await s.get(Command, command_id)
            if row is None or row.device_number != device:
                return False
        if result == 0:
            return await self._finish(command_id, ACKNOWLEDGED, result={"data": data})
        error = data if isinstance(data, str) else f"terminal result {result}"
        return await self._finish(command_id, FAILED, result={"result": result, "data": data}, error=error[:255])
