"""Telemetry's subjects. Each is a resource of its own (its menus, buttons and API scopes), so that a role can be
granted one without the others; those about vehicles have no model of their own and read the vehicles through their
data rule (``scope_via``).

- ``live`` (code ``car_monitor``): the live state (positions, counts, lists with the live state); read with 实时监控
  and the menus of the pages that show vehicles.
- ``vehicle_detail``: a vehicle's meter, diagnosis, run history and charts (车辆详情); the same menus.
- ``track`` (code ``car_track``): tracks, phases, stops and alarms of a period (轨迹回放); 轨迹回放 and the same menus.
- ``car_set``: remote control of vehicles (lock, speed limit, thresholds, calibrations, switches, parameters); one
  button each kind: ``car_set_lock``, ``car_set_limit``, ``car_set_threshold``, ``car_set_calibrate``,
  ``car_set_func``, ``car_set_config``.
- ``command`` (code ``command_log``): every command sent (指令记录), cancelling (``command_log_cancel``) and sending any
  command (``command_log_send``).
- ``parameter_query``: the terminals' versions asked (``parameter_query_send``).
- ``terminal_version``: firmware updates sent (``terminal_version_update``).
- ``terminal``: the terminal bound to a vehicle, letting a replaced unit register (``terminal_release``).
- ``ingest``: telemetry posted over HTTP by an integration (``ingest_post``).
- ``address``: an address for a position (every signed-in user).

The buttons are seeded under the menus whose pages use them (``system/seed.py``); a role that could send commands
before (``vehicle_edit``) is granted them when they first appear (``INHERITED_BUTTONS``).
"""

from __future__ import annotations

from liftdesk.core.resource import OPEN, Resource
from liftdesk.fleet.models import Vehicle
from liftdesk.fleet.resources import FICS
from liftdesk.telemetry import command_log
from liftdesk.telemetry.models import Command
from liftdesk.telemetry.schemas import CommandOut

#: The menus whose pages show vehicles with their live state (the register, the monitor, the fence editor's vehicle
#: picker, the command log's vehicle filter): each lets a role read the live state.
VEHICLE_PAGES = ("car_monitor", "vehicle", "fence", "command_log")

LIVE = Resource(
    name="live",
    prefix=f"{FICS}/carInfo",
    code="car_monitor",
    scope_via=Vehicle,
    ops={},
    view_menus=VEHICLE_PAGES,
    tag="carInfo",
)

VEHICLE_DETAIL = Resource(
    name="vehicle_detail",
    prefix=f"{FICS}/monitor",
    code="vehicle_detail",
    scope_via=Vehicle,
    ops={},
    view_menus=VEHICLE_PAGES,
    tag="monitor",
)

TRACK = Resource(
    name="track",
    prefix=f"{FICS}/positionTrailing",
    code="car_track",
    scope_via=Vehicle,
    ops={},
    view_menus=("car_track", *VEHICLE_PAGES),
    tag="positionTrailing",
)

CAR_SET = Resource(
    name="car_set",
    prefix=f"{FICS}/carSet",
    code="car_set",
    scope_via=Vehicle,
    ops={},
    view_menus=VEHICLE_PAGES,
    tag="carSet",
)

COMMAND = Resource(
    name="command",
    model=Command,
    prefix="/api/liftdesk/command",
    # read-only: commands are created by the calls that send them (telemetry/api/commands.py), never submitted
    schema_in=CommandOut,
    schema_out=CommandOut,
    # its own code: a role is granted the log (menu command_log), cancelling (command_log_cancel) and sending any
    # command (command_log_send) apart from the vehicles; the vehicles' data rule still decides which vehicles'
    # commands a caller sees (``command_log.visible``)
    code="command_log",
    view_menus=("command_log", "car_monitor", "vehicle"),
    label="name",
    # ``detail`` is telemetry/api/commands.py's: it narrows by the vehicle data scope, which the generic detail
    # (scope only) cannot
    ops={"list": "page"},
    hooks=command_log.CommandLogHooks(),
    default_order=("-create_time",),
    tag="command",
)

PARAMETER_QUERY = Resource(
    name="parameter_query",
    prefix=f"{FICS}/parameterQuery",
    code="parameter_query",
    scope_via=Vehicle,
    ops={},
    view_menus=VEHICLE_PAGES,
    tag="parameterQuery",
)

TERMINAL_VERSION = Resource(
    name="terminal_version",
    prefix=f"{FICS}/operation",
    code="terminal_version",
    scope_via=Vehicle,
    ops={},
    view_menus=VEHICLE_PAGES,
    tag="operation",
)

TERMINAL = Resource(
    name="terminal",
    prefix="/api/liftdesk/terminal",
    code="terminal",
    scope_via=Vehicle,
    ops={},
    view_menus=VEHICLE_PAGES,
    tag="command",
)

INGEST = Resource(
    name="ingest",
    prefix="/api/liftdesk/ingest",
    code="ingest",
    scope_via=Vehicle,
    ops={},
    view_menus=VEHICLE_PAGES,
    tag="ingest",
)

ADDRESS = Resource(
    name="address",
    prefix=f"{FICS}/common",
    code="address",
    ops={},
    view_menus=OPEN,
    tag="common",
)

RESOURCES = (
    LIVE,
    VEHICLE_DETAIL,
    TRACK,
    CAR_SET,
    COMMAND,
    PARAMETER_QUERY,
    TERMINAL_VERSION,
    TERMINAL,
    INGEST,
    ADDRESS,
)
