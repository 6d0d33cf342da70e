"""Vehicles and their terminals."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Float, String
from sqlalchemy.orm import Mapped, mapped_column

from liftdesk.core.db import Base, BaseEntity, IdMixin, TenantMixin


class Vehicle(BaseEntity, TenantMixin, Base):
    """A vehicle (``carInfo``). ``mechanism_id`` is its organisation; ``device_number`` names its terminal."""

    __tablename__ = "fics_car_info"
    car_no: Mapped[str] = mapped_column(String(64))
    frame_number: Mapped[str | None] = mapped_column(String(64), index=True)
    zjh: Mapped[str | None] = mapped_column(String(64))
    device_number: Mapped[str | None] = mapped_column(String(20), index=True)
    sim_number: Mapped[str | None] = mapped_column(String(20))
    video_device: Mapped[str | None] = mapped_column(String(64))
    brand: Mapped[str | None] = mapped_column(String(64))
    model_number: Mapped[str | None] = mapped_column(String(64))
    factory_date: Mapped[datetime | None]
    register_date: Mapped[datetime | None]
    registrant: Mapped[str | None] = mapped_column(String(64))
    license_plate: Mapped[str | None] = mapped_column(String(32))
    engine_number: Mapped[str | None] = mapped_column(String(64))
    engine_brand: Mapped[str | None] = mapped_column(String(32))
    battery_number: Mapped[str | None] = mapped_column(String(32))
    battery_brand: Mapped[str | None] = mapped_column(String(32))
    battery_type: Mapped[str | None] = mapped_column(String(32))
    emission_type: Mapped[str | None] = mapped_column(String(32))
    environmental_code: Mapped[str | None] = mapped_column(String(64))
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    car_type: Mapped[int] = mapped_column(default=3)
    car_status: Mapped[int] = mapped_column(default=0)
    warranty_expiry: Mapped[datetime | None]
    rated_load_kg: Mapped[float | None] = mapped_column(Float)
    speed_limit_kmh: Mapped[float | None] = mapped_column(Float)
    collision_threshold_g: Mapped[float | None] = mapped_column(Float)
    overload_threshold_kg: Mapped[float | None] = mapped_column(Float)


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
    hardware_version: Mapped[str | None] = mapped_column(String(64))
    firmware_version: Mapped[str | None] = mapped_column(String(64))
    auth_code: Mapped[str | None] = mapped_column(String(64))
    online: Mapped[bool] = mapped_column(default=False)
    last_seen: Mapped[datetime | None]
    registered_at: Mapped[datetime | None]
