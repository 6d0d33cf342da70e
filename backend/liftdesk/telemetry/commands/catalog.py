"""The commands the platform can send: message id → payload builder (:data:`BUILDERS`), the conventional command
names (:data:`COMMAND_NAMES`), and validation: :func:`validate` builds and encodes a payload once, so a bad
value fails when the command is created, not when it is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from liftdesk.telemetry.codecs.jt808 import (
    Body,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    Jt808Version,
    QueryAllParams,
    RawBody,
)
from liftdesk.telemetry.commands.areas import _ids, build_set_circles, build_set_polygon, build_set_rectangles
from liftdesk.telemetry.commands.cards import CARD_LIST, build_card_list
from liftdesk.telemetry.commands.control import (
    build_alarm_confirmation,
    build_terminal_control,
    build_text,
    build_upgrade,
    build_vehicle_control,
)
from liftdesk.telemetry.commands.params import build_query_params, build_set_params

Builder = Callable[[Mapping[str, Any]], Body]

BUILDERS: dict[int, Builder] = {
    0x8103: build_set_params,
    0x8104: lambda payload: QueryAllParams(),
    0x8105: build_terminal_control,
    0x8106: build_query_params,
    0x8107: lambda payload: RawBody(0x8107, b""),
    0x8108: build_upgrade,
    0x8201: lambda payload: RawBody(0x8201, b""),
    0x8203: build_alarm_confirmation,
    0x8300: build_text,
    0x8500: build_vehicle_control,
    0x8600: build_set_circles,
    0x8601: lambda payload: DeleteCircleAreas(_ids(payload)),
    0x8602: build_set_rectangles,
    0x8603: lambda payload: DeleteRectangleAreas(_ids(payload)),
    0x8604: build_set_polygon,
    0x8605: lambda payload: DeletePolygonAreas(_ids(payload)),
    0x8F01: build_card_list,  # Liftdesk vendor message: the IC cards a vehicle accepts
}

#: Conventional command names (the API may use others; the message id decides how a command is built).
COMMAND_NAMES: dict[str, int] = {
    "set_params": 0x8103,
    "query_all_params": 0x8104,
    "terminal_control": 0x8105,
    "query_params": 0x8106,
    "query_attributes": 0x8107,
    "upgrade": 0x8108,
    "query_location": 0x8201,
    "confirm_alarm": 0x8203,
    "text": 0x8300,
    "vehicle_control": 0x8500,
    "set_circle_areas": 0x8600,
    "delete_circle_areas": 0x8601,
    "set_rectangle_areas": 0x8602,
    "delete_rectangle_areas": 0x8603,
    "set_polygon_area": 0x8604,
    "delete_polygon_areas": 0x8605,
    CARD_LIST: 0x8F01,
}


def build_body(msg_id: int, payload: Mapping[str, Any]) -> Body:
    """Payload dict → the codec's body object. Raises ValueError (naming the field or parameter)."""
    builder = BUILDERS.get(msg_id)
    if builder is None:
        raise ValueError(f"msg_id: 0x{msg_id:04x} is not a command the platform can send")
    if not isinstance(payload, Mapping):
        raise ValueError("payload: an object is required")
    return builder(payload)


def validate(msg_id: int, payload: Mapping[str, Any]) -> Body:
    """Build and encode once (2019 layout, the superset) so bad values fail at creation, not at send time."""
    body = build_body(msg_id, payload)
    body.encode(Jt808Version.V2019)  # EncodeError is a ValueError
    return body
