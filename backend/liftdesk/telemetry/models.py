"""Telemetry storage: terminals, positions, latest state per vehicle, events, daily aggregates, commands.

On PostgreSQL ``fics_position`` and ``fics_event`` are partitioned by tenant, then by month (see the migrations and
``store.PartitionKeeper``), so a tenant's retention drops whole partitions; the position's primary key (tenant,
vehicle, device time) is what makes a re-sent position land exactly once.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, Date, Float, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from liftdesk.core.db import Base, IdMixin, TenantMixin, utcnow


class Terminal(IdMixin, TenantMixin, Base):
    """A terminal as the gateway knows it: one per device number (the number in the protocol header)."""

    __tablename__ = "fics_terminal"
    device_number: Mapped[str] = mapped_column(String(20), unique=True)
    vehicle_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    protocol: Mapped[str] = mapped_column(String(16), default="jt808")
    protocol_version: Mapped[str | None] = mapped_column(String(16))
    sim_number: Mapped[str | None] = mapped_column(String(32))
    maker: Mapped[str | None] = mapped_column(String(32))
    model: Mapped[str | None] = mapped_column(String(64))
    terminal_id: Mapped[str | None] = mapped_column(String(64))
    iccid: Mapped[str | None] = mapped_column(String(32))
    imei: Mapped[str | None] = mapped_column(String(32))  # 2019 authentication (0x0102)
    hardware_version: Mapped[str | None] = mapped_column(String(64))
    firmware_version: Mapped[str | None] = mapped_column(String(64))
    auth_code: Mapped[str | None] = mapped_column(String(64))
    online: Mapped[bool] = mapped_column(default=False)
    last_seen: Mapped[datetime | None]
    registered_at: Mapped[datetime | None]
    #: The gateway process holding the terminal's session (``Gateway.instance``, host:pid), set when it comes
    #: online: with several gateway processes on one port, a process whose old session of the terminal ends after
    #: the terminal came online on another one leaves it online (migration 0028).
    gateway: Mapped[str | None] = mapped_column(String(64))


class Position(Base):
    __tablename__ = "fics_position"
    tenant_id: Mapped[str] = mapped_column(String(12), primary_key=True)
    vehicle_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    device_time: Mapped[datetime] = mapped_column(primary_key=True)
    server_time: Mapped[datetime] = mapped_column(default=utcnow)
    lat: Mapped[float] = mapped_column(Float)
    lon: Mapped[float] = mapped_column(Float)
    speed: Mapped[float] = mapped_column(Float, default=0.0)
    direction: Mapped[int] = mapped_column(default=0)
    altitude: Mapped[int] = mapped_column(default=0)
    alarm: Mapped[int] = mapped_column(BigInteger, default=0)
    status: Mapped[int] = mapped_column(BigInteger, default=0)
    mileage_km: Mapped[float | None] = mapped_column(Float)
    load_kg: Mapped[float | None] = mapped_column(Float)
    extra: Mapped[str | None] = mapped_column(Text)
    #: The driver on duty when the position was taken: the card of the last identity report the platform accepted
    #: (``pipeline.drivers``), until a card-out or a power-off; null when nobody's card was accepted (migration 0019).
    driver_id: Mapped[int | None] = mapped_column(BigInteger)


class VehicleState(TenantMixin, Base):
    """The latest known state of a vehicle, kept current by the pipeline.

    ``online`` and ``last_seen`` follow the terminal's connection (``TerminalService.set_online``, ``touch``), not
    the dates of its reports. While the terminal's clock is wrong (``clock_fault_time`` set: its latest report was
    dated before the tenant's retention or more than ``pipeline.CLOCK_AHEAD`` ahead of the server) the columns show
    that report as it came (``device_time``: the server time it arrived at), and ``extra["plain"]`` keeps the last
    plausible fix the history goes on from."""

    __tablename__ = "fics_car_state"
    vehicle_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    #: Indexed: online marks, last-seen touches and driver changes find the state rows by device number.
    device_number: Mapped[str | None] = mapped_column(String(20), index=True)
    device_time: Mapped[datetime | None]
    server_time: Mapped[datetime | None]
    lat: Mapped[float | None] = mapped_column(Float)
    lon: Mapped[float | None] = mapped_column(Float)
    speed: Mapped[float] = mapped_column(Float, default=0.0)
    direction: Mapped[int] = mapped_column(default=0)
    alarm: Mapped[int] = mapped_column(BigInteger, default=0)
    status: Mapped[int] = mapped_column(BigInteger, default=0)
    acc: Mapped[bool] = mapped_column(default=False)
    state: Mapped[str] = mapped_column(String(16), default="off")
    state_since: Mapped[datetime | None]
    mileage_km: Mapped[float | None] = mapped_column(Float)
    load_kg: Mapped[float | None] = mapped_column(Float)
    soc_pct: Mapped[float | None] = mapped_column(Float)
    lock_level: Mapped[int | None]
    speed_limit_kmh: Mapped[float | None] = mapped_column(Float)
    online: Mapped[bool] = mapped_column(default=False)
    last_seen: Mapped[datetime | None]
    driver_name: Mapped[str | None] = mapped_column(String(64))
    driver_card: Mapped[str | None] = mapped_column(String(32))
    #: The driver whose card the platform accepted (``pipeline.drivers``); null when no card was accepted (0019).
    driver_id: Mapped[int | None] = mapped_column(BigInteger)
    open_events: Mapped[str | None] = mapped_column(Text)  # JSON: kind -> event id of alarms in progress
    extra: Mapped[str | None] = mapped_column(Text)
    #: The time the terminal's wrong clock gave its latest report (migration 0008); null while its clock is right.
    clock_fault_time: Mapped[datetime | None]
    #: Since when its terminal is connected (migration 0026; null while offline): the abnormal list's ``no_position``
    #: counts a connected terminal's silence on positions from its last position, or from this when it sent none.
    online_since: Mapped[datetime | None]


class Event(IdMixin, TenantMixin, Base):
    """An alarm or a state event. Alarms with a duration stay open (``end_time`` null) until they clear.

    On PostgreSQL the table is partitioned like ``fics_position``, by tenant then by month of ``begin_time``
    (migration 0006), so retention drops whole months; its primary key is then (id, tenant_id, begin_time) - a
    partitioned table's key must hold the partition keys - and a statement on one event names all three, so that
    PostgreSQL looks in one partition (``store.TelemetryStore.close_event``). Ids stay unique (``next_id``).
    """

    __tablename__ = "fics_event"
    __table_args__ = (
        Index("ix_fics_event_vehicle_time", "vehicle_id", "begin_time"),
        # the alarm lists and the home page's latest alarms: a tenant's newest first, a page without sorting the week
        # (bench/fleet.py: a page of getCarAlarmInfoList from 264 ms to under 1 ms at 76,000 alarms a week)
        Index("ix_fics_event_tenant_time", "tenant_id", "begin_time"),
    )
    vehicle_id: Mapped[int] = mapped_column(BigInteger)
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    kind: Mapped[str] = mapped_column(String(32), index=True)
    level: Mapped[int] = mapped_column(default=1)
    begin_time: Mapped[datetime]
    end_time: Mapped[datetime | None]
    value: Mapped[float | None] = mapped_column(Float)
    max_value: Mapped[float | None] = mapped_column(Float)
    limit_value: Mapped[float | None] = mapped_column(Float)
    lat: Mapped[float | None] = mapped_column(Float)
    lon: Mapped[float | None] = mapped_column(Float)
    driver_name: Mapped[str | None] = mapped_column(String(64))
    detail: Mapped[str | None] = mapped_column(Text)
    create_time: Mapped[datetime] = mapped_column(default=utcnow)
    #: The driver on duty when it began (migration 0019): per-driver alarm counts (behaviour analysis).
    driver_id: Mapped[int | None] = mapped_column(BigInteger)


class DailyStat(TenantMixin, Base):
    """Per vehicle and local day: seconds in each state, distance and alarm counts (fleet-domain §4)."""

    __tablename__ = "fics_car_daily"
    vehicle_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    boot_s: Mapped[float] = mapped_column(Float, default=0.0)
    move_s: Mapped[float] = mapped_column(Float, default=0.0)
    load_s: Mapped[float] = mapped_column(Float, default=0.0)
    move_load_s: Mapped[float] = mapped_column(Float, default=0.0)
    lift_s: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")  # hydraulics working (0006)
    work_s: Mapped[float] = mapped_column(Float, default=0.0)
    distance_km: Mapped[float] = mapped_column(Float, default=0.0)
    collision_n: Mapped[int] = mapped_column(default=0)
    speeding_n: Mapped[int] = mapped_column(default=0)
    overload_n: Mapped[int] = mapped_column(default=0)
    fence_n: Mapped[int] = mapped_column(default=0)
    battery_n: Mapped[int] = mapped_column(default=0)
    fault_n: Mapped[int] = mapped_column(default=0)
    other_n: Mapped[int] = mapped_column(default=0)

    @property
    def idle_s(self) -> float:
        return max(0.0, self.boot_s - self.work_s)


class Command(IdMixin, TenantMixin, Base):
    """A command to a terminal: pending → sent → acknowledged | failed | timeout."""

    __tablename__ = "fics_command"
    __table_args__ = (Index("ix_fics_command_device_status", "device_number", "status"),)
    vehicle_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    device_number: Mapped[str] = mapped_column(String(20))
    msg_id: Mapped[int]
    name: Mapped[str] = mapped_column(String(64))
    payload: Mapped[str] = mapped_column(Text, default="{}")
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(default=0)
    serial: Mapped[int | None]
    result: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(String(255))
    create_user: Mapped[int | None] = mapped_column(BigInteger)
    create_time: Mapped[datetime] = mapped_column(default=utcnow)
    sent_time: Mapped[datetime | None]
    done_time: Mapped[datetime | None]
    expire_time: Mapped[datetime | None]


class FaceRecord(IdMixin, TenantMixin, Base):
    """One face comparison a terminal made (``faceRecognitionLog``): the face in front of the camera compared with
    the drivers' face templates the terminal holds (docs/protocol.md §4.2 type 0xF2, docs/mqtt.md ``face``).

    ``result`` 0 matched (``driver_id`` the driver whose card serial the terminal named), 1 no match, 2 no face
    in view; ``similarity`` 0-100 %; ``photo`` the terminal's reference of the picture (optional);
    ``trigger`` why it compared: 0 power-on, 1 periodic, 2 card inserted, 3 asked by the platform.
    ``mechanism_id`` / ``create_dept``: the vehicle's organisation when it was stored (data scopes)."""

    __tablename__ = "fics_face_record"
    __table_args__ = (Index("ix_fics_face_record_vehicle_time", "vehicle_id", "device_time"),)
    vehicle_id: Mapped[int] = mapped_column(BigInteger)
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    create_dept: Mapped[int | None] = mapped_column(BigInteger)
    device_number: Mapped[str | None] = mapped_column(String(20))
    driver_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    card_serial: Mapped[str | None] = mapped_column(String(10))
    result: Mapped[int] = mapped_column(default=0, index=True)
    similarity: Mapped[float | None] = mapped_column(Float)
    trigger: Mapped[int] = mapped_column(default=0)
    photo: Mapped[str | None] = mapped_column(String(255))
    device_time: Mapped[datetime] = mapped_column(index=True)
    create_time: Mapped[datetime] = mapped_column(default=utcnow)


class CanSample(Base):
    """What the J1939 frames of one CAN upload (JT/T 808 0x0705, MQTT ``can``) said, decoded (``telemetry.can``):
    one row per vehicle and time the frames arrived (``sample_time``, the server's: the frames carry no date), a
    column per parameter the monitor charts use, null when the upload did not carry it (migration 0023).

    On PostgreSQL partitioned like ``fics_position``, by tenant then by month of ``sample_time``, so that a tenant's
    retention drops whole months of it too (``store.PartitionKeeper``); the primary key (tenant, vehicle, time) is the
    index the charts read by."""

    __tablename__ = "fics_can_sample"
    tenant_id: Mapped[str] = mapped_column(String(12), primary_key=True)
    vehicle_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    sample_time: Mapped[datetime] = mapped_column(primary_key=True)
    engine_rpm: Mapped[float | None] = mapped_column(Float)  # SPN 190
    pedal_pct: Mapped[float | None] = mapped_column(Float)  # SPN 91
    load_pct: Mapped[float | None] = mapped_column(Float)  # SPN 92
    fuel_lph: Mapped[float | None] = mapped_column(Float)  # SPN 183
    air_kgh: Mapped[float | None] = mapped_column(Float)  # SPN 132
    dpf_dp_kpa: Mapped[float | None] = mapped_column(Float)  # SPN 3251
    soot_pct: Mapped[float | None] = mapped_column(Float)  # SPN 3719
    def_pct: Mapped[float | None] = mapped_column(Float)  # SPN 1761
