"""The one canonical message every adapter (JT/T 808 gateway, MQTT, HTTP ingest) turns terminal data into.

Times are naive UTC. Units are fixed: km/h, km, kg, g, degrees, volts, amperes, °C, millivolts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

STATUS_ACC = 1 << 0
STATUS_FIX = 1 << 1
ALARM_COLLISION = 1 << 29


class ChargeState(StrEnum):
    IDLE = "idle"
    CHARGING = "charging"
    DISCHARGING = "discharging"


@dataclass(frozen=True, slots=True)
class Battery:
    soc_pct: float
    voltage_v: float
    current_a: float = 0.0
    charge_state: ChargeState = ChargeState.IDLE
    temperatures_c: tuple[float, ...] = ()
    cell_voltages_mv: tuple[int, ...] = ()
    liquid_low: bool = False

    @property
    def max_temperature_c(self) -> float | None:
        return max(self.temperatures_c) if self.temperatures_c else None


#: ``Fix.fault_families``: the controller's fault list, the battery's BMS flags (codes ``BMS-*``), both.
FAULTS_VEHICLE, FAULTS_BMS = 1, 2
FAULTS_ALL = FAULTS_VEHICLE | FAULTS_BMS
BMS_PREFIX = "BMS-"


def fault_family(code: str) -> int:
    """The list a fault code comes in: the battery's (``BMS-*``) or the controller's."""
    return FAULTS_BMS if code.startswith(BMS_PREFIX) else FAULTS_VEHICLE


@dataclass(frozen=True, slots=True)
class Fix:
    """One sample of a vehicle: where it was and what it was doing at ``time``."""

    time: datetime
    lat: float
    lon: float
    speed_kmh: float = 0.0
    direction: int = 0
    altitude_m: int = 0
    alarm: int = 0
    status: int = STATUS_ACC | STATUS_FIX
    mileage_km: float | None = None
    load_kg: float | None = None
    impact_g: float | None = None
    impact_direction: int | None = None
    seat_belt: bool | None = None
    fork_height_mm: int | None = None
    lifting: bool | None = None  #: the hydraulics are working (forks lifting or lowering): counts as lift time
    lock_level: int | None = None
    speed_limit_kmh: float | None = None
    battery: Battery | None = None
    fault_codes: tuple[str, ...] = ()
    #: Which lists of fault codes the report carried (``FAULTS_VEHICLE``: the controller's, item 0xE7 or MQTT
    #: ``faultCodes``; ``FAULTS_BMS``: the battery's flags): only a family reported without a code ends that code's
    #: fault episode. A report that leaves a list out (a heartbeat position, an event frame) says nothing about it.
    fault_families: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def acc(self) -> bool:
        return bool(self.status & STATUS_ACC)

    @property
    def valid(self) -> bool:
        return bool(self.status & STATUS_FIX)


@dataclass(frozen=True, slots=True)
class CanFrame:
    """One CAN bus frame a terminal passed on (JT/T 808 0x0705): the 29-bit id, its channel, the 8 data bytes."""

    can_id: int
    data: bytes
    channel: int = 0
    extended: bool = True


@dataclass(frozen=True, slots=True)
class DriverChange:
    """A driver identity report (JT/T 808 0x0702, MQTT ``driver``): a card presented (``card``: its serial, what the
    reader reports; the platform checks it, ``pipeline.drivers``) or pulled (``inserted`` False: nobody on duty).
    ``time``: the report's time (naive UTC; None: when it was received); ``name``: what the card itself says (kept
    for the record: the platform names the driver from its own records)."""

    card: str | None
    inserted: bool = True
    time: datetime | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class FaceSeen:
    """A face comparison a terminal made (0x0900 type 0xF2, MQTT ``face``): ``result`` 0 matched (``card``: the card
    serial of the driver matched), 1 no match, 2 no face; ``similarity`` percent; ``trigger`` 0 power-on,
    1 periodic, 2 card inserted, 3 platform request; ``photo`` the terminal's reference of the picture."""

    time: datetime | None
    result: int
    similarity: float | None = None
    card: str | None = None
    trigger: int = 1
    photo: str | None = None


@dataclass(frozen=True, slots=True)
class Behavior:
    """A driver behaviour alarm of the DMS camera (0x0900 type 0xF3, MQTT ``dms``): ``kind`` an event kind of
    ``pipeline.drivers.DMS_KINDS`` (``dms_fatigue`` ...), ``level`` 1-2."""

    time: datetime | None
    kind: str
    level: int = 1
    photo: str | None = None


@dataclass(frozen=True, slots=True)
class Report:
    """What one terminal sent in one message: one fix, or a batch (0x0704, possibly blind-zone backfill); or a
    driver change, CAN frames or what the driver camera saw, which go through the pipeline's queue so that they take
    their place among the positions."""

    device: str
    fixes: tuple[Fix, ...]
    received_at: datetime
    backfill: bool = False
    source: str = "jt808"
    driver: DriverChange | None = None
    can: tuple[CanFrame, ...] = ()  # CAN frames (dated ``received_at``): the latest value per id is kept
    vision: tuple[FaceSeen | Behavior, ...] = ()  # what the driver camera saw (face log, behaviour alarms)


class UnknownDevice(Exception):
    """Raised by ``Pipeline.submit`` when a report's terminal is bound to no vehicle (deleted meanwhile, or never
    bound): its data was not stored, so it must not be acknowledged as stored."""

    def __init__(self, devices: frozenset[str]) -> None:
        super().__init__(f"no vehicle for terminal(s) {', '.join(sorted(devices))}: not stored")
        self.devices = devices
