"""Telemetry resources: the commands sent to terminals (the command log)."""

from __future__ import annotations

from liftdesk.core.registry import REGISTRY, Resource
from liftdesk.telemetry import command_log
from liftdesk.telemetry.models import Command
from liftdesk.telemetry.schemas import CommandOut

COMMAND = REGISTRY.register(
    Resource(
        name="command",
        model=Command,
        prefix="/api/liftdesk/command",
        # read-only: commands are created by the calls that send them (telemetry/api/commands.py), never submitted
        schema_in=CommandOut,
        schema_out=CommandOut,
        # the vehicle's code: its data rule decides which vehicles' commands a caller sees, and cancelling a
        # command needs the right to send one (``vehicle_edit``)
        code="vehicle",
        view_menus=("command_log", "car_monitor", "vehicle"),
        label="name",
        # ``detail`` is telemetry/api/commands.py's: it narrows by the vehicle data scope, which the generic detail
        # (scope only) cannot
        ops={"list": "page"},
        hooks=command_log.CommandLogHooks(),
        default_order=("-create_time",),
        tag="command",
    )
)
