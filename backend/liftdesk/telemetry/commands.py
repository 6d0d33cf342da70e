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
(``start(recover=True)``, which also re-sends what a lost bus message left pending, see :meth:`_sweeper`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import logging
import math
import operator
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import and_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.bus import Bus
from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.system.models import LogUsual, Param
from liftdesk.telemetry.codecs.jt808 import (
    CONFIRMABLE_ALARMS,
    PARAM_SPECS,
    AlarmConfirmation,
    AlarmFlag,
    AreaRules,
    AreaSetMode,
    Body,
    CircleArea,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    FunctionSwitch,
    Jt808Version,
    ParamId,
    ParamItem,
    ParamType,
    ParamValue,
    PolygonArea,
    QueryAllParams,
    QueryParams,
    RawBody,
    RectangleArea,
    ReplyResult,
    SetCircleAreas,
    SetParams,
    SetPolygonArea,
    SetRectangleAreas,
    TerminalCommand,
    TerminalControl,
    TextFlag,
    TextMessage,
    TextType,
    UpgradePackage,
    UpgradeType,
    VehicleControl,
    VehicleControlItem,
)
from liftdesk.telemetry.models import Command

log = logging.getLogger("liftdesk.commands")

PENDING, SENT, ACKNOWLEDGED, FAILED, TIMEOUT = "pending", "sent", "acknowledged", "failed", "timeout"
CANCELLED = "cancelled"
FINAL_STATUSES = frozenset({ACKNOWLEDGED, FAILED, TIMEOUT, CANCELLED})
CREATED_TOPIC = "telemetry.command.created"
DONE_TOPIC = "telemetry.command.done"
#: blade_param key of the platform reply timeout (seconds), read at start when no timeout is given.
PARAM_REPLY_TIMEOUT = "telemetry.commandReplyTimeoutSeconds"
DEFAULT_REPLY_TIMEOUT_S = 10.0
DEFAULT_EXPIRY_S = 24 * 3600.0

_REPLY_REASONS: dict[int, str] = {
    ReplyResult.FAILURE: "terminal reported failure",
    ReplyResult.BAD_MESSAGE: "terminal reported a malformed message",
    ReplyResult.UNSUPPORTED: "terminal does not support the command",
}
_UPGRADE_OUTCOMES = {0: "success", 1: "failure", 2: "cancelled"}


# --------------------------------------------------------------------------- builders: payload dict → body


def _get(payload: Mapping[str, Any], *names: str, default: Any = None) -> Any:
    for name in names:
        if name in payload and payload[name] is not None:
            return payload[name]
    return default


def _int(value: Any, what: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{what}: expected an integer, got {value!r}")
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text, 16) if text.lower().startswith("0x") else int(text)
        except ValueError:
            raise ValueError(f"{what}: expected an integer, got {text!r}") from None
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise ValueError(f"{what}: expected an integer, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{what}: {value} is outside {low}..{high}")
    return value


def _float(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{what}: expected a number, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{what}: expected a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{what}: expected a finite number, got {value!r}")
    return number


def _enum_int(value: Any, enum: Any, what: str) -> int:
    """An enum member by name (case-insensitive) or an integer value."""
    if isinstance(value, str) and not value.strip().lstrip("-").isdigit() and not value.lower().startswith("0x"):
        try:
            return int(enum[value.strip().upper()])
        except KeyError:
            names = ", ".join(m.name.lower() for m in enum)
            raise ValueError(f"{what}: {value!r} is not one of {names}") from None
    return _int(value, what)


def param_id(key: str | int) -> int:
    """A parameter id from ``0x0029``, ``41``, ``report_interval_default`` or ``REPORT_INTERVAL_DEFAULT``."""
    if isinstance(key, int) and not isinstance(key, bool):
        pid = key
    elif isinstance(key, str) and key.strip():
        text = key.strip()
        if text.lower().startswith("0x") or text.isdigit():
            pid = _int(text, f"parameter {key!r}")
        else:
            try:
                pid = int(ParamId[text.upper()])
            except KeyError:
                raise ValueError(f"parameter {key!r}: unknown parameter name") from None
    else:
        raise ValueError(f"parameter {key!r}: not a parameter id or name")
    if not 0 <= pid <= 0xFFFFFFFF:
        raise ValueError(f"parameter {key!r}: id outside 0..0xffffffff")
    return pid


def param_value(pid: int, value: Any) -> ParamValue:
    """A JSON value → the parameter's wire type (from the codec's table), validated; errors name the parameter."""
    spec = PARAM_SPECS.get(pid)
    label = f"parameter 0x{pid:04x}" + (f" ({spec.name})" if spec else "")
    if spec is None:
        if isinstance(value, str):
            return value
        if isinstance(value, Mapping) and isinstance(value.get("hex"), str):
            try:
                return bytes.fromhex(value["hex"])
            except ValueError:
                raise ValueError(f"{label}: {value['hex']!r} is not hex") from None
        raise ValueError(f"{label}: unknown parameter, give a string or {{'hex': ...}} so its width is explicit")
    converted: ParamValue
    if spec.type is ParamType.STRING:
        if not isinstance(value, str):
            raise ValueError(f"{label}: expected a string, got {value!r}")
        converted = value
    elif spec.type is ParamType.BYTES:
        if not isinstance(value, str):
            raise ValueError(f"{label}: expected a hex string, got {value!r}")
        try:
            converted = bytes.fromhex(value)
        except ValueError:
            raise ValueError(f"{label}: {value!r} is not hex") from None
    else:
        converted = _int(value, label)
    spec.encode(converted)  # ParamValueError (a ValueError) names the parameter and the rule it broke
    return converted


def build_set_params(payload: Mapping[str, Any]) -> SetParams:
    """0x8103 ``{"params": {"heartbeat_interval": 30, "0x0029": 10, "lock_level": 1}}``."""
    params = _get(payload, "params")
    if not isinstance(params, Mapping) or not params:
        raise ValueError("params: a non-empty object of parameter → value is required")
    if len(params) > 0xFF:
        raise ValueError("params: at most 255 parameters per command")
    items = []
    for key, value in params.items():
        pid = param_id(key)
        items.append(ParamItem(pid, param_value(pid, value)))
    return SetParams(tuple(items))


def build_query_params(payload: Mapping[str, Any]) -> QueryParams | QueryAllParams:
    """0x8106 ``{"ids": ["heartbeat_interval", "0x0029"]}``; no ids → 0x8104 (all parameters)."""
    ids = _get(payload, "ids", "params", default=[])
    if not isinstance(ids, list):
        raise ValueError("ids: a list of parameter ids or names is required")
    if not ids:
        return QueryAllParams()
    if len(ids) > 0xFF:
        raise ValueError("ids: at most 255 parameters per query")
    return QueryParams(tuple(param_id(i) for i in ids))


def build_terminal_control(payload: Mapping[str, Any]) -> TerminalControl:
    """0x8105 ``{"command": "reset" | 4, "params": ["..."]}``."""
    command = _enum_int(_get(payload, "command"), TerminalCommand, "command")
    if not 1 <= command <= 0xFF:
        raise ValueError(f"command: {command} is outside 1..255")
    params = _get(payload, "params", default=[])
    if not isinstance(params, list) or not all(isinstance(p, str | int | float) for p in params):
        raise ValueError("params: a list of strings is required")
    texts = tuple(str(p) for p in params)
    for p in texts:
        if ";" in p:
            raise ValueError(f"params: {p!r} contains the ';' separator")
    if command == TerminalCommand.UPGRADE:
        _check_url_upgrade(texts)
    return TerminalControl(command, texts)


#: 0x8105 command 1 (upgrade from a URL): the terminal fetches the file itself. Its ';'-separated parameters.
URL_UPGRADE_PARAMS = (
    "url",
    "apn",
    "apnUser",
    "apnPassword",
    "address",
    "tcpPort",
    "udpPort",
    "maker",
    "hardwareVersion",
    "firmwareVersion",
    "connectTimeoutMin",
)


def _check_url_upgrade(params: tuple[str, ...]) -> None:
    """The parameters of an upgrade from a URL, checked the way a terminal reads them (JT/T 808 table 19)."""
    if not 1 <= len(params) <= len(URL_UPGRADE_PARAMS):
        raise ValueError(f"params: an upgrade takes 1..{len(URL_UPGRADE_PARAMS)} parameters, the URL first")
    given = dict(zip(URL_UPGRADE_PARAMS, params, strict=False))
    url = given["url"]
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        parts = urlsplit("")
    if parts.scheme.lower() not in ("http", "https", "ftp") or not parts.hostname or any(c.isspace() for c in url):
        raise ValueError(f"url: {url!r} is not an http, https or ftp URL")
    if len(url.encode("gbk", errors="replace")) > 255:
        raise ValueError("url: at most 255 bytes")
    for name in ("tcpPort", "udpPort", "connectTimeoutMin"):
        if given.get(name):
            _int(given[name], name, 0, 0xFFFF)
    if len(given.get("maker", "")) > 5:
        raise ValueError("maker: at most 5 characters (the maker id of JT/T 808)")


def url_upgrade_payload(
    url: str,
    *,
    maker: str = "",
    hardware_version: str = "",
    firmware_version: str = "",
    connect_timeout_min: int | None = None,
) -> dict[str, Any]:
    """The 0x8105 payload telling a terminal to fetch and install ``firmware_version`` from ``url`` (the platform
    stores no file: the URL is wherever the maker publishes it). Dial-up fields stay empty: the terminal keeps
    its own network settings."""
    params = [url, "", "", "", "", "", "", maker, hardware_version, firmware_version]
    if connect_timeout_min is not None:
        params.append(str(connect_timeout_min))
    return {"command": int(TerminalCommand.UPGRADE), "params": params}


def build_vehicle_control(payload: Mapping[str, Any]) -> VehicleControl:
    """0x8500 ``{"lockLevel": 0..2}`` | ``{"doors": "lock" | "unlock"}`` | ``{"controls": [{"type", "param"}]}``."""
    level = _get(payload, "lockLevel", "lock_level")
    if level is not None:
        return VehicleControl.lock_level(_int(level, "lockLevel", 0, 2))
    doors = _get(payload, "doors")
    if doors is not None:
        if isinstance(doors, bool):
            return VehicleControl.doors(doors)
        if isinstance(doors, str) and doors.lower() in ("lock", "unlock"):
            return VehicleControl.doors(doors.lower() == "lock")
        raise ValueError(f"doors: {doors!r} is not 'lock' or 'unlock'")
    controls = _get(payload, "controls")
    if not isinstance(controls, list) or not controls:
        raise ValueError("lockLevel, doors or controls is required")
    items = []
    for i, c in enumerate(controls):
        if not isinstance(c, Mapping):
            raise ValueError(f"controls[{i}]: an object {{type, param}} is required")
        kind = _int(_get(c, "type"), f"controls[{i}].type", 0, 0xFFFF)
        raw = _get(c, "param", default="")
        try:
            param = bytes.fromhex(raw) if isinstance(raw, str) else bytes((_int(raw, f"controls[{i}].param", 0, 255),))
        except ValueError as exc:
            raise ValueError(f"controls[{i}].param: {exc}") from None
        items.append(VehicleControlItem(kind, param))
    return VehicleControl(tuple(items))


#: A text message goes to the terminal's screen or speech in one frame (GBK, at most 1,023 bytes of body).
MAX_TEXT = 400
#: An upgrade package sent through the platform (0x8108); larger firmware goes by URL (0x8105).
MAX_PACKAGE = 1024 * 1024


def build_text(payload: Mapping[str, Any]) -> TextMessage:
    """0x8300 ``{"text": "...", "display": true, "tts": false, "urgent": false, "type": "notice"}``."""
    text = _get(payload, "text")
    if not isinstance(text, str) or not text:
        raise ValueError("text: a non-empty string is required")
    if len(text) > MAX_TEXT:
        raise ValueError(f"text: at most {MAX_TEXT} characters")
    flags = _get(payload, "flags")
    if flags is not None:
        value = _int(flags, "flags", 0, 255)
    else:
        value = 0
        if _get(payload, "urgent", default=False):
            value |= TextFlag.URGENT
        if _get(payload, "display", default=True):
            value |= TextFlag.DISPLAY
        if _get(payload, "tts", default=False):
            value |= TextFlag.TTS
    kind = _get(payload, "type")
    return TextMessage(value, text, None if kind is None else _enum_int(kind, TextType, "type"))


def build_upgrade(payload: Mapping[str, Any]) -> UpgradePackage:
    """0x8108 ``{"type": "terminal" | 0, "maker": "LFTDK", "version": "1.2.0", "package": <base64>}``."""
    kind = _enum_int(_get(payload, "type", default=0), UpgradeType, "type")
    maker = _get(payload, "maker", "makerId", default="")
    version = _get(payload, "version")
    package = _get(payload, "package")
    if not isinstance(maker, str):
        raise ValueError("maker: a string is required")
    if not isinstance(version, str) or not version:
        raise ValueError("version: a non-empty string is required")
    if not isinstance(package, str) or not package:
        raise ValueError("package: the upgrade file as base64 is required")
    try:
        raw = base64.b64decode(package, validate=True)
    except ValueError:
        raise ValueError("package: not valid base64") from None
    if len(raw) > MAX_PACKAGE:
        raise ValueError(f"package: at most {MAX_PACKAGE // 1024} KB (larger firmware goes by URL)")
    return UpgradePackage(kind, maker, version, raw)


def _area_time(value: Any, what: str) -> datetime | time | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{what}: an ISO date-time or HH:MM[:SS] is required")
    text = value.strip()
    try:
        if len(text) <= 8 and ":" in text:
            return time.fromisoformat(text)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{what}: {value!r} is not an ISO date-time or HH:MM[:SS]") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _rules(a: Mapping[str, Any], what: str) -> AreaRules:
    def opt_int(*names: str, high: int = 0xFFFF) -> int | None:
        v = _get(a, *names)
        return None if v is None else _int(v, f"{what}.{names[0]}", 0, high)

    name = _get(a, "name", default="")
    if not isinstance(name, str):
        raise ValueError(f"{what}.name: a string is required")
    start, end = _area_time(_get(a, "start"), f"{what}.start"), _area_time(_get(a, "end"), f"{what}.end")
    if (start is None) != (end is None):
        raise ValueError(f"{what}: start and end go together")
    return AreaRules(
        start=start,
        end=end,
        max_speed_kmh=opt_int("maxSpeed", "maxSpeedKmh"),
        overspeed_duration_s=opt_int("overspeedDuration", "overspeedDurationS", high=255),
        night_max_speed_kmh=opt_int("nightMaxSpeed", "nightMaxSpeedKmh"),
        name=name,
    )


def _point(value: Any, what: str) -> tuple[float, float]:
    if isinstance(value, Mapping):
        value = [_get(value, "lat"), _get(value, "lon", "lng")]
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(f"{what}: [lat, lon] is required")
    lat, lon = _float(value[0], f"{what}.lat"), _float(value[1], f"{what}.lon")
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise ValueError(f"{what}: ({lat}, {lon}) is not a coordinate")
    return lat, lon


def _areas(payload: Mapping[str, Any]) -> tuple[int, list[Mapping[str, Any]]]:
    mode = _enum_int(_get(payload, "mode", default=0), AreaSetMode, "mode")
    if not 0 <= mode <= 2:
        raise ValueError(f"mode: {mode} is outside 0..2")
    areas = _get(payload, "areas")
    if not isinstance(areas, list) or not areas or not all(isinstance(a, Mapping) for a in areas):
        raise ValueError("areas: a non-empty list of areas is required")
    if len(areas) > 0xFF:
        raise ValueError("areas: at most 255 per command")
    return mode, areas


def _area_head(a: Mapping[str, Any], what: str) -> tuple[int, int]:
    return _int(_get(a, "id", "areaId"), f"{what}.id", 0, 0xFFFFFFFF), _int(
        _get(a, "attributes", default=0), f"{what}.attributes", 0, 0xFFFF
    )


def build_set_circles(payload: Mapping[str, Any]) -> SetCircleAreas:
    """0x8600 ``{"mode": "update", "areas": [{"id", "lat", "lon", "radius", "attributes"?, rules...}]}``."""
    mode, areas = _areas(payload)
    out = []
    for i, a in enumerate(areas):
        what = f"areas[{i}]"
        area_id, attr = _area_head(a, what)
        lat, lon = _point([_get(a, "lat"), _get(a, "lon", "lng")], what)
        radius = _int(_get(a, "radius", "radiusM"), f"{what}.radius", 1, 0xFFFFFFFF)
        out.append(CircleArea(area_id, attr, lat, lon, radius, _rules(a, what)))
    return SetCircleAreas(mode, tuple(out))


def build_set_rectangles(payload: Mapping[str, Any]) -> SetRectangleAreas:
    """0x8602 ``{"mode", "areas": [{"id", "topLeft": [lat, lon], "bottomRight": [lat, lon], ...}]}``."""
    mode, areas = _areas(payload)
    out = []
    for i, a in enumerate(areas):
        what = f"areas[{i}]"
        area_id, attr = _area_head(a, what)
        top_left = _point(_get(a, "topLeft"), f"{what}.topLeft")
        bottom_right = _point(_get(a, "bottomRight"), f"{what}.bottomRight")
        out.append(RectangleArea(area_id, attr, top_left, bottom_right, _rules(a, what)))
    return SetRectangleAreas(mode, tuple(out))


def build_set_polygon(payload: Mapping[str, Any]) -> SetPolygonArea:
    """0x8604 ``{"area": {"id", "vertices": [[lat, lon], ...], ...}}`` (or the area's fields at the top)."""
    a = _get(payload, "area", default=payload)
    if not isinstance(a, Mapping):
        raise ValueError("area: an object is required")
    area_id, attr = _area_head(a, "area")
    vertices = _get(a, "vertices", "points")
    if not isinstance(vertices, list) or len(vertices) < 3:
        raise ValueError("area.vertices: at least three [lat, lon] points are required")
    points = tuple(_point(v, f"area.vertices[{i}]") for i, v in enumerate(vertices))
    return SetPolygonArea(PolygonArea(area_id, attr, points, _rules(a, "area")))


def _ids(payload: Mapping[str, Any]) -> tuple[int, ...]:
    ids = _get(payload, "ids", default=[])
    if not isinstance(ids, list):
        raise ValueError("ids: a list of area ids is required (empty deletes all)")
    if len(ids) > 0xFF:
        raise ValueError("ids: at most 255 per command")
    return tuple(_int(i, f"ids[{n}]", 0, 0xFFFFFFFF) for n, i in enumerate(ids))


def build_alarm_confirmation(payload: Mapping[str, Any]) -> AlarmConfirmation:
    """0x8203 ``{"alarms": ["emergency", "area_in_out"] | 0x100001, "alarmSerial": 0}``: the operator handled these
    alarms (names of ``AlarmFlag``, or the bits as a number); ``alarmSerial`` is the 0x0200 that raised them, 0 (the
    default) confirms every alarm of those types."""
    raw = _get(payload, "alarms", "alarmTypes")
    if raw is None:
        raise ValueError("alarms: the alarm types to confirm are required")
    if isinstance(raw, list):
        if not raw:
            raise ValueError("alarms: at least one alarm type is required")
        types = 0
        for i, item in enumerate(raw):
            types |= _enum_int(item, AlarmFlag, f"alarms[{i}]")
    else:
        types = _enum_int(raw, AlarmFlag, "alarms")
    if not 0 < types <= 0xFFFFFFFF or types & ~CONFIRMABLE_ALARMS:
        allowed = ", ".join(f.name.lower() for f in AlarmFlag if f & CONFIRMABLE_ALARMS and f.name)
        raise ValueError(f"alarms: only these alarms can be confirmed: {allowed}")
    serial = _int(_get(payload, "alarmSerial", "serial", default=0), "alarmSerial", 0, 0xFFFF)
    return AlarmConfirmation(serial, types)


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


# --------------------------------------------------------------------------- the service


@dataclass(slots=True)
class OutboundCommand:
    """What a transport sends. A JT/T 808 transport sets ``serials`` (first = ``serial``) before writing."""

    id: int
    device: str
    name: str
    msg_id: int
    payload: dict[str, Any]
    attempt: int = 1
    serial: int | None = None
    serials: tuple[int, ...] = ()


#: Sends one command; returns the serial of the (first) frame, or None when the transport has no serials.
#: Raises ConnectionError (or OSError) when the terminal is gone, ValueError when the command cannot be encoded
#: for this terminal.
Transport = Callable[[OutboundCommand], Awaitable[int | None]]


@dataclass(frozen=True, slots=True)
class CommandView:
    id: int
    tenant_id: str
    vehicle_id: int | None
    device: str
    name: str
    msg_id: int
    payload: dict[str, Any]
    status: str
    attempts: int
    serial: int | None
    result: Any
    error: str | None
    create_user: int | None
    create_time: datetime
    sent_time: datetime | None
    done_time: datetime | None
    expire_time: datetime | None

    @property
    def done(self) -> bool:
        return self.status in FINAL_STATUSES

    @classmethod
    def of(cls, row: Command) -> CommandView:
        return cls(
            row.id,
            row.tenant_id,
            row.vehicle_id,
            row.device_number,
            row.name,
            row.msg_id,
            json.loads(row.payload or "{}"),
            row.status,
            row.attempts,
            row.serial,
            json.loads(row.result) if row.result else None,
            row.error,
            row.create_user,
            row.create_time,
            row.sent_time,
            row.done_time,
            row.expire_time,
        )


@dataclass(slots=True)
class _Inflight:
    cmd: OutboundCommand
    transport: Transport
    timer: asyncio.Task[None] | None = None


class CommandService:
    def __init__(
        self,
        db: Database,
        bus: Bus,
        *,
        reply_timeout_s: float | None = None,
        max_attempts: int = 3,
        default_expiry_s: float = DEFAULT_EXPIRY_S,
        sweep_interval_s: float = 60.0,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.db = db
        self.bus = bus
        self.reply_timeout_s = reply_timeout_s if reply_timeout_s is not None else DEFAULT_REPLY_TIMEOUT_S
        self._timeout_from_param = reply_timeout_s is None
        self.max_attempts = max_attempts
        self.default_expiry_s = default_expiry_s
        self.sweep_interval_s = sweep_interval_s
        self._transports: dict[str, Transport] = {}
        self._inflight: dict[int, _Inflight] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiters: dict[int, set[asyncio.Event]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe: list[Callable[[], None]] = []
        self._started = False

    # ------------------------------------------------------------------ lifecycle

    async def start(self, *, recover: bool = True) -> None:
        """Subscribe to the bus; with ``recover`` (the process that holds terminal connections) re-queue commands
        a previous process left in flight, and sweep expired pending commands periodically."""
        if self._started:
            return
        self._started = True
        if self._timeout_from_param:
            self.reply_timeout_s = await self._param_timeout()
        self._unsubscribe.append(self.bus.subscribe(CREATED_TOPIC, self._on_created))
        self._unsubscribe.append(self.bus.subscribe(DONE_TOPIC, self._on_done))
        if recover:
            await self._recover()
            self._spawn(self._sweeper())

    async def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        for inflight in self._inflight.values():
            if inflight.timer is not None:
                inflight.timer.cancel()
        self._inflight.clear()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._started = False

    def reply_timeout(self, attempt: int) -> float:
        """How long to wait for the answer to send number ``attempt`` (1-based): T·attempt!."""
        return self.reply_timeout_s * math.factorial(max(1, attempt))

    async def _param_timeout(self) -> float:
        async with self.db.sessionmaker() as s:
            raw = (
                await s.execute(
                    select(Param.param_value).where(Param.param_key == PARAM_REPLY_TIMEOUT, Param.is_deleted == 0)
                )
            ).scalar_one_or_none()
        with contextlib.suppress(TypeError, ValueError):
            value = float(raw)  # type: ignore[arg-type]
            if value > 0:
                return value
        return DEFAULT_REPLY_TIMEOUT_S

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _recover(self) -> None:
        """Commands another process sent but never saw answered: send again (or give up if out of attempts)."""
        async with self.db.sessionmaker() as s:
            await s.execute(
                update(Command)
                .where(Command.status == SENT, Command.attempts >= self.max_attempts)
                .values(status=TIMEOUT, error="no reply (gateway restarted)", done_time=utcnow())
            )
            await s.execute(update(Command).where(Command.status == SENT).values(status=PENDING))
            await s.commit()

    async def _sweeper(self) -> None:
        """Expire old pending commands, and send the pending commands of attached terminals: a command created in
        another process is announced on the bus, and a bus message can be lost (Redis pub/sub keeps nothing for a
        listener that was reconnecting), which would leave it waiting until the terminal reconnects."""
        while True:
            try:
                await self.expire_pending()
                await self.dispatch_attached()
            except Exception:  # keep sweeping after a database hiccup
                log.exception("sweeping pending commands failed")
            await asyncio.sleep(self.sweep_interval_s)

    async def dispatch_attached(self) -> int:
        """Send the pending commands of every attached terminal; returns how many were sent."""
        if not self._transports:
            return 0
        async with self.db.sessionmaker() as s:
            devices = set(
                (await s.execute(select(Command.device_number).where(Command.status == PENDING).distinct()))
                .scalars()
                .all()
            )
        sent = 0
        for device in devices & set(self._transports):
            sent += await self.dispatch(device)
        return sent

    # ------------------------------------------------------------------ create / read / wait

    async def create(
        self,
        tenant_id: str,
        vehicle_id: int | None,
        device: str,
        name: str,
        msg_id: int,
        payload: dict[str, Any],
        user_id: int | None,
        *,
        expire_time: datetime | None = None,
    ) -> int:
        """Store a pending command (ValueError if the payload does not build), audit it, announce it."""
        if not device:
            raise ValueError("device: required")
        validate(msg_id, payload)
        now = utcnow()
        expire = expire_time or now + timedelta(seconds=self.default_expiry_s)
        command_id = next_id()
        payload_json = json.dumps(payload, ensure_ascii=False)
        async with self.db.sessionmaker() as s:
            s.add(
                Command(
                    id=command_id,
                    tenant_id=tenant_id,
                    vehicle_id=vehicle_id,
                    device_number=device,
                    msg_id=msg_id,
                    name=name[:64],
                    payload=payload_json,
                    status=PENDING,
                    attempts=0,
                    create_user=user_id,
                    create_time=now,
                    expire_time=expire,
                )
            )
            s.add(
                LogUsual(
                    tenant_id=tenant_id,
                    service_id="telemetry",
                    log_level="INFO",
                    log_id="command.create",
                    log_data=json.dumps(
                        {
                            "commandId": str(command_id),
                            "device": device,
                            "vehicleId": str(vehicle_id) if vehicle_id else None,
                            "name": name,
                            "msgId": f"0x{msg_id:04x}",
                            "payload": payload,
                            "userId": str(user_id) if user_id else None,
                        },
                        ensure_ascii=False,
                    ),
                    create_by=str(user_id) if user_id is not None else None,
                    create_time=now,
                )
            )
            await s.commit()
        log.info("command %s %s (0x%04x) for %s created by %s", command_id, name, msg_id, device, user_id)
        await self.bus.publish(CREATED_TOPIC, {"id": str(command_id), "device": device})
        return command_id

    async def get(self, command_id: int) -> CommandView | None:
        async with self.db.sessionmaker() as s:
            row = await s.get(Command, command_id)
            return CommandView.of(row) if row is not None else None

    async def cancel(self, tenant_id: str, command_ids: Sequence[int], user_id: int | None) -> bool:
        """Cancel pending commands of ``tenant_id``: all of them or none (False when one of them is not pending
        any more, e.g. the gateway claimed it meanwhile). Claiming (pending → sent) and cancelling are both
        conditional updates of the status, so a command is either sent or cancelled, never both."""
        ids = list(dict.fromkeys(command_ids))
        if not ids:
            return False
        now = utcnow()
        async with self.db.sessionmaker() as s:
            result = await s.execute(
                update(Command)
                .where(Command.id.in_(ids), Command.tenant_id == tenant_id, Command.status == PENDING)
                .values(status=CANCELLED, done_time=now, error="cancelled")
            )
            if result.rowcount != len(ids):  # type: ignore[attr-defined]
                await s.rollback()
                return False
            s.add(
                LogUsual(
                    tenant_id=tenant_id,
                    service_id="telemetry",
                    log_level="INFO",
                    log_id="command.cancel",
                    log_data=json.dumps(
                        {"commandIds": [str(i) for i in ids], "userId": str(user_id) if user_id else None}
                    ),
                    create_by=str(user_id) if user_id is not None else None,
                    create_time=now,
                )
            )
            await s.commit()
        for command_id in ids:
            log.info("command %s cancelled by %s", command_id, user_id)
            await self.bus.publish(DONE_TOPIC, {"id": str(command_id), "status": CANCELLED})
        return True

    async def last_param_value(self, device: str, pid: int) -> ParamValue | None:
        """The terminal's value of parameter ``pid`` as far as the command log knows it: the newest of the
        answers to parameter queries (0x8104/0x8106, as of their answer) and of the parameter sets not failed
        (0x8103 pending, sent or acknowledged, as of their creation: a queued set is applied before anything
        created after it, as the terminal receives commands oldest first). None when nothing is known."""
        async with self.db.sessionmaker() as s:
            rows = (
                (
                    await s.execute(
                        select(Command)
                        .where(
                            Command.device_number == device,
                            Command.msg_id.in_((0x8103, 0x8104, 0x8106)),
                            Command.status.in_((PENDING, SENT, ACKNOWLEDGED)),
                        )
                        .order_by(Command.create_time.desc(), Command.id.desc())
                        .limit(LAST_VALUE_ROWS)
                    )
                )
                .scalars()
                .all()
            )
        best: tuple[datetime, ParamValue] | None = None
        for row in rows:
            found = _param_in(row, pid)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
        return None if best is None else best[1]

    async def create_switches(
        self,
        tenant_id: str,
        vehicle_id: int | None,
        device: str,
        switches: Mapping[str, bool],
        user_id: int | None,
        *,
        name: str = "funcset",
    ) -> int:
        """Turn the named function switches (``FunctionSwitch`` names, e.g. ``{"fence": True, "dms": False}``) on
        or off and leave the others as they are: a read-modify-write of parameter 0xF008 starting from
        :meth:`last_param_value`. Raises :class:`UnknownParameter` when that value is unknown (unless every switch
        is named) - sending a guess would change switches nobody asked to change - and ValueError for an unknown
        switch name. Bits the table does not define are dropped (the terminal would refuse them)."""
        mask, on = switch_bits(switches)
        async with self._lock(f"switches {device}"):  # two requests of this process must not start from one value
            known = None if mask == SWITCHES_ALL else await self.last_param_value(device, SWITCHES_PID)
            if mask != SWITCHES_ALL and not isinstance(known, int):
                raise UnknownParameter(SWITCHES_PID, device)
            base = known if isinstance(known, int) else None
            value = ((base or 0) & ~mask | on) & SWITCHES_ALL
            payload = {
                "params": {"function_switches": value},
                "switches": {k.lower(): bool(v) for k, v in switches.items()},
                "base": base,
            }
            return await self.create(tenant_id, vehicle_id, device, name, 0x8103, payload, user_id)

    async def wait(self, command_id: int, timeout: float) -> CommandView | None:  # noqa: ASYNC109 - the API's own bound
        """Wait until the command is answered (or timed out/failed) or ``timeout`` seconds pass; return its
        latest state (None if there is no such command)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        event = asyncio.Event()
        self._waiters.setdefault(command_id, set()).add(event)
        try:
            while True:
                event.clear()
                view = await self.get(command_id)
                remaining = deadline - loop.time()
                if view is None or view.done or remaining <= 0:
                    return view
                # The bus wakes us; the re-read every second covers a completion message we did not receive.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(remaining, 1.0)):
                        await event.wait()
        finally:
            waiters = self._waiters.get(command_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[command_id]

    async def _on_done(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            for event in self._waiters.get(int(message["id"]), ()):
                event.set()

    async def _on_created(self, message: dict[str, Any]) -> None:
        device = message.get("device")
        if isinstance(device, str) and device in self._transports:
            self._spawn(self.dispatch(device))

    # ------------------------------------------------------------------ transports

    def attach(self, device: str, transport: Transport) -> None:
        """The terminal is reachable through ``transport`` (replacing any earlier one); its pending commands are
        sent in the background."""
        self._transports[device] = transport
        self._spawn(self.dispatch(device))

    def detach(self, device: str, transport: Transport | None = None) -> None:
        """The terminal is gone (only if ``transport`` is still the registered one, when given). Commands in
        flight keep their timers; a retry finding no transport puts the command back to pending."""
        current = self._transports.get(device)
        if current is not None and (transport is None or current == transport):
            del self._transports[device]

    def attached(self, device: str) -> bool:
        return device in self._transports

    def _lock(self, device: str) -> asyncio.Lock:
        lock = self._locks.get(device)
        if lock is None:
            lock = self._locks[device] = asyncio.Lock()
        return lock

    async def dispatch(self, device: str) -> int:
        """Send the device's pending commands (oldest first) if it is attached; returns how many were sent."""
        sent = 0
        async with self._lock(device):
            if device not in self._transports:
                return 0
            now = utcnow()
            async with self.db.sessionmaker() as s:
                rows = (
                    (
                        await s.execute(
                            select(Command)
                            .where(Command.device_number == device, Command.status == PENDING)
                            .order_by(Command.create_time, Command.id)
                        )
                    )
                    .scalars()
                    .all()
                )
            for row in rows:
                if row.expire_time is not None and row.expire_time <= now:
                    await self._finish(row.id, FAILED, error="expired", from_statuses=(PENDING,))
                    continue
                cmd = OutboundCommand(
                    row.id, device, row.name, row.msg_id, json.loads(row.payload or "{}"), row.attempts + 1
                )
                if await self._send(cmd, claim=True):
                    sent += 1
                if device not in self._transports:
                    break
        return sent

    async def _send(self, cmd: OutboundCommand, *, claim: bool) -> bool:
        """Send one attempt. ``claim``: move the row pending → sent first (skip it if someone else did)."""
        transport = self._transports.get(cmd.device)
        if transport is None:
            await self._requeue(cmd)
            return False
        now = utcnow()
        async with self.db.sessionmaker() as s:
            cond = Command.status == (PENDING if claim else SENT)
            result = await s.execute(
                update(Command)
                .where(Command.id == cmd.id, cond)
                .values(status=SENT, attempts=cmd.attempt, sent_time=now)
            )
            await s.commit()
        if not result.rowcount:  # type: ignore[attr-defined]
            return False
        inflight = self._inflight.get(cmd.id)
        if inflight is None:
            inflight = self._inflight[cmd.id] = _Inflight(cmd, transport)
        inflight.cmd, inflight.transport = cmd, transport
        try:
            serial = await transport(cmd)
        except ValueError as exc:  # cannot be encoded for this terminal (e.g. a 2019-only control on 2013)
            await self._finish(cmd.id, FAILED, error=f"cannot be sent: {exc}"[:255])
            return False
        except (ConnectionError, OSError) as exc:
            log.info("command %s to %s not sent (%s); back to pending", cmd.id, cmd.device, exc)
            self.detach(cmd.device, transport)
            await self._requeue(cmd)
            return False
        if serial is not None:
            async with self.db.sessionmaker() as s:
                await s.execute(update(Command).where(Command.id == cmd.id).values(serial=serial))
                await s.commit()
        if cmd.id not in self._inflight:  # answered already
            return True
        inflight.timer = asyncio.ensure_future(self._expect(cmd.id, cmd.attempt))
        log.debug("command %s sent to %s (attempt %d, serial %s)", cmd.id, cmd.device, cmd.attempt, serial)
        return True

    async def _requeue(self, cmd: OutboundCommand) -> None:
        """Back to pending (kept attempts): sent again when the terminal is attached again."""
        inflight = self._inflight.pop(cmd.id, None)
        if inflight is not None and inflight.timer is not None and inflight.timer is not asyncio.current_task():
            inflight.timer.cancel()
        async with self.db.sessionmaker() as s:
            await s.execute(
                update(Command)
                .where(Command.id == cmd.id, Command.status == SENT)
                .values(status=PENDING, attempts=max(0, cmd.attempt - 1))  # the attempt being made did not happen
            )
            await s.commit()
        if cmd.device in self._transports:
            # The terminal came back while this was being written: its dispatch may have missed the command.
            self._spawn(self.dispatch(cmd.device))

    async def _expect(self, command_id: int, attempt: int) -> None:
        """Timer of one attempt: when it runs out, send again or give up."""
        await asyncio.sleep(self.reply_timeout(attempt))
        inflight = self._inflight.get(command_id)
        if inflight is None or inflight.cmd.attempt != attempt:
            return
        inflight.timer = None
        if attempt >= self.max_attempts:
            await self._finish(command_id, TIMEOUT, error=f"no reply after {attempt} attempts")
            return
        cmd = inflight.cmd
        async with self._lock(cmd.device):  # not concurrently with a dispatch for a terminal coming back
            if self._inflight.get(command_id) is not inflight:
                return  # answered meanwhile
            again = OutboundCommand(cmd.id, cmd.device, cmd.name, cmd.msg_id, cmd.payload, attempt + 1)
            if self._transports.get(cmd.device) == inflight.transport:
                again.serial, again.serials = cmd.serial, cmd.serials  # a retransmission keeps its serial
            log.info("command %s to %s: no reply, attempt %d", cmd.id, cmd.device, attempt + 1)
            await self._send(again, claim=False)

    async def expire_pending(self) -> int:
        """Fail pending commands whose expire time has passed."""
        now = utcnow()
        async with self.db.sessionmaker() as s:
            ids = (
                (
                    await s.execute(
                        select(Command.id).where(
                            Command.status == PENDING, Command.expire_time.is_not(None), Command.expire_time <= now
                        )
                    )
                )
                .scalars()
                .all()
            )
        done = 0
        for command_id in ids:
            if await self._finish(command_id, FAILED, error="expired", from_statuses=(PENDING,)):
                done += 1
        return done

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
            reply_msg_id == 0x8108
            and inflight is not None
            and inflight.cmd.serials
            and result == ReplyResult.SUCCESS
            and reply_serial != inflight.cmd.serials[-1]
        ):
            return command_id  # one sub-package of the upgrade arrived; the reply to the last one decides
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


def params_json(params: Mapping[int, ParamValue]) -> list[dict[str, Any]]:
    """Decoded parameters → JSON: ``[{"id": "0x0001", "name": "heartbeat_interval", "value": 30}, ...]``
    (bytes values as hex)."""
    out = []
    for pid, value in params.items():
        spec = PARAM_SPECS.get(pid)
        out.append(
            {
                "id": f"0x{pid:04x}",
                "name": spec.name if spec else None,
                "value": value.hex() if isinstance(value, bytes) else value,
            }
        )
    return out


# --------------------------------------------------------------------------- settings the platform keeps


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
