"""Settings the platform keeps through commands: the function switches (parameter 0xF008) as named bits, the
value of a parameter as the command log knows it (one row at a time, for
:meth:`~liftdesk.telemetry.commands.service.CommandService.last_param_value`), and the vehicle settings (speed
limit, collision and overload thresholds) written to the vehicle when the terminal acknowledges a parameter
set that carries them.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import operator
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.db import utcnow
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.codecs.jt808 import PARAM_SPECS, FunctionSwitch, ParamId, ParamValue
from liftdesk.telemetry.commands.params import param_id, param_value
from liftdesk.telemetry.commands.state import ACKNOWLEDGED
from liftdesk.telemetry.models import Command

log = logging.getLogger("liftdesk.commands")


class UnknownParameter(ValueError):
    """The command log knows no value of a parameter a read-modify-write needs (query the terminal first)."""

    def __init__(self, pid: int, device: str) -> None:
        spec = PARAM_SPECS.get(pid)
        name = spec.name if spec else f"0x{pid:04x}"
        super().__init__(f"{name}: the current value of terminal {device} is unknown; query its parameters first")
        self.pid = pid
        self.device = device


SWITCHES_PID = int(ParamId.FUNCTION_SWITCHES)
SWITCHES_ALL = functools.reduce(operator.or_, (int(bit) for bit in FunctionSwitch), 0)
#: How many of a terminal's latest parameter commands :meth:`CommandService.last_param_value` looks through.
LAST_VALUE_ROWS = 500


def switch_bits(switches: Mapping[str, bool]) -> tuple[int, int]:
    """``{"fence": True, "dms": False}`` → (bits named, bits to turn on). ValueError names an unknown switch."""
    if not switches:
        raise ValueError("switches: name at least one function switch")
    mask = on = 0
    for key, value in switches.items():
        try:
            bit = int(FunctionSwitch[key.upper()])
        except KeyError:
            names = ", ".join(str(m.name).lower() for m in FunctionSwitch)
            raise ValueError(f"switches: {key!r} is not one of {names}") from None
        if not isinstance(value, bool) and value not in (0, 1):
            raise ValueError(f"switches.{key}: 0 or 1 is required")
        mask |= bit
        on |= bit if value else 0
    return mask, on


def _param_in(row: Command, pid: int) -> tuple[datetime, ParamValue] | None:
    """(as of when, value) of parameter ``pid`` in one command row of :meth:`CommandService.last_param_value`."""
    if row.msg_id == 0x8103:
        params = json.loads(row.payload or "{}").get("params")
        for key, value in params.items() if isinstance(params, Mapping) else ():
            with contextlib.suppress(ValueError):
                if param_id(key) == pid:
                    return row.create_time, param_value(pid, value)
        return None
    if row.status != ACKNOWLEDGED or not row.result or row.done_time is None:
        return None
    answered = json.loads(row.result).get("params")
    for item in answered if isinstance(answered, list) else ():
        with contextlib.suppress(TypeError, ValueError, KeyError):
            if param_id(str(item["id"])) == pid:
                return row.done_time, param_value(pid, item["value"])
    return None


#: Vendor parameters whose acknowledged value is kept on the vehicle: id → (column, value → column value).
#: The overload threshold's unit is taken as 10 kg (0-600 → 0-6 000 kg, the capacity range of counterbalance
#: forklifts; docs/protocol.md §4.5 lists the unit as an open point).
VEHICLE_SETTINGS: dict[int, tuple[str, Callable[[int], float]]] = {
    int(ParamId.SPEED_LIMIT): ("speed_limit_kmh", float),
    int(ParamId.COLLISION_THRESHOLD): ("collision_threshold_g", lambda v: v / 10),
    int(ParamId.OVERLOAD_THRESHOLD): ("overload_threshold_kg", lambda v: v * 10.0),
}


async def _record_settings(s: AsyncSession, command_id: int) -> dict[str, Any] | None:
    """Write the vehicle settings an acknowledged 0x8103 carried to its vehicle (in the caller's transaction);
    returns the ``VEHICLE_CHANGED`` message to publish after the commit, or None."""
    row = await s.get(Command, command_id)
    if row is None or row.msg_id != 0x8103 or row.vehicle_id is None:
        return None
    params = json.loads(row.payload or "{}").get("params")
    values: dict[str, Any] = {}
    for key, value in params.items() if isinstance(params, Mapping) else ():
        with contextlib.suppress(ValueError):
            pid = param_id(key)
            setting = VEHICLE_SETTINGS.get(pid)
            converted = param_value(pid, value) if setting else None
            if setting is not None and isinstance(converted, int):
                values[setting[0]] = setting[1](converted)
    if not values:
        return None
    await s.execute(
        update(Vehicle)
        .where(Vehicle.id == row.vehicle_id, Vehicle.tenant_id == row.tenant_id)
        .values(**values, update_time=utcnow(), update_user=row.create_user)
    )
    log.info("vehicle %s: %s (acknowledged by %s)", row.vehicle_id, values, row.device_number)
    return {"vehicleId": row.vehicle_id, "deviceNumber": row.device_number}
