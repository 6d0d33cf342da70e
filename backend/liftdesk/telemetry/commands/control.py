"""Builders of the terminal and vehicle commands: terminal control (0x8105, with the parameters of an upgrade
from a URL), vehicle control (0x8500), text (0x8300), upgrade package (0x8108) and alarm confirmation
(0x8203).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from liftdesk.telemetry.codecs.jt808 import (
    CONFIRMABLE_ALARMS,
    AlarmConfirmation,
    AlarmFlag,
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
from liftdesk.telemetry.commands.fields import _enum_int, _get, _int


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
