"""Vehicles and their electronic fences (their terminals are telemetry's: ``telemetry.models.Terminal``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Float, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from liftdesk.core.db import Base, BaseEntity, TenantMixin, utcnow


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
    # The authentication code the vehicle's terminal had on the old platform (imported with the vehicle): a
    # terminal that never registered here passes its first 0x0102 with this code only (telemetry/terminals.py).
    # Written, never answered.
    terminal_auth_code: Mapped[str | None] = mapped_column(String(64))


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


# --- Drivers (issue 14) -------------------------------------------------------------------------------------------
# One data model shared by the drivers' calls (``fleet/api/drivers*.py``), their papers and reminders, and the
# enforcement on the vehicle (telemetry reacts to ``fleet.events.DriverCardsChanged``).


class Driver(BaseEntity, TenantMixin, Base):
    """A driver (``personnel`` / ``driver``): the person, their licence, face photo and app account.

    ``mechanism_id`` is the organisation the driver belongs to (none: unbound from every organisation).
    ``license_valid_until`` is the licence's validity (the annual review expiry): a card is accepted on a vehicle
    only while it is not past. ``blacklisted`` drivers are refused on every vehicle.
    """

    __tablename__ = "fics_driver"
    name: Mapped[str] = mapped_column(String(32))
    sex: Mapped[int] = mapped_column(default=0)  # 0 unknown, 1 male, 2 female
    phone: Mapped[str] = mapped_column(String(20), index=True)  # a mobile number, required (spec 001 §5)
    job_number: Mapped[str | None] = mapped_column(String(32))
    position: Mapped[str | None] = mapped_column(String(32))
    age: Mapped[int | None]
    home_address: Mapped[str | None] = mapped_column(String(128))
    hometown: Mapped[str | None] = mapped_column(String(64))
    emergency_phone: Mapped[str | None] = mapped_column(String(20))
    work_type: Mapped[int | None]  # dictionary ``driver_work_type``
    entry_date: Mapped[datetime | None]
    medical_date: Mapped[datetime | None]
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    photo: Mapped[str | None] = mapped_column(String(500))
    # the driving licence
    license_number: Mapped[str | None] = mapped_column(String(32))
    license_type: Mapped[str | None] = mapped_column(String(32))
    license_issue_date: Mapped[datetime | None]
    license_valid_until: Mapped[datetime | None] = mapped_column(index=True)
    # the face photo (a file of the tenant's store) and whether it was issued to the vehicles' devices
    face_photo: Mapped[str | None] = mapped_column(String(500))
    face_issued: Mapped[int] = mapped_column(default=0)
    # the mini-program (app) account; the password is stored hashed (core.security)
    app_account: Mapped[str | None] = mapped_column(String(32))
    app_password: Mapped[str | None] = mapped_column(String(255))
    blacklisted: Mapped[int] = mapped_column(default=0)
    blacklist_reason: Mapped[str | None] = mapped_column(String(255))
    remark: Mapped[str | None] = mapped_column(String(255))


class DriverCard(BaseEntity, TenantMixin, Base):
    """An IC card. ``driver_id`` none: the card is unbound (kept for rebinding). ``card_kind`` 1 main, 2 sub.

    ``serial_number`` (exactly 10 digits) is what the card reader reports (0x0702) and is unique in the tenant among
    cards not deleted; ``password`` is the card's numeric PIN, which the terminal checks, so it is kept as given (never
    shown in lists).
    """

    __tablename__ = "fics_driver_card"
    __table_args__ = (
        # one live card per serial in a tenant, whatever runs at once
        Index(
            "ux_fics_driver_card_serial",
            "tenant_id",
            "serial_number",
            unique=True,
            sqlite_where=text("is_deleted = 0"),
            postgresql_where=text("is_deleted = 0"),
        ),
    )
    driver_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    card_kind: Mapped[int] = mapped_column(default=1)
    card_level: Mapped[int | None]
    card_number: Mapped[str] = mapped_column(String(32))
    serial_number: Mapped[str] = mapped_column(String(10), index=True)
    verify_mode: Mapped[int | None]
    password: Mapped[str | None] = mapped_column(String(16))


class DriverCar(TenantMixin, Base):
    """A driver authorized for a vehicle (at most 200 vehicles per driver)."""

    __tablename__ = "fics_driver_car"
    driver_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    vehicle_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False, index=True)
    create_time: Mapped[datetime] = mapped_column(default=utcnow)


class DriverApply(BaseEntity, TenantMixin, Base):
    """A driver's application (from the app): pending (0), approved (1) or rejected (2), with the audit note.

    Approval makes (or updates) the driver ``driver_id``.
    """

    __tablename__ = "fics_driver_apply"
    name: Mapped[str] = mapped_column(String(32))
    phone: Mapped[str] = mapped_column(String(20))
    job_number: Mapped[str | None] = mapped_column(String(32))
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    license_number: Mapped[str | None] = mapped_column(String(32))
    apply_status: Mapped[int] = mapped_column(default=0, index=True)
    audit_note: Mapped[str | None] = mapped_column(String(255))
    audit_user: Mapped[int | None] = mapped_column(BigInteger)
    audit_time: Mapped[datetime | None]
    driver_id: Mapped[int | None] = mapped_column(BigInteger)


# --- Driver papers and expiry reminders (issue 14; rules in ``fleet/papers.py``, the job in ``fleet/reminders.py``) --


class DriverPaper(BaseEntity, TenantMixin, Base):
    """A driver's certificate (``driverInfoPaper``): who holds it, what it is, its review, loan and archive states.

    ``mechanism_id`` (and ``create_dept``) is the holder's organisation: data scopes by organisation find a paper
    where its holder is. The three states (``audit_status``, ``loan_status``, ``archive_status``) change only through
    the transitions of ``fleet.papers.TRANSITIONS``; every change is written to ``DriverPaperLog``.
    """

    __tablename__ = "fics_driver_paper"
    driver_id: Mapped[int] = mapped_column(BigInteger, index=True)
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    paper_number: Mapped[str] = mapped_column(String(32))
    paper_type: Mapped[int] = mapped_column(default=1)  # dictionary ``paper_type``
    first_receive_date: Mapped[datetime | None]
    valid_until: Mapped[datetime | None] = mapped_column(index=True)
    issuing_authority: Mapped[str | None] = mapped_column(String(64))
    review_date: Mapped[datetime | None]  # the last periodic review (复审) of the certificate
    next_review_date: Mapped[datetime | None]
    remark: Mapped[str | None] = mapped_column(String(255))
    # review: 0 not submitted, 1 submitted, 2 first review passed, 3 failed, 4 second review passed, 5 failed
    audit_status: Mapped[int] = mapped_column(default=0, index=True)
    audit_note: Mapped[str | None] = mapped_column(String(255))
    submit_time: Mapped[datetime | None]
    first_audit_user: Mapped[int | None] = mapped_column(BigInteger)
    first_audit_time: Mapped[datetime | None]
    second_audit_user: Mapped[int | None] = mapped_column(BigInteger)
    second_audit_time: Mapped[datetime | None]
    # loan: 0 not lent, 1 lent (the current loan's organisation, purpose, dates, borrower's certificate and note)
    loan_status: Mapped[int] = mapped_column(default=0, index=True)
    loan_org: Mapped[str | None] = mapped_column(String(64))
    loan_purpose: Mapped[str | None] = mapped_column(String(255))
    loan_time: Mapped[datetime | None]
    loan_return_date: Mapped[datetime | None]
    loan_cert_number: Mapped[str | None] = mapped_column(String(32))
    loan_note: Mapped[str | None] = mapped_column(String(255))
    # archive: 0 in use, 1 archived (where, when, by whom)
    archive_status: Mapped[int] = mapped_column(default=0, index=True)
    archive_place: Mapped[str | None] = mapped_column(String(64))
    archive_note: Mapped[str | None] = mapped_column(String(255))
    archive_time: Mapped[datetime | None]
    archive_user: Mapped[int | None] = mapped_column(BigInteger)


class DriverPaperPicture(TenantMixin, Base):
    """A picture of a paper: an attachment of the tenant's file store (``blade_attach``), front (1), back (2) or
    other (3); at most 6 per paper."""

    __tablename__ = "fics_driver_paper_picture"
    paper_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    attach_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    side: Mapped[int] = mapped_column(default=3)
    sort: Mapped[int] = mapped_column(default=0)


class DriverPaperLog(TenantMixin, Base):
    """One change of a paper (its history; ``loanRecord`` reads the loans and returns): the event of
    ``fleet.papers.TRANSITIONS``, the states before and after, who, when, the note and, for a loan, its details."""

    __tablename__ = "fics_driver_paper_log"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    paper_id: Mapped[int] = mapped_column(BigInteger, index=True)
    event: Mapped[str] = mapped_column(String(16))
    from_state: Mapped[int | None]
    to_state: Mapped[int | None]
    note: Mapped[str | None] = mapped_column(String(255))
    loan_org: Mapped[str | None] = mapped_column(String(64))
    loan_purpose: Mapped[str | None] = mapped_column(String(255))
    loan_return_date: Mapped[datetime | None]
    loan_cert_number: Mapped[str | None] = mapped_column(String(32))
    user_id: Mapped[int | None] = mapped_column(BigInteger)
    user_name: Mapped[str | None] = mapped_column(String(64))
    create_time: Mapped[datetime] = mapped_column(default=utcnow)


class DriverReminder(BaseEntity, TenantMixin, Base):
    """An expiry reminder (``driverExpirationReminder``): a driver's licence (``source`` 1) or paper (2) that expires
    on ``expire_date`` (its local day), reached the threshold ``threshold`` (30, 7 or 0 days before). One row per
    source, expiry and threshold (the unique index keeps the daily job idempotent). ``remind_type`` 1 expiring soon,
    2 expired; ``remind_state`` 0 open, 1 ignored, 2 done (renewed, superseded by a later threshold, or gone).
    ``mechanism_id`` / ``create_dept``: the driver's organisation (data scopes)."""

    __tablename__ = "fics_driver_reminder"
    __table_args__ = (
        UniqueConstraint(
            "tenant_id", "source", "source_id", "expire_date", "threshold", name="ux_fics_driver_reminder"
        ),
    )
    source: Mapped[int] = mapped_column(default=1)
    source_id: Mapped[int] = mapped_column(BigInteger, index=True)
    driver_id: Mapped[int] = mapped_column(BigInteger, index=True)
    paper_id: Mapped[int | None] = mapped_column(BigInteger)
    mechanism_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    expire_date: Mapped[datetime] = mapped_column(index=True)
    threshold: Mapped[int] = mapped_column(default=30)
    remind_type: Mapped[int] = mapped_column(default=1, index=True)
    remind_state: Mapped[int] = mapped_column(default=0, index=True)
    ignore_user: Mapped[int | None] = mapped_column(BigInteger)
    ignore_time: Mapped[datetime | None]
