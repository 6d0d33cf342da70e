"""The one shape of a vehicle's live state on the live feed: the snapshot a browser gets when it connects and
every update the pipeline pushes afterwards carry the same keys, built here."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any


def alarm_kinds(open_keys: Iterable[str]) -> list[str]:
    """The kinds of a vehicle's open alarms. Fence alarms are kept per fence (``fence_in:<fenceId>``); a reader
    wants the kind once (``fence_in``)."""
    return sorted({key.split(":", 1)[0] for key in open_keys})


def iso_utc(when: datetime | None) -> str | None:
    """A naive UTC time as ISO 8601 with ``Z``."""
    return when.isoformat() + "Z" if when is not None else None


def live_message(
    *,
    vehicle_id: int,
    tenant_id: str,
    car_no: str | None,
    mechanism_id: int | None,
    device: str | None,
    time: datetime | None,
    lat: float | None,
    lon: float | None,
    speed: float,
    direction: int,
    state: str,
    acc: bool,
    load_kg: float | None,
    soc: float | None,
    open_keys: Iterable[str],
    online: bool,
) -> dict[str, Any]:
    return {
        "vehicleId": str(vehicle_id),
        "tenantId": tenant_id,
        "carNo": car_no,
        "mechanismId": str(mechanism_id) if mechanism_id else None,
        "deviceNumber": device,
        "time": iso_utc(time),
        "lat": lat,
        "lon": lon,
        "speed": speed,
        "direction": direction,
        "state": state,
        "acc": acc,
        "loadKg": load_kg,
        "soc": soc,
        "alarms": alarm_kinds(open_keys),
        "online": online,
    }
