"""The shapes of what the live feed carries, one per message type, built here and nowhere else.

======================  ==================================================  ====================================
bus topic               browser message ``type``                             shape (``data``)
======================  ==================================================  ====================================
``live.vehicle``        ``snapshot`` (on connect), ``vehicles``              list of :class:`LiveVehicle`
``live.online``         ``online``                                           list of :class:`LiveOnline`
``live.event``          ``event``                                            list of :class:`LiveEvent`
(the hub)               ``eventSummary``                                     :class:`EventSummary`
======================  ==================================================  ====================================

A vehicle's live state has one shape wherever it is read: the REST calls (``getCarLastGPSInfo``,
``carRealTimeInfo``), the snapshot and the updates all serialise :class:`LiveVehicle`. Every bus message carries
``tenantId`` and ``carId``: the hub forwards it only to browsers of that tenant whose data scope holds the vehicle.
The schemas are published in the OpenAPI document (components, and ``x-liftdesk-live`` by message type).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field

from liftdesk.core.schemas import Id, Schema, Time
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.models import VehicleState

LIVE_TOPIC = "live.vehicle"  # a vehicle's new live state (the pipeline, after each committed batch)
EVENT_TOPIC = "live.event"  # a new alarm event (the pipeline after its commit, the offline job)
ONLINE_TOPIC = "live.online"  # a vehicle's terminal went online or offline (TerminalService.set_online, the job)


def alarm_kinds(open_keys: Iterable[str]) -> list[str]:
    """The kinds of a vehicle's open alarms. Fence alarms are kept per fence (``fence_in:<fenceId>``); a reader
    wants the kind once (``fence_in``)."""
    return sorted({key.split(":", 1)[0] for key in open_keys})


class Message(Schema):
    """A message of the feed: every field is always sent (defaults included), so the schema says so."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class LiveVehicle(Message):
    """A vehicle's live state: the one shape of ``getCarLastGPSInfo``, ``carRealTimeInfo``, the live feed's
    snapshot and its updates. ``lat``/``lon`` are its last *valid* position (a fix without GNSS keeps them); times
    are in the tenant's zone like every other answer.

    ``clockFault``: the state shown comes from a report dated beyond plausibility (the terminal's clock is wrong:
    before the tenant's retention, or more than ``pipeline.CLOCK_AHEAD`` ahead of the server). Its position and
    values are the vehicle's latest ones, ``gpsTime`` is then the server time it arrived at and ``clockFaultTime``
    the time the terminal's clock gave it (null without a fault); a ``terminal_clock`` alarm is open meanwhile."""

    car_id: Id
    tenant_id: str
    car_no: str | None = None
    device_number: str | None = None
    mechanism_id: Id | None = None
    car_type: int | None = None
    online: bool = False
    acc: bool = False
    #: off | idle | moving | loaded
    state: str = "off"
    lat: float | None = None
    lon: float | None = None
    speed: float = 0.0
    direction: int = 0
    gps_time: Time | None = None
    last_seen: Time | None = None
    mileage: float | None = None
    load_kg: float | None = None
    soc: float | None = None
    lock_level: int | None = None
    #: kinds of the alarms in progress (collision, speeding, overload, fence_in, battery_low_voltage ...)
    alarms: list[str] = Field(default_factory=list)
    #: the driver whose card the platform accepted (their name from the platform's records); null: nobody on duty
    driver_name: str | None = None
    driver_id: Id | None = None
    clock_fault: bool = False
    clock_fault_time: Time | None = None
    #: the latest frame of each CAN id the terminal passed on: id (hex) → {data (hex), channel, time}
    can: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def message(self) -> dict[str, Any]:
        """As the feed sends it (JSON types, camelCase)."""
        return self.model_dump(mode="json")


def live_state(car: Vehicle, st: VehicleState | None) -> LiveVehicle:
    """A registered vehicle's live state from its stored state row (none yet: offline, nowhere)."""
    base = LiveVehicle(
        car_id=car.id,
        tenant_id=car.tenant_id,
        car_no=car.car_no,
        device_number=car.device_number,
        mechanism_id=car.mechanism_id,
        car_type=car.car_type,
    )
    if st is None:
        return base
    return base.model_copy(
        update={
            "online": st.online,
            "acc": st.acc,
            "state": st.state,
            "lat": st.lat,
            "lon": st.lon,
            "speed": st.speed,
            "direction": st.direction,
            "gps_time": st.device_time,
            "last_seen": st.last_seen,
            "mileage": st.mileage_km,
            "load_kg": st.load_kg,
            "soc": st.soc_pct,
            "lock_level": st.lock_level,
            "alarms": alarm_kinds(json.loads(st.open_events or "{}")),
            "driver_name": st.driver_name,
            "driver_id": st.driver_id,
            "clock_fault": st.clock_fault_time is not None,
            "clock_fault_time": st.clock_fault_time,
            "can": json.loads(st.extra or "{}").get("can", {}),
        }
    )


class LiveEvent(Message):
    """A new alarm event (the feed's ``event`` messages). ``time`` is when it began (device time); instant events
    (collision, fault, fence crossing) end at once."""

    id: Id
    car_id: Id
    tenant_id: str
    mechanism_id: Id | None = None
    kind: str
    level: int = 1
    time: Time | None = None
    value: float | None = None
    limit: float | None = None
    lat: float | None = None
    lon: float | None = None


def event_message(event: Mapping[str, Any]) -> dict[str, Any]:
    """A new alarm event, from the row the pipeline or the offline job inserts (``fics_event`` column names)."""
    return LiveEvent(
        id=event["id"],
        car_id=event["vehicle_id"],
        tenant_id=event["tenant_id"],
        mechanism_id=event.get("mechanism_id") or None,
        kind=event["kind"],
        level=event.get("level", 1),
        time=event["begin_time"],
        value=event.get("value"),
        limit=event.get("limit_value"),
        lat=event.get("lat"),
        lon=event.get("lon"),
    ).model_dump(mode="json")


class LiveOnline(Message):
    """A vehicle's terminal went online or offline at ``time`` (server time): the feed's ``online`` messages."""

    car_id: Id
    tenant_id: str
    mechanism_id: Id | None = None
    online: bool
    time: Time | None = None


def online_message(
    *, vehicle_id: int, tenant_id: str, mechanism_id: int | None, online: bool, time: datetime | None
) -> dict[str, Any]:
    return LiveOnline(
        car_id=vehicle_id, tenant_id=tenant_id, mechanism_id=mechanism_id or None, online=online, time=time
    ).model_dump(mode="json")


class EventSummary(Message):
    """The events a browser did not get one by one in a flush interval (beyond the hub's per-connection bound):
    how many, by kind. The browser reloads the alarm list when it wants them."""

    dropped: int
    kinds: dict[str, int]


def event_summary(dropped: Mapping[str, int]) -> dict[str, Any]:
    return EventSummary(dropped=sum(dropped.values()), kinds=dict(sorted(dropped.items()))).model_dump(mode="json")


#: The messages of the live feed, by ``type``: published in the OpenAPI document (``x-liftdesk-live``) with the
#: schemas above as components.
FEED_MESSAGES: dict[str, tuple[type[Schema], bool]] = {  # type → (schema of data, a list of them)
    "snapshot": (LiveVehicle, True),
    "vehicles": (LiveVehicle, True),
    "online": (LiveOnline, True),
    "event": (LiveEvent, True),
    "eventSummary": (EventSummary, False),
}
