"""Commands to terminals: pending → sent → acknowledged | failed | timeout, or pending → cancelled by a user.

``CommandService.create`` stores a command (validated by building its message body) and announces it on the bus.
Whoever holds the terminal's connection (the JT/T 808 gateway session, the MQTT adapter) registered a transport
with :meth:`CommandService.attach`; :meth:`CommandService.dispatch` sends the terminal's pending commands through
it, and again whenever the terminal comes back, so commands created while a terminal is offline wait for it.

A sent command is retried when no answer arrives within the platform reply timeout: T, then 2·T, then 6·T
(``T(n+1) = T(n)·(n+1)``, JT/T 808 §1.4), at most ``max_attempts`` sends, then status ``timeout``. Answers:
0x0001 general reply (result 0 → acknowledged, else failed with the reason), 0x0104 parameters, 0x0107 attributes,
0x0108 upgrade result, 0x0201 location, 0x0500 vehicle control reply, or an MQTT reply ``{commandId, result,
data}``. A pending command past its expire time fails with ``expired``; a user may cancel a pending one.

When the terminal acknowledges a parameter set (0x8103) that carries a setting the platform keeps on the vehicle
(speed limit 0xF002, collision threshold 0xF003, overload threshold 0xF005), the value is written to the vehicle in
the same transaction and ``VEHICLE_CHANGED`` is published, so the pipeline reloads its thresholds.

The function switches (vendor parameter 0xF008) are one bit field; :meth:`CommandService.create_switches` changes
only the named bits, starting from the last value the command log knows (:meth:`CommandService.last_param_value`).

In a deployment with separate API and gateway processes both run a ``CommandService`` on a shared bus (Redis):
the API process creates and waits (``start(recover=False)``), the gateway process sends and completes
(``start(recover=True)``, which also re-sends what a lost bus message left pending, see :meth:`_sweeper`). Several
gateway processes on one port (``liftdesk gateway --processes N``) each hold some of the terminals: a command is
announced to all of them and sent by the one its terminal is attached to; the queue is the database, so a terminal
that reconnects to another process gets its pending commands there (``start(recover=False, sweep=True)``: the
supervisor recovered before starting them, and each sweeper takes back what a gone sibling left in flight).

Modules, bottom up: :mod:`.fields` (reading a payload's fields), :mod:`.params`, :mod:`.control` and
:mod:`.areas` and :mod:`.cards`
(payload → message body, per kind of command), :mod:`.catalog` (message ids, command names,
validation), :mod:`.state` (statuses, topics, the shapes a command takes), :mod:`.settings` (what the platform
keeps of acknowledged settings), :mod:`.replies` (answers → completion), :mod:`.recovery` (commands left in flight
by a gateway process that is gone) and :mod:`.service` (:class:`CommandService`). Every public name is re-exported here.
"""

from liftdesk.telemetry.commands.areas import build_set_circles, build_set_polygon, build_set_rectangles
from liftdesk.telemetry.commands.cards import CARD_LIST, build_card_list, card_list_payload, entries_of
from liftdesk.telemetry.commands.catalog import BUILDERS, COMMAND_NAMES, Builder, build_body, validate
from liftdesk.telemetry.commands.control import (
    MAX_PACKAGE,
    MAX_TEXT,
    URL_UPGRADE_PARAMS,
    build_alarm_confirmation,
    build_terminal_control,
    build_text,
    build_upgrade,
    build_vehicle_control,
    url_upgrade_payload,
)
from liftdesk.telemetry.commands.params import build_query_params, build_set_params, param_id, param_value, params_json
from liftdesk.telemetry.commands.recovery import MAX_ATTEMPTS, recover_sent, reply_timeout, stale_sent
from liftdesk.telemetry.commands.replies import CommandReplies
from liftdesk.telemetry.commands.service import CommandService
from liftdesk.telemetry.commands.settings import (
    LAST_VALUE_ROWS,
    SWITCHES_ALL,
    SWITCHES_PID,
    VEHICLE_SETTINGS,
    UnknownParameter,
    switch_bits,
)
from liftdesk.telemetry.commands.state import (
    ACKNOWLEDGED,
    CANCELLED,
    CREATED_TOPIC,
    DEFAULT_EXPIRY_S,
    DEFAULT_REPLY_TIMEOUT_S,
    DONE_TOPIC,
    FAILED,
    FINAL_STATUSES,
    PARAM_REPLY_TIMEOUT,
    PENDING,
    SENT,
    TIMEOUT,
    CommandView,
    OutboundCommand,
    Transport,
)

__all__ = [
    "ACKNOWLEDGED",
    "BUILDERS",
    "CANCELLED",
    "CARD_LIST",
    "COMMAND_NAMES",
    "CREATED_TOPIC",
    "DEFAULT_EXPIRY_S",
    "DEFAULT_REPLY_TIMEOUT_S",
    "DONE_TOPIC",
    "FAILED",
    "FINAL_STATUSES",
    "LAST_VALUE_ROWS",
    "MAX_ATTEMPTS",
    "MAX_PACKAGE",
    "MAX_TEXT",
    "PARAM_REPLY_TIMEOUT",
    "PENDING",
    "SENT",
    "SWITCHES_ALL",
    "SWITCHES_PID",
    "TIMEOUT",
    "URL_UPGRADE_PARAMS",
    "VEHICLE_SETTINGS",
    "Builder",
    "CommandReplies",
    "CommandService",
    "CommandView",
    "OutboundCommand",
    "Transport",
    "UnknownParameter",
    "build_alarm_confirmation",
    "build_body",
    "build_card_list",
    "build_query_params",
    "build_set_circles",
    "build_set_params",
    "build_set_polygon",
    "build_set_rectangles",
    "build_terminal_control",
    "build_text",
    "build_upgrade",
    "build_vehicle_control",
    "card_list_payload",
    "entries_of",
    "param_id",
    "param_value",
    "params_json",
    "recover_sent",
    "reply_timeout",
    "stale_sent",
    "switch_bits",
    "url_upgrade_payload",
    "validate",
]
