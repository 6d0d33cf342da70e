"""vehicle state: since when its terminal is connected (issue 13 part 4: online but silent on positions)

A terminal that is connected but sends no positions (heartbeats only: no GNSS fix, a misconfigured report interval)
shows online with a stale position. The abnormal list names it once its silence on positions lasts longer than the
tenant's ``telemetry.silentMinutes``, counted from its last position or, when it never sent one this connection, from
when it connected: ``online_since`` (null while offline).

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-27 02:40:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0026'
down_revision: str | None = '0025'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('fics_car_state', schema=None) as batch_op:
        batch_op.add_column(sa.Column('online_since', sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('fics_car_state', schema=None) as batch_op:
        batch_op.drop_column('online_since')
