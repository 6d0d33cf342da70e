"""Vehicles and their electronic fences (their terminals are telemetry's: ``telemetry.models.Terminal``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Float, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from liftdesk.core.db import Base, BaseEntity, TenantMixin


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


class Fence(BaseEntity, TenantMixin, Base):
    """An electronic fence: a circle (centre + radius) or a polygon (``points``, JSON ``[[lon, lat], ...]``), WGS-84.

    ``area_id`` is the 32-bit id a terminal knows the area by (JT/T 808 0x8600/0x8604): assigned once from a
    per-tenant sequence when the fence is created and never changed, so updates and deletes reach the same area.
    """

    __tablename__ = "fics_fence"
    __table_args__ = (UniqueConstraint("tenant_id", "area_id"),)
    name: Mapped[str] = mapped_column(String(32))
    fence_type: Mapped[int] = mapped_column(default=1)  # 1 circle, 2 polygon
    alarm_mode: Mapped[int] = mapped_column(default=1)  # 1 in, 2 out, 3 boundary, 4 speed inside, 5 = 3 + 4
    enable_status: Mapped[int] = mapped_column(default=1)  # 1 enabled, 0 disabled
    speed_limit: Mapped[float | None] = mapped_column(Float)  # km/h
    center_lon: Mapped[float | None] = mapped_column(Float)
    center_lat: Mapped[float | None] = mapped_column(Float)
    radius_m: Mapped[float | None] = mapped_column(Float)
    points: Mapped[str | None] = mapped_column(Text)
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    remark: Mapped[str | None] = mapped_column(String(255))
    area_id: Mapped[int | None] = mapped_column(BigInteger)

    @property
    def radius(self) -> float | None:
        """The API calls the radius ``radius`` (metres)."""
        return self.radius_m


class FenceCar(TenantMixin, Base):
    """A vehicle bound to a fence."""

    __tablename__ = "fics_fence_car"
    fence_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    vehicle_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False, index=True)
