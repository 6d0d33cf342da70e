"""The JSON form of a fix, shared by the MQTT adapter and the HTTP ingest API (contract: ``docs/mqtt.md``).

Field names are camelCase and mirror :class:`liftdesk.telemetry.messages.Fix`. ``time`` is an ISO 8601 date-time
(an offset is honoured, none means UTC) or epoch milliseconds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from liftdesk.telemetry.gateway.mapping import naive_utc
from liftdesk.telemetry.messages import FAULTS_ALL, STATUS_ACC, STATUS_FIX, Battery, ChargeState, Fix

_EARLIEST = datetime(2000, 1, 1)
_LATEST = datetime(2100, 1, 1)


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)


class BatteryIn(_In):
    soc_pct: Annotated[float, Field(alias="socPct", ge=0, le=100)]
    voltage_v: Annotated[float, Field(alias="voltageV", ge=0, le=2000)]
    current_a: Annotated[float, Field(alias="currentA", ge=-10_000, le=10_000)] = 0.0
    charge_state: Annotated[Literal["idle", "charging", "discharging"], Field(alias="chargeState")] = "idle"
    temperatures_c: Annotated[list[float], Field(alias="temperaturesC", max_length=255)] = []
    cell_voltages_mv: Annotated[
        list[Annotated[int, Field(ge=0, le=65535)]], Field(alias="cellVoltagesMv", max_length=255)
    ] = []
    liquid_low: Annotated[bool, Field(alias="liquidLow")] = False

    def to_battery(self) -> Battery:
        return Battery(
            soc_pct=self.soc_pct,
            voltage_v=self.voltage_v,
            current_a=self.current_a,
            charge_state=ChargeState(self.charge_state),
            temperatures_c=tuple(self.temperatures_c),
            cell_voltages_mv=tuple(self.cell_voltages_mv),
            liquid_low=self.liquid_low,
        )


class FixIn(_In):
    """One sample. Only ``time``, ``lat`` and ``lon`` are required."""

    time: int | float | datetime
    lat: Annotated[float, Field(ge=-90, le=90)]
    lon: Annotated[float, Field(ge=-180, le=180)]
    speed: Annotated[float, Field(ge=0, le=1000)] = 0.0
    direction: Annotated[int, Field(ge=0, le=359)] = 0
    altitude: Annotated[int, Field(ge=-10_000, le=100_000)] = 0
    alarm: Annotated[int, Field(ge=0, le=0xFFFFFFFF)] = 0
    status: Annotated[int, Field(ge=0, le=0xFFFFFFFF)] = STATUS_ACC | STATUS_FIX
    mileage_km: Annotated[float | None, Field(alias="mileageKm", ge=0)] = None
    load_kg: Annotated[float | None, Field(alias="loadKg", ge=0)] = None
    impact_g: Annotated[float | None, Field(alias="impactG", ge=0)] = None
    impact_direction: Annotated[int | None, Field(alias="impactDirection", ge=0, le=359)] = None
    seat_belt: Annotated[bool | None, Field(alias="seatBelt")] = None
    fork_height_mm: Annotated[int | None, Field(alias="forkHeightMm", ge=0, le=65_535)] = None
    lifting: bool | None = None
    lock_level: Annotated[int | None, Field(alias="lockLevel", ge=0, le=2)] = None
    speed_limit_kmh: Annotated[float | None, Field(alias="speedLimitKmh", ge=0)] = None
    battery: BatteryIn | None = None
    fault_codes: Annotated[list[Annotated[str, Field(max_length=32)]], Field(alias="faultCodes", max_length=64)] = []

    @field_validator("time")
    @classmethod
    def _time(cls, value: int | float | datetime) -> datetime:
        if isinstance(value, datetime):
            moment = naive_utc(value)
        else:
            try:
                moment = datetime.fromtimestamp(value / 1000, UTC).replace(tzinfo=None)
            except (OverflowError, OSError, ValueError):
                raise ValueError("epoch milliseconds out of range") from None
        if not _EARLIEST <= moment < _LATEST:
            raise ValueError("must be between 2000 and 2099")
        return moment

    def to_fix(self) -> Fix:
        assert isinstance(self.time, datetime)  # the validator made it one
        return Fix(
            time=self.time,
            lat=self.lat,
            lon=self.lon,
            speed_kmh=self.speed,
            direction=self.direction,
            altitude_m=self.altitude,
            alarm=self.alarm,
            status=self.status,
            mileage_km=self.mileage_km,
            load_kg=self.load_kg,
            impact_g=self.impact_g,
            impact_direction=self.impact_direction,
            seat_belt=self.seat_belt,
            fork_height_mm=self.fork_height_mm,
            lifting=self.lifting,
            lock_level=self.lock_level,
            speed_limit_kmh=self.speed_limit_kmh,
            battery=self.battery.to_battery() if self.battery is not None else None,
            fault_codes=tuple(self.fault_codes),
            # a payload that names faultCodes (even empty) reports every list; one without it says nothing
            fault_families=FAULTS_ALL if "fault_codes" in self.model_fields_set else 0,
        )


class FixBatch(_In):
    """``{"fixes": [...], "backfill": false}`` — the envelope form of a telemetry message."""

    fixes: Annotated[list[FixIn], Field(min_length=1, max_length=5000)]
    backfill: bool = False


class TelemetryIn(_In):
    """A telemetry message: one fix, a list of fixes, or ``{"fixes": [...], "backfill": bool}``."""

    fixes: list[FixIn]
    backfill: bool = False

    @classmethod
    def parse(cls, data: Any) -> TelemetryIn:
        """Raises pydantic.ValidationError (a ValueError) for anything else."""
        if isinstance(data, list):
            batch = FixBatch.model_validate({"fixes": data})
        elif isinstance(data, dict) and "fixes" in data:
            batch = FixBatch.model_validate(data)
        else:
            batch = FixBatch.model_validate({"fixes": [data]})
        return cls(fixes=batch.fixes, backfill=batch.backfill)

    def to_fixes(self) -> tuple[Fix, ...]:
        return tuple(f.to_fix() for f in self.fixes)


def fix_json(fix: Fix) -> dict[str, Any]:
    """Fix → the JSON form above (for tests, simulators and replies)."""
    out: dict[str, Any] = {
        "time": fix.time.replace(tzinfo=UTC).isoformat(),
        "lat": fix.lat,
        "lon": fix.lon,
        "speed": fix.speed_kmh,
        "direction": fix.direction,
        "altitude": fix.altitude_m,
        "alarm": fix.alarm,
        "status": fix.status,
    }
    optional = {
        "mileageKm": fix.mileage_km,
        "loadKg": fix.load_kg,
        "impactG": fix.impact_g,
        "impactDirection": fix.impact_direction,
        "seatBelt": fix.seat_belt,
        "forkHeightMm": fix.fork_height_mm,
        "lifting": fix.lifting,
        "lockLevel": fix.lock_level,
        "speedLimitKmh": fix.speed_limit_kmh,
    }
    out.update({k: v for k, v in optional.items() if v is not None})
    if fix.battery is not None:
        b = fix.battery
        out["battery"] = {
            "socPct": b.soc_pct,
            "voltageV": b.voltage_v,
            "currentA": b.current_a,
            "chargeState": str(b.charge_state),
            "temperaturesC": list(b.temperatures_c),
            "cellVoltagesMv": list(b.cell_voltages_mv),
            "liquidLow": b.liquid_low,
        }
    if fix.fault_codes or fix.fault_families:
        out["faultCodes"] = list(fix.fault_codes)
    return out
