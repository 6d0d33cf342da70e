"""The shapes of what the live feed carries, one per message type, built here and nowhere else.

======================  ==================================================  ====================================
bus topic               browser message ``type``                             shape (``data``)
======================  ==================================================  ====================================
``live.vehicle``        ``snapshot`` (on connect), ``vehicles``              list of :func:`live_message`
``live.online``         ``online``                                           list of :func:`online_message`
``live.event``          ``event``                                            list of :func:`event_message`
(the hub)               ``eventSummary``                                     :func:`event_summary`
======================  ==================================================  ====================================

Every bus message carries ``tenantId`` and ``vehicleId``: the hub forwards it only to browsers of that tenant whose
data scope holds the vehicle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

LIVE_TOPIC = "live.vehicle"  # a vehicle's new live state (the pipeline, after each committed batch)
EVENT_TOPIC = "live.event"  # a new alarm event (the pipeline after its commit, the offline job)
ONLINE_TOPIC = "live.online"  # a vehicle's terminal went online or offline (TerminalService.set_online, the job)


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
    clock_fault_time: datetime | None = None,
) -> dict[str, Any]:
    """A vehicle's live state. ``lat``/``lon`` are its last *valid* position (a fix without GNSS keeps them).

    ``clockFault``: the state shown comes from a report dated beyond plausibility (the terminal's clock is wrong:
    before the tenant's retention, or more than ``pipeline.CLOCK_AHEAD`` ahead of the server). Its position and
    values are the vehicle's latest ones, ``time`` is then the server time it arrived at and ``clockFaultTime``
    the time the terminal's clock gave it (null without a fault); a ``terminal_clock`` alarm is open meanwhile."""
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
        "clockFault": clock_fault_time is not None,
        "clockFaultTime": iso_utc(clock_fault_time),
    }


def event_message(event: Mapping[str, Any]) -> dict[str, Any]:
    """A new alarm event, from the row the pipeline or the offline job inserts (``fics_event`` column names).
    ``time`` is when it began (device time); instant events (collision, fault, fence crossing) end at once."""
    mechanism_id = event.get("mechanism_id")
    return {
        "id": str(event["id"]),
        "vehicleId": str(event["vehicle_id"]),
        "tenantId": event["tenant_id"],
        "mechanismId": str(mechanism_id) if mechanism_id else None,
        "kind": event["kind"],
        "level": event.get("level", 1),
        "time": iso_utc(event["begin_time"]),
        "value": event.get("value"),
        "limit": event.get("limit_value"),
        "lat": event.get("lat"),
        "lon": event.get("lon"),
    }


def online_message(
    *, vehicle_id: int, tenant_id: str, mechanism_id: int | None, online: bool, time: datetime | None
) -> dict[str, Any]:
    """A vehicle's terminal went online or offline at ``time`` (server time)."""
    return {
        "vehicleId": str(vehicle_id),
        "tenantId": tenant_id,
        "mechanismId": str(mechanism_id) if mechanism_id else None,
        "online": online,
        "time": iso_utc(time),
    }


def event_summary(dropped: Mapping[str, int]) -> dict[str, Any]:
    """The events a browser did not get one by one in a flush interval (beyond the hub's per-connection bound):
    how many, by kind. The browser reloads the alarm list when it wants them."""
    return {"dropped": sum(dropped.values()), "kinds": dict(sorted(dropped.items()))}
