"""What a vehicle's live state shows: :func:`live_view` (the message published on ``LIVE_TOPIC`` after each
write), the latest frame of each CAN id and the decoded CAN history (:func:`remember_can`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from liftdesk.telemetry.can import decode_all
from liftdesk.telemetry.messages import Report
from liftdesk.telemetry.pipeline.context import Batch, VehicleCtx
from liftdesk.telemetry.view import LiveVehicle, alarm_kinds


def remember_can(v: VehicleCtx, report: Report, batch: Batch) -> None:
    """The latest frame of each CAN id (what a CAN data page shows), and the J1939 parameters the frames carried
    (``telemetry.can``) as a sample of the CAN history (``fics_can_sample``, dated when they arrived)."""
    when = report.received_at.isoformat() + "Z"
    for frame in report.can:
        key = f"{frame.can_id:08X}"
        v.can[key] = {"data": frame.data.hex().upper(), "channel": frame.channel, "time": when}
    values = decode_all(report.can)
    if values:
        batch.can.setdefault((v.tenant_id, v.vehicle_id, report.received_at), {}).update(values)


def live_view(v: VehicleCtx, now: datetime) -> dict[str, Any]:
    """The vehicle's live state: its last fix, or while its terminal's clock is wrong the latest report of the
    fault (dated by the server time it arrived at, ``clockFault`` set)."""
    fault = v.clock
    fix = fault.fix if fault is not None else v.last
    where = fault.where if fault is not None else v.located
    when = fault.received if fault is not None else fix.time if fix else None
    return LiveVehicle(
        car_id=v.vehicle_id,
        tenant_id=v.tenant_id,
        car_no=v.car_no,
        device_number=v.device,
        mechanism_id=v.mechanism_id,
        car_type=v.car_type,
        online=True,  # a report just came from its terminal
        acc=fix.acc if fix else False,
        state=v.state,
        lat=where.lat if where else None,
        lon=where.lon if where else None,
        speed=fix.speed_kmh if fix else 0.0,
        direction=fix.direction if fix else 0,
        gps_time=when,
        last_seen=now,
        mileage=v.mileage_km,
        load_kg=fix.load_kg if fix else None,
        soc=fix.battery.soc_pct if fix and fix.battery else None,
        lock_level=fix.lock_level if fix else None,
        alarms=alarm_kinds(v.open),
        driver_name=v.driver_name,
        driver_id=v.driver_id,
        clock_fault=fault is not None,
        clock_fault_time=fault.fix.time if fault is not None else None,
        can=dict(v.can),
    ).message()
