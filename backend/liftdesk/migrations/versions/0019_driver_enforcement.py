"""drivers on the vehicle: card lists, identity reports, face recognition log (issue 14)

* ``driver_id`` on ``fics_position``, ``fics_car_state`` and ``fics_event``: the driver whose card the platform
  accepted (``telemetry.pipeline.drivers``), on the positions and alarms after it until a card-out or power-off.
  On PostgreSQL ``fics_position`` and ``fics_event`` are partitioned: ADD COLUMN on the parent reaches every
  partition (nullable, no default: no row is rewritten).
* ``fics_face_record``: the face comparisons terminals report (``faceRecognitionLog``).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26 19:30:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401


revision: str = '0019'
down_revision: str | None = '0018'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('fics_face_record',
    sa.Column('vehicle_id', sa.BigInteger(), nullable=False),
    sa.Column('mechanism_id', sa.BigInteger(), nullable=True),
    sa.Column('create_dept', sa.BigInteger(), nullable=True),
    sa.Column('device_number', sa.String(length=20), nullable=True),
    sa.Column('driver_id', sa.BigInteger(), nullable=True),
    sa.Column('card_serial', sa.String(length=10), nullable=True),
    sa.Column('result', sa.Integer(), nullable=False),
    sa.Column('similarity', sa.Float(), nullable=True),
    sa.Column('trigger', sa.Integer(), nullable=False),
    sa.Column('photo', sa.String(length=255), nullable=True),
    sa.Column('device_time', sa.DateTime(), nullable=False),
    sa.Column('create_time', sa.DateTime(), nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fics_face_record'))
    )
    with op.batch_alter_table('fics_face_record', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_fics_face_record_device_time'), ['device_time'], unique=False)
        batch_op.create_index(batch_op.f('ix_fics_face_record_driver_id'), ['driver_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_fics_face_record_mechanism_id'), ['mechanism_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_fics_face_record_result'), ['result'], unique=False)
        batch_op.create_index(batch_op.f('ix_fics_face_record_tenant_id'), ['tenant_id'], unique=False)
        batch_op.create_index('ix_fics_face_record_vehicle_time', ['vehicle_id', 'device_time'], unique=False)

    with op.batch_alter_table('fics_car_state', schema=None) as batch_op:
        batch_op.add_column(sa.Column('driver_id', sa.BigInteger(), nullable=True))

    with op.batch_alter_table('fics_event', schema=None) as batch_op:
        batch_op.add_column(sa.Column('driver_id', sa.BigInteger(), nullable=True))

    with op.batch_alter_table('fics_position', schema=None) as batch_op:
        batch_op.add_column(sa.Column('driver_id', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('fics_position', schema=None) as batch_op:
        batch_op.drop_column('driver_id')

    with op.batch_alter_table('fics_event', schema=None) as batch_op:
        batch_op.drop_column('driver_id')

    with op.batch_alter_table('fics_car_state', schema=None) as batch_op:
        batch_op.drop_column('driver_id')

    with op.batch_alter_table('fics_face_record', schema=None) as batch_op:
        batch_op.drop_index('ix_fics_face_record_vehicle_time')
        batch_op.drop_index(batch_op.f('ix_fics_face_record_tenant_id'))
        batch_op.drop_index(batch_op.f('ix_fics_face_record_result'))
        batch_op.drop_index(batch_op.f('ix_fics_face_record_mechanism_id'))
        batch_op.drop_index(batch_op.f('ix_fics_face_record_driver_id'))
        batch_op.drop_index(batch_op.f('ix_fics_face_record_device_time'))

    op.drop_table('fics_face_record')
