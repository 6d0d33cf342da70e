"""The driver's events of MQTT terminals (``docs/mqtt.md``, Events): a card presented or pulled (``driver``), a face
comparison (``face``) and a driver behaviour alarm (``dms``), as the canonical messages the JT/T 808 gateway also
produces (0x0702, pass-through 0xF2 / 0xF3).

Times as in fixes: an ISO 8601 string (an offset honoured, none = UTC) or epoch milliseconds; absent or invalid:
the time the message was received.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from liftdesk.telemetry.messages import Behavior, DriverChange, FaceSeen
from liftdesk.telemetry.pipeline.drivers import DMS_KINDS

FACE_RESULTS = {"matched": 0, "no_match": 1, "no_face": 2}
FACE_TRIGGERS = {"power_on": 0, "periodic": 1, "card": 2, "platform": 3}
#: ``dms.alarm`` names → event kinds (the codes of ``pipeline.drivers.DMS_KINDS`` without their prefix).
DMS_NAMES = {kind.removeprefix("dms_"): kind for kind in DMS_KINDS.values()}


def event_time(raw: Any) -> datetime | None:
    try:
        if isinstance(raw, bool):
            return None
        if isinstance(raw, int | float):
            moment = datetime.fromtimestamp(raw / 1000.0, UTC)
        elif isinstance(raw, str) and raw:
            moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    if not 2000 <= moment.year <= 2099:
        return None
    return moment.astimezone(UTC).replace(tzinfo=None)


def _text(raw: Any, limit: int) -> str | None:
    return raw[:limit] if isinstance(raw, str) and raw else None


def driver_change(data: dict[str, Any]) -> DriverChange:
    """``{"type": "driver", "status": "in" | "out", "card": "<10-digit serial>", "name": ..., "time": ...}``."""
    when = event_time(data.get("time"))
    if data.get("status", "in") == "out":
        return DriverChange(None, inserted=False, time=when)
    return DriverChange(_text(data.get("card"), 32) or "", time=when, name=_text(data.get("name"), 64))


def vision_item(data: dict[str, Any]) -> FaceSeen | Behavior | None:
    """``face``: ``{"result": "matched" | "no_match" | "no_face", "similarity": 0-100, "card": ..., "trigger":
    "power_on" | "periodic" | "card" | "platform", "photo": ..., "time": ...}``; ``dms``: ``{"alarm": "fatigue" |
    "phone" | "smoking" | "distraction" | "no_face" | "camera_blocked" | "face_mismatch", "level": 1 | 2, "photo":
    ..., "time": ...}``. None when not valid."""
    when = event_time(data.get("time"))
    photo = _text(data.get("photo"), 255)
    if data.get("type") == "face":
        result = FACE_RESULTS.get(str(data.get("result")))
        if result is None:
            return None
        raw = data.get("similarity")
        similarity = float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else None
        if similarity is not None and not 0 <= similarity <= 100:
            return None
        trigger = FACE_TRIGGERS.get(str(data.get("trigger") or "periodic"), 1)
        return FaceSeen(when, result, similarity, _text(data.get("card"), 10), trigger, photo)
    kind = DMS_NAMES.get(str(data.get("alarm")))
    level = data.get("level", 1)
    if kind is None or level not in (1, 2) or isinstance(level, bool):
        return None
    return Behavior(when, kind, int(level), photo)
