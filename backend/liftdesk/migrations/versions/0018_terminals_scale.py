"""terminals at scale (issue 11): the live state rows found by device number

Online marks, last-seen touches and driver changes find a vehicle's live state row by its terminal's device
number; without an index each of them scanned the table (10,000 terminals coming online: 10,000 scans).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26 19:30:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa  # noqa: F401
from alembic import op

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('fics_car_state', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_fics_car_state_device_number'), ['device_number'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('fics_car_state', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_fics_car_state_device_number'))
