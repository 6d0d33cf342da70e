"""Who drives: the identity check of every driver identity report, and what the driver camera saw.

The ordered place of these steps: a report's driver change and camera items are applied where the report arrived
among the positions (:meth:`Pipeline.stage` runs the fixes before them first), so a position carries the driver on
duty when it was taken; power-off (``stages.driver_off``) ends the duty like a card-out.

**The identity check** (:func:`identity`), for a card presented (0x0702 card inserted, MQTT ``driver``): its serial
→ the card of the vehicle's tenant (``cards.card_holders``) → its driver. Refused, with the reason:

=====================  ==========================================================================================
``unknown_card``        no card with this serial in the tenant (or not a 10-digit serial), or a card bound to no
                        driver (or to a removed one)
``not_authorized``      the driver is not authorized on this vehicle
``blacklisted``         the driver is blacklisted
``licence_expired``     the licence's last valid day (local) is before the report's day (its own time, else the
                        time it was received)
=====================  ==========================================================================================

A refusal raises a ``card_refused`` event (instant, counted in the day's ``other_n``: the alarm center's other
alarms, the live feed, an in-site message of type 其他报警), naming the card's driver when it has one, and nobody is
on duty. An accepted card puts its driver (id, name from the platform's records, card) on the vehicle's state, the
live feed and the positions after it, until a card-out or power-off.

**The driver camera** (:func:`vision`): a face comparison becomes a row of the face log (``fics_face_record``), its
matched card resolved to the tenant's driver; a behaviour alarm becomes an instant event of one of
:data:`DMS_KINDS`, naming the driver on duty.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from liftdesk.core.ids import next_id
from liftdesk.telemetry.cards import CardHolder, is_serial
from liftdesk.telemetry.messages import Behavior, DriverChange, FaceSeen, Fix
from liftdesk.telemetry.pipeline.context import Batch, VehicleCtx

CARD_REFUSED = "card_refused"
REASONS = ("unknown_card", "not_authorized", "blacklisted", "licence_expired")
#: Behaviour alarm codes (``codecs/jt808/drivers.DmsAlarm``) → event kinds.
DMS_KINDS: dict[int, str] = {
    1: "dms_fatigue",
    2: "dms_phone",
    3: "dms_smoking",
    4: "dms_distraction",
    5: "dms_no_face",
    6: "dms_camera_blocked",
    17: "dms_face_mismatch",
}


def _day(moment: datetime, b: Batch) -> date:
    return (moment + b.offset).date()


def refusal(holder: CardHolder | None, vehicle_id: int, when: datetime, b: Batch) -> str | None:
    """Why a card is refused on ``vehicle_id`` at ``when`` (None: accepted)."""
    if holder is None or holder.driver_id is None:
        return "unknown_card"
    if holder.blacklisted:
        return "blacklisted"
    if vehicle_id not in holder.vehicles:
        return "not_authorized"
    if holder.valid_until is not None and _day(when, b) > _day(holder.valid_until, b):
        return "licence_expired"
    return None


def _nowhere(when: datetime) -> Fix:
    """A fix that only dates an event: invalid (no GNSS), so the event is placed where the vehicle is."""
    return Fix(time=when, lat=0.0, lon=0.0, status=0)


def identity(
    change: DriverChange, received: datetime, v: VehicleCtx, b: Batch, holder: CardHolder | None
) -> str | None:
    """Apply one identity report to the vehicle's context; the refusal's reason, if refused."""
    v.driver_id = v.driver_name = v.driver_card = None  # a card pulled, or another presented: the last one is out
    if not change.inserted:
        return None
    when = change.time or received
    serial = (change.card or "").strip()
    reason = refusal(holder, v.vehicle_id, when, b)
    if reason is None:
        assert holder is not None
        v.driver_id, v.driver_name, v.driver_card = holder.driver_id, (holder.name or "")[:64] or None, serial
        return None
    detail: dict[str, Any] = {"reason": reason, "card": serial[:32] if serial else None}
    driver: tuple[int | None, str | None] = (None, None)
    if holder is not None and holder.driver_id is not None:
        driver = (holder.driver_id, (holder.name or "")[:64] or None)
        detail["driverId"] = str(holder.driver_id)
    b.open_alarm(v, CARD_REFUSED, _nowhere(when), 0.0, None, instant=True, detail=detail, driver=driver)
    return reason


def card_key(v: VehicleCtx, card: str | None) -> tuple[str, str] | None:
    serial = (card or "").strip()
    return (v.tenant_id, serial) if is_serial(serial) else None


def vision(item: FaceSeen | Behavior, received: datetime, v: VehicleCtx, b: Batch, holder: CardHolder | None) -> None:
    """A face comparison → the face log; a behaviour alarm → an event."""
    when = item.time or received
    if isinstance(item, Behavior):
        detail = {"photo": item.photo} if item.photo else None
        b.open_alarm(v, item.kind, _nowhere(when), float(item.level), None, level=item.level, instant=True,
                     detail=detail)  # fmt: skip
        return
    driver_id = holder.driver_id if holder is not None and item.result == 0 else None
    b.faces.append(
        {
            "id": next_id(),
            "tenant_id": v.tenant_id,
            "vehicle_id": v.vehicle_id,
            "mechanism_id": v.mechanism_id,
            "create_dept": v.mechanism_id,
            "device_number": v.device,
            "driver_id": driver_id,
            "card_serial": (item.card or "")[:10] or None,
            "result": item.result,
            "similarity": item.similarity,
            "trigger": item.trigger,
            "photo": (item.photo or "")[:255] or None,
            "device_time": when,
            "create_time": b.now,
        }
    )
