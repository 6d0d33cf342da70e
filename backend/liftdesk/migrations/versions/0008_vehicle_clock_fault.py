"""vehicle state: the terminal's clock fault (the time its wrong clock gave the report shown live)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 03:00:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('fics_car_state', schema=None) as batch_op:
        batch_op.add_column(sa.Column('clock_fault_time', sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('fics_car_state', schema=None) as batch_op:
        batch_op.drop_column('clock_fault_time')
